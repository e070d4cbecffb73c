"""Course workloads end to end, minimx beside MXNet 1.9.1, idle and under a background load.

    .venv/bin/python bench/course_workloads.py [--rounds 3] [--only NAME] [--no-load]

Every program of ``course_programs.py`` runs in a fresh process of each framework; the
two frameworks take turns, program by program, ``--rounds`` times, and the best time of
each is kept (the least disturbed run).  Then the same again while one core is kept busy
by another process (``_load.py``), which the benchmark starts and stops itself.  Seconds
for the timed part of each program (its imports and data building are not timed), and
the ratio minimx / MXNet; the last column is how much the load slowed minimx down.
"""
import argparse
import os
import statistics
import subprocess
import sys

from _load import background_load
from _util import REPO, mxnet_python, print_table
from course_programs import PROGRAMS


def run_program(text, lib, timeout=900):
    """Seconds the program reports, or None (with its last error line) if it failed."""
    python = sys.executable if lib == "minimx" else mxnet_python()
    if python is None:
        return None
    env = dict(os.environ, PYTHONPATH=REPO) if lib == "minimx" else dict(os.environ)
    finished = subprocess.run([python, "-c", text.format(lib=lib)], capture_output=True,
                              text=True, timeout=timeout, env=env, cwd=REPO)
    if finished.returncode != 0:
        lines = finished.stderr.strip().splitlines()
        print(f"{lib} failed: {lines[-1] if lines else finished.returncode}", file=sys.stderr)
        return None
    return float(finished.stdout.strip().splitlines()[-1])


def measure(programs, rounds):
    """{(program, lib): best seconds} with the two frameworks interleaved."""
    best = {}
    for _ in range(rounds):
        for name, text in programs.items():
            for lib in ("minimx", "mxnet"):
                seconds = run_program(text, lib)
                if seconds is not None:
                    best[name, lib] = min(seconds, best.get((name, lib), float("inf")))
    return best


def _ratio(figures, name):
    mine, theirs = figures.get((name, "minimx")), figures.get((name, "mxnet"))
    return mine / theirs if mine and theirs else None


def report(results, programs):
    rows = []
    for name in programs:
        idle, busy = results["idle"], results.get("busy", {})
        row = [name]
        for figures in (idle, busy):
            for lib in ("minimx", "mxnet"):
                value = figures.get((name, lib))
                row.append("-" if value is None else f"{value:.2f} s")
            value = _ratio(figures, name)
            row.append("-" if value is None else f"{value:.2f}x")
        slow = (busy.get((name, "minimx")) or 0) / (idle.get((name, "minimx")) or 1)
        row.append(f"{slow:.2f}x" if busy else "-")
        rows.append(tuple(row))
    print_table("Course workloads (best of the rounds; seconds of the timed part)",
                ("program", "idle minimx", "idle MXNet", "ratio", "busy minimx", "busy MXNet",
                 "ratio", "busy/idle minimx"), rows)
    for machine, figures in results.items():
        ratios = [r for r in (_ratio(figures, name) for name in programs) if r is not None]
        if ratios:
            print(f"{machine}: median ratio to MXNet {statistics.median(ratios):.2f}x, "
                  f"largest {max(ratios):.2f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="run the programs whose name contains this")
    parser.add_argument("--no-load", action="store_true", help="skip the loaded run")
    args = parser.parse_args(argv)
    programs = {name: text for name, text in PROGRAMS.items()
                if not args.only or args.only.lower() in name.lower()}
    results = {"idle": measure(programs, args.rounds)}
    if not args.no_load:
        with background_load():
            results["busy"] = measure(programs, args.rounds)
    report(results, programs)
    return results


if __name__ == "__main__":
    main()
