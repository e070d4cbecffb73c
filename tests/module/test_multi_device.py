"""Module on two contexts (numpy standing in for two GPUs): the batch is split between the
executors and the gradients are added up, through a KVStore or directly, so training gives
the same parameters as on one device."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import backend
from minimx.module import updating
from minimx.module.executor_group import split_input_slice

from module_cases import mlp, numpy_params, separable


@pytest.fixture
def two_gpus():
    with backend.stand_in_gpus(2):
        try:
            yield [mx.gpu(0), mx.gpu(1)]
        finally:
            mx.nd.waitall()


class RecordingStore:
    """A minimal KVStore (init/push/pull/set_optimizer), recording what Module asks of it."""

    type = "local"
    num_workers = 1
    rank = 0

    def __init__(self):
        self.values, self.calls, self.updater = {}, [], None

    def init(self, key, value):
        self.values[key] = value.copyto(mx.cpu())
        self.calls.append(("init", key))

    def set_optimizer(self, optimizer):
        self.updater = mx.optimizer.get_updater(optimizer)

    def push(self, key, values, priority=0):
        total = mx.nd.add_n(*[v.as_in_context(mx.cpu()) for v in values])
        if self.updater is not None:
            self.updater(key, total, self.values[key])
        else:
            self.values[key] = total
        self.calls.append(("push", key, len(values)))

    def pull(self, key, out=None, priority=0):
        for target in out:
            self.values[key].copyto(target)


def train(contexts, x, y, steps=3, kvstore="local", work_load_list=None, batch=8):
    """A few SGD-with-momentum steps from fixed initial values; the module is returned."""
    mod = mx.mod.Module(mlp(), context=contexts, work_load_list=work_load_list)
    mod.bind(data_shapes=[("data", (batch, 4))], label_shapes=[("softmax_label", (batch,))])
    mod.init_params(mx.init.Xavier(rnd_type="gaussian"))
    start = {name: mx.nd.array(value) for name, value in START.items()}
    mod.set_params(start, {})
    mod.init_optimizer(kvstore=kvstore, optimizer_params={"learning_rate": 0.2,
                                                          "momentum": 0.9})
    it = mx.io.NDArrayIter(x, y, batch_size=batch)
    for _, batch in zip(range(steps), it):
        mod.forward_backward(batch)
        mod.update()
    return mod


rng = np.random.RandomState(7)
START = {"fc1_weight": rng.normal(0, 0.5, (8, 4)).astype(np.float32),
         "fc1_bias": np.zeros(8, np.float32),
         "fc2_weight": rng.normal(0, 0.5, (3, 8)).astype(np.float32),
         "fc2_bias": np.zeros(3, np.float32)}


def assert_same_params(mod, reference):
    for name, value in numpy_params(reference).items():
        np.testing.assert_allclose(numpy_params(mod)[name], value, rtol=1e-4, atol=1e-5)


def test_the_batch_is_split_and_outputs_merge(two_gpus):
    x, y = separable(n=8)
    mod = mx.mod.Module(mlp(), context=two_gpus, work_load_list=[1, 3])
    mod.bind(data_shapes=[("data", (8, 4))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(mx.init.Xavier())
    group = mod._exec_group
    assert group.slices == [slice(0, 2), slice(2, 8)]
    assert [e.arg_dict["data"].shape for e in group.execs] == [(2, 4), (6, 4)]
    assert [e.arg_dict["data"].context for e in group.execs] == two_gpus
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]), is_train=False)
    single = mx.mod.Module(mlp())
    single.bind(data_shapes=[("data", (8, 4))], label_shapes=[("softmax_label", (8,))])
    single.init_params(arg_params=mod.get_params()[0], aux_params={})
    single.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(),
                               single.get_outputs()[0].asnumpy(), rtol=1e-5)
    assert [o.shape for o in mod.get_outputs(merge_multi_context=False)[0]] == [(2, 3), (6, 3)]
    acc = mx.metric.Accuracy()
    mod.update_metric(acc, [mx.nd.array(y)])
    assert acc.num_inst == 8


def test_local_sum_without_a_kvstore_matches_one_device(two_gpus, monkeypatch):
    monkeypatch.setattr(updating, "_new_store", lambda name: None)
    x, y = separable(n=24)
    mod = train(two_gpus, x, y)
    assert mod._kvstore is None and mod._sum_locally and not mod._update_on_kvstore
    assert_same_params(mod, train(mx.cpu(), x, y))
    # the two devices hold identical copies
    for block in mod._exec_group.param_arrays:
        np.testing.assert_array_equal(block[0].asnumpy(), block[1].asnumpy())


@pytest.mark.parametrize("update_on_kvstore", ["1", "0"])
def test_a_kvstore_adds_the_gradients_up(two_gpus, monkeypatch, update_on_kvstore):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", update_on_kvstore)
    x, y = separable(n=24)
    store = RecordingStore()
    mod = train(two_gpus, x, y, kvstore=store)
    assert mod._update_on_kvstore == (update_on_kvstore == "1")
    assert ("init", "fc1_weight") in store.calls and ("push", "fc2_bias", 2) in store.calls
    assert_same_params(mod, train(mx.cpu(), x, y))


def test_the_real_kvstore_when_minimx_has_one(two_gpus):
    if not hasattr(mx.kv, "create"):
        pytest.skip("mx.kv.create is not available yet")
    x, y = separable(n=24)
    mod = train(two_gpus, x, y, kvstore="device")
    assert mod._kvstore is not None
    assert_same_params(mod, train(mx.cpu(), x, y))


def test_without_a_kvstore_each_device_trains_alone(two_gpus):
    x, y = separable(n=8)
    mod = train(two_gpus, x, y, steps=1, kvstore=None)
    first, second = (e.arg_dict["fc2_weight"].asnumpy() for e in mod._exec_group.execs)
    assert not np.allclose(first, second)                       # MXNet's kvstore=None
    np.testing.assert_allclose(numpy_params(mod)["fc2_weight"], (first + second) / 2,
                               rtol=1e-6)


def test_fit_on_two_devices_reaches_the_same_accuracy(two_gpus):
    x, y = separable(n=64)
    train_iter = mx.io.NDArrayIter(x, y, batch_size=16, shuffle=True)
    mod = mx.mod.Module(mlp(), context=two_gpus)
    mod.fit(train_iter, num_epoch=4, initializer=mx.init.Xavier(), progress=False,
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert dict(mod.score(train_iter, "acc"))["accuracy"] >= 0.9


@settings(max_examples=30, deadline=None)
@given(batch=st.integers(1, 64), loads=st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_split_input_slice_covers_the_batch(batch, loads):
    if batch < len(loads):
        with pytest.raises(mx.MXNetError, match="no example"):
            split_input_slice(batch, loads)
        return
    try:
        slices = split_input_slice(batch, loads)
    except mx.MXNetError:
        return          # rounding left a device without examples (MXNet refuses too)
    assert slices[0].start == 0 and slices[-1].stop == batch
    assert all(a.stop == b.start for a, b in zip(slices, slices[1:]))
    sizes = [s.stop - s.start for s in slices]
    for size, load in zip(sizes[:-1], loads[:-1]):
        assert abs(size - load * batch / sum(loads)) <= 0.5 + 1e-9
