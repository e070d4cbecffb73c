"""SGD's aggregated step: many weights in one ``multi_sgd_update`` push, as in MXNet.

An Updater hands SGD its weights in lists of ``MXNET_OPTIMIZER_AGGREGATION_SIZE``
(4 unless set) of one dtype; each list is one ``multi_*`` push, and a dense weight handed
alone is a ``multi_*`` push of one (MXNet's SGD never calls ``sgd_update`` for a dense
weight).  The results must not depend on how the weights are grouped: these tests compare
bit for bit.  The momentum kernels compute what their one-weight operators compute;
``multi_sgd_update``'s kernel rounds differently from ``sgd_update``'s where wd != 0
(``tests/optimizer/test_sgd_kernels_vs_mxnet.py``), so it is compared with itself, one
weight at a time.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, engine, gluon, nd
from minimx.base import MXNetError

SINGLE = {"multi_sgd_update": ("sgd_update", 2), "multi_sgd_mom_update": ("sgd_mom_update", 3),
          "multi_mp_sgd_update": ("mp_sgd_update", 3),
          "multi_mp_sgd_mom_update": ("mp_sgd_mom_update", 4)}


def _group(rng, name, shape, dtype):
    """Weight, gradient and states of one weight (a master copy for the mp_ variants)."""
    count = SINGLE[name][1]
    weight = rng.uniform(-1, 1, shape).astype(dtype)
    arrays = [weight, rng.uniform(-1, 1, shape).astype(dtype)]
    if "mom" in name:
        arrays.append(rng.uniform(-0.1, 0.1, shape).astype(np.float32 if "mp" in name
                                                             else dtype))
    if "mp" in name:
        arrays.append(weight.astype(np.float32))
    assert len(arrays) == count
    return arrays


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("name", sorted(SINGLE))
def test_multi_op_equals_one_weight_ops_bit_for_bit(name, dtype):
    rng = np.random.RandomState(3)
    single, _ = SINGLE[name]
    shapes = [(3, 4), (7,), (2, 2, 5)]
    groups = [_group(rng, name, shape, dtype) for shape in shapes]
    lrs, wds = (0.1, 0.05, 0.3), (0.0, 0.01, 0.2)
    shared = {"rescale_grad": 0.37, "clip_gradient": 0.6}
    if "mom" in name:
        shared["momentum"] = 0.9
    many = [[nd.array(a, dtype=a.dtype) for a in group] for group in groups]
    one = [[nd.array(a, dtype=a.dtype) for a in group] for group in groups]
    for _ in range(3):
        getattr(nd, name)(*[a for group in many for a in group], out=[g[0] for g in many],
                          num_weights=3, lrs=lrs, wds=wds, **shared)
        for group, lr, wd in zip(one, lrs, wds):
            if "mom" not in name:               # its own kernel, one weight per call
                getattr(nd, name)(*group, out=[group[0]], num_weights=1, lrs=(lr,),
                                  wds=(wd,), **shared)
            elif "mp" in name and dtype == "float32":
                # MXNet's multi_mp_ kernels update a float32 weight directly
                getattr(nd, single[3:])(*group[:-1], out=group[0], lr=lr, wd=wd, **shared)
            else:
                getattr(nd, single)(*group, out=group[0], lr=lr, wd=wd, **shared)
    for group_many, group_one in zip(many, one):
        for a, b in zip(group_many, group_one):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_wrong_counts_are_errors_naming_the_operator():
    w, g = nd.ones((2,)), nd.ones((2,))
    with pytest.raises(MXNetError, match="multi_sgd_update.*lrs has 1 value.*num_weights is 2"):
        nd.multi_sgd_update(w, g, w, g, out=[w, w], num_weights=2, lrs=(0.1,), wds=(0, 0))
    with pytest.raises(MXNetError, match="multi_sgd_mom_update.*expected 6 inputs.*got 4"):
        nd.multi_sgd_mom_update(w, g, w, g, num_weights=2, lrs=(0.1, 0.1), wds=(0, 0))
    with pytest.raises(MXNetError, match="multi_sgd_update.*grad must have the weight's shape"):
        nd.multi_sgd_update(w, nd.ones((3,)), num_weights=1, lrs=(0.1,), wds=(0,))


def _lenet():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(6, 5, activation="relu"), gluon.nn.MaxPool2D(2, 2),
            gluon.nn.Conv2D(16, 5, activation="relu"), gluon.nn.MaxPool2D(2, 2),
            gluon.nn.Dense(120, activation="relu"), gluon.nn.Dense(84, activation="relu"),
            gluon.nn.Dense(10))
    net.initialize(mx.init.Xavier(), force_reinit=True)
    return net


def _trained(monkeypatch, size, steps=3, **optimizer_params):
    """LeNet's parameters after ``steps`` Trainer steps from one seed, aggregating ``size``
    weights per update call; also the names of the last step's update pushes."""
    monkeypatch.setenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", str(size))
    mx.random.seed(5)
    net = _lenet()
    params = list(net.collect_params().values())
    params[2].lr_mult = 3.0
    params[4].wd_mult = 0.0
    rng = np.random.RandomState(0)
    x = nd.array(rng.rand(8, 1, 28, 28))
    y = nd.array(rng.randint(0, 10, 8))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", dict(learning_rate=0.1, wd=0.01,
                                                              **optimizer_params))
    names = []
    for step in range(steps):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        nd.waitall()
        if step == steps - 1:
            listener = engine.subscribe(
                lambda event: event.kind == "push" and names.append(event.name))
        trainer.step(8)
        nd.waitall()
    engine.unsubscribe(listener)
    return [p.data().asnumpy() for p in params], names


@pytest.mark.parametrize("optimizer_params", [{}, {"momentum": 0.9, "clip_gradient": 0.05}],
                         ids=["sgd", "momentum-clip"])
def test_trainer_step_aggregates_and_stays_bit_identical(monkeypatch, optimizer_params):
    one_by_one, names = _trained(monkeypatch, 0, **optimizer_params)
    single = "sgd_mom_update" if optimizer_params else "sgd_update"
    assert names == ["multi_" + single] * 10             # one weight per push
    for size, pushes in ((4, 3), (16, 1)):
        aggregated, names = _trained(monkeypatch, size, **optimizer_params)
        assert names == ["multi_" + single] * pushes        # LeNet's 10 weights
        for a, b in zip(aggregated, one_by_one):
            np.testing.assert_array_equal(a, b)


def test_float16_weights_aggregate_through_their_master_copies():
    def run(size):
        optimizer = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01,
                                     multi_precision=True)
        optimizer.aggregate_num = size
        updater = mx.optimizer.get_updater(optimizer)
        rng = np.random.RandomState(1)
        weights = [nd.array(rng.uniform(-1, 1, s), dtype=d)
                   for s, d in (((3,), "float16"), ((2, 2), "float32"), ((5,), "float16"))]
        for _ in range(3):
            grads = [nd.array(rng.uniform(-1, 1, w.shape), dtype=w.dtype) for w in weights]
            updater(list(range(3)), grads, weights)
        return [w.asnumpy() for w in weights], updater.states

    aggregated, states = run(4)
    one_by_one, _ = run(0)
    for a, b in zip(aggregated, one_by_one):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert states[0][1].dtype == np.float32          # (momentum, master copy)


def test_module_update_aggregates(monkeypatch):
    monkeypatch.setenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4")
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    net = mx.sym.FullyConnected(mx.sym.relu(net), num_hidden=3, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    module = mx.mod.Module(net)
    module.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    module.init_params()
    module.init_optimizer(optimizer="sgd", optimizer_params={"momentum": 0.9})
    batch = mx.io.DataBatch([nd.ones((4, 5))], [nd.array([0, 1, 2, 0])])
    module.forward_backward(batch)
    nd.waitall()
    names = []
    listener = engine.subscribe(lambda event: event.kind == "push" and names.append(event.name))
    try:
        module.update()
        nd.waitall()
    finally:
        engine.unsubscribe(listener)
    assert names.count("multi_sgd_mom_update") == 1          # four weights, one push
    assert "sgd_mom_update" not in names


UPDATER_GROUPS = r'''
import json, sys
mx = __import__(sys.argv[1])
calls = []
sgd = mx.optimizer.SGD(learning_rate=0.1, momentum=float(sys.argv[2]), multi_precision=True)
updater = mx.optimizer.get_updater(sgd)
dtypes = ["float32", "float16", "float32", "float32", "float16", "float32", "float32",
          "float32", "float32"]
weights = [mx.nd.ones((2,), dtype=d) for d in dtypes]
grads = [mx.nd.ones((2,), dtype=d) * 0.5 for d in dtypes]
updater(list(range(len(weights))), grads, weights)       # creates the states
names = []
if sys.argv[1] == "mxnet":
    import mxnet.optimizer.optimizer as module
    for name in ("multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_update",
                 "multi_mp_sgd_mom_update"):
        def wrap(function, name=name):
            def recorded(*args, **kwargs):
                names.append([name, kwargs["num_weights"]])
                return function(*args, **kwargs)
            return recorded
        setattr(module, name, wrap(getattr(module, name)))
else:
    for key, function in list(sgd.multi_ops.items()):
        def wrap(function):
            def recorded(*args, **kwargs):
                names.append([function.__name__, kwargs["num_weights"]])
                return function(*args, **kwargs)
            return recorded
        sgd.multi_ops = dict(sgd.multi_ops, **{})     # this instance's own table
        sgd.multi_ops[key] = wrap(function)
updater(list(range(len(weights))), grads, weights)
print(json.dumps([names, [w.asnumpy().tolist() for w in weights]]))
'''


@pytest.mark.mxnet
@pytest.mark.parametrize("momentum", ["0.0", "0.9"])
def test_updater_groups_weights_as_mxnet_does(mxnet_python, momentum):
    results = {}
    for lib, python in (("mxnet", mxnet_python), ("minimx", sys.executable)):
        finished = subprocess.run([python, "-c", UPDATER_GROUPS, lib,
                                   momentum], capture_output=True, text=True, timeout=300,
                                  env=_env(lib))
        assert finished.returncode == 0, finished.stderr[-2000:]
        results[lib] = json.loads(finished.stdout.strip().splitlines()[-1])
    mine, theirs = results["minimx"], results["mxnet"]
    assert mine[0] == theirs[0]
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6)


def _env(lib):
    env = dict(os.environ)
    env.pop("MXNET_OPTIMIZER_AGGREGATION_SIZE", None)
    if lib == "minimx":
        env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
    return env
