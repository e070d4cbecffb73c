"""Run a course's MXNet chapters on minimx (and on MXNet beside it): pass/fail and time each.

    .venv/bin/python tools/run_chapters.py PATH... [--reference PYTHON] [--timeout S]
                                           [--keep DIR] [--json FILE] [--env K=V ...]
                                           [--tab NAME [--default-tab NAME]] [--list]
                                           [--sub REGEX REPLACEMENT ...] [--sub-file FILE]
                                           [--reference-compat]

Each PATH is a chapter or a folder of them: a ``.py`` script, a ``.ipynb`` notebook or a
Markdown chapter (``.md``) whose code cells are fenced as ```` ```python ````,
```` ```{.python .input} ```` (Dive into Deep Learning's style) or ```` ```{code-cell} ````.
A notebook's or chapter's code cells become one script, in order (IPython magics and shell
lines left out).  Every script runs in a fresh process, in its own folder (so relative data
paths work), with ``MPLBACKEND=Agg``, through ``python -m minimx.compat`` -- so
``import mxnet`` imports minimx -- under a time limit.

``--tab mxnet`` reads a book made with d2lbook (*Dive into Deep Learning*, whose pages hold
the code of several frameworks) as d2lbook builds that tab's notebooks: only the pages that
have one, only the cells of that tab, each with its ``tab.selected`` branches resolved (the
rules: ``tools/d2lbook_tabs.py``; the default tab comes from the book's ``config.ini``, else
from ``--default-tab``; the book's ``.py`` files are left out).  Without ``--tab`` every code
cell runs.  ``--list`` prints the chapters and their cells and runs nothing.

``--reference PYTHON`` also runs every script with that interpreter as it is (a venv with
MXNet 1.9.1), interleaved with the minimx run (which side goes first alternates from chapter
to chapter, so neither always finds the file cache warm), and prints both times and their
ratio.  Each run's CPU time (its process and the children it waited for, user + system) is
shown beside its wall time: on a shared machine it moves far less with the load.
``--env`` adds environment variables to the reference run only (``--env-both`` to both).
Each run shows the last line it printed that looks like a result (it names a loss, an accuracy,
a perplexity or an error: ``--figure`` changes the pattern), else its last line; a failing run
shows the last line of its error instead.  Everything a run printed is kept beside its script
(``NAME.minimx.out``, ``NAME.reference.out``).

``--reference-compat`` runs the reference through ``-m minimx.compat`` too: the two columns
are then minimx in two environments (a venv with numpy 1 beside one with numpy 2, say).
``--sub REGEX REPLACEMENT`` edits every generated script (``re.sub``, line-anchored ``^``/``$``)
before either side runs it -- the same edit on both sides, e.g. fewer epochs on a slow machine:
``--sub '^num_epochs = [0-9]+$' 'num_epochs = 1'``.  Each row says how many places were edited.
``--sub-file FILE`` reads such edits from a file, one a line, the regex and its replacement
separated by a tab (blank lines and lines starting with ``#`` are left out), so a shortening
of a whole book can be kept and rerun; they apply in the file's order, before any ``--sub``.
"""
import argparse
import ast
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

try:
    import resource                 # Unix: the CPU time of finished children
except ImportError:                 # pragma: no cover - Windows
    resource = None

import d2lbook_tabs

FENCE = re.compile(r"^```+\s*(\{\s*\.?python[^}]*\}|python3?|\{code-cell\}[^\n]*)\s*$")
CLOSING = re.compile(r"^```+\s*$")


def code_cells_of_markdown(text):
    """The Python code cells of a Markdown chapter, in order."""
    cells, current = [], None
    for line in text.splitlines():
        if current is None:
            match = FENCE.match(line.strip())
            if match and "output" not in match.group(1):
                current = []
        elif CLOSING.match(line.strip()):
            cells.append("\n".join(current))
            current = None
        else:
            current.append(line)
    return cells


def code_cells_of_notebook(text):
    notebook = json.loads(text)
    return ["".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            for cell in notebook.get("cells", []) if cell.get("cell_type") == "code"]


def without_magics(cell):
    """A cell without IPython's ``%magic`` / ``!shell`` lines (a ``%%`` cell magic drops the
    cell).  A cell that is valid Python stays as it is (``% (a, b)`` continuing a format)."""
    if cell.lstrip().startswith("%%"):
        return ""
    try:
        ast.parse(cell)
        return cell
    except SyntaxError:
        pass
    return "\n".join("pass  # " + line if line.startswith(("%", "!")) else line
                     for line in cell.splitlines())


def code_cells(path, tab=None, default_tab=None):
    """The code cells of a notebook or Markdown chapter, in order; with ``tab``, only those of
    that d2lbook tab, each as the tab runs it (``default_tab`` if the book names none)."""
    text = path.read_text(encoding="utf-8")
    cells = code_cells_of_notebook(text) if path.suffix == ".ipynb" else \
        code_cells_of_markdown(text)
    if tab is None:
        return cells
    default = d2lbook_tabs.default_tab(path) or default_tab
    if default is None:
        raise ValueError(f"{path}: no config.ini with a [build] tabs list above this chapter, "
                         f"so its cells without a #@tab line have no tab; pass --default-tab")
    return d2lbook_tabs.cells_for_tab(cells, tab, default)


def as_script(path, tab=None, default_tab=None):
    """The Python source to run for one chapter file."""
    if path.suffix == ".py":
        return path.read_text(encoding="utf-8")
    return "\n\n".join(f"# -- cell {index}\n{without_magics(cell)}"
                       for index, cell in enumerate(code_cells(path, tab, default_tab), 1))


def chapters(paths, tab=None, default_tab=None):
    """Every chapter file under the given paths, sorted; Markdown files without code (for
    ``tab``) left out."""
    found = []
    for given in paths:
        path = pathlib.Path(given)
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.suffix not in (".py", ".ipynb", ".md") or "_build" in file.parts:
                continue
            if file.suffix == ".py" and tab is not None:
                continue                   # a d2lbook book's scripts are its library, not pages
            if file.suffix != ".py" and not as_script(file, tab, default_tab).strip():
                continue
            found.append(file)
    return found


FIGURE = r"loss|acc|perplexity|error|困惑度"


def last_line(text, pattern=None):
    """The last non-empty line of ``text`` matching ``pattern`` (or the last one at all)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if pattern:
        lines = [line for line in lines if re.search(pattern, line, re.I)] or lines
    return lines[-1][:160] if lines else ""


def run_one(command, cwd, env, timeout, output, figure=FIGURE):
    """(ok, seconds, result line or error line) of one run; its output goes to ``output``."""
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        printed = error.stdout.decode() if isinstance(error.stdout, bytes) else error.stdout
        output.write_text(printed or "", encoding="utf-8")
        return False, time.perf_counter() - start, f"timeout after {timeout} s; last printed: " \
            f"{last_line(printed or '')}"
    seconds = time.perf_counter() - start
    output.write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        return False, seconds, last_line(done.stderr) or f"exit {done.returncode}"
    return True, seconds, last_line(done.stdout, figure)


def children_cpu_seconds():
    """User + system CPU time of this process's finished children so far (None on Windows).
    On a shared machine a run's CPU time moves far less with the load than its wall time."""
    if resource is None:
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def edited(script, subs):
    """``script`` with each ``(regex, replacement)`` of ``subs`` applied, and the number of
    places changed."""
    count = 0
    for pattern, replacement in subs:
        script, done = re.subn(pattern, replacement, script, flags=re.M)
        count += done
    return script, count


def subs_of_file(path):
    """The ``(regex, replacement)`` pairs of a ``--sub-file``: one a line, separated by a tab."""
    pairs = []
    for number, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise ValueError(f"--sub-file {path}, line {number}: expected a regex, a tab and "
                             f"its replacement, got {len(parts) - 1} tabs: {line!r}")
        pairs.append((parts[0], parts[1]))
    return pairs


def environment(extra):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    for item in extra:
        key, _, value = item.partition("=")
        env[key] = value
    return env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="chapter files or folders")
    parser.add_argument("--reference", help="an interpreter with MXNet, run beside minimx")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--keep", help="write the generated scripts into this folder")
    parser.add_argument("--json", help="write the results as JSON to this file")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment variable for the reference run")
    parser.add_argument("--env-both", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment variable for both runs")
    parser.add_argument("--python", default=sys.executable, help="minimx's interpreter")
    parser.add_argument("--figure", default=FIGURE,
                        help="regular expression of the output lines that report results")
    parser.add_argument("--tab", help="run only this framework tab of a d2lbook book")
    parser.add_argument("--default-tab", help="the tab of unmarked cells when no config.ini "
                                              "names the book's tabs")
    parser.add_argument("--sub", nargs=2, action="append", default=[],
                        metavar=("REGEX", "REPLACEMENT"),
                        help="edit every generated script the same way for both runs (re.sub)")
    parser.add_argument("--sub-file", action="append", default=[], metavar="FILE",
                        help="--sub edits read from a file: REGEX<tab>REPLACEMENT a line")
    parser.add_argument("--reference-compat", action="store_true",
                        help="run the reference through minimx.compat too (minimx in a second "
                             "environment)")
    parser.add_argument("--list", action="store_true",
                        help="print the chapters and their code cells, run nothing")
    options = parser.parse_args(argv)
    try:
        files = chapters(options.paths, options.tab, options.default_tab)
        subs = [pair for path in options.sub_file for pair in subs_of_file(path)] + options.sub
    except ValueError as error:
        parser.error(str(error))
    if not files:
        parser.error("no chapters found")
    if options.list:
        print(listing(files, options.tab, options.default_tab))
        return 0
    keep = (pathlib.Path(options.keep) if options.keep else pathlib.Path(tempfile.mkdtemp())).resolve()
    keep.mkdir(parents=True, exist_ok=True)
    minimx_env = environment(options.env_both)
    reference_env = environment(options.env_both + options.env)
    results = []
    for number, file in enumerate(files):
        script = keep / (re.sub(r"[^\w.-]", "_", f"{file.parent.name}__{file.stem}") + ".py")
        text, edits = edited(as_script(file, options.tab, options.default_tab), subs)
        script.write_text(text, encoding="utf-8")
        row = {"chapter": str(file), "edits": edits}
        runs = [("minimx", [options.python, "-m", "minimx.compat", str(script)], minimx_env)]
        if options.reference:
            through = ["-m", "minimx.compat"] if options.reference_compat else []
            runs.append(("reference", [options.reference, *through, str(script)],
                         reference_env))
        for label, command, env in runs[::-1] if number % 2 else runs:
            cpu_before = children_cpu_seconds()
            ok, seconds, line = run_one(command, file.parent, env, options.timeout,
                                        script.with_suffix(f".{label}.out"), options.figure)
            row[label] = {"ok": ok, "seconds": round(seconds, 2), "last": line}
            if cpu_before is not None:
                row[label]["cpu"] = round(children_cpu_seconds() - cpu_before, 2)
        results.append(row)
        print(format_row(row), flush=True)
    print(summary(results))
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps(results, indent=1))
    return 0 if all(r["minimx"]["ok"] or not r.get("reference", {"ok": True})["ok"]
                    for r in results) else 1


def listing(files, tab=None, default_tab=None):
    """One line per chapter: its code cells (with ``tab``: how many name it, how many are
    ``all`` cells), and the totals."""
    lines, totals = [], collections.Counter()
    for file in files:
        if file.suffix == ".py":
            lines.append(f"{file}: a script")
            continue
        cells = code_cells(file, tab, default_tab)
        count = collections.Counter({"cells": len(cells)})
        if tab is not None:
            default = d2lbook_tabs.default_tab(file) or default_tab
            marks = [d2lbook_tabs.cell_tabs(cell, default) for cell in code_cells(file)]
            count["all"] = sum(tabs == ["all"] for tabs in marks)
            count[tab] = sum(tab in tabs for tabs in marks)
        totals += count
        totals["chapters"] += 1
        lines.append(f"{file}: " + ", ".join(f"{n} {k}" for k, n in count.items()))
    lines.append(f"{totals.pop('chapters', 0)} chapters: " +
                 ", ".join(f"{n} {k}" for k, n in totals.items()))
    return "\n".join(lines)


def format_row(row):
    mine = row["minimx"]
    text = f"{'PASS' if mine['ok'] else 'FAIL'} {mine['seconds']:8.1f} s{cpu_of(mine)}  " \
        f"{row['chapter']}"
    if row.get("edits"):
        text += f" ({row['edits']} edited)"
    reference = row.get("reference")
    if reference is not None:
        ratio = mine["seconds"] / reference["seconds"] if reference["seconds"] else 0
        text += (f"  | reference {'PASS' if reference['ok'] else 'FAIL'} "
                 f"{reference['seconds']:.1f} s{cpu_of(reference)}, ratio {ratio:.2f}x")
    text += f"\n      minimx: {mine['last']}"
    if reference is not None:
        text += f"\n      reference: {reference['last']}"
    return text


def cpu_of(run):
    return f" (cpu {run['cpu']:.1f} s)" if run.get("cpu") is not None else ""


def summary(results):
    passed = sum(r["minimx"]["ok"] for r in results)
    text = f"\nminimx: {passed} of {len(results)} chapters ran to the end"
    if all("reference" in r for r in results):
        both = [r for r in results if r["reference"]["ok"]]
        text += (f"; the reference ran {len(both)}, of which minimx ran "
                 f"{sum(r['minimx']['ok'] for r in both)}")
    return text


if __name__ == "__main__":
    sys.exit(main())
