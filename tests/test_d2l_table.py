"""tools/d2l_table.py: a run of the d2l page runner as a Markdown table of both sides."""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import d2l_table  # noqa: E402


def side(ok, seconds, last):
    return {"ok": ok, "seconds": seconds, "last": last}


def test_pages_show_both_sides_times_and_figures_and_a_later_run_replaces_a_page(
        tmp_path, capsys):
    keep = tmp_path / "keep"
    keep.mkdir()
    page = "/book/chapter_linear-regression/linear-regression-scratch.md"
    stem = keep / "chapter_linear-regression__linear-regression-scratch"
    stem.with_suffix(".minimx.out").write_text(
        "epoch 1\nd2l figure 1: train_loss = 0.0371944 at x = 2.9\n"
        "d2l figure 2: val_loss = 0.5 at x = 3\n")
    stem.with_suffix(".reference.out").write_text("d2l figure 1: train_loss = 0.05 at x = 3\n")
    other = "/book/chapter_optimization/sgd.md"
    first = [{"chapter": page, "edits": 0, "minimx": side(False, 9.0, "old"),
              "reference": side(True, 3.0, "")},
             {"chapter": other, "edits": 1, "minimx": side(False, 1.0, "ValueError: a | b"),
              "reference": side(True, 4.0, "\x1b[2Kloss 0.1")}]
    again = [{"chapter": page, "edits": 0, "minimx": side(True, 1.5, ""),
              "reference": side(True, 3.0, "")}]
    (tmp_path / "first.json").write_text(json.dumps(first))
    (tmp_path / "again.json").write_text(json.dumps(again))
    assert d2l_table.main([str(keep), str(tmp_path / "first.json"),
                           str(tmp_path / "again.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == ("| linear-regression/linear-regression-scratch | 1.5 | 3.0 | 0.50 | "
                        "1: train_loss 0.03719; 2: val_loss 0.5 | train_loss 0.05 |")
    assert lines[3] == ("| optimization/sgd (1 edited) | 1.0 | 4.0 | 0.25 | "
                        "FAIL: ValueError: a / b | loss 0.1 |")
    assert len(lines) == 4
