"""The short cuts of a training step (issue 31) give the plain path's bits: SoftmaxOutput's
gradient for class ids without options, relu's gradient as a product with a mask, a batch of
one row's bias gradient, and an executor's cached engine vars when its arrays change."""
import numpy as np
import pytest

import minimx as mx
from minimx.op import get_op
from minimx.op.output import _one_hot


def _same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(
        a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("shape", [(1, 10), (5, 7), (4, 3, 1, 1)])
def test_softmax_output_gradient_of_class_ids(shape):
    """``probs - (label == class ids)`` is ``probs - one_hot``, also for labels that match
    no class (out of range, negative, not whole)."""
    op = get_op("SoftmaxOutput").create()
    rng = np.random.default_rng(0)
    output = op.forward(np, rng.standard_normal(shape).astype(np.float32),
                        np.zeros(shape[0], np.float32))
    classes = int(np.prod(shape[1:]))
    label = rng.integers(0, classes, shape[0]).astype(np.float32)
    label[0] = classes          # no class: a zero one-hot row
    if shape[0] > 2:
        label[1], label[2] = -1, 0.5
    grad, label_grad = op.backward(np, np.ones(shape, np.float32), label=label, output=output)
    rows = output.reshape(shape[0], -1)
    expected = (rows - _one_hot(np, label, classes, 1, rows.dtype)).reshape(shape)
    assert label_grad is None and _same_bits(grad, expected)


def test_relu_gradient_as_masked_product():
    op = get_op("Activation").create(act_type="relu")
    rng = np.random.default_rng(1)
    for dtype in (np.float16, np.float32, np.float64):
        data = rng.standard_normal((6, 5)).astype(dtype)
        data[0, :3] = [0.0, -0.0, np.nan]
        output = op.forward(np, data)
        out_grad = rng.standard_normal((6, 5)).astype(dtype)
        out_grad[1, :2] = [np.nan, -0.0]
        out_grad[0, 0] = -1.0            # times a zero of the mask: -0, as the derivative's
        expected = out_grad * (output > 0).astype(dtype)
        assert _same_bits(op.backward(np, out_grad, data=data, output=output), expected)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_fully_connected_bias_gradient_of_one_row(dtype):
    op = get_op("FullyConnected").create(num_hidden=4)
    rng = np.random.default_rng(2)
    out_grad = rng.standard_normal((1, 4)).astype(dtype)
    out_grad[0, :2] = [-0.0, np.nan]
    data, weight = (rng.standard_normal(s).astype(dtype) for s in ((1, 5), (4, 5)))
    grads = op.backward(np, out_grad, data=data, weight=weight, bias_shape=(4,))
    assert _same_bits(grads[2], out_grad.sum(axis=0)) and grads[2].flags.owndata


def test_executor_follows_arrays_replaced_after_a_step():
    """The engine vars an executor pushes with are kept per set of bound arrays: new
    gradient arrays get the next step's gradients, the old ones keep theirs."""
    x = mx.sym.var("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=3, name="fc"),
                               name="softmax")
    executor = net.simple_bind(mx.cpu(), data=(2, 4))
    executor.arg_dict["data"][:] = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    executor.arg_dict["fc_weight"][:] = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    executor.arg_dict["softmax_label"][:] = np.array([0, 2], np.float32)
    executor.forward(is_train=True)
    executor.backward()
    first = executor.grad_dict["fc_weight"].asnumpy()
    old = executor.grad_arrays[1]
    executor.grad_arrays = [mx.nd.zeros(g.shape) if g is not None else None
                            for g in executor.grad_arrays]
    executor.arg_dict["fc_weight"][:] = -np.arange(12, dtype=np.float32).reshape(3, 4) / 5
    executor.forward(is_train=True)
    executor.backward()
    assert np.array_equal(old.asnumpy(), first)
    second = executor.grad_arrays[1].asnumpy()
    assert not np.array_equal(second, first)
    reference = net.simple_bind(mx.cpu(), data=(2, 4))
    for name, array in executor.arg_dict.items():
        reference.arg_dict[name][:] = array
    reference.forward(is_train=True)
    reference.backward()
    assert np.array_equal(reference.grad_dict["fc_weight"].asnumpy(), second)


def test_executor_follows_outputs_list_changed_in_place():
    """An output replaced in the executor's own list (the list object stays) is written by
    the next forward, and the one it replaced is not."""
    x = mx.sym.var("data")
    net = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
    executor = net.simple_bind(mx.cpu(), data=(1, 3), grad_req="null")
    executor.arg_dict["data"][:] = 1
    executor.arg_dict["fc_weight"][:] = 1
    executor.forward()
    old = executor.outputs[0]
    executor.outputs[0] = mx.nd.zeros((1, 2))
    executor.arg_dict["fc_weight"][:] = 2
    executor.forward()
    assert old.asnumpy().tolist() == [[3.0, 3.0]]
    assert executor.outputs[0].asnumpy().tolist() == [[6.0, 6.0]]
