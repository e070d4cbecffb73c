"""Gluon speed: the seed's hybridize benchmark and Trainer training throughput, side by side.

    python bench/gluon_bench.py

(a) The seed's network, HybridSequential Dense(256, relu), Dense(128, relu), Dense(2) on a
(1, 512) input: 1000 forward calls + ``nd.waitall()``, before and after ``hybridize()``
(with the garbage collector paused while timing, as ``timeit`` does: one full collection of
a process's objects costs 10-30 ms, as much as the 1000 calls themselves),
next to the same arithmetic in hand-written numpy (the floor: no framework at all) and to
MXNet 1.9.1.  (b) Training throughput (samples/s) with ``gluon.Trainer('sgd')``,
``SoftmaxCrossEntropyLoss`` and ``autograd`` of a 784-512-256-10 MLP (batch 128) and a
LeNet (batch 64, 1x28x28), imperative and hybridized, next to MXNet 1.9.1 and PyTorch CPU.
Each framework runs the same script text in a fresh process; the frameworks take turns
(ROUNDS times) and each figure is the best of its rounds.  MXNet's interpreter is
$MINIMX_MXNET_PYTHON (default /opt/mxref/bin/python); PyTorch is imported here if
installed, else taken from $MINIMX_TORCH_PYTHON.
"""
import gc
import os
import subprocess
import sys
import time

import numpy as np

from _util import REPO, fmt, mxnet_python, print_table, ratio, torch_python

ROUNDS = 5
CALLS = 1000                       # forward calls of the seed's network
STEPS = {"MLP": 40, "LeNet": 40}   # timed training steps per round (after 2 warm-up steps)

# The Trainer step of MLP and LeNet, as program text (``{lib}``; bench/image_pipeline.py
# times the same LeNet step): ``train_rate(make, steps, hybrid)`` gives samples/s.
TRAINING = """
import gc, time, warnings
import numpy as np
import {lib} as mx
from {lib} import nd, autograd, gluon
from {lib}.gluon import nn
warnings.simplefilter("ignore")

def mlp():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(512, activation="relu"), nn.Dense(256, activation="relu"),
                nn.Dense(10))
    return net, (128, 784)

def lenet():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(6, 5, activation="relu"), nn.MaxPool2D(2, 2),
                nn.Conv2D(16, 5, activation="relu"), nn.MaxPool2D(2, 2),
                nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"),
                nn.Dense(10))
    return net, (64, 1, 28, 28)

def make_step(make, hybrid, warmup=2):      # (a warmed-up training step, its batch size)
    net, shape = make()
    net.initialize(mx.init.Xavier())
    if hybrid:
        net.hybridize()
    rng = np.random.RandomState(0)
    x = nd.array(rng.rand(*shape).astype("float32"))
    y = nd.array(rng.randint(0, 10, shape[0]).astype("float32"))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {{"learning_rate": 0.01}})
    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(shape[0])
    for _ in range(warmup):
        step()
    nd.waitall()
    return step, shape[0]

def train_rate(make, steps, hybrid):
    step, batch = make_step(make, hybrid)
    start = time.perf_counter()
    for _ in range(steps):
        step()
    nd.waitall()
    return steps * batch / (time.perf_counter() - start)

"""

# The same text runs with lib=minimx and lib=mxnet.  It prints "label value" lines.
GLUON = TRAINING + """
def seed_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"),
                nn.Dense(2))
    net.initialize()
    return net

def forward_ms(net, x):
    net(x).wait_to_read()                    # warm-up: deferred init, trace, caches
    nd.waitall()
    gc.collect()
    gc.disable()                             # as timeit does: no collector pause inside
    start = time.perf_counter()
    for _ in range({calls}):
        y = net(x)
    nd.waitall()
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed * 1e3

x = nd.array(np.random.RandomState(0).rand(1, 512).astype("float32"))
net = seed_net()
print("imperative", forward_ms(net, x))
net.hybridize()
print("hybridized", forward_ms(net, x))
for name, make in (("MLP", mlp), ("LeNet", lenet)):
    for hybrid in (False, True):
        print(name, "hybridized" if hybrid else "imperative",
              train_rate(make, {steps}[name], hybrid))
"""

TORCH = """
import gc, time, torch
from torch import nn
torch.manual_seed(0)

def forward_ms(net, x):
    with torch.no_grad():
        net(x)
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        for _ in range({calls}):
            y = net(x)
        elapsed = time.perf_counter() - start
        gc.enable()
        return elapsed * 1e3

def train_rate(net, shape, steps):
    x, y = torch.rand(*shape), torch.randint(0, 10, (shape[0],))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    def step():
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
    for _ in range(2):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps * shape[0] / (time.perf_counter() - start)

seed = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                     nn.Linear(128, 2))
print("imperative", forward_ms(seed, torch.rand(1, 512)))
mlp = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                    nn.Linear(256, 10))
lenet = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
                      nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 120), nn.ReLU(),
                      nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
print("MLP imperative", train_rate(mlp, (128, 784), {steps}["MLP"]))
print("LeNet imperative", train_rate(lenet, (64, 1, 28, 28), {steps}["LeNet"]))
"""


def parse(lines):
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in lines}


def run_script(python, code, env=None):
    """Run ``code`` with ``python``; its "label value" lines as a dict, or None if it failed."""
    result = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"{python} failed:", result.stderr.strip().splitlines()[-1:], file=sys.stderr)
        return None
    return parse(result.stdout.strip().splitlines())


def minimx_run():
    env = dict(os.environ, PYTHONPATH=REPO)
    return run_script(sys.executable, GLUON.format(lib="minimx", calls=CALLS, steps=STEPS), env)


def mxnet_run():
    python = mxnet_python()
    if python is None:
        return None
    return run_script(python, GLUON.format(lib="mxnet", calls=CALLS, steps=STEPS))


def torch_run():
    python = torch_python()
    if python is None:
        return None
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    return run_script(python, TORCH.format(calls=CALLS, steps=STEPS), env)


def numpy_ms():
    """The seed's network as three numpy matrix products: what any framework must pay."""
    rng = np.random.RandomState(0)
    x = rng.rand(1, 512).astype("float32")
    w = [rng.rand(256, 512).astype("float32"), rng.rand(128, 256).astype("float32"),
         rng.rand(2, 128).astype("float32")]
    b = [np.zeros(256, "float32"), np.zeros(128, "float32"), np.zeros(2, "float32")]
    gc.collect()
    gc.disable()
    start = time.perf_counter()
    for _ in range(CALLS):
        h = np.maximum(x @ w[0].T + b[0], 0)
        h = np.maximum(h @ w[1].T + b[1], 0)
        y = h @ w[2].T + b[2]                 # noqa: F841
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed * 1e3


def merge_best(best, figures, smaller_is_better):
    for key, value in (figures or {}).items():
        keep = min if smaller_is_better(key) else max
        best[key] = value if key not in best else keep(best[key], value)


def main(rounds=ROUNDS):
    runs = {"minimx": minimx_run, "MXNet 1.9.1": mxnet_run, "PyTorch CPU": torch_run}
    best = {name: {} for name in runs}
    floor = None
    forward = ("imperative", "hybridized").__contains__
    for _ in range(rounds):
        for name, run in runs.items():
            merge_best(best[name], run(), forward)
        floor = numpy_ms() if floor is None else min(floor, numpy_ms())
    if torch_python() is None:
        print("PyTorch not found: create a separate venv with `pip install torch==2.13.0` and "
              "set MINIMX_TORCH_PYTHON to its python (never install it into this one)")
    ours, mxnet, torch = best["minimx"], best["MXNet 1.9.1"], best["PyTorch CPU"]
    rows = [("numpy floor", fmt(floor, " ms"), "1.00x", "")]
    for name, figures in (("minimx", ours), ("MXNet 1.9.1", mxnet), ("PyTorch CPU", torch)):
        for mode in ("imperative", "hybridized"):
            if mode in figures:
                rows.append((f"{name} {mode}", fmt(figures[mode], " ms"),
                             ratio(figures[mode], floor),
                             ratio(figures[mode], mxnet.get(mode))))
    for name, figures in (("minimx", ours), ("MXNet 1.9.1", mxnet)):
        if "hybridized" in figures:
            rows.append((f"{name} hybridize speedup (imperative / hybridized)",
                         ratio(figures["imperative"], figures["hybridized"]), "", ""))
    print_table(f"Seed network 512-256-128-2, (1, 512) input, {CALLS} forward calls "
                f"(best of {rounds})", ("run", "time", "vs numpy", "vs MXNet same mode"), rows)
    rows = []
    for model in ("MLP", "LeNet"):
        for name, figures in (("minimx", ours), ("MXNet 1.9.1", mxnet), ("PyTorch CPU", torch)):
            for mode in ("imperative", "hybridized"):
                key = f"{model} {mode}"
                if key in figures:
                    rows.append((f"{model} {name} {mode}", fmt(figures[key], " samples/s"),
                                 ratio(figures[key], mxnet.get(key))))
    print_table(f"Training throughput, Trainer('sgd'), MLP 784-512-256-10 batch 128, LeNet "
                f"batch 64 (best of {rounds})", ("run", "throughput", "vs MXNet same mode"),
                rows)
    return {"numpy": floor, **best}


if __name__ == "__main__":
    main()
