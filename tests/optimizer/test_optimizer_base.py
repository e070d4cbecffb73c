"""The Optimizer base class: multipliers, update counts, the registry, multi-precision.

The per-weight rules of the seed's Optimizer section: the scheduler's rate times
each weight's ``lr_mult``, ``wd`` times its ``wd_mult`` (biases get none when
names are known), gradients rescaled by ``rescale_grad``.
"""
import warnings

import numpy as np
import pytest

import minimx as mx
from minimx import nd
from minimx.base import MXNetError

NAMES = {0: "fc_weight", 1: "fc_bias", 2: "bn_gamma", 3: "bn_beta", 4: "bn_moving_mean"}


def test_wd_mult_zero_for_non_weights_when_names_are_known():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.01, param_idx2name=NAMES)
    assert [opt._get_wd(i) for i in range(5)] == [0.01, 0.0, 0.01, 0.0, 0.0]
    assert mx.optimizer.SGD(wd=0.01)._get_wd(1) == 0.01      # no names: every index decays


def test_multipliers_by_name_and_by_index():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.01, param_idx2name=NAMES)
    opt.set_lr_mult({"fc_weight": 2.0, 3: 0.5})
    opt.set_wd_mult({"fc_bias": 3.0})
    assert opt._get_lr(0) == pytest.approx(0.2)
    assert opt._get_lr(3) == pytest.approx(0.05)
    assert opt._get_lr(1) == pytest.approx(0.1)
    assert opt._get_wd(1) == pytest.approx(0.03)
    assert opt._get_wd(3) == 0.0


def test_multipliers_from_symbol_attributes():
    weight = mx.sym.Variable("fc_weight", lr_mult=2.0, wd_mult=0.5)
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), weight=weight, num_hidden=3, name="fc")
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.1, sym=net,
                           param_idx2name={0: "fc_weight", 1: "fc_bias"})
    assert opt.lr_mult == {"fc_weight": 2.0}
    assert opt.wd_mult == {"fc_bias": 0.0, "fc_weight": 0.5}
    assert (opt._get_lr(0), opt._get_wd(0)) == (pytest.approx(0.2), pytest.approx(0.05))
    opt.set_lr_mult({"fc_weight": 3.0})                  # explicit entries win
    assert opt._get_lr(0) == pytest.approx(0.3)


def test_gluon_parameter_multipliers_take_precedence():
    class Param:
        lr_mult, wd_mult = 4.0, 0.25
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.2, param_dict={0: Param()})
    opt.set_lr_mult({0: 100.0})
    assert (opt._get_lr(0), opt._get_wd(0)) == (pytest.approx(0.4), pytest.approx(0.05))


def test_update_applies_multipliers_and_rescale():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.5, rescale_grad=0.25, param_idx2name=NAMES)
    opt.set_lr_mult({"fc_bias": 2.0})
    weight, bias = nd.array([1.0, -2.0]), nd.array([1.0, -2.0])
    grad = nd.array([4.0, 8.0])
    opt.update(0, weight, grad, None)
    opt.update(1, bias, grad, None)
    w, g = np.array([1.0, -2.0]), np.array([1.0, 2.0])
    np.testing.assert_allclose(weight.asnumpy(), w - 0.1 * (g + 0.5 * w), rtol=1e-6)
    np.testing.assert_allclose(bias.asnumpy(), w - 0.2 * g, rtol=1e-6)     # no decay on bias


def test_update_counts_per_index_and_begin_num_update():
    opt = mx.optimizer.SGD(begin_num_update=10)
    weight = nd.ones((2,))
    for index in (0, 0, 1, 0):
        opt.update(index, weight, nd.ones((2,)), None)
    assert opt._index_update_count == {0: 13, 1: 11}
    assert opt.num_update == 13


def test_update_counts_are_kept_per_device():
    opt = mx.optimizer.SGD()
    opt._set_current_context(0)
    opt._update_count(0)
    opt._set_current_context(1)
    opt._update_count(0)
    opt._update_count(0)
    assert opt._all_index_update_counts == {0: {0: 1}, 1: {0: 2}}
    assert opt.num_update == 2


def test_learning_rate_from_scheduler_or_set():
    opt = mx.optimizer.SGD(learning_rate=0.2)
    assert opt.learning_rate == 0.2
    opt.set_learning_rate(0.3)
    assert opt.learning_rate == 0.3
    assert mx.optimizer.SGD().learning_rate == 0.01
    scheduled = mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.FactorScheduler(
        step=1, factor=0.5, base_lr=1.0))
    scheduled.num_update = 3
    assert scheduled.learning_rate == pytest.approx(0.25)
    with pytest.raises(UserWarning, match="LRScheduler"):
        scheduled.set_learning_rate(0.1)


def test_learning_rate_overrides_scheduler_base_lr_with_a_warning():
    scheduler = mx.lr_scheduler.FactorScheduler(step=5, base_lr=1.0)
    with pytest.warns(UserWarning, match="overwritten"):
        mx.optimizer.SGD(learning_rate=0.5, lr_scheduler=scheduler)
    assert scheduler.base_lr == 0.5


def test_create_by_name_and_errors():
    assert isinstance(mx.optimizer.create("SGD", momentum=0.9), mx.optimizer.SGD)
    assert isinstance(mx.optimizer.Optimizer.create_optimizer("adam"), mx.optimizer.Adam)
    assert isinstance(mx.optimizer.create("ccsgd"), mx.optimizer.SGD)
    assert mx.optimizer.create("adam").lr == 0.001
    with pytest.raises(MXNetError, match="unknown optimizer 'nosuch'.*sgd"):
        mx.optimizer.create("nosuch")


def test_register_a_user_optimizer():
    @mx.optimizer.Optimizer.register
    class HalfStep(mx.optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            lr, _ = self._begin_update(index)
            weight[:] = weight - lr / 2 * grad

    opt = mx.optimizer.create("halfstep", learning_rate=1.0)
    assert "halfstep" in mx.optimizer.Optimizer.opt_registry
    weight = nd.ones((2,))
    mx.optimizer.get_updater(opt)(0, nd.ones((2,)), weight)
    np.testing.assert_allclose(weight.asnumpy(), [0.5, 0.5])
    with pytest.raises(MXNetError, match="subclasses of Optimizer"):
        mx.optimizer.register(int)


def float32_run(name, kwargs, weight, grads):
    opt = mx.optimizer.create(name, **kwargs)
    array = nd.array(weight)
    state = opt.create_state(0, array)
    for grad in grads:
        opt.update(0, array, nd.array(grad.astype(np.float16).astype(np.float32)), state)
    return array.asnumpy()


@pytest.mark.parametrize("name, kwargs, master_at", [
    ("sgd", {"momentum": 0.9}, 1), ("nag", {"momentum": 0.9}, 1), ("adam", {}, 0),
    ("rmsprop", {}, 0)])
def test_multi_precision_keeps_a_float32_master_copy(name, kwargs, master_at):
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((3, 2)).astype(np.float16)
    grads = [rng.standard_normal((3, 2)).astype(np.float16) for _ in range(3)]
    opt = mx.optimizer.create(name, multi_precision=True, learning_rate=0.01, **kwargs)
    array = nd.array(weight, dtype="float16")
    state = opt.create_state_multi_precision(0, array)
    master = state[master_at]
    assert master.dtype == np.float32
    for grad in grads:
        opt.update_multi_precision(0, array, nd.array(grad, dtype="float16"), state)
    expected = float32_run(name, dict(learning_rate=0.01, **kwargs),
                           weight.astype(np.float32), grads)
    np.testing.assert_allclose(master.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    assert array.dtype == np.float16
    np.testing.assert_array_equal(array.asnumpy(), expected.astype(np.float16))


def test_float16_without_multi_precision_warns():
    with pytest.warns(UserWarning, match="multi_precision"):
        mx.optimizer.Adam().create_state_multi_precision(0, nd.ones((2,), dtype="float16"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mx.optimizer.Adam().create_state_multi_precision(0, nd.ones((2,)))


def test_update_accepts_lists_of_weights():
    opt = mx.optimizer.SGD(learning_rate=0.5, momentum=0.5)
    weights = [nd.ones((2,)), nd.ones((3,))]
    states = [opt.create_state(i, w) for i, w in enumerate(weights)]
    opt.update_multi_precision([0, 1], weights, [nd.ones((2,)), nd.ones((3,))], states)
    assert [w.asnumpy().tolist() for w in weights] == [[0.5, 0.5], [0.5, 0.5, 0.5]]
    assert opt._index_update_count == {0: 1, 1: 1}


def test_sgld_adds_gaussian_noise_of_variance_lr():
    lr = 0.01
    opt = mx.optimizer.SGLD(learning_rate=lr)
    weight = nd.zeros((200, 50))
    opt.update(0, weight, nd.ones((200, 50)), opt.create_state(0, weight))
    noise = weight.asnumpy() + lr / 2          # the deterministic half step is -lr/2 * grad
    assert abs(noise.mean()) < 0.01
    assert noise.std() == pytest.approx(np.sqrt(lr), rel=0.05)


def test_updates_give_the_same_result_on_both_engines(engine):
    rng = np.random.default_rng(7)
    weight, grads = rng.standard_normal((4,)), [rng.standard_normal((4,)) for _ in range(3)]
    results = {}
    for name in ("sgd", "adam", "lamb"):
        opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.01)
        array = nd.array(weight)
        state = opt.create_state(0, array)
        for grad in grads:
            opt.update(0, array, nd.array(grad), state)
        results[name] = array.asnumpy()
    with mx.engine.engine_type("NaiveEngine"):
        for name, got in results.items():
            opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.01)
            array = nd.array(weight)
            state = opt.create_state(0, array)
            for grad in grads:
                opt.update(0, array, nd.array(grad), state)
            np.testing.assert_array_equal(got, array.asnumpy())


@pytest.mark.parametrize("bound, expected", [(2.0, [-2.0, 2.0]), (None, [-5.0, 5.0]),
                                             (-1.0, [-5.0, 5.0])])
def test_clip_gradient_bounds_the_rescaled_gradient(bound, expected):
    opt = mx.optimizer.SGD(learning_rate=1.0, rescale_grad=0.5, clip_gradient=bound)
    weight = nd.zeros((2,))
    opt.update(0, weight, nd.array([10.0, -10.0]), None)
    np.testing.assert_allclose(weight.asnumpy(), expected)
