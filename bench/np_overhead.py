"""What the NumPy frontend adds per call: ``y = exp(x + 1)`` on a one-element array, through
``mx.np`` and through ``nd``.

Both frontends call the same registered operators (lesson 03), so an ``np`` call should cost
what the ``nd`` call costs.  Each framework runs in a fresh process (minimx on its
ThreadedEngine, MXNet 1.9.1 when $MINIMX_MXNET_PYTHON has it) and alternates its two frontends
round by round, keeping each one's best round; plain NumPy runs the same loop here.  Times are
microseconds per operation (two operations per iteration), all work finished.
"""
import time

import numpy as onp

from _util import best_of, fmt, print_table, ratio, run_minimx, run_mxnet

N, ROUNDS = 5000, 5
WORKLOAD = """
import time
from {lib} import nd, np
def per_op(module, x):
    nd.waitall()
    start = time.perf_counter()
    for _ in range({n}):
        y = module.exp(x + 1)
    nd.waitall()
    return (time.perf_counter() - start) / (2 * {n}) * 1e6
arrays = {{"nd": (nd, nd.ones((1,))), "np": (np, np.ones(1))}}
best = {{name: float("inf") for name in arrays}}
for _ in range({rounds} + 1):                    # the first round warms up
    for name, (module, x) in arrays.items():
        best[name] = min(best[name], per_op(module, x))
print(best["nd"], best["np"])
"""


def frontends(run, lib):
    """(nd, np) microseconds per op from one process of ``lib``, or (None, None)."""
    output = run(WORKLOAD.format(lib=lib, n=N, rounds=ROUNDS))
    if output is None:
        return None, None
    by_nd, by_np = output.split()[-2:]
    return float(by_nd), float(by_np)


def numpy_us():
    x = onp.ones(1, dtype=onp.float32)

    def per_op():
        start = time.perf_counter()
        for _ in range(N):
            y = onp.exp(x + 1)                      # noqa: F841
        return (time.perf_counter() - start) / (2 * N) * 1e6
    return best_of(ROUNDS, per_op)


def main():
    ours = frontends(lambda code: run_minimx(code, "ThreadedEngine"), "minimx")
    theirs = frontends(run_mxnet, "mxnet")
    figures = {"minimx nd": ours[0], "minimx np": ours[1], "MXNet 1.9.1 nd": theirs[0],
               "MXNet 1.9.1 np": theirs[1], "numpy": numpy_us()}
    rows = [(name, fmt(us, " us"), ratio(us, figures["numpy"]),
             ratio(us, figures[name.replace(" np", " nd")]) if name.endswith(" np") else "")
            for name, us in figures.items()]
    print_table(f"Per-op cost of y = exp(x + 1), x.shape == (1,), {N} iterations (frontends "
                f"alternating, best of {ROUNDS})", ("frontend", "time/op", "vs numpy",
                                                    "np vs nd"), rows)
    return figures


if __name__ == "__main__":
    main()
