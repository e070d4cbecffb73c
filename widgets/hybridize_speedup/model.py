"""The seed's hybridize benchmark, measured: time per forward and engine pushes per forward.

Lesson: 10-hybridize.  The seed times a ``HybridSequential`` MLP (Dense 256 relu,
Dense 128 relu, Dense 2 on a (1, 512) input) before and after ``hybridize()``.
``run_benchmark`` does the same for any batch size, widths and engine, adds
``hybridize(static_alloc=True)`` and a hand-written numpy forward (the floor no
framework can beat on this machine), and counts the engine operations each
forward pushes, through the engine's events: that count explains the speedup.
Returns plain data; nothing here draws.
"""
import os
import platform
import time

import numpy as np

import minimx as mx
from minimx import engine, nd
from minimx.gluon import nn

__all__ = ["MODES", "seed_widths", "build_net", "count_pushes", "time_per_call",
           "numpy_forward", "run_benchmark"]

MODES = ("imperative", "hybridized", "static_alloc", "numpy")
LABELS = {"imperative": "imperative (nd)", "hybridized": "hybridize()",
          "static_alloc": "hybridize(static_alloc=True)", "numpy": "hand-written numpy"}


def seed_widths(width=256, depth=2):
    """Hidden widths halving layer by layer, as in the seed: (256, 128) for width 256, depth 2."""
    return tuple(max(2, int(width) >> layer) for layer in range(int(depth)))


def build_net(widths=(256, 128), out_units=2, in_units=512):
    """The seed's network: one ``Dense(w, activation='relu')`` per width, then ``Dense(out)``.

    ``in_units`` is given so the weights exist before the first call (the seed
    leaves it to deferred initialisation, which would put that work in the timing).
    """
    net = nn.HybridSequential()
    with net.name_scope():
        for width in widths:
            net.add(nn.Dense(width, activation="relu", in_units=in_units))
            in_units = width
        net.add(nn.Dense(out_units, in_units=in_units))
    net.initialize()
    return net


def count_pushes(function, calls=5):
    """Engine operations pushed per call of ``function`` (from the engine's ``push`` events)."""
    pushes = []

    def listen(event):
        if event.kind == "push":
            pushes.append(event.name)

    nd.waitall()
    engine.subscribe(listen)
    try:
        for _ in range(calls):
            function()
        nd.waitall()
    finally:
        engine.unsubscribe(listen)
    return len(pushes) / calls, sorted(set(pushes))


def time_per_call(function, calls, repeats=3, sync=nd.waitall):
    """Seconds per call: ``calls`` calls then one sync, the best of ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        for _ in range(calls):
            function()
        sync()
        best = min(best, time.perf_counter() - start)
    return best / calls


def numpy_forward(net, x):
    """A forward pass written with numpy alone, using ``net``'s weights: ``f() -> array``."""
    layers = [(block.weight.data().asnumpy(), block.bias.data().asnumpy(), block.act is not None)
              for block in (net[i] for i in range(len(net)))]
    data = x.asnumpy()

    def forward():
        value = data
        for weight, bias, relu in layers:
            value = value @ weight.T + bias
            if relu:
                value = np.maximum(value, 0)
        return value

    return forward


def _measure(name, function, calls, repeats, reference):
    start = time.perf_counter()
    output = function()                     # the first call traces and plans when hybridized
    if name != "numpy":
        output = output.asnumpy()
    first = time.perf_counter() - start
    function()
    pushes, op_names = (0.0, []) if name == "numpy" else count_pushes(function)
    sync = (lambda: None) if name == "numpy" else nd.waitall
    seconds = time_per_call(function, calls, repeats, sync)
    return {"mode": name, "label": LABELS[name], "seconds_per_call": seconds,
            "ms_per_call": seconds * 1e3, "first_call_ms": first * 1e3,
            "pushes_per_forward": pushes, "pushed_ops": op_names,
            "max_abs_diff": float(np.max(np.abs(output - reference)))}


def _prepare(net, mode):
    if mode == "imperative":
        net.hybridize(active=False)
    elif mode == "hybridized":
        net.hybridize()
    elif mode == "static_alloc":
        net.hybridize(static_alloc=True, static_shape=True)


def run_benchmark(batch_size=1, in_units=512, widths=(256, 128), out_units=2, calls=1000,
                  engine_type="ThreadedEngine", repeats=3, modes=MODES, on_result=None):
    """Time each mode on one network and input; returns a dict of plain data.

    ``on_result(partial)`` is called after each mode with the results so far (a
    view can redraw while the benchmark runs).  ``speedup[mode]`` is the imperative
    time divided by that mode's time.
    """
    unknown = [mode for mode in modes if mode not in MODES]
    if unknown:
        raise ValueError(f"run_benchmark: unknown modes {unknown}; expected some of {MODES}")
    config = {"batch_size": int(batch_size), "in_units": int(in_units),
              "widths": [int(w) for w in widths], "out_units": int(out_units),
              "calls": int(calls), "engine_type": engine_type, "repeats": int(repeats)}
    result = {"config": config, "results": [], "speedup": {}, "graph_ops": None,
              "machine": _machine(engine_type)}
    with engine.engine_type(engine_type):
        net = build_net(widths, out_units, in_units)
        x = nd.random.normal(shape=(batch_size, in_units))
        reference = numpy_forward(net, x)()
        for mode in modes:
            _prepare(net, mode)
            function = numpy_forward(net, x) if mode == "numpy" else (lambda: net(x))
            result["results"].append(_measure(mode, function, calls, repeats, reference))
            if mode in ("hybridized", "static_alloc") and result["graph_ops"] is None:
                result["graph_ops"] = _operator_nodes(net)
            _speedups(result)
            if on_result is not None:
                on_result(result)
        net.hybridize(active=False)
    return result


def _operator_nodes(net):
    """Operator nodes in the graph ``hybridize()`` traced (what imperative mode pushes)."""
    return sum(1 for node in net.cached_graph().nodes() if not node.is_variable)


def _speedups(result):
    times = {r["mode"]: r["seconds_per_call"] for r in result["results"]}
    base = times.get("imperative")
    result["speedup"] = {mode: base / value for mode, value in times.items()
                         if base is not None and value > 0}


def _machine(engine_type):
    return {"engine_type": engine_type, "python": platform.python_version(),
            "numpy": np.__version__, "minimx": getattr(mx, "__version__", "?"),
            "cpus": os.cpu_count(), "processor": platform.machine()}
