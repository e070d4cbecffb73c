"""Compare the summaries of ``run_all.py`` runs of two versions of minimx, row by row.

    python bench/compare_runs.py --before OLD1.log OLD2.log --after NEW1.log NEW2.log

Each log is the whole output of one ``python bench/run_all.py``.  Run the two versions
interleaved (old, new, old, new) on the same machine, so that a change in the machine's load
falls on both.  For every summary row both versions print, the table shows minimx's best
figure of each version's runs (the smallest time, the largest rate), the change, and minimx's
ratio to the reference column of the same run (best of the runs): that ratio is measured
against MXNet a few seconds apart, so it is the steadier figure when the load moves.

A row counts as slower when minimx's own figure AND its ratio to the reference are both worse
by more than ``--tolerance`` (default 10 %); rows without a reference column are judged by the
figure alone.
"""
import argparse
import re

UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "MB": 1.0, "%": 1.0, "samples/s": 1.0}
HIGHER_IS_BETTER = ("samples/s",)
NUMBER = re.compile(r"^([0-9.e+-]+) (\S+)$")


def summary_rows(path):
    """{measure: (minimx figure, unit, reference figure or None)} of one log's Summary."""
    lines = open(path, encoding="utf-8").read().splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "Summary"]
    if not starts:
        raise SystemExit(f"{path}: no Summary table (a run that did not finish?)")
    start = starts[-1]
    rule = lines[start + 2]
    columns = [match.span() for match in re.finditer(r"-+", rule)]
    rows = {}
    for line in lines[start + 3:]:
        if not line.strip():
            break
        cells = [line[a:b + 2].strip() if i + 1 < len(columns) else line[a:].strip()
                 for i, (a, b) in enumerate(columns)]
        measure, mine, reference = cells[0], NUMBER.match(cells[1]), NUMBER.match(cells[2])
        if mine is None or mine.group(2) not in UNITS:
            continue
        theirs = float(reference.group(1)) if reference and reference.group(2) == mine.group(2) \
            else None
        rows[measure] = (float(mine.group(1)), mine.group(2), theirs)
    return rows


def best(values, unit):
    return max(values) if unit in HIGHER_IS_BETTER else min(values)


def cost(value, unit):
    """A figure as a cost (bigger is worse), for ratios that read the same way on every row."""
    return 1.0 / value if unit in HIGHER_IS_BETTER else value


def compare(before_logs, after_logs, tolerance):
    before = [summary_rows(path) for path in before_logs]
    after = [summary_rows(path) for path in after_logs]
    common = [name for name in after[0] if all(name in runs for runs in before + after)]
    table = []
    for name in common:
        unit = after[0][name][1]
        old = best([runs[name][0] for runs in before], unit)
        new = best([runs[name][0] for runs in after], unit)
        change = cost(new, unit) / cost(old, unit)

        def ratio(runs):
            pairs = [runs_[name] for runs_ in runs if runs_[name][2]]
            if not pairs:
                return None
            return min(cost(mine, unit) / cost(theirs, unit) for mine, _, theirs in pairs)

        old_ratio, new_ratio = ratio(before), ratio(after)
        worse = change > 1 + tolerance
        if old_ratio and new_ratio:
            worse = worse and new_ratio / old_ratio > 1 + tolerance
        table.append((name, f"{old:.3g} {unit}", f"{new:.3g} {unit}", f"{change:.2f}x",
                      f"{old_ratio:.2f}x" if old_ratio else "",
                      f"{new_ratio:.2f}x" if new_ratio else "", "SLOWER" if worse else ""))
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", nargs="+", required=True)
    parser.add_argument("--after", nargs="+", required=True)
    parser.add_argument("--tolerance", type=float, default=0.10)
    args = parser.parse_args(argv)
    table = compare(args.before, args.after, args.tolerance)
    header = ("measure", "before", "after", "cost after/before",
              "before/ref", "after/ref", "")
    widths = [max(len(row[i]) for row in [header, *table]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *table]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    slower = [row[0] for row in table if row[-1]]
    print(f"\n{len(table)} rows compared; slower by more than {args.tolerance:.0%} "
          f"(own figure and ratio to the reference): {len(slower)}")
    return table


if __name__ == "__main__":
    main()
