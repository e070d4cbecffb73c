"""The optimizers that MXNet backs with a fused kernel update each weight in one engine push.

One ``nd.<rule>_update`` call computes the whole step and writes the weight and
its states, as MXNet's ``optimizer_op`` kernels do; these tests count the pushes
and check that a float16 weight goes through the float32 master copy.
"""
import numpy as np
import pytest

import minimx as mx
from minimx import engine, nd

# An Updater hands SGD its weights as a list (MXNet's aggregated path, even for one weight):
# MXNet 1.9.1 then pushes multi_sgd_update / multi_sgd_mom_update with num_weights=1.
FUSED = [("sgd", {}, "multi_sgd_update"), ("sgd", {"momentum": 0.9}, "multi_sgd_mom_update"),
         ("nag", {"momentum": 0.9}, "nag_mom_update"), ("signum", {}, "signum_update"),
         ("signum", {"momentum": 0.0}, "signsgd_update"), ("adam", {}, "adam_update"),
         ("rmsprop", {}, "rmsprop_update"), ("rmsprop", {"centered": True},
                                              "rmspropalex_update"),
         ("ftrl", {}, "ftrl_update")]


def _pushes_of_one_update(optimizer, weight, grad):
    updater = mx.optimizer.get_updater(optimizer)
    updater(0, grad, weight)            # creates the state (its zeros are pushes too)
    nd.waitall()
    names = []
    listener = engine.subscribe(lambda event: event.kind == "push" and names.append(event.name))
    try:
        updater(0, grad, weight)
        nd.waitall()
    finally:
        engine.unsubscribe(listener)
    return names


@pytest.mark.parametrize("name, params, op_name", FUSED,
                         ids=[f"{name}-{op}" for name, _, op in FUSED])
def test_one_push_per_weight(name, params, op_name):
    optimizer = mx.optimizer.create(name, learning_rate=0.1, wd=0.01, rescale_grad=0.5,
                                    clip_gradient=1.0, **params)
    names = _pushes_of_one_update(optimizer, nd.ones((4, 3)), nd.ones((4, 3)))
    assert names == [op_name]


@pytest.mark.parametrize("momentum, op_name", [(0.0, "multi_mp_sgd_update"),
                                               (0.9, "multi_mp_sgd_mom_update")])
def test_float16_sgd_uses_the_multi_precision_operator(momentum, op_name):
    optimizer = mx.optimizer.SGD(learning_rate=0.1, momentum=momentum, multi_precision=True)
    weight = nd.full((3,), 0.5, dtype="float16")
    names = _pushes_of_one_update(optimizer, weight, nd.full((3,), 1e-3, dtype="float16"))
    assert names == [op_name]
    # two steps of about 1e-4, each below half a float16 step at 0.5: only a float32
    # master copy accumulates them
    master, mom, grad = np.float32(0.5), np.float32(0.0), np.float32(np.float16(1e-3))
    for _ in range(2):
        mom = momentum * mom - np.float32(0.1) * grad
        master = master + mom
    assert weight.dtype == np.float16
    np.testing.assert_array_equal(weight.asnumpy(), np.float16(master))
    assert (weight.asnumpy() < 0.5).all()


def test_gradient_clipping_off_for_zero_as_in_mxnet():
    optimizer = mx.optimizer.SGD(learning_rate=1.0, clip_gradient=0)
    weight, grad = nd.zeros((2,)), nd.array([3.0, -3.0])
    optimizer.update(0, weight, grad, optimizer.create_state(0, weight))
    np.testing.assert_allclose(weight.asnumpy(), [-3.0, 3.0])
