"""Per-operation overhead: a tiny ``y = x + 1`` (x of shape (1,)) pushed 10000 times, then waitall.

With one element the arithmetic is free, so the time per op is what the framework adds:
dispatch, dependency tracking, handing the op to a worker.  The same code runs on minimx
(ThreadedEngine, NaiveEngine) and MXNet 1.9.1, each in a fresh process, next to the
plain numpy call and PyTorch's CPU call when PyTorch is installed (in this
interpreter, or in $MINIMX_TORCH_PYTHON).
"""
import subprocess
import time

import numpy as np

from _util import (ADD_ONE_PER_OP, best_of, fmt, print_table, ratio, run_minimx, run_mxnet,
                   torch_python)

N = 10000
# nd's and np's arrays alternate, best of 5 each: "<nd us> <np us>"
WORKLOAD = """
import time
from {lib} import nd, np
""" + ADD_ONE_PER_OP + """
per_op(), per_op(np.ones)                 # warm-up: workers started, caches filled
best = [float("inf")] * 2
for _ in range(5):
    best = [min(best[0], per_op()), min(best[1], per_op(np.ones))]
print(*best)
"""


def minimx_us(engine_name):
    """(nd, np) microseconds per op on minimx's ``engine_name``."""
    output = run_minimx(WORKLOAD.format(lib="minimx", n=N), engine_name)
    return tuple(float(value) for value in output.split()[-2:])


def mxnet_us():
    """(nd, np) microseconds per op on MXNet 1.9.1, or (None, None) without it."""
    output = run_mxnet(WORKLOAD.format(lib="mxnet", n=N))
    return (None, None) if output is None else tuple(float(v) for v in output.split()[-2:])


def eager_us(x):
    """Best of 5 microseconds per ``y = x + 1`` for an eager array ``x`` (numpy, PyTorch)."""
    def per_op():
        start = time.perf_counter()
        for _ in range(N):
            y = x + 1                     # noqa: F841
        return (time.perf_counter() - start) / N * 1e6
    return best_of(5, per_op)


def numpy_us():
    return eager_us(np.ones((1,), dtype=np.float32))


# PyTorch's eager call, run by the interpreter that has torch (see ``torch_python``)
TORCH_WORKLOAD = """
import time, torch
x = torch.ones(1)
def per_op():
    start = time.perf_counter()
    for _ in range({n}):
        y = x + 1
    return (time.perf_counter() - start) / {n} * 1e6
per_op()
print(min(per_op() for _ in range(5)))
"""


def torch_us():
    python = torch_python()
    if python is None:
        return None
    finished = subprocess.run([python, "-c", TORCH_WORKLOAD.format(n=N)], capture_output=True,
                              text=True)
    return float(finished.stdout.split()[-1]) if finished.returncode == 0 else None


def main():
    threaded, naive, mxnet = minimx_us("ThreadedEngine"), minimx_us("NaiveEngine"), mxnet_us()
    figures = {"minimx ThreadedEngine": threaded[0], "minimx NaiveEngine": naive[0],
               "MXNet 1.9.1": mxnet[0], "minimx np, ThreadedEngine": threaded[1],
               "MXNet 1.9.1 np": mxnet[1], "numpy": numpy_us(), "PyTorch CPU": torch_us()}
    rows = [(name, fmt(us, " us"), ratio(us, figures["numpy"]),
             ratio(us, figures["MXNet 1.9.1 np" if " np" in name else "MXNet 1.9.1"]))
            for name, us in figures.items()]
    print_table(f"Per-op overhead of y = x + 1, x.shape == (1,), {N} ops (best of 5; np rows: "
                f"an mx.np array, alternating with nd's in one process)",
                ("framework", "time/op", "vs numpy", "vs MXNet (np: MXNet's np)"), rows)
    return figures


if __name__ == "__main__":
    main()
