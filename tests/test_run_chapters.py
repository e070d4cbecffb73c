"""tools/run_chapters.py: a folder of course chapters, each run through ``minimx.compat``, with
pass/fail, time and the result line of each (the tool a teacher points at their own course)."""
import json
import pathlib
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
