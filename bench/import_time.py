"""Start-up time: ``import minimx`` beside ``import mxnet`` and a bare ``python -c pass``.

    python bench/import_time.py [--rounds 7] [--against /path/to/other/checkout]

Every lesson, test process and DataLoader worker pays the import.  Each figure is the
wall time of a fresh interpreter running ``-c CODE`` (compiled ``.pyc`` files already
written by a first, untimed run), best of ``--rounds``, the programs interleaved so that
the machine's load touches them alike.  ``python -c pass`` is the floor every one of them
includes (the interpreter's own start, ``site``); it is printed beside them, never taken
off.  (Set ``PYTHONPYCACHEPREFIX`` to keep the ``.pyc`` files out of the checkouts.)
``--against`` times another checkout's ``import minimx`` in the same loop (the
main branch, to measure a change as a ratio on a loaded machine).
"""
import argparse
import os
import resource
import subprocess
import sys
import time

from _util import REPO, fmt, mxnet_python, print_table, ratio


def start_up_seconds(python, code, cwd):
    """(wall, CPU) seconds of one ``python -c code`` run in ``cwd`` (its ``minimx`` comes
    first).  The CPU time (user + system) is the steadier figure on a loaded machine."""
    env = dict(os.environ, PYTHONPATH=cwd)
    env.pop("PYTHONDONTWRITEBYTECODE", None)      # the first run writes the .pyc files
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, "-c", code], cwd=cwd, env=env, check=True)
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)


def programs(against=None):
    """label -> (interpreter, code, working directory)."""
    chosen = {"python -c pass": (sys.executable, "pass", REPO),
              "import minimx": (sys.executable, "import minimx", REPO)}
    if against:
        chosen["import minimx (" + os.path.basename(os.path.abspath(against)) + ")"] = (
            sys.executable, "import minimx", against)
    mxnet = mxnet_python()
    if mxnet:
        chosen["import mxnet"] = (mxnet, "import mxnet", REPO)
    return chosen


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--against", help="another checkout whose import minimx is timed too")
    options = parser.parse_args(argv)
    chosen = programs(options.against)
    for python, code, cwd in chosen.values():        # writes the .pyc files, untimed
        start_up_seconds(python, code, cwd)
    best = {label: (float("inf"), float("inf")) for label in chosen}
    for _ in range(options.rounds):
        for label, (python, code, cwd) in chosen.items():
            wall, cpu = start_up_seconds(python, code, cwd)
            best[label] = (min(best[label][0], wall), min(best[label][1], cpu))
    mxnet = best.get("import mxnet", (None, None))
    print_table(f"start-up, best of {options.rounds}",
                ("program", "wall", "/ import mxnet", "CPU", "/ import mxnet"),
                [(label, fmt(wall, " s"), ratio(wall, mxnet[0]), fmt(cpu, " s"),
                  ratio(cpu, mxnet[1])) for label, (wall, cpu) in best.items()])
    return best


if __name__ == "__main__":
    main()
