"""The framework tabs of a d2lbook book (*Dive into Deep Learning*): which code cells belong to a
tab, and each cell's code as that tab runs it.  ``tools/run_chapters.py --tab mxnet`` uses it.

A book written with d2lbook keeps the code of several frameworks in one Markdown page.  Its
rules, as d2lbook applies them when it builds one notebook per tab:

* a code cell's tabs are named by its first ``#@tab X, Y`` line, else by a ``%%tab X, Y``
  line, else the cell belongs to the book's default tab: the first of ``tabs`` in the
  ``[build]`` section of the book's ``config.ini`` (found by walking up from the page);
* a page has a notebook for tab T when T is the default tab or one of its cells names T
  (a page of ``all`` cells alone is the default tab's only);
* a cell runs for tab T when its tabs are exactly ``all`` or name T; its ``#@tab`` /
  ``%%tab`` lines are dropped, and so is a cell that loads the tab extension
  (``%load_ext d2lbook.tab``), the book's tab chooser;
* inside a cell, ``if tab.selected('mxnet', 'pytorch'):`` keeps its block when the line
  names T (``tab.selected('a') or tab.selected('b')`` names both), and drops it otherwise.
  d2lbook reads this line by line, not as Python: the block ends at the first line indented
  no deeper than the ``if``, a kept line loses four spaces however deep it is, and a nested
  ``if tab.selected`` starts a new block.  The book's code is written for that reading (in
  a kept block, a nested branch's lines land one level deeper than Python would put them,
  and the book means them there), so it is followed here exactly.  An ``elif
  tab.selected(...)`` or ``else:`` continuing the chain, which d2lbook leaves alone, is
  resolved too: the first branch that names T is kept, ``else`` when none did.
"""
import configparser
import pathlib
import re

# d2lbook's own patterns: spaces (not newlines) around the mark, names are words and commas
TAB_MARK = re.compile(r"# *@tab +([\w, ]+)")
TAB_MAGIC = re.compile(r"%%tab +([\w, ]+)")
TAB_EXTENSION = "%load_ext d2lbook.tab"
BRANCH = re.compile(r"^ *(if|elif)\b(.*\btab\.selected\(.*):\s*(#.*)?$")
ELSE = re.compile(r"^ *(else)\s*:\s*(#.*)?$")
INDENT = 4              # what a kept branch's lines lose, however deep (d2lbook's rule)


def default_tab(chapter):
    """The first of ``tabs`` in the nearest ``config.ini`` above ``chapter``, or None."""
    for folder in pathlib.Path(chapter).resolve().parents:
        config_file = folder / "config.ini"
        if config_file.is_file():
            config = configparser.ConfigParser(interpolation=None)
            config.read(config_file, encoding="utf-8")
            tabs = config.get("build", "tabs", fallback="")
            names = [name.strip().lower() for name in tabs.split(",") if name.strip()]
            if names:
                return names[0]
    return None


def cell_tabs(cell, default):
    """The tabs one code cell belongs to (``['all']`` for every tab)."""
    match = TAB_MARK.search(cell) or TAB_MAGIC.search(cell)
    if match is None:
        return [default]
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def cell_for_tab(cell, tab, default):
    """The code of ``cell`` as tab ``tab`` runs it, or None when the cell is not for ``tab``."""
    tabs = cell_tabs(cell, default)
    if (tabs != ["all"] and tab not in tabs) or TAB_EXTENSION in cell:
        return None
    lines = [line for line in cell.splitlines()
             if not (TAB_MARK.search(line) or TAB_MAGIC.search(line))]
    return "\n".join(resolve_tab_branches(lines, tab))


def cells_for_tab(cells, tab, default):
    """The code cells of one page as tab ``tab`` runs them, in order; none when d2lbook builds
    no notebook of the page for ``tab``."""
    if tab != default and not any(tab in cell_tabs(cell, default) for cell in cells):
        return []
    selected = (cell_for_tab(cell, tab, default) for cell in cells)
    return [cell for cell in selected if cell is not None]


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _names(condition, tab):
    """Whether an ``if tab.selected(...)`` condition names ``tab`` (d2lbook's reading)."""
    return f"'{tab}'" in condition or f'"{tab}"' in condition


def _branch(line):
    """``(keyword, condition)`` of an ``if``/``elif tab.selected(...):`` or an ``else:`` line."""
    match = BRANCH.match(line)
    if match:
        return match.group(1), match.group(2)
    match = ELSE.match(line)
    return ("else", "") if match else None


def resolve_tab_branches(lines, tab):
    """``lines`` with each ``if tab.selected(...)`` branch kept (one level of indent out) or
    dropped for ``tab``, read line by line as d2lbook reads them."""
    kept, keep, indent, taken = [], None, 0, False     # keep: None outside a branch
    for line in lines:
        branch = _branch(line)
        if branch is not None and (branch[0] == "if" or
                                   (keep is not None and _indent(line) == indent)):
            keyword, condition = branch
            taken = taken and keyword != "if"             # a new chain, or its elif / else
            keep = not taken and (keyword == "else" or _names(condition, tab))
            taken = taken or keep
            indent = _indent(line)
            continue
        if keep is not None and line.strip() and _indent(line) <= indent:
            keep = None                                   # the branch has ended
        if keep is None:
            kept.append(line)
        elif keep:
            kept.append(line[INDENT:])
    return kept
