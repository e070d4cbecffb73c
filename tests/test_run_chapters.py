"""tools/run_chapters.py: a folder of course chapters, each run through ``minimx.compat``, with
pass/fail, time and the result line of each (the tool a teacher points at their own course)."""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import run_chapters  # noqa: E402

CHAPTER = """# A chapter in the book's style

```{.python .input  n=1}
from mxnet import nd
x = nd.ones((2, 3))
```

Some text.

```{.python .input  n=2}
%matplotlib inline
print('epoch %d, loss %.1f, train acc %.2f' % (1, (x * 2).sum().asscalar(), 0.5))
print('done')
```
"""


def test_chapters_run_as_mxnet_code_and_report_their_figures(tmp_path, capsys):
    course = tmp_path / "course"
    course.mkdir()
    (course / "good.md").write_text(CHAPTER)
    (course / "bad.py").write_text("import mxnet as mx\nmx.nd.ones((2,)) + mx.nd.ones((3,))\n")
    (course / "empty.md").write_text("# text only\n")
    keep, results = tmp_path / "keep", tmp_path / "results.json"
    code = run_chapters.main([str(course), "--keep", str(keep), "--json", str(results),
                              "--python", sys.executable, "--timeout", "120"])
    printed = capsys.readouterr().out
    rows = {pathlib.Path(r["chapter"]).name: r["minimx"] for r in json.loads(results.read_text())}
    assert set(rows) == {"good.md", "bad.py"}            # a chapter without code is left out
    assert rows["good.md"]["ok"] and rows["good.md"]["last"] == \
        "epoch 1, loss 12.0, train acc 0.50"                 # the result line, not 'done'
    assert not rows["bad.py"]["ok"] and "broadcast" in rows["bad.py"]["last"].lower()
    assert "1 of 2 chapters ran to the end" in printed and code == 1
    output = (keep / "course__good.minimx.out").read_text()
    assert "done" in output.splitlines()
    assert "pass  # %matplotlib inline" in (keep / "course__good.py").read_text()


# -- d2lbook books: one framework tab of pages that hold several (--tab) ------------------------
import d2lbook_tabs  # noqa: E402

TABBED_PAGE = """# Squares, in whichever framework

```{.python .input}
%load_ext d2lbook.tab
tab.interact_select(['mxnet', 'pytorch', 'tensorflow'])
```

```{.python .input}
%%tab mxnet
from mxnet import nd
make = nd.array
```

```{.python .input}
%%tab pytorch
import torch
make = torch.tensor
```

```{.python .input}
#@tab tensorflow
import tensorflow as tf
make = tf.constant
```

```{.python .input}
#@tab all
def squares(n):
    if tab.selected('mxnet'):
        values = make(list(range(n)))
        total = (values * values).sum().asscalar()
    elif tab.selected('pytorch'):
        values = make(list(range(n)))

        total = (values * values).sum().item()
    else:
        total = sum(i * i for i in range(n))
    return total
```

```{.python .input}
%%tab all
framework = 'unknown'
if tab.selected('jax') or tab.selected('mxnet'):
    framework = 'mxnet or jax'
if tab.selected('pytorch', 'tensorflow'):
    framework = 'pytorch or tensorflow'
print('framework:', framework, 'squares:', squares(4))
```
"""

SHARED_ONLY_PAGE = """# Code every framework shares

```{.python .input}
%%tab all
print('plain Python')
```
"""


def make_book(root, tabs="pytorch, mxnet, tensorflow"):
    root.mkdir()
    (root / "config.ini").write_text(f"[project]\nname = toy\n\n[build]\ntabs = {tabs}\n")
    chapter = root / "chapter_squares"
    chapter.mkdir(parents=True)
    (chapter / "squares.md").write_text(TABBED_PAGE)
    (chapter / "shared.md").write_text(SHARED_ONLY_PAGE)
    return chapter


def test_a_cells_tabs_are_its_first_tab_line_else_its_tab_magic_else_the_default():
    assert d2lbook_tabs.cell_tabs("x = 1", "pytorch") == ["pytorch"]
    assert d2lbook_tabs.cell_tabs("%%tab mxnet, jax\nx = 1", "pytorch") == ["mxnet", "jax"]
    assert d2lbook_tabs.cell_tabs("%%tab pytorch\n#@tab mxnet\nx = 1", "pytorch") == ["mxnet"]
    assert d2lbook_tabs.cell_tabs("# a comment\n# @tab all\nx = 1", "pytorch") == ["all"]
    assert d2lbook_tabs.cell_for_tab("#@tab all, pytorch\nx = 1", "mxnet", "pytorch") is None
    assert d2lbook_tabs.cell_for_tab("#@tab all, mxnet\nx = 1", "mxnet", "pytorch") == "x = 1"


def test_the_default_tab_is_the_first_in_the_books_config(tmp_path):
    chapter = make_book(tmp_path / "book", tabs="MXNet, pytorch")
    assert d2lbook_tabs.default_tab(chapter / "squares.md") == "mxnet"
    (tmp_path / "loose.md").write_text(TABBED_PAGE)
    assert d2lbook_tabs.default_tab(tmp_path / "loose.md") is None


def test_a_tab_runs_its_own_and_the_shared_cells_with_its_branches(tmp_path):
    chapter = make_book(tmp_path / "book")
    cells = run_chapters.code_cells(chapter / "squares.md", tab="mxnet")
    assert cells == [
        "from mxnet import nd\nmake = nd.array",
        "def squares(n):\n    values = make(list(range(n)))\n"
        "    total = (values * values).sum().asscalar()\n    return total",
        "framework = 'unknown'\nframework = 'mxnet or jax'\n"
        "print('framework:', framework, 'squares:', squares(4))"]
    pytorch = run_chapters.code_cells(chapter / "squares.md", tab="pytorch")
    assert pytorch[0] == "import torch\nmake = torch.tensor"     # the tab chooser is dropped
    assert "\n\n    total = (values * values).sum().item()\n" in pytorch[1]
    assert pytorch[2].splitlines()[1] == "framework = 'pytorch or tensorflow'"
    tensorflow = run_chapters.code_cells(chapter / "squares.md", tab="tensorflow")
    assert "    total = sum(i * i for i in range(n))\n    return total" in tensorflow[1]
    assert tensorflow[2].splitlines()[1] == "framework = 'pytorch or tensorflow'"
    assert tensorflow[0] == "import tensorflow as tf\nmake = tf.constant"


def test_a_nested_branch_is_read_line_by_line_as_d2lbook_reads_it():
    lines = ["class Counter:",
             "    if tab.selected('mxnet', 'jax'):",
             "        def __init__(self):",
             "            self.count = 0",
             "        if tab.selected('jax'):",
             "            self.key = 1",
             "",
             "    def up(self):",
             "        self.count += 1"]
    common = ["class Counter:", "    def __init__(self):", "        self.count = 0"]
    ending = ["", "    def up(self):", "        self.count += 1"]
    # the nested branch's line loses four spaces, as every kept line: it lands in __init__
    assert d2lbook_tabs.resolve_tab_branches(lines, "jax") == \
        common + ["        self.key = 1"] + ending
    # the blank line belongs to the dropped branch before it
    assert d2lbook_tabs.resolve_tab_branches(lines, "mxnet") == common + ending[1:]
    assert d2lbook_tabs.resolve_tab_branches(lines, "pytorch") == ["class Counter:"] + ending[1:]


def test_a_page_of_shared_cells_alone_belongs_to_the_default_tab_only(tmp_path):
    chapter = make_book(tmp_path / "book")
    names = lambda tab: [path.name for path in run_chapters.chapters([chapter], tab)]  # noqa
    assert names("mxnet") == ["squares.md"]
    assert names("pytorch") == ["shared.md", "squares.md"]
    assert names("jax") == []                      # no cell names jax: no jax notebook
    assert names(None) == ["shared.md", "squares.md"]     # no tab: every code cell, as before


def test_tab_mode_runs_only_that_tab_and_lists_the_cells(tmp_path, capsys, monkeypatch):
    chapter = make_book(tmp_path / "book")
    (chapter / "helper.py").write_text("print('a script of the book, not a page')\n")
    assert run_chapters.main([str(chapter), "--tab", "mxnet", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [f"{chapter / 'squares.md'}: 3 cells, 2 all, 1 mxnet",
                      "1 chapters: 3 cells, 2 all, 1 mxnet"]
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    keep, results = tmp_path / "keep", tmp_path / "results.json"
    code = run_chapters.main([str(chapter), "--tab", "mxnet", "--keep", str(keep), "--json",
                              str(results), "--python", sys.executable, "--timeout", "120"])
    rows = json.loads(results.read_text())
    assert code == 0 and [pathlib.Path(row["chapter"]).name for row in rows] == ["squares.md"]
    assert rows[0]["minimx"]["ok"], rows[0]
    output = (keep / "chapter_squares__squares.minimx.out").read_text()
    assert output.splitlines() == ["framework: mxnet or jax squares: 14.0"]


def test_a_page_outside_a_book_needs_a_default_tab(tmp_path, capsys):
    (tmp_path / "loose.md").write_text(TABBED_PAGE)
    try:
        run_chapters.main([str(tmp_path), "--tab", "mxnet", "--list"])
    except SystemExit as exit_:
        assert exit_.code == 2
    assert "no config.ini" in capsys.readouterr().err
    assert run_chapters.main([str(tmp_path), "--tab", "mxnet", "--list",
                              "--default-tab", "pytorch"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 chapters: 3 cells, 2 all, 1 mxnet"


# -- the same edit on both sides (--sub), and a second minimx as the reference (--reference-compat)
EPOCHS_CHAPTER = """```{.python .input}
import sys
import mxnet
num_epochs = 50
for epoch in range(num_epochs):
    pass
print('epochs %d, loss %.1f, on %s' % (num_epochs, 0.5, mxnet.__name__))
```
"""


def test_a_sub_edits_every_script_alike_and_the_reference_can_be_minimx_too(tmp_path, capsys,
                                                                           monkeypatch):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "epochs.md").write_text(EPOCHS_CHAPTER)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    keep, results = tmp_path / "keep", tmp_path / "results.json"
    code = run_chapters.main([str(tmp_path / "course"), "--keep", str(keep), "--json",
                              str(results), "--python", sys.executable, "--timeout", "120",
                              "--sub", r"^num_epochs = \d+$", "num_epochs = 2",
                              "--reference", sys.executable, "--reference-compat"])
    row = json.loads(results.read_text())[0]
    assert code == 0 and row["edits"] == 1
    for side in ("minimx", "reference"):        # both ran the edited script through minimx
        assert row[side]["ok"] and row[side]["last"] == "epochs 2, loss 0.5, on minimx", row
        assert 0 < row[side]["cpu"] < 120      # the CPU time of that run's process alone
    assert "(1 edited)" in capsys.readouterr().out
    assert "num_epochs = 50" not in (keep / "course__epochs.py").read_text()
    assert run_chapters.edited("a = 1\nb = 1\n", [(r"^b = 1$", "b = 2")]) == ("a = 1\nb = 2\n", 1)


def test_a_sub_file_holds_the_edits_in_order_before_the_command_lines(tmp_path, capsys,
                                                                     monkeypatch):
    subs = tmp_path / "short.tsv"
    subs.write_text("# fewer epochs, then fewer still\n\n"
                    "^(num_epochs = )50$\t\\g<1>5\n"
                    "^(num_epochs = )5$\t\\g<1>1\n", encoding="utf-8")
    assert run_chapters.subs_of_file(subs) == [(r"^(num_epochs = )50$", r"\g<1>5"),
                                               (r"^(num_epochs = )5$", r"\g<1>1")]
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "epochs.md").write_text(EPOCHS_CHAPTER)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    keep = tmp_path / "keep"
    code = run_chapters.main([str(tmp_path / "course"), "--keep", str(keep), "--timeout", "120",
                              "--python", sys.executable, "--sub-file", str(subs),
                              "--sub", r"^num_epochs = 1$", "num_epochs = 3"])
    script = (keep / "course__epochs.py").read_text()
    assert code == 0 and "num_epochs = 3\n" in script and "num_epochs = 5" not in script
    assert "(3 edited)" in capsys.readouterr().out


def test_a_sub_file_line_without_one_tab_is_refused_with_its_number(tmp_path, capsys):
    subs = tmp_path / "short.tsv"
    subs.write_text("# a comment\n^num_epochs = 50$ num_epochs = 5\n", encoding="utf-8")
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "epochs.md").write_text(EPOCHS_CHAPTER)
    try:
        run_chapters.main([str(tmp_path / "course"), "--sub-file", str(subs)])
    except SystemExit as exit:
        assert exit.code == 2
    else:
        raise AssertionError("a line without a tab ran")
    assert "short.tsv, line 2: expected a regex, a tab and its replacement, got 0 tabs" \
        in capsys.readouterr().err


def test_the_d2l_page_runner_passes_its_subs_to_both_sides(tmp_path):
    """tools/run_d2l_pages.sh: leading ``--sub REGEX REPLACEMENT`` pairs shorten a page the
    same way on minimx and on the reference (issue 27's slow BERT pages)."""
    book = tmp_path / "book"
    make_book(book, tabs="mxnet")
    (book / "d2l").mkdir()
    (book / "d2l" / "mxnet.py").write_text("")
    page = book / "chapter_squares" / "epochs.md"
    page.write_text("```{.python .input}\nnum_epochs = 50\n"
                    "print('epochs %d, loss %.1f' % (num_epochs, 0.5))\n```\n")
    work = tmp_path / "work"
    (work / "files").mkdir(parents=True)
    (work / "files" / ".done").write_text("")             # no stand-ins needed
    script = str(ROOT / "tools" / "run_d2l_pages.sh")
    env = dict(os.environ, MINIMX_PYTHON=sys.executable, MXNET_PYTHON=sys.executable)
    ran = subprocess.run(["bash", script, "--sub", "^num_epochs = 50$", "num_epochs = 2",
                          str(work), str(page)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    row = json.loads((work / "out.json").read_text())[0]
    assert row["edits"] == 1
    for side in ("minimx", "reference"):
        assert row[side]["ok"] and row[side]["last"] == "epochs 2, loss 0.5", row
    refused = subprocess.run(["bash", script, "--sub", "^num_epochs"], env=env,
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--sub needs REGEX and REPLACEMENT" in refused.stderr
