"""What observing the engine costs: benchmark (a) of op_overhead.py with and without observers.

A tiny ``y = x + 1`` (x of shape (1,)) pushed 10000 times, then waitall, timed
per operation with: no subscriber (the engine skips building events), a bare
subscriber (``list.append``: the price of the events themselves), and the
engine queue view attached (``widgets.engine_queue.EngineTimeline`` recording,
with its live refresh thread rebuilding the view's data as in a notebook).
The modes alternate in one process, best of ``REPEATS``, so machine load
affects them alike.  Target: the view costs at most 2x the unobserved time.
"""
from _util import ADD_ONE_PER_OP, fmt, print_table, ratio, run_minimx

N = 10000
REPEATS = 7
WORKLOAD = """
import time
import minimx as mx
from minimx import nd
from widgets.engine_queue import EngineTimeline
""" + ADD_ONE_PER_OP + """
def unobserved():
    return per_op()

def bare_subscriber():
    events = []
    mx.engine.subscribe(events.append)
    try:
        return per_op()
    finally:
        mx.engine.unsubscribe(events.append)

def queue_view():
    with EngineTimeline(display=False, live=True) as timeline:
        return per_op()

modes = {{"none": unobserved, "bare": bare_subscriber, "view": queue_view}}
per_op()                                 # warm-up: workers started, caches filled
best = {{name: float("inf") for name in modes}}
for _ in range({repeats}):
    for name, mode in modes.items():
        best[name] = min(best[name], mode())
print(best["none"], best["bare"], best["view"])
"""


def measure():
    """Best per-op microseconds: (no subscriber, bare subscriber, queue view attached)."""
    output = run_minimx(WORKLOAD.format(n=N, repeats=REPEATS), "ThreadedEngine")
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
