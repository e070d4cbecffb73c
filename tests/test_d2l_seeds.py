"""tools/d2l_seeds.py: seeded runs of d2l pages on both sides, and their spread as a table."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import d2l_seeds  # noqa: E402


def test_seed_lists():
    assert d2l_seeds.seeds_of("0-3") == [0, 1, 2, 3]
    assert d2l_seeds.seeds_of("0,3,5") == [0, 3, 5]
    assert d2l_seeds.seeds_of("0-2,9") == [0, 1, 2, 9]


def test_the_seed_line_goes_after_the_d2l_import_and_seeds_all_three_generators():
    script = "from d2l import mxnet as d2l\nfrom mxnet import np\n"
    edited = re.sub(d2l_seeds.SEED_AFTER, d2l_seeds.SEED_LINE.format(k=7), script, flags=re.M)
    assert edited.splitlines() == [
        "from d2l import mxnet as d2l",
        "import random as _r, numpy as _onp, mxnet as _mx; _r.seed(7); _onp.random.seed(7); "
        "_mx.random.seed(7)",
        "from mxnet import np"]


def test_run_keeps_each_seeds_outputs_per_page(tmp_path, monkeypatch):
    page = "/book/chapter_recurrent-neural-networks/sequence.md"
    stem = "chapter_recurrent-neural-networks__sequence"
    calls = []

    def fake_run(command, env, check):
        calls.append((command, env["JSON"], env["D2L_PRINT_FIGURES"]))
        keep = tmp_path / "keep"
        keep.mkdir(exist_ok=True)
        seed = command[4].rsplit("seed(", 1)[1].rstrip(")")
        for side in ("minimx", "reference"):
            (keep / f"{stem}.{side}.out").write_text(
                f"d2l figure 1: val_loss = {seed}.5 at x = 5\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    d2l_seeds.run(tmp_path, [3, 4], [page], subs=[("^a$", "b")])
    assert [c[0][2:4] + c[0][5:] for c in calls] == [
        ["--sub", d2l_seeds.SEED_AFTER, "--sub", "^a$", "b", str(tmp_path), page]] * 2
    assert calls[0][1] == str(tmp_path / "seeds" / "run-3.json") and calls[0][2] == "1"
    kept = tmp_path / "seeds" / stem
    assert sorted(p.name for p in kept.iterdir()) == [
        "3.minimx.out", "3.reference.out", "4.minimx.out", "4.reference.out"]
    assert d2l_seeds.collect(kept) == {"val_loss": {"minimx": {3: 3.5, 4: 4.5},
                                                    "reference": {3: 3.5, 4: 4.5}}}


def test_table_gives_both_sides_spread_and_the_tests_of_one_distribution(tmp_path):
    folder = tmp_path / "seeds" / "chapter_x__page"
    folder.mkdir(parents=True)
    ours, theirs = [1.0, 1.1, 0.9, 1.05], [2.0, 2.1, 1.9, 2.05]
    for seed, (a, b) in enumerate(zip(ours, theirs)):
        (folder / f"{seed}.minimx.out").write_text(
            f"d2l figure 1: train_ppl = 9 at x = 1\nd2l figure 1: train_ppl = {a} at x = 2\n")
        (folder / f"{seed}.reference.out").write_text(f"d2l figure 1: train_ppl = {b} at x = 2\n")
    row = d2l_seeds.table(tmp_path).splitlines()[2]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[:4] == ["chapter_x__page", "train_ppl", "4: 1.012 ± 0.085 (0.9–1.1)",
                         "4: 2.013 ± 0.085 (1.9–2.1)"]
    assert float(cells[4]) < 1e-4                       # Welch: the means differ
    assert float(cells[5]) < 0.05                       # Mann-Whitney: every run apart
    # fewer than three runs a side: no tests
    for seed in (1, 2, 3):
        (folder / f"{seed}.reference.out").unlink()
    cells = d2l_seeds.table(tmp_path).splitlines()[2].strip("|").split("|")
    assert [c.strip() for c in cells[3:]] == ["1: 2 ± nan (2–2)", "-", "-"]
