"""mx.kv 'local' and 'device': init/push/pull semantics, updaters, states, errors."""
import importlib.util
import json
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import backend, nd
from minimx.base import MXNetError


@pytest.fixture
def two_gpus():
    with backend.stand_in_gpus(2):
        yield [mx.gpu(0), mx.gpu(1)]


def pulled(kv, key, shape, ctx=None):
    out = nd.zeros(shape, ctx=ctx or mx.cpu())
    kv.pull(key, out=out)
    return out.asnumpy()


@pytest.mark.parametrize("kvtype", ["local", "device"])
def test_init_pull_and_push_replaces_with_sum(kvtype):
    kv = mx.kv.create(kvtype)
    assert (kv.type, kv.rank, kv.num_workers) == (kvtype, 0, 1)
    kv.init(3, nd.ones((2, 3)))
    np.testing.assert_array_equal(pulled(kv, 3, (2, 3)), np.ones((2, 3)))
    kv.push(3, [nd.ones((2, 3)) * 2, nd.ones((2, 3)) * 3])
    np.testing.assert_array_equal(pulled(kv, 3, (2, 3)), np.full((2, 3), 5.0))
    kv.push(3, nd.ones((2, 3)) * 7)                      # no updater: replaced, not added
    np.testing.assert_array_equal(pulled(kv, 3, (2, 3)), np.full((2, 3), 7.0))


@settings(max_examples=15, deadline=None)
@given(values=st.lists(st.lists(st.floats(-100, 100, width=32), min_size=3, max_size=3),
                       min_size=1, max_size=4))
def test_push_sums_any_number_of_values(values):
    kv = mx.kv.create("local")
    kv.init("w", nd.zeros((3,)))
    kv.push("w", [nd.array(value) for value in values])
    expected = np.sum(np.array(values, dtype=np.float32), axis=0)
    np.testing.assert_allclose(pulled(kv, "w", (3,)), expected, rtol=1e-5, atol=1e-4)


def test_lists_of_keys_and_outputs():
    kv = mx.kv.create("local")
    kv.init([5, 6], [nd.ones((2,)), nd.ones((3,)) * 2])
    outs = [nd.zeros((2,)), nd.zeros((3,))]
    kv.pull([5, 6], out=outs)
    assert [o.asnumpy().tolist() for o in outs] == [[1, 1], [2, 2, 2]]
    kv.push([5, 6], [[nd.ones((2,)), nd.ones((2,))], [nd.ones((3,)) * 5]])
    many = [[nd.zeros((2,))], [nd.zeros((3,)), nd.zeros((3,))]]
    kv.pull([5, 6], out=many)
    assert many[0][0].asnumpy().tolist() == [2, 2]
    assert [o.asnumpy().tolist() for o in many[1]] == [[5, 5, 5]] * 2
    kv.push([5, 5], [nd.ones((2,)) * 2, nd.ones((2,)) * 3])   # one key twice: summed
    assert pulled(kv, 5, (2,)).tolist() == [5, 5]


def test_pushpull_and_broadcast():
    kv = mx.kv.create("local")
    kv.init(3, nd.ones((2,)))
    value = nd.ones((2,)) * 4
    kv.pushpull(3, value)                                 # no out: back into value
    assert value.asnumpy().tolist() == [4, 4]
    out = [nd.zeros((2,)), nd.zeros((2,))]
    kv.pushpull(3, [nd.ones((2,)) * 7, nd.ones((2,))], out=out)
    assert [o.asnumpy().tolist() for o in out] == [[8, 8], [8, 8]]
    kv.broadcast(10, nd.ones((2,)) * 3, out=out)
    assert [o.asnumpy().tolist() for o in out] == [[3, 3], [3, 3]]
    with pytest.raises(MXNetError, match="duplicate init of key 10"):
        kv.broadcast(10, nd.ones((2,)), out=out)


def test_updater_receives_key_sum_and_stored():
    kv = mx.kv.create("local")
    kv.init(5, nd.ones((2,)))
    kv.init(7, nd.ones((2,)))
    calls = []

    def updater(key, summed, stored):
        calls.append(key)
        stored += summed * 2

    kv._set_updater(updater)
    kv.push(5, [nd.ones((2,)), nd.ones((2,)) * 2])
    assert pulled(kv, 5, (2,)).tolist() == [7, 7]          # 1 + 2 * (1 + 2)
    assert calls == [5]
    str_kv = mx.kv.create("local")
    str_kv.init("w", nd.zeros((1,)))
    str_kv._set_updater(lambda key, summed, stored: calls.append(key))
    str_kv.push("w", nd.ones((1,)))
    assert calls[-1] == b"w"                                # as MXNet: str keys as bytes


def test_set_optimizer_sgd_momentum_formula():
    kv = mx.kv.create("local")
    weight = np.array([1.0, -2.0], dtype=np.float32)
    kv.init(0, nd.array(weight))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01))
    momentum = np.zeros(2, dtype=np.float32)
    for step in range(3):
        grads = [np.array([0.5, step], dtype=np.float32), np.array([1.0, -1.0], np.float32)]
        kv.push(0, [nd.array(g) for g in grads])
        total = grads[0] + grads[1]
        momentum = 0.9 * momentum - 0.1 * (total + 0.01 * weight)
        weight = weight + momentum
        np.testing.assert_allclose(pulled(kv, 0, (2,)), weight, rtol=1e-5)


def test_optimizer_states_round_trip(tmp_path):
    def make():
        kv = mx.kv.create("local")
        kv.init("w", nd.ones((3,)))
        kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.01))
        return kv

    first, second = make(), make()
    grad = nd.array([0.1, -0.2, 0.3])
    first.push("w", grad)
    second.push("w", grad)
    path = str(tmp_path / "kv.states")
    first.save_optimizer_states(path, dump_optimizer=True)
    second.load_optimizer_states(path)
    first.push("w", grad)
    second.push("w", grad)
    np.testing.assert_allclose(pulled(first, "w", (3,)), pulled(second, "w", (3,)))
    with open(path, "rb") as file:
        assert b"\x80" not in file.read(2)                  # not a pickle stream
    with pytest.raises(MXNetError, match="set_optimizer"):
        mx.kv.create("local").save_optimizer_states(path)


def test_errors_name_the_key_and_values():
    kv = mx.kv.create("local")
    kv.init(3, nd.ones((2, 3)))
    with pytest.raises(MXNetError, match="duplicate init of key 3"):
        kv.init(3, nd.ones((2, 3)))
    with pytest.raises(MXNetError, match="Mixed key types"):
        kv.init("x", nd.ones((1,)))
    with pytest.raises(MXNetError, match="key 9 has not been inited"):
        kv.pull(9, out=nd.zeros((1,)))
    with pytest.raises(MXNetError, match="key 9 has not been inited"):
        kv.push(9, nd.zeros((1,)))
    with pytest.raises(MXNetError, match=r"key 3 holds shape \(2, 3\).*shape \(3, 3\)"):
        kv.push(3, nd.ones((3, 3)))
    with pytest.raises(MXNetError, match=r"key 3 holds shape \(2, 3\).*shape \(3,\)"):
        kv.pull(3, out=nd.zeros((3,)))
    with pytest.raises(MXNetError, match="needs `out`"):
        kv.pull(3)
    with pytest.raises(TypeError, match="int or str"):
        kv.init(1.5, nd.ones((1,)))
    with pytest.raises(MXNetError, match="2 keys but 1 values"):
        kv.push([3, 4], [nd.ones((2, 3))])
    with pytest.raises(MXNetError, match="unknown KVStore type 'bogus'"):
        mx.kv.create("bogus")
    with pytest.raises(ValueError, match="Unknown capability"):
        kv.is_capable("bogus")
    assert kv.is_capable("optimizer") and kv.is_capable(mx.kv.KVStore.OPTIMIZER)


def test_gradient_compression_2bit_with_residual():
    with pytest.raises(MXNetError, match="not supported"):
        mx.kv.create("local").set_gradient_compression({"type": "2bit"})
    kv = mx.kv.create("device")
    with pytest.raises(MXNetError, match="Unknown type for gradient compression 1bit"):
        kv.set_gradient_compression({"type": "1bit"})
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.init(0, nd.zeros((4,)))
    grad = [0.3, 0.6, -0.7, 1.4]
    kv.push(0, nd.array(grad))
    np.testing.assert_allclose(pulled(kv, 0, (4,)), [0, 0.5, -0.5, 0.5])
    kv.push(0, nd.array(grad))              # residual [0.3, 0.1, -0.2, 0.9] + grad
    np.testing.assert_allclose(pulled(kv, 0, (4,)), [0.5, 0.5, -0.5, 0.5])


def test_device_store_sums_on_first_device_and_pulls_everywhere(two_gpus):
    kv = mx.kv.create("device")
    kv.init("w", nd.ones((2,), ctx=two_gpus[0]))
    kv.push("w", [nd.ones((2,), ctx=ctx) * (i + 1) for i, ctx in enumerate(two_gpus)])
    assert kv._store["w"].context == two_gpus[0]
    outs = [nd.zeros((2,), ctx=ctx) for ctx in [*two_gpus, mx.cpu()]]
    kv.pull("w", out=outs)
    for out, ctx in zip(outs, [*two_gpus, mx.cpu()]):
        assert out.context == ctx
        assert out.asnumpy().tolist() == [3, 3]


def test_device_store_moves_to_the_pushing_device(two_gpus):
    kv = mx.kv.create("device")
    kv.init(0, nd.ones((2,)))                             # cpu, as Module initialises
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0))
    kv.push(0, [nd.ones((2,), ctx=ctx) for ctx in two_gpus])
    assert kv._store[0].context == two_gpus[0]
    assert pulled(kv, 0, (2,), two_gpus[1]).tolist() == [-1, -1]


def test_local_store_keeps_values_on_cpu(two_gpus):
    kv = mx.kv.create("local")
    kv.init(0, nd.ones((2,), ctx=two_gpus[1]))
    kv.push(0, [nd.ones((2,), ctx=ctx) for ctx in two_gpus])
    assert kv._store[0].context == mx.cpu(0)
    assert pulled(kv, 0, (2,), two_gpus[1]).tolist() == [2, 2]


def test_dtype_of_stored_value_is_kept():
    kv = mx.kv.create("local")
    kv.init(9, nd.ones((2,), dtype="float16"))
    kv.push(9, nd.ones((2,)) * 3)
    out = nd.zeros((2,))
    kv.pull(9, out=out)
    assert kv._store[9].dtype == np.float16 and out.dtype == np.float32
    assert out.asnumpy().tolist() == [3, 3]


def test_engine_orders_push_and_pull(engine):
    kv = mx.kv.create("local")
    kv.init(0, nd.zeros((50, 50)))
    total = np.zeros((50, 50), dtype=np.float32)
    out = nd.zeros((50, 50))
    kv._set_updater(lambda key, summed, stored: stored.__iadd__(summed))
    for step in range(5):
        kv.push(0, nd.ones((50, 50)) * step)
        total += step
        kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), total)


@pytest.mark.mxnet
def test_compare_with_mxnet(mxnet_python, tmp_path):
    """The same calls on MXNet 1.9.1's KVStore give the same values."""
    script = tmp_path / "kv_peer.py"
    script.write_text(PEER_SCRIPT)
    ref = subprocess.run([mxnet_python, str(script)], capture_output=True, text=True,
                         timeout=300)
    assert ref.returncode == 0, ref.stderr
    expected = json.loads(ref.stdout.strip().splitlines()[-1])
    spec = importlib.util.spec_from_file_location("kv_peer", script)
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    actual = peer.run(mx, nd)
    for name in expected:
        np.testing.assert_allclose(actual[name], expected[name], rtol=1e-5, err_msg=name)


PEER_SCRIPT = '''
import json, sys
def run(mx, nd):
    result = {}
    kv = mx.kv.create("device")
    kv.init([0, 1], [nd.array([1.0, 2.0]), nd.array([[1.0], [3.0]])])
    kv.push(0, [nd.array([0.5, -1.0]), nd.array([2.0, 4.0])])
    out = nd.zeros((2,)); kv.pull(0, out=out); result["replaced"] = out.asnumpy().tolist()
    kv.set_optimizer(mx.optimizer.create("adam", learning_rate=0.1, wd=0.01))
    for step in range(3):
        kv.push(1, [nd.array([[step], [1.0]]), nd.array([[0.5], [-2.0]])])
    o = nd.zeros((2, 1)); kv.pull(1, out=o); result["adam"] = o.asnumpy().ravel().tolist()
    kv.pushpull(0, nd.array([1.0, 1.0]), out=out); result["pushpull"] = out.asnumpy().tolist()
    kv2 = mx.kv.create("device"); kv2.set_gradient_compression({"type": "2bit", "threshold": 1})
    kv2.init("g", nd.zeros((3,)))
    for step in range(3):
        kv2.push("g", nd.array([0.4, -0.9, 2.5]))
    g = nd.zeros((3,)); kv2.pull("g", out=g); result["2bit"] = g.asnumpy().tolist()
    return result
if __name__ == "__main__":
    import mxnet
    print(json.dumps(run(mxnet, mxnet.nd)))
'''
