"""Seeded runs of d2l pages on minimx and on MXNet: is a figure's difference more than the
run-to-run spread of either side (issue 27)?

    python tools/d2l_seeds.py run WORK SEEDS PAGE.md... [--sub REGEX REPLACEMENT]...
    python tools/d2l_seeds.py table WORK > seeds.md

``run`` runs tools/run_d2l_pages.sh once per seed (SEEDS: ``0-7`` or ``0,3,5``) with the
line ``random.seed(k); numpy.random.seed(k); mx.random.seed(k)`` put after each page's
``from d2l import mxnet as d2l`` (both sides, through the runner's ``--sub``), and keeps
both sides' outputs as ``WORK/seeds/<page>/<k>.minimx.out`` and ``<k>.reference.out``
(further ``--sub`` edits pass on: a page shortened the same way on both sides).  A seed
fixes a page's random start, shuffling and masks on its own side only: the two sides draw
different numbers from one seed.  Some randomness stays unseeded (the order of a Python set
of strings, which d2l's CTRDataset numbers its features by, follows PYTHONHASHSEED).

``table`` prints, per page and figure (the last value of each ``d2l figure`` line,
``D2L_PRINT_FIGURES=1``), both sides' runs: count, mean, standard deviation and range, and
two tests of "the same distribution": Welch's t (means) and Mann-Whitney's U (ranks).  A
small p (say under 0.01) says the sides differ by more than their seeds move them; then
build both from one start (tests/gluon/test_same_start_same_curve.py) and find the step
where they part.
"""
import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from d2l_table import FIGURE, script_stem  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
SEED_AFTER = r"^from d2l import mxnet as d2l$"
SEED_LINE = ("from d2l import mxnet as d2l\\nimport random as _r, numpy as _onp, mxnet as _mx; "
             "_r.seed({k}); _onp.random.seed({k}); _mx.random.seed({k})")


def seeds_of(text):
    """``0-7`` -> 0..7; ``0,3,5`` -> 0, 3, 5 (and both mixed: ``0-2,9``)."""
    seeds = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds += range(int(low), int(high or low) + 1)
    return seeds


def run(work, seeds, pages, subs=()):
    work = pathlib.Path(work)
    for k in seeds:
        command = ["bash", str(HERE / "run_d2l_pages.sh"), "--sub", SEED_AFTER,
                   SEED_LINE.format(k=k)]
        for regex, replacement in subs:
            command += ["--sub", regex, replacement]
        env = dict(os.environ, JSON=str(work / "seeds" / f"run-{k}.json"))
        env.setdefault("D2L_PRINT_FIGURES", "1")
        (work / "seeds").mkdir(parents=True, exist_ok=True)
        subprocess.run(command + [str(work)] + [str(p) for p in pages], env=env, check=False)
        for page in pages:
            for side in ("minimx", "reference"):
                kept = work / "keep" / f"{script_stem(page)}.{side}.out"
                if kept.exists():
                    folder = work / "seeds" / script_stem(page)
                    folder.mkdir(exist_ok=True)
                    shutil.copyfile(kept, folder / f"{k}.{side}.out")
        print(f"seed {k}: done", flush=True)


def last_figures(output):
    """{label: the last value printed} of one kept output."""
    values = {}
    for line in output.read_text(errors="replace").splitlines():
        match = FIGURE.match(line.strip())
        if match:
            values[match.group(2)] = float(match.group(3))
    return values


def collect(folder):
    """{label: {side: {seed: value}}} of one page's seeded outputs."""
    found = {}
    for output in sorted(pathlib.Path(folder).glob("*.out")):
        seed, side = output.name.split(".")[:2]
        for label, value in last_figures(output).items():
            found.setdefault(label, {}).setdefault(side, {})[int(seed)] = value
    return found


def summary(values):
    if not values:
        return "-"
    spread = statistics.stdev(values) if len(values) > 1 else float("nan")
    return (f"{len(values)}: {statistics.mean(values):.4g} ± {spread:.2g} "
            f"({min(values):.4g}–{max(values):.4g})")


def same_distribution(ours, theirs):
    """Welch's t and Mann-Whitney's U p-values ('-' with fewer than three runs a side)."""
    if len(ours) < 3 or len(theirs) < 3:
        return "-", "-"
    from scipy import stats
    return (f"{stats.ttest_ind(ours, theirs, equal_var=False).pvalue:.2g}",
            f"{stats.mannwhitneyu(ours, theirs).pvalue:.2g}")


def table(work):
    lines = ["| page | figure | minimx: runs: mean ± sd (range) | MXNet: runs: mean ± sd "
             "(range) | Welch p | Mann-Whitney p |", "|---|---|---|---|---|---|"]
    for folder in sorted(p for p in (pathlib.Path(work) / "seeds").iterdir() if p.is_dir()):
        for label, sides in collect(folder).items():
            ours = list(sides.get("minimx", {}).values())
            theirs = list(sides.get("reference", {}).values())
            lines.append(f"| {folder.name} | {label} | {summary(ours)} | {summary(theirs)} | "
                         + " | ".join(same_distribution(ours, theirs)) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    running = commands.add_parser("run")
    running.add_argument("work")
    running.add_argument("seeds", type=seeds_of)
    running.add_argument("pages", nargs="+")
    running.add_argument("--sub", nargs=2, action="append", default=[])
    tabling = commands.add_parser("table")
    tabling.add_argument("work")
    options = parser.parse_args(argv)
    if options.command == "run":
        run(options.work, options.seeds, options.pages, options.sub)
    else:
        print(table(options.work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
