"""What the NumPy frontend adds per call: ``y = exp(x + 1)`` on a one-element array, through
``mx.np`` and through ``nd``; and element access in a Python loop, through both.

Both frontends call the same registered operators (lesson 03), so an ``np`` call should cost
what the ``nd`` call costs.  Each framework runs in a fresh process (minimx on its
ThreadedEngine, MXNet 1.9.1 when $MINIMX_MXNET_PYTHON has it) and alternates its two frontends
round by round, keeping each one's best round; plain NumPy runs the same loop here.  Times are
microseconds per operation (two operations per iteration), all work finished.

Element access is what a student's loop does one element at a time: d2l's ``corr2d``
(``Y[i, j] = (X[i:i + h, j:j + w] * K).sum()``, 65,000 times on one page of the book), reads
``x[i, j]``, and the sync points that turn an array into a Python number (``float(x.sum())``,
``s.item()``, ``int(x[i, j])``; ``nd`` through ``asscalar()``: MXNet's ``nd`` arrays have no
``float()``).  ``np`` runs after ``npx.set_np()``, ``nd`` after ``npx.reset_np()``, alternating
in one process; minimx and MXNet alternate process by process
(``best_of_rounds``), and PyTorch's CPU tensors run the same loop where it is installed.
"""
import json
import subprocess
import time

import numpy as onp

from _util import (best_of, best_of_rounds, fmt, print_table, ratio, run_minimx, run_mxnet,
                   torch_python)

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


# The element-access loop, as program text; a prelude defines ROUNDS, finish() (wait for all
# work) and MODES: name -> (zeros, array, enter the mode, float, int, item): MXNet's nd
# arrays have no float(), int() or item(), so nd's three go through asscalar()
ACCESS = """
import json, time


def corr2d(X, K, zeros):
    h, w = K.shape
    Y = zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


def timed(loop, units):
    finish()
    start = time.perf_counter()
    loop()
    finish()
    return (time.perf_counter() - start) / units * 1e6


def figures_of(zeros, array, to_float, to_int, item):
    small = array([[float(8 * i + j) for j in range(8)] for i in range(6)])
    large = array([[float((32 * i + j) % 7) for j in range(32)] for i in range(32)])
    kernel = array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    total = small.sum()
    places = [(i, j) for i in range(6) for j in range(8)]

    def corr2d_small():
        for _ in range(10):
            corr2d(small, kernel, zeros)

    def reads():
        for _ in range(20):
            for i, j in places:
                small[i, j]

    def floats():
        for _ in range(200):
            to_float(small.sum())

    def items():
        for _ in range(500):
            item(total)

    def ints():
        for _ in range(10):
            for i, j in places:
                to_int(small[i, j])
    return {"corr2d 6x8, 3x3 kernel (ms)": timed(corr2d_small, 10) / 1e3,
            "corr2d 32x32, 3x3 kernel (ms)": timed(lambda: corr2d(large, kernel, zeros), 1) / 1e3,
            "x[i, j] read (us)": timed(reads, 20 * len(places)),
            "float(x.sum()) (us)": timed(floats, 200),
            "s.item() of a computed s (nd: asscalar) (us)": timed(items, 500),
            "int(x[i, j]) (us)": timed(ints, 10 * len(places))}


best = {}
for round in range(ROUNDS + 1):                 # the first round warms up
    for mode, (zeros, array, enter, *numbers) in MODES.items():
        enter()
        for key, value in figures_of(zeros, array, *numbers).items():
            if round:
                best[mode + ": " + key] = min(best.get(mode + ": " + key, 1e30), value)
print(json.dumps(best))
"""
ACCESS_ROUNDS = 3           # per process; minimx and MXNet run ACCESS_ROUNDS processes each
FRAMEWORK_PRELUDE = f"""
ROUNDS = {ACCESS_ROUNDS}
from {{lib}} import nd, np, npx
MODES = {{{{"np": (np.zeros, np.array, npx.set_np, float, int, lambda s: s.item()),
          "nd": (nd.zeros, nd.array, npx.reset_np, lambda s: float(s.asscalar()),
                 lambda s: int(s.asscalar()), lambda s: s.asscalar())}}}}
finish = nd.waitall
"""
TORCH_PRELUDE = f"""
ROUNDS = {ACCESS_ROUNDS}
import torch
MODES = {{"torch": (torch.zeros, torch.tensor, lambda: None, float, int, lambda s: s.item())}}
finish = lambda: None
"""


def element_access():
    """``(minimx's, MXNet's, PyTorch's)`` element-access figures, keyed ``"np: <row>"``,
    ``"nd: <row>"``, ``"torch: <row>"``; MXNet's and PyTorch's empty where they are absent."""
    escaped = ACCESS.replace("{", "{{").replace("}", "}}")    # best_of_rounds formats {lib}
    ours, theirs = best_of_rounds(FRAMEWORK_PRELUDE + escaped, ACCESS_ROUNDS)
    return ours, theirs, torch_access()


def torch_access():
    python = torch_python()
    if python is None:
        return {}
    finished = subprocess.run([python, "-c", TORCH_PRELUDE + ACCESS], capture_output=True,
                              text=True)
    if finished.returncode != 0:
        return {}
    return json.loads(finished.stdout.strip().splitlines()[-1])


def access_rows(ours, theirs, torch):
    """Table rows: row, minimx np, MXNet np, ratio, minimx nd, MXNet nd, ratio, PyTorch."""
    rows = []
    for key in (key[len("np: "):] for key in ours if key.startswith("np: ")):
        figures = [ours.get("np: " + key), theirs.get("np: " + key), ours.get("nd: " + key),
                   theirs.get("nd: " + key), torch.get("torch: " + key)]
        rows.append((key, fmt(figures[0]), fmt(figures[1]), ratio(figures[0], figures[1]),
                     fmt(figures[2]), fmt(figures[3]), ratio(figures[2], figures[3]),
                     fmt(figures[4])))
    return rows


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
    access = element_access()
    print_table(f"Element access in a Python loop, all work finished (np: after npx.set_np(), "
                f"nd: after npx.reset_np(); best of {ACCESS_ROUNDS} processes x "
                f"{ACCESS_ROUNDS} rounds)",
                ("row", "minimx np", "MXNet np", "ratio", "minimx nd", "MXNet nd", "ratio",
                 "PyTorch CPU"), access_rows(*access))
    figures["element access"] = access
    return figures


if __name__ == "__main__":
    main()
