"""``OpDef.backward(..., needs=...)``: gradients nobody keeps are not computed.

The executor passes ``needs`` from the arguments' ``grad_req`` (a network's
``data`` has none), autograd from which inputs carry a gradient.  Each test
spies on the ``needs`` an operator receives and checks that the gradients that
are kept stay the same.
"""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd
from minimx.op import get_op
from minimx.op.registry import ALL_NEEDED


@pytest.fixture
def spy(monkeypatch):
    """``spy(op_name)`` records the ``needs`` each backward call of that operator gets."""
    def install(name):
        cls = get_op(name)
        original, seen = cls.backward, []

        def backward(self, xp, *args, needs=ALL_NEEDED, **kwargs):
            seen.append(tuple(needs) if needs is not ALL_NEEDED else "all")
            return original(self, xp, *args, needs=needs, **kwargs)

        monkeypatch.setattr(cls, "backward", backward)
        return seen
    return install


def test_every_listed_operator_declares_needs():
    for name in ("FullyConnected", "Convolution", "Deconvolution", "dot", "batch_dot",
                 "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
                 "elemwise_mul", "broadcast_power"):
        assert "needs" in get_op(name).backward_extras, name


def test_executor_skips_the_gradient_of_data_without_grad_req(spy):
    seen = spy("FullyConnected")
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    values = {"data": nd.array(np.random.rand(4, 5)), "fc_weight": nd.array(np.random.rand(3, 5)),
              "fc_bias": nd.array(np.random.rand(3))}
    results = {}
    for data_req in ("null", "write"):
        grads = {name: nd.zeros(value.shape) for name, value in values.items()}
        executor = net.bind(mx.current_context(), values, args_grad=grads,
                            grad_req={"data": data_req, "fc_weight": "write",
                                      "fc_bias": "write"})
        executor.forward(is_train=True)
        executor.backward(nd.ones((4, 3)))
        results[data_req] = {name: grad.asnumpy() for name, grad in grads.items()}
    assert seen == [(False, True, True), (True, True, True)]
    for name in ("fc_weight", "fc_bias"):
        np.testing.assert_allclose(results["null"][name], results["write"][name])
    np.testing.assert_allclose(results["null"]["data"], 0)
    np.testing.assert_allclose(results["write"]["data"], np.ones((4, 3)) @ values[
        "fc_weight"].asnumpy(), rtol=1e-5)


def test_autograd_skips_inputs_without_a_gradient(spy):
    seen = spy("broadcast_mul")
    x, w = nd.array([[1.0, 2.0], [3.0, 4.0]]), nd.array([[0.5, -1.0]])
    w.attach_grad()
    with autograd.record():
        y = x * w
    y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), [[4.0, 6.0]])     # waits for backward
    assert seen == [(False, True)]


def test_dot_computes_only_the_needed_side(spy):
    seen = spy("dot")
    a, b = nd.array(np.random.rand(2, 3)), nd.array(np.random.rand(3, 4))
    a.attach_grad()
    with autograd.record():
        y = nd.dot(a, b)
    y.backward(nd.ones((2, 4)))
    np.testing.assert_allclose(a.grad.asnumpy(), np.ones((2, 4)) @ b.asnumpy().T, rtol=1e-5)
    assert seen == [(True, False)]


def test_called_directly_backward_computes_every_gradient():
    op = get_op("FullyConnected").create(num_hidden=2)
    data, weight = np.ones((3, 4), np.float32), np.ones((2, 4), np.float32)
    grads = op.backward(np, np.ones((3, 2), np.float32), data=data, weight=weight)
    assert all(grad is not None for grad in grads)


def test_gradients_already_shaped_are_handed_back_as_computed():
    """A same-shape reshape is a view, which an executor copies before keeping it as a
    gradient; FullyConnected's gradients and SoftmaxOutput's output and gradient of 2-D
    values are the arrays computed (no view), and still reshaped where shapes differ."""
    fc = get_op("FullyConnected").create(num_hidden=2)
    data, weight = np.ones((3, 4), np.float32), np.ones((2, 4), np.float32)
    grads = fc.backward(np, np.ones((3, 2), np.float32), data=data, weight=weight,
                        bias_shape=(2,))
    assert all(grad.base is None for grad in grads)
    assert [grad.shape for grad in grads] == [(3, 4), (2, 4), (2,)]
    column = fc.backward(np, np.ones((3, 2), np.float32), data=data, weight=weight,
                         bias_shape=(2, 1))[2]
    assert column.shape == (2, 1)
    images = fc.backward(np, np.ones((3, 2), np.float32), data=np.ones((3, 2, 2), np.float32),
                         weight=weight, bias_shape=(2,))[0]
    assert images.shape == (3, 2, 2)
    softmax = get_op("SoftmaxOutput").create()
    scores, label = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([0, 2], np.float32)
    output = softmax.forward(np, scores, label)
    grad = softmax.backward(np, None, label=label, output=output)[0]
    assert output.base is None and grad.base is None
    np.testing.assert_array_equal(grad, output - np.eye(3, dtype=np.float32)[[0, 2]])
