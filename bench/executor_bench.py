"""Graph executor: forward+backward of an MLP and a small CNN through ``simple_bind``.

Three ways to run the same graph, each timed per training step (forward with
``is_train=True``, backward, wait):
- planned executor: ``simple_bind`` once, then one engine push for forward and
  one for backward (the plan built by minimx/executor/plan.py);
- op by op: the same Symbol run node by node through ``nd`` under
  ``autograd.record`` (one engine push per operator, a tape for backward);
- MXNet 1.9.1's executor on the same graph (a subprocess; skipped without it), run
  alternately with the same program on minimx (``best_of_rounds``): the ratio to MXNet
  is taken between those two, measured side by side.
It also prints the executor's plan report: what each pass changed, planned
memory against keeping every intermediate.
"""
import inspect
import json
import time

import numpy as np

from _util import REPO, best_of_rounds, fmt, print_table, ratio  # noqa: F401  (REPO: sys.path)

import minimx as mx
from minimx import autograd, nd
from minimx.symbol.imperative import run_imperative


def mlp(mx):
    """784-256-128-10 with ReLU and a SoftmaxOutput head."""
    x = mx.sym.var("data")
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=256, name="fc1"), act_type="relu")
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=128, name="fc2"), act_type="relu")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=10, name="fc3"),
                                name="softmax")


def cnn(mx):
    """conv 3x3 (8) - BatchNorm - ReLU - max pool - conv 3x3 (16) - ReLU - pool - FC 10."""
    x = mx.sym.var("data")
    x = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name="conv1")
    x = mx.sym.Activation(mx.sym.BatchNorm(x, name="bn1"), act_type="relu")
    x = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max")
    x = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=16, name="conv2")
    x = mx.sym.Pooling(mx.sym.Activation(x, act_type="relu"), kernel=(2, 2), stride=(2, 2),
                       pool_type="max")
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(x, name="softmax")


WORKLOADS = [("MLP 784-256-128-10, batch 1", mlp, (1, 784)),
             ("MLP 784-256-128-10, batch 64", mlp, (64, 784)),
             ("CNN 2 conv + FC, batch 16, 1x28x28", cnn, (16, 1, 28, 28))]
STEPS, REPEATS = 20, 7


def _fill(arrays):
    rng = np.random.default_rng(0)
    for name, array in arrays.items():
        if name.endswith("label"):
            array[:] = rng.integers(0, 10, array.shape)
        elif name.endswith("moving_var"):
            array[:] = 1
        else:
            array[:] = rng.standard_normal(array.shape).astype(np.float32) * 0.1


def _timed(step):
    """Milliseconds per call of ``step`` over STEPS calls, waiting for the engine at the end."""
    start = time.perf_counter()
    for _ in range(STEPS):
        step()
    nd.waitall()
    return (time.perf_counter() - start) / STEPS * 1e3


def best_interleaved(steps):
    """{name: best ms per step}: the ways are timed in turn, so a busy moment of the
    machine slows all of them rather than one."""
    for step in steps.values():
        step()
    nd.waitall()
    times = {name: [] for name in steps}
    for _ in range(REPEATS):
        for name, step in steps.items():
            times[name].append(_timed(step))
    return {name: min(values) for name, values in times.items()}


def planned_step(symbol, shape):
    """A training step of the planned executor, and the executor."""
    executor = symbol.simple_bind(mx.cpu(), data=shape)
    _fill({**executor.arg_dict, **executor.aux_dict})

    def step():
        executor.forward(is_train=True)
        executor.backward()
    return step, executor


def op_by_op_step(symbol, executor):
    """A training step running ``symbol`` node by node through nd, on copies of the
    executor's arrays."""
    arrays = {name: array.copy() for name, array in {**executor.arg_dict,
                                                     **executor.aux_dict}.items()}
    for name in executor.grad_dict:
        if not name.endswith("label"):
            arrays[name].attach_grad()

    def step():
        with autograd.record():
            outputs = run_imperative(symbol, arrays)
        autograd.backward(outputs)
    return step


SIDE_BY_SIDE = """
import json, time, numpy as np, {{lib}} as mx
{source}
def per_step(builder, shape):
    executor = builder(mx).simple_bind(mx.cpu(), data=shape)
    rng = np.random.default_rng(0)
    for name, array in list(executor.arg_dict.items()) + list(executor.aux_dict.items()):
        if name.endswith('label'):
            array[:] = rng.integers(0, 10, array.shape)
        elif name.endswith('moving_var'):
            array[:] = 1
        else:
            array[:] = rng.standard_normal(array.shape).astype(np.float32) * 0.1
    def timed():
        start = time.perf_counter()
        for _ in range({steps}):
            executor.forward(is_train=True)
            executor.backward()
        mx.nd.waitall()
        return (time.perf_counter() - start) / {steps} * 1e3
    timed()
    return min(timed() for _ in range({repeats}))
print(json.dumps({{{{title: per_step(builder, shape) for title, builder, shape in {workloads}}}}}))
"""
ROUNDS = 3


def side_by_side_ms():
    """({title: ms}, {title: ms}): the planned executor on minimx and MXNet 1.9.1's, the same
    program run alternately in fresh processes, best of ROUNDS (MXNet's empty without it)."""
    source = inspect.getsource(mlp) + "\n" + inspect.getsource(cnn)
    workloads = "[" + ", ".join(f"({title!r}, {builder.__name__}, {shape})"
                                for title, builder, shape in WORKLOADS) + "]"
    return best_of_rounds(SIDE_BY_SIDE.format(source=source, steps=STEPS, repeats=REPEATS,
                                              workloads=workloads), ROUNDS)


def main():
    figures, reports = {}, {}
    for title, builder, shape in WORKLOADS:
        symbol = builder(mx)
        planned, executor = planned_step(symbol, shape)
        figures[title] = best_interleaved({"planned": planned,
                                           "op by op": op_by_op_step(symbol, executor)})
        reports[title] = (executor.plan_report(is_train=True), executor.plan_report())
    ours, theirs = side_by_side_ms()
    for title in figures:
        figures[title]["minimx, side by side"] = ours.get(title)
        figures[title]["MXNet 1.9.1"] = theirs.get(title)
    rows = [(title, fmt(f["planned"], " ms"), fmt(f["op by op"], " ms"),
             ratio(f["op by op"], f["planned"]), fmt(f["minimx, side by side"], " ms"),
             fmt(f["MXNet 1.9.1"], " ms"), ratio(f["minimx, side by side"], f["MXNet 1.9.1"]))
            for title, f in figures.items()]
    print_table(f"Forward+backward per training step (best of {REPEATS} x {STEPS} steps)",
                ("graph", "planned executor", "op by op (nd)", "speedup",
                 "planned, alternating with MXNet", "MXNet 1.9.1 executor", "planned / MXNet"),
                rows)
    for title, (training, inference) in reports.items():
        print(f"\nPlan report, {title}, training:\n{training}")
        print(f"\nPlan report, {title}, inference:\n{inference}")
    return figures


if __name__ == "__main__":
    main()
