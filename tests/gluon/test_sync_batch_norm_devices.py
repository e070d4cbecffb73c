"""SyncBatchNorm over several devices of one process: the devices' calls meet.

Beside MXNet 1.9.1 (which runs it on several cpu contexts): the operator, the gluon
layer imperative and hybridized in a training step, and a Module over two contexts.
Without MXNet: against BatchNorm on the joined batch (the definition), parts of
different sizes, two calls on one context with one worker, and the refusals (an output
read too early, NaiveEngine), where MXNet hangs.
"""
import contextlib
import time

import numpy as np
import pytest

import minimx as mx
from minimx import backend, engine
from minimx.op import meeting
from same_program import on_minimx, on_mxnet

DEVICES = """
import json
import numpy as np
rng = np.random.RandomState(0)
ctxs = [mx.cpu(0), mx.cpu(1)]
x = rng.uniform(size=(8, 3, 2, 2)).astype("float32")
head = rng.uniform(size=(8, 3, 2, 2)).astype("float32")
gamma, beta = rng.uniform(size=3) + 0.5, rng.uniform(size=3)
out = {}
# the operator, called once per device
# (every array made before the first call: MXNet hangs making one on the host while a
# call waits for the others)
stats = [(mx.nd.zeros(3, ctx=c), mx.nd.ones(3, ctx=c)) for c in ctxs]
parts = [mx.nd.array(x[4 * i:4 * i + 4], ctx=c) for i, c in enumerate(ctxs)]
heads = [mx.nd.array(head[4 * i:4 * i + 4], ctx=c) for i, c in enumerate(ctxs)]
affine = [(mx.nd.array(gamma, ctx=c), mx.nd.array(beta, ctx=c)) for c in ctxs]
for xi in parts:
    xi.attach_grad()
with mx.autograd.record():
    outs = [mx.nd.contrib.SyncBatchNorm(xi, g, b, *s, key="op", ndev=2, fix_gamma=False,
                                        eps=1e-3, output_mean_var=True)
            for xi, (g, b), s in zip(parts, affine, stats)]
for o, h in zip(outs, heads):
    o[0].backward(h)
for i in range(2):
    out[f"op{i}"] = [o.asnumpy().tolist() for o in outs[i]] + [
        parts[i].grad.asnumpy().tolist(), stats[i][0].asnumpy().tolist(),
        stats[i][1].asnumpy().tolist()]
# the gluon layer in a training step, imperative then hybridized
for hybrid in (False, True):
    net = mx.gluon.nn.HybridSequential(prefix=f"net{int(hybrid)}_")
    with net.name_scope():
        net.add(mx.gluon.contrib.nn.SyncBatchNorm(in_channels=3, num_devices=2,
                                                  gamma_initializer="ones"))
        net.add(mx.gluon.nn.Dense(2, in_units=12))
    net.initialize(mx.init.Constant(0.2), ctx=ctxs)
    if hybrid:
        net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    for step in range(2):
        xs = [mx.nd.array(x[4 * i:4 * i + 4] + step, ctx=c) for i, c in enumerate(ctxs)]
        with mx.autograd.record():
            # (MXNet 1.9.1's backward hangs over two cpu contexts when the loss reads a
            # label array: gluon.loss.L2Loss, or (net(a) - t) ** 2)
            losses = [(net(a) ** 2).sum() for a in xs]
        for loss in losses:
            loss.backward()
        trainer.step(8)
    name = "hybrid" if hybrid else "layer"
    out[name] = [net(xs[i]).asnumpy().tolist() for i in range(2)]
    for pname, param in sorted(net.collect_params().items()):
        for i, c in enumerate(ctxs):
            out[f"{name}-{pname[5:]}-{i}"] = param.data(c).asnumpy().tolist()
# the symbol path: a Module over two contexts
data = mx.sym.Variable("data")
sym = mx.sym.contrib.SyncBatchNorm(data, fix_gamma=False, ndev=2, key="sym", name="bn")
sym = mx.sym.MakeLoss(mx.sym.sum(sym * mx.sym.Variable("w")))
mod = mx.mod.Module(sym, data_names=["data", "w"], label_names=None, context=ctxs)
mod.bind(data_shapes=[("data", (8, 3, 2, 2)), ("w", (8, 3, 2, 2))], inputs_need_grad=True)
mod.init_params(mx.init.Constant(0.7))
mod.forward(mx.io.DataBatch([mx.nd.array(x), mx.nd.array(head)]), is_train=True)
mod.backward()
out["module-grad"] = mod.get_input_grads()[0].asnumpy().tolist()
arg, aux = mod.get_params()
out["module-aux"] = [aux[k].asnumpy().tolist() for k in sorted(aux)]
print(json.dumps(out))
"""


def test_same_as_mxnet_over_two_devices(mxnet_python):
    theirs, ours = on_mxnet(mxnet_python, DEVICES), on_minimx(DEVICES)
    assert theirs.keys() == ours.keys()
    for key in theirs:
        for a, b in zip(theirs[key], ours[key]):
            np.testing.assert_allclose(np.array(b, dtype=float), np.array(a, dtype=float),
                                       rtol=1e-4, atol=1e-5, err_msg=key)


def _batch_norm(x, gamma, beta, head, **params):
    """BatchNorm over ``x`` with moving statistics (0, 1): output, data gradient, and the
    moving statistics after the backward pass."""
    stats = (mx.nd.zeros(x.shape[1]), mx.nd.ones(x.shape[1]))
    x = mx.nd.array(x)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BatchNorm(x, mx.nd.array(gamma), mx.nd.array(beta), *stats, **params)
    y.backward(mx.nd.array(head))
    return y.asnumpy(), x.grad.asnumpy(), stats[0].asnumpy(), stats[1].asnumpy()


def _synced(parts, gamma, beta, heads, ctxs, key, **params):
    """SyncBatchNorm called once per part (on ``ctxs``), then one backward per part."""
    stats = [(mx.nd.zeros(len(gamma), ctx=c), mx.nd.ones(len(gamma), ctx=c)) for c in ctxs]
    xs = [mx.nd.array(p, ctx=c) for p, c in zip(parts, ctxs)]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        ys = [mx.nd.contrib.SyncBatchNorm(x, mx.nd.array(gamma, ctx=c),
                                          mx.nd.array(beta, ctx=c), *s, key=key,
                                          ndev=len(parts), **params)
              for x, c, s in zip(xs, ctxs, stats)]
    for y, h, c in zip(ys, heads, ctxs):
        y.backward(mx.nd.array(h, ctx=c))
    return ys, xs, stats


@pytest.mark.parametrize("device", ["cpu", "gpu"])
@pytest.mark.parametrize("sizes", [(4, 4), (3, 5), (2, 3, 3)], ids=["even", "uneven", "three"])
def test_equals_batch_norm_over_the_joined_batch(sizes, device):
    """``gpu``: on the strict stand-in for CuPy (``backend.stand_in_gpus``), which refuses
    what CuPy refuses, such as reading a device array as a host one."""
    rng = np.random.RandomState(1)
    x = rng.normal(2.0, 3.0, size=(sum(sizes), 4, 3)).astype("float32")
    head = rng.uniform(size=x.shape).astype("float32")
    gamma, beta = rng.uniform(0.5, 1.5, size=4), rng.uniform(size=4)
    cuts = np.cumsum(sizes)[:-1]
    with backend.stand_in_gpus(len(sizes)) if device == "gpu" else contextlib.nullcontext():
        ctxs = [mx.Context(device, i) for i in range(len(sizes))]
        ys, xs, stats = _synced(np.split(x, cuts), gamma, beta, np.split(head, cuts), ctxs,
                                f"joined{sizes}{device}", fix_gamma=False, eps=1e-3)
        got = [np.concatenate([y.asnumpy() for y in ys]),
               np.concatenate([a.grad.asnumpy() for a in xs]),
               [(mean.asnumpy(), var.asnumpy()) for mean, var in stats]]
    want, want_grad, want_mean, want_var = _batch_norm(x, gamma, beta, head,
                                                       fix_gamma=False, eps=1e-3)
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], want_grad, rtol=1e-4, atol=1e-5)
    for mean, var in got[2]:
        np.testing.assert_allclose(mean, want_mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(var, want_var, rtol=1e-5, atol=1e-6)


def test_two_calls_on_one_context_with_one_worker():
    """The first call waits in the only worker of cpu(0)'s queue; a stand-in worker runs
    the second."""
    rng = np.random.RandomState(2)
    x = rng.uniform(size=(6, 2, 2)).astype("float32")
    head = np.ones_like(x)
    with engine.threads(workers=1):
        ys, xs, _ = _synced([x[:3], x[3:]], [1.0, 1.0], [0.0, 0.0], [head[:3], head[3:]],
                            [mx.cpu(0), mx.cpu(0)], "one-context", fix_gamma=False)
        got = np.concatenate([y.asnumpy() for y in ys])
        engine.wait_all()
        for _ in range(100):        # a retiring worker leaves soon after its sentinel
            if len(engine.get_engine().worker_ids) == 1:
                break
            time.sleep(0.01)
        assert len(engine.get_engine().worker_ids) == 1     # the stand-ins have retired
    np.testing.assert_allclose(got, _batch_norm(x, [1.0, 1.0], [0.0, 0.0], head,
                                                fix_gamma=False)[0], rtol=1e-4, atol=1e-5)


def test_reading_before_the_other_devices_call_fails_after_the_timeout(monkeypatch):
    monkeypatch.setattr(meeting, "TIMEOUT", 0.2)
    x = mx.nd.ones((2, 3))
    with mx.autograd.train_mode():
        y = mx.nd.contrib.SyncBatchNorm(x, mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3),
                                        mx.nd.ones(3), key="early", ndev=2)
    with pytest.raises(mx.base.MXNetError, match=r"only 1 of 2 calls arrived within 0.2 s"):
        y.wait_to_read()
    # the failed meeting is gone: a full one afterwards works
    ys, _, _ = _synced([np.ones((2, 3))] * 2, [1.0] * 3, [0.0] * 3, [np.ones((2, 3))] * 2,
                       [mx.cpu(0), mx.cpu(1)], "early")
    assert all(np.allclose(y.asnumpy(), 0) for y in ys)


def test_naive_engine_refuses_at_the_first_call():
    with engine.engine_type("NaiveEngine"), mx.autograd.train_mode():
        with pytest.raises(mx.base.MXNetError, match="NaiveEngine"):
            mx.nd.contrib.SyncBatchNorm(mx.nd.ones((2, 3)), mx.nd.ones(3), mx.nd.zeros(3),
                                        mx.nd.zeros(3), mx.nd.ones(3), key="naive", ndev=2)
        # at inference the devices' calls do not meet
        y = mx.nd.contrib.SyncBatchNorm(mx.nd.ones((2, 3)), mx.nd.ones(3), mx.nd.zeros(3),
                                        mx.nd.zeros(3), mx.nd.ones(3), key="naive", ndev=2,
                                        use_global_stats=True)
        assert y.shape == (2, 3)


def test_the_engine_views_see_the_waiting_operation():
    seen = []

    def watch(event):
        if "SyncBatchNorm" in event.name:
            seen.append(event.kind)

    engine.subscribe(watch)
    try:
        ys, _, _ = _synced([np.ones((2, 3))] * 2, [1.0] * 3, [0.0] * 3,
                           [np.ones((2, 3))] * 2, [mx.cpu(0), mx.cpu(1)], "views")
        engine.wait_all()
    finally:
        engine.unsubscribe(watch)
    for kind in ("push", "ready", "start", "end"):
        assert seen.count(kind) == 4, (kind, seen)     # two forwards, two backwards
