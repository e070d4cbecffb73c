"""gluon.Trainer: update rule, stale gradients, KVStore paths, states, and MXNet 1.9.1 peers."""
import json
import subprocess
import textwrap

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, backend, gluon, nd


def make_net(in_units=4, ctx=None, hidden=3, out=2):
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(hidden, in_units=in_units, activation="tanh"),
                gluon.nn.Dense(out, in_units=hidden))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    return net


def set_weights(net, arrays):
    for param, value in zip(net.collect_params().values(), arrays):
        param.set_data(nd.array(value))


def initial_weights(rng, in_units=4, hidden=3, out=2):
    return [rng.standard_normal((hidden, in_units)).astype(np.float32),
            rng.standard_normal((hidden,)).astype(np.float32),
            rng.standard_normal((out, hidden)).astype(np.float32),
            rng.standard_normal((out,)).astype(np.float32)]


def train_steps(net, trainer, batches, ctx_list=None):
    loss_fn = gluon.loss.L2Loss()
    for x, y in batches:
        if ctx_list is None:
            with autograd.record():
                loss = loss_fn(net(nd.array(x)), nd.array(y))
            loss.backward()
        else:
            xs = gluon.utils.split_and_load(x, ctx_list)
            ys = gluon.utils.split_and_load(y, ctx_list)
            with autograd.record():
                losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
            autograd.backward(losses)
        trainer.step(len(x))
    return [param.data(param.list_ctx()[0]).asnumpy()
            for param in net.collect_params().values()]


def toy_batches(rng, steps=3, batch=4):
    return [(rng.standard_normal((batch, 4)).astype(np.float32),
             rng.standard_normal((batch, 2)).astype(np.float32)) for _ in range(steps)]


# -- the update itself ----------------------------------------------------------------------------
def test_step_is_sgd_with_rescaled_gradient():
    w = gluon.Parameter("w", shape=(3,), init=mx.init.Constant(2.0))
    w.initialize()
    trainer = gluon.Trainer([w], "sgd", {"learning_rate": 0.5})
    x = nd.array([1.0, 2.0, 3.0])
    with autograd.record():
        loss = (w.data() * w.data() * x).sum()
    loss.backward()
    expected = 2.0 - 0.5 * (2 * 2.0 * x.asnumpy()) / 4
    trainer.step(4)
    np.testing.assert_allclose(w.data().asnumpy(), expected, rtol=1e-6)


def test_allreduce_then_update_equals_step():
    rng = np.random.default_rng(0)
    start, batches = initial_weights(rng), toy_batches(rng, steps=2)
    results = []
    for split in (False, True):
        net = make_net()
        set_weights(net, start)
        trainer = gluon.Trainer(net.collect_params(), "sgd",
                                {"learning_rate": 0.1, "momentum": 0.9})
        loss_fn = gluon.loss.L2Loss()
        for x, y in batches:
            with autograd.record():
                loss = loss_fn(net(nd.array(x)), nd.array(y))
            loss.backward()
            if split:
                trainer.allreduce_grads()
                trainer.update(len(x))
            else:
                trainer.step(len(x))
        results.append([p.data().asnumpy() for p in net.collect_params().values()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_seed_training_loop_decreases_loss():
    """The seed's pattern: deferred shapes, Trainer before the first forward, record ->
    loss -> backward -> step(batch_size)."""
    net = gluon.nn.Sequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dense(1))
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.2})
    loss = gluon.loss.L2Loss()
    x = nd.random.uniform(-1, 1, shape=(32, 5))
    y = nd.dot(x, nd.array([[1.0], [-2.0], [0.5], [0.0], [3.0]])).reshape((-1,))
    losses = []
    for _ in range(40):
        with autograd.record():
            L = loss(y, net(x))
        L.backward()
        trainer.step(x.shape[0])
        losses.append(float(L.mean().asscalar()))
    assert losses[-1] < 0.2 * losses[0]


def test_learning_rate_property_and_setter():
    net = make_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.3})
    assert trainer.learning_rate == pytest.approx(0.3)
    trainer.set_learning_rate(0.05)
    assert trainer.learning_rate == pytest.approx(0.05)
    assert trainer.optimizer.lr == pytest.approx(0.05)
    scheduled = gluon.Trainer(make_net().collect_params(), "sgd",
                              {"lr_scheduler": mx.lr_scheduler.FactorScheduler(1, 0.5)})
    with pytest.raises(UserWarning):
        scheduled.set_learning_rate(0.1)


def test_optimizer_instance_and_lr_mult():
    net = make_net()
    params = net.collect_params()
    first = list(params.values())[0]
    first.lr_mult = 0.0
    before = first.data().asnumpy()
    trainer = gluon.Trainer(params, mx.optimizer.SGD(learning_rate=1.0))
    with autograd.record():
        loss = net(nd.ones((2, 4))).sum()
    loss.backward()
    trainer.step(2)
    np.testing.assert_array_equal(first.data().asnumpy(), before)
    with pytest.raises(mx.base.MXNetError, match="optimizer_params must be None"):
        gluon.Trainer(params, mx.optimizer.SGD(), {"learning_rate": 0.1})


def test_bad_params_argument():
    with pytest.raises(mx.base.MXNetError, match="list or dict of Parameters"):
        gluon.Trainer(nd.ones((2,)), "sgd")
    with pytest.raises(mx.base.MXNetError, match="got list of"):
        gluon.Trainer([nd.ones((2,))], "sgd")


# -- stale gradients ------------------------------------------------------------------------------
def two_branch():
    used = gluon.nn.Dense(2, in_units=3)
    unused = gluon.nn.Dense(2, in_units=3)
    used.initialize()
    unused.initialize()
    params = gluon.ParameterDict()
    params.update(used.collect_params())
    params.update(unused.collect_params())
    return used, unused, params


def test_stale_gradient_raises_naming_the_parameter():
    used, unused, params = two_branch()
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1})
    with autograd.record():
        loss = used(nd.ones((1, 3))).sum()
    loss.backward()
    with pytest.raises(UserWarning, match=f"`{unused.prefix}(weight|bias)`"):
        trainer.step(1)


def test_ignore_stale_grad_skips_only_stale_parameters():
    used, unused, params = two_branch()
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1})
    used_before, unused_before = used.weight.data().asnumpy(), unused.weight.data().asnumpy()
    unused.weight.grad()[:] = 1.0          # a gradient that backward did not write
    with autograd.record():
        loss = used(nd.ones((1, 3))).sum()
    loss.backward()
    trainer.step(1, ignore_stale_grad=True)
    np.testing.assert_array_equal(unused.weight.data().asnumpy(), unused_before)
    assert not np.allclose(used.weight.data().asnumpy(), used_before)
    # After a step every gradient is stale again until the next backward.
    with pytest.raises(UserWarning, match="has not been updated by backward"):
        trainer.step(1)


# -- several contexts and KVStores ----------------------------------------------------------------
class DictKVStore:
    """A minimal KVStore with MXNet's init/push/pull/set_optimizer API, for the Trainer."""

    type = "local"

    def __init__(self, optimizer_capable):
        self.optimizer_capable = optimizer_capable
        self.store = {}
        self._updater = None
        self.calls = []

    def is_capable(self, capability):
        return capability == "optimizer" and self.optimizer_capable

    def init(self, key, value):
        self.calls.append(("init", key))
        self.store[key] = value.copyto(mx.cpu())

    def push(self, key, values):
        self.calls.append(("push", key))
        total = nd.add_n(*(v.as_in_context(mx.cpu()) for v in values))
        if self._updater is not None:
            self._updater(key, total, self.store[key])
        else:
            self.store[key] = total

    def pull(self, key, out):
        for array in out:
            self.store[key].copyto(array)

    def set_optimizer(self, optimizer):
        self._updater = mx.optimizer.get_updater(optimizer)


CONTEXTS = [mx.cpu(0), mx.cpu(1)]
OPTIMIZER = ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})


def single_context_reference(start, batches):
    net = make_net()
    set_weights(net, start)
    trainer = gluon.Trainer(net.collect_params(), *OPTIMIZER)
    return train_steps(net, trainer, batches)


@pytest.mark.parametrize("kvstore", ["dict", "dict_update_on_kv", "mx.kv"])
def test_two_contexts_match_one(kvstore):
    """Gradients summed over two contexts give the single-context result, on every path."""
    rng = np.random.default_rng(1)
    start, batches = initial_weights(rng), toy_batches(rng)
    expected = single_context_reference(start, batches)
    if kvstore == "mx.kv":
        store = "device"
    else:
        store = DictKVStore(optimizer_capable=kvstore == "dict_update_on_kv")
    net = make_net(ctx=CONTEXTS)
    set_weights(net, start)
    trainer = gluon.Trainer(net.collect_params(), *OPTIMIZER, kvstore=store)
    got = train_steps(net, trainer, batches, ctx_list=CONTEXTS)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for param in net.collect_params().values():
        copies = [array.asnumpy() for array in param.list_data()]
        np.testing.assert_allclose(copies[0], copies[1], rtol=1e-6)
    if isinstance(store, DictKVStore):
        assert trainer._update_on_kvstore == store.optimizer_capable
        assert ("init", 0) in store.calls and ("push", 0) in store.calls


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_two_stand_in_gpus_match_one_device(hybridize):
    """The seed's multi-GPU loop on two strict stand-in GPUs: ``split_and_load`` over
    ``[gpu(0), gpu(1)]``, a ``device`` kvstore summing the gradients, gives one device's
    weights to float32 tolerance, and every copy stays on its GPU."""
    rng = np.random.default_rng(3)
    start, batches = initial_weights(rng), toy_batches(rng, steps=4, batch=6)
    expected = single_context_reference(start, batches)
    with backend.stand_in_gpus(2):
        gpus = [mx.gpu(0), mx.gpu(1)]
        net = make_net(ctx=gpus)
        if hybridize:
            net.hybridize()
        set_weights(net, start)
        trainer = gluon.Trainer(net.collect_params(), *OPTIMIZER, kvstore="device")
        got = train_steps(net, trainer, batches, ctx_list=gpus)
        for param in net.collect_params().values():
            assert [array.context for array in param.list_data()] == gpus
            assert [array.context for array in param.list_grad()] == gpus
            np.testing.assert_array_equal(*(array.asnumpy() for array in param.list_data()))
    assert trainer._kvstore.type == "device"
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_one_context_needs_no_kvstore():
    trainer = gluon.Trainer(make_net().collect_params(), "sgd")
    trainer._init_kvstore()
    assert trainer._kvstore is None and trainer._update_on_kvstore is None


def test_update_refused_when_updating_on_kvstore():
    net = make_net(ctx=CONTEXTS)
    trainer = gluon.Trainer(net.collect_params(), "sgd", kvstore=DictKVStore(True))
    with pytest.raises(mx.base.MXNetError, match="update_on_kvstore"):
        trainer.allreduce_grads()
    with pytest.raises(mx.base.MXNetError, match="update_on_kvstore"):
        trainer.update(1)


def test_set_data_resets_kvstore_when_updating_on_it():
    net = make_net(ctx=CONTEXTS)
    trainer = gluon.Trainer(net.collect_params(), "sgd", kvstore=DictKVStore(True))
    trainer._prepare()
    assert trainer._kv_initialized
    first = list(net.collect_params().values())[0]
    first.set_data(nd.zeros(first.shape))
    assert not trainer._kv_initialized


# -- saving states --------------------------------------------------------------------------------
def test_save_and_load_states_resume_identically(tmp_path):
    rng = np.random.default_rng(2)
    start, batches = initial_weights(rng), toy_batches(rng, steps=4)
    net = make_net()
    set_weights(net, start)
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    middle = train_steps(net, trainer, batches[:2])
    fname = str(tmp_path / "trainer.states")
    trainer.save_states(fname)
    with open(fname, "rb") as handle:
        assert handle.read(1) != b"\x80"          # not a pickle
    expected = train_steps(net, trainer, batches[2:])

    resumed = make_net()
    set_weights(resumed, middle)
    other = gluon.Trainer(resumed.collect_params(), "adam", {"learning_rate": 0.5})
    other.load_states(fname)
    assert other.learning_rate == pytest.approx(0.01)
    # the loaded optimizer uses the new Trainer's Parameters (their lr_mult / wd_mult)
    assert other.optimizer.param_dict[0] is other._params[0]
    got = train_steps(resumed, other, batches[2:])
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# -- against MXNet 1.9.1 --------------------------------------------------------------------------
MXNET_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mxnet as mx
    from mxnet import autograd, gluon, nd
    folder = sys.argv[1]
    spec = json.load(open(folder + "/spec.json"))
    data = np.load(folder + "/data.npz", allow_pickle=False)
    ctx = [mx.cpu(i) for i in range(spec["contexts"])]
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(3, in_units=4, activation="tanh"), gluon.nn.Dense(2, in_units=3))
    net.initialize(ctx=ctx)
    for i, param in enumerate(net.collect_params().values()):
        param.set_data(nd.array(data["w%d" % i]))
    trainer = gluon.Trainer(net.collect_params(), spec["optimizer"], spec["params"])
    loss_fn = gluon.loss.L2Loss()
    for step in range(spec["steps"]):
        xs = gluon.utils.split_and_load(data["x%d" % step], ctx)
        ys = gluon.utils.split_and_load(data["y%d" % step], ctx)
        with autograd.record():
            losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
        autograd.backward(losses)
        trainer.step(data["x%d" % step].shape[0])
    out = {"w%d" % i: p.data(ctx[0]).asnumpy()
           for i, p in enumerate(net.collect_params().values())}
    np.savez(folder + "/out.npz", **out)
""")

PEER_CASES = [
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}, 1),
    ("sgd", {"learning_rate": 0.1, "clip_gradient": 0.05}, 1),
    ("nag", {"learning_rate": 0.05, "momentum": 0.8}, 1),
    ("adam", {"learning_rate": 0.01, "wd": 0.001}, 1),
    ("rmsprop", {"learning_rate": 0.01}, 1),
    ("adagrad", {"learning_rate": 0.1}, 1),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9}, 2),
    ("adam", {"learning_rate": 0.01}, 2),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("optimizer,params,contexts", PEER_CASES)
def test_same_weights_as_mxnet(mxnet_python, tmp_path, optimizer, params, contexts):
    rng = np.random.default_rng(3)
    start, batches = initial_weights(rng), toy_batches(rng, steps=3)
    arrays = {f"w{i}": w for i, w in enumerate(start)}
    for step, (x, y) in enumerate(batches):
        arrays[f"x{step}"], arrays[f"y{step}"] = x, y
    np.savez(tmp_path / "data.npz", **arrays)
    spec = {"optimizer": optimizer, "params": params, "steps": len(batches),
            "contexts": contexts}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    (tmp_path / "run.py").write_text(MXNET_SCRIPT)
    done = subprocess.run([mxnet_python, str(tmp_path / "run.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    reference = np.load(tmp_path / "out.npz", allow_pickle=False)

    ctx_list = [mx.cpu(i) for i in range(contexts)]
    net = make_net(ctx=ctx_list)
    set_weights(net, start)
    trainer = gluon.Trainer(net.collect_params(), optimizer, params)
    got = train_steps(net, trainer, batches, ctx_list=ctx_list)
    for i, array in enumerate(got):
        np.testing.assert_allclose(array, reference[f"w{i}"], rtol=1e-4, atol=1e-5)


def test_states_round_trip_when_updating_on_mx_kv(tmp_path):
    if not hasattr(mx.kv, "create"):
        pytest.skip("mx.kv.create is not available yet")
    net = make_net(ctx=CONTEXTS)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    rng = np.random.default_rng(4)
    train_steps(net, trainer, toy_batches(rng, steps=1), ctx_list=CONTEXTS)
    assert trainer._update_on_kvstore
    fname = str(tmp_path / "kv.states")
    trainer.save_states(fname)
    trainer.set_learning_rate(0.7)
    trainer.load_states(fname)
    assert trainer.learning_rate == pytest.approx(0.1)
