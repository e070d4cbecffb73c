"""What observing the engine costs: benchmark (a) of op_overhead.py with and without observers.

A tiny ``y = x + 1`` (x of shape (1,)) pushed 10000 times, then waitall, timed
per operation with: no subscriber (the engine skips building events), a bare
subscriber (``list.append``: the price of the events themselves), and the
engine queue view attached (``widgets.engine_queue.EngineTimeline`` recording,
with its live refresh thread rebuilding the view's data as in a notebook).
The modes alternate in one process, best of ``REPEATS``, so machine load
affects them alike.  Target: the view costs at most 2x the unobserved time.
"""
import os
import subprocess
import sys

from _util import REPO, fmt, print_table, ratio

N = 10000
REPEATS = 7
WORKLOAD = """
import time
import minimx as mx
from minimx import nd
from widgets.engine_queue import EngineTimeline

def loop():
    x = nd.ones((1,))
    nd.waitall()
    start = time.perf_counter()
    for _ in range({n}):
        y = x + 1
    nd.waitall()
    return (time.perf_counter() - start) / {n} * 1e6

def unobserved():
    return loop()

def bare_subscriber():
    events = []
    mx.engine.subscribe(events.append)
    try:
        return loop()
    finally:
        mx.engine.unsubscribe(events.append)

def queue_view():
    with EngineTimeline(display=False, live=True) as timeline:
        return loop()

modes = {{"none": unobserved, "bare": bare_subscriber, "view": queue_view}}
loop()                                   # warm-up: workers started, caches filled
best = {{name: float("inf") for name in modes}}
for _ in range({repeats}):
    for name, mode in modes.items():
        best[name] = min(best[name], mode())
print(best["none"], best["bare"], best["view"])
"""


def measure():
    """Best per-op microseconds: (no subscriber, bare subscriber, queue view attached)."""
    env = dict(os.environ, PYTHONPATH=REPO, MINIMX_ENGINE_TYPE="ThreadedEngine")
    code = WORKLOAD.format(n=N, repeats=REPEATS)
    output = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True, cwd=REPO).stdout
    none, bare, view = (float(value) for value in output.split()[-3:])
    return {"no subscriber": none, "bare subscriber (list.append)": bare,
            "engine queue view attached": view}


def main():
    figures = measure()
    base = figures["no subscriber"]
    rows = [(name, fmt(us, " us"), ratio(us, base)) for name, us in figures.items()]
    print_table(f"Observer overhead on y = x + 1, x.shape == (1,), {N} ops, ThreadedEngine "
                f"(best of {REPEATS}, modes interleaved)", ("observer", "time/op", "vs none"),
                rows)
    return figures


if __name__ == "__main__":
    main()
