"""The Updater: states per weight, and saving/loading them without pickle."""
import pickle
import subprocess

import numpy as np
import pytest

import minimx as mx
from minimx import nd
from minimx.base import MXNetError


def train(updater, weights, grads):
    for grad in grads:
        for index, weight in weights.items():
            updater(index, nd.array(grad), weight)


def make_weights():
    return {0: nd.array([1.0, -1.0, 0.5]), "bias": nd.array([0.2, 0.1, -0.3])}


GRADS = [np.array([0.3, -0.2, 0.1]), np.array([-0.5, 0.4, 0.2]), np.array([0.1, 0.1, -0.4])]


def make_optimizer():
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    return mx.optimizer.Adam(learning_rate=0.1, lr_scheduler=scheduler, wd=0.01)


def test_states_are_created_on_first_update():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    weights = make_weights()
    train(updater, weights, GRADS[:1])
    assert sorted(updater.states, key=str) == [0, "bias"]
    assert updater.states_synced == {0: True, "bias": True}
    updater([1, 2], [nd.ones((1,)), nd.ones((1,))], [nd.ones((1,)), nd.ones((1,))])
    updater(b"key", nd.ones((1,)), nd.ones((1,)))
    assert "key" in updater.states and 2 in updater.states


@pytest.mark.parametrize("dump_optimizer", [False, True])
def test_saved_states_resume_training_exactly(dump_optimizer):
    uninterrupted = mx.optimizer.get_updater(make_optimizer())
    expected = make_weights()
    train(uninterrupted, expected, GRADS)

    first = mx.optimizer.get_updater(make_optimizer())
    weights = make_weights()
    train(first, weights, GRADS[:2])
    payload = first.get_states(dump_optimizer=dump_optimizer)
    assert isinstance(payload, bytes)
    second = mx.optimizer.get_updater(first.optimizer if not dump_optimizer
                                      else mx.optimizer.SGD())
    second.set_states(payload)
    assert second.states_synced == {0: False, "bias": False}
    if dump_optimizer:
        restored = second.optimizer
        assert isinstance(restored, mx.optimizer.Adam)
        assert isinstance(restored.lr_scheduler, mx.lr_scheduler.FactorScheduler)
        assert restored._index_update_count == {0: 2, "bias": 2}
        assert restored._index_update_count is restored._all_index_update_counts[0]
    train(second, weights, GRADS[2:])
    for key in expected:
        np.testing.assert_array_equal(weights[key].asnumpy(), expected[key].asnumpy())


def test_states_file_is_an_nd_save_file():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    train(updater, make_weights(), GRADS[:1])
    loaded = nd.load_frombuffer(updater.get_states())
    assert sorted(loaded) == ["0", "1", "__minimx_states__"]
    assert loaded["__minimx_states__"].dtype == np.uint8


def test_nested_and_empty_states_round_trip():
    updater = mx.optimizer.get_updater(mx.optimizer.RMSProp(centered=True))
    train(updater, make_weights(), GRADS[:1])
    sgd = mx.optimizer.get_updater(mx.optimizer.SGD())       # momentum 0: states are None
    train(sgd, make_weights(), GRADS[:1])
    for source in (updater, sgd):
        target = mx.optimizer.get_updater(source.optimizer)
        target.set_states(source.get_states())
        for key, state in source.states.items():
            restored = target.states[key]
            if state is None:
                assert restored is None
                continue
            assert isinstance(restored, tuple) and len(restored) == len(state)
            for mine, theirs in zip(restored, state):
                np.testing.assert_array_equal(mine.asnumpy(), theirs.asnumpy())


def test_pickled_states_are_refused():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(MXNetError, match="never unpickles"):
        updater.set_states(pickle.dumps({0: None}))
    with pytest.raises(MXNetError):
        updater.set_states(b"\x00" * 40)


def test_unsaveable_state_is_named():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    updater.states[0] = object()
    with pytest.raises(MXNetError, match=r"states\[0\].*object"):
        updater.get_states()


def test_unknown_optimizer_class_is_not_restored():
    payload = mx.optimizer.get_updater(mx.optimizer.SGD()).get_states(dump_optimizer=True)
    original = b"minimx.optimizer.sgd:SGD"
    tampered = payload.replace(original, b"os.path:".ljust(len(original), b"x"))
    with pytest.raises(MXNetError, match="not an Optimizer or LRScheduler class"):
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(tampered)


@pytest.mark.mxnet
def test_mxnet_reads_the_states_file(mxnet_python, tmp_path):
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    weights = make_weights()
    train(updater, weights, GRADS[:2])
    path = tmp_path / "sgd.states"
    path.write_bytes(updater.get_states())
    code = ("import mxnet as mx, sys; d = mx.nd.load(sys.argv[1]); "
            "print(sorted(d)); print(d['0'].asnumpy().tolist())")
    finished = subprocess.run([mxnet_python, "-c", code, str(path)], capture_output=True,
                              text=True, timeout=120)
    lines = finished.stdout.strip().splitlines()
    assert lines[0] == str(["0", "1", "__minimx_states__"]), finished.stderr[-2000:]
    np.testing.assert_allclose(eval(lines[1]), updater.states[0].asnumpy(), rtol=1e-6)
