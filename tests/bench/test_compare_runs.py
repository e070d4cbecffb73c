"""bench/compare_runs.py reads run_all.py's Summary tables and flags rows that got slower."""
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import compare_runs  # noqa: E402


def summary(rows):
    """A run_all-style log ending in a Summary table of (measure, minimx, reference)."""
    header = ("measure", "minimx", "reference", "ratio", "target")
    table = [header] + [(name, mine, theirs, "", "") for name, mine, theirs in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["detail tables ...", "", "Summary"]
    for row in [table[0], tuple("-" * w for w in widths), *table[1:]]:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    return "\n".join(lines) + "\n"


def write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text(summary(rows))
    return str(path)


def test_a_row_slower_on_its_own_and_against_the_reference_is_flagged(tmp_path):
    before = [write(tmp_path, "old1", [("x+1 per op", "10 us", "15 us"),
                                       ("Trainer", "3e+04 samples/s", "2.5e+04 samples/s")]),
              write(tmp_path, "old2", [("x+1 per op", "12 us", "15 us"),
                                       ("Trainer", "2e+04 samples/s", "2.5e+04 samples/s")])]
    after = [write(tmp_path, "new1", [("x+1 per op", "13 us", "15 us"),
                                      ("Trainer", "3.1e+04 samples/s", "2.5e+04 samples/s"),
                                      ("a new row", "1 ms", "1 ms")])]
    table = {row[0]: row for row in compare_runs.compare(before, after, 0.10)}
    assert set(table) == {"x+1 per op", "Trainer"}          # rows both versions print
    assert table["x+1 per op"][1:4] == ("10 us", "13 us", "1.30x")   # best of the old runs
    assert table["x+1 per op"][-1] == "SLOWER"
    assert table["Trainer"][-1] == ""                       # a higher rate is better


def test_a_slower_figure_is_not_flagged_when_the_reference_slowed_as_much(tmp_path):
    before = [write(tmp_path, "old", [("step", "1 ms", "1 ms")])]
    after = [write(tmp_path, "new", [("step", "1.5 ms", "1.5 ms")])]
    (row,) = compare_runs.compare(before, after, 0.10)
    assert row[3] == "1.50x" and row[4] == row[5] == "1.00x" and row[-1] == ""
