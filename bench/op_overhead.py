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
WORKLOAD = """
import time
from {lib} import nd
""" + ADD_ONE_PER_OP + """
per_op()                                  # warm-up: workers started, caches filled
print(min(per_op() for _ in range(5)))
"""


def minimx_us(engine_name):
    output = run_minimx(WORKLOAD.format(lib="minimx", n=N), engine_name)
    return float(output.split()[-1])


def mxnet_us():
    output = run_mxnet(WORKLOAD.format(lib="mxnet", n=N))
    return None if output is None else float(output)


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
    figures = {"minimx ThreadedEngine": minimx_us("ThreadedEngine"),
               "minimx NaiveEngine": minimx_us("NaiveEngine"),
               "MXNet 1.9.1": mxnet_us(), "numpy": numpy_us(), "PyTorch CPU": torch_us()}
    mxnet = figures["MXNet 1.9.1"]
    rows = [(name, fmt(us, " us"), ratio(us, figures["numpy"]), ratio(us, mxnet))
            for name, us in figures.items()]
    print_table(f"Per-op overhead of y = x + 1, x.shape == (1,), {N} ops (best of 5)",
                ("framework", "time/op", "vs numpy", "vs MXNet"), rows)
    return figures


if __name__ == "__main__":
    main()
