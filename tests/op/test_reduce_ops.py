"""Reductions (minimx/op/reduce.py): axis, keepdims, exclude, (1,) results, norm, argmax."""
import json
import subprocess

import numpy as np
import pytest

from minimx import autograd, nd
from minimx.base import InvalidParameterError, InvalidShapeError

NUMPY = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
         "nansum": np.nansum, "nanprod": np.nanprod}


def _data(shape=(2, 3, 4)):
    return np.random.uniform(0.5, 1.5, size=shape).astype("float32")


def _grad(function, values):
    x = nd.array(values)
    x.attach_grad()
    with autograd.record():
        y = function(x)
    y.backward()
    return x.grad.asnumpy()


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_full_reduction_has_shape_one(name):
    values = _data()
    for result in (getattr(nd, name)(nd.array(values)),
                   getattr(nd, name)(nd.array(values), axis=()),
                   getattr(nd.array(values), name)()):
        assert result.shape == (1,)
        np.testing.assert_allclose(result.asnumpy(), [NUMPY[name](values)], rtol=1e-5)


@pytest.mark.parametrize("name", sorted(NUMPY))
@pytest.mark.parametrize("axis,keepdims,exclude,numpy_axis", [
    (1, False, False, 1), (-1, False, False, 2), ((0, 2), False, False, (0, 2)),
    ((0, 2), True, False, (0, 2)), (1, True, True, (0, 2)), ((0, 1), False, True, 2),
    ((0, 1, 2), True, False, (0, 1, 2))])
def test_axis_keepdims_exclude(name, axis, keepdims, exclude, numpy_axis):
    values = _data()
    result = getattr(nd, name)(nd.array(values), axis=axis, keepdims=keepdims, exclude=exclude)
    expected = NUMPY[name](values, axis=numpy_axis, keepdims=keepdims)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.asnumpy(), expected, rtol=1e-5)


def test_exclude_with_every_axis_reduces_everything():
    # MXNet 1.9.1: axis None or () with exclude=True still reduces to shape (1,)
    x = nd.array(_data())
    assert nd.sum(x, exclude=True).shape == (1,)
    assert nd.sum(x, axis=(), exclude=True).shape == (1,)


def test_parameters_parse_from_strings():
    values = _data()
    result = nd.sum(nd.array(values), axis="(0, 2)", keepdims="True")
    np.testing.assert_allclose(result.asnumpy(), values.sum(axis=(0, 2), keepdims=True),
                               rtol=1e-5)
    assert nd.mean(nd.array(values), axis="1").shape == (2, 4)


def test_aliases_and_methods():
    values = _data()
    x = nd.array(values)
    np.testing.assert_allclose(nd.sum_axis(x, axis=1).asnumpy(), values.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(nd.max_axis(x, axis=0).asnumpy(), values.max(axis=0))
    np.testing.assert_array_equal(nd.min_axis(x, axis=2).asnumpy(), values.min(axis=2))
    np.testing.assert_allclose(x.mean(axis=1).asnumpy(), values.mean(axis=1), rtol=1e-5)
    np.testing.assert_allclose(x.prod(axis=2).asnumpy(), values.prod(axis=2), rtol=1e-5)
    assert x.nansum().shape == x.nanprod().shape == x.norm().shape == (1,)
    np.testing.assert_array_equal(x.argmin(axis=0).asnumpy(), values.argmin(axis=0))


def test_axis_out_of_range_names_the_operator():
    with pytest.raises(InvalidShapeError, match="sum.*axis 3"):
        nd.sum(nd.ones((2, 3, 4)), axis=3)
    with pytest.raises(InvalidShapeError, match="argmax"):
        nd.argmax(nd.ones((2, 3)), axis=-3)


def test_integer_reductions_keep_the_dtype():
    ints = nd.array([1, 2], dtype="int32")
    assert nd.sum(ints).dtype == np.int32
    assert nd.max(ints).dtype == np.int32
    assert nd.mean(ints).asnumpy().tolist() == [1]     # MXNet truncates the integer mean


def test_nan_reductions():
    values = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 4.0]], dtype="float32")
    np.testing.assert_array_equal(nd.nansum(nd.array(values), axis=1).asnumpy(), [4, 6])
    np.testing.assert_array_equal(nd.nanprod(nd.array(values), axis=1).asnumpy(), [3, 8])
    np.testing.assert_array_equal(_grad(nd.nansum, values), [[1, 0, 1], [0, 1, 1]])
    np.testing.assert_array_equal(_grad(nd.nanprod, [1.0, np.nan, 3.0]), [3, 0, 1])


# -- gradients ------------------------------------------------------------------------------------
def test_sum_and_mean_gradients_broadcast_back():
    values = _data()
    head = np.random.randn(2, 4).astype("float32")
    for name, scale in (("sum", 1.0), ("mean", 1 / 3)):
        x = nd.array(values)
        x.attach_grad()
        with autograd.record():
            y = getattr(nd, name)(x, axis=1)
        y.backward(nd.array(head))
        np.testing.assert_allclose(x.grad.asnumpy(), np.broadcast_to(
            head[:, None, :] * scale, values.shape), rtol=1e-6, err_msg=name)


def test_mean_gradient_over_several_axes_with_keepdims():
    grad = _grad(lambda x: nd.mean(x, axis=(0, 2), keepdims=True), _data())
    np.testing.assert_allclose(grad, np.full((2, 3, 4), 1 / 8), rtol=1e-6)


def test_max_and_min_gradients_share_ties():
    # MXNet 1.9.1 gives every maximal element the full gradient
    np.testing.assert_array_equal(_grad(nd.max, [1.0, 3.0, 3.0, 2.0]), [0, 1, 1, 0])
    np.testing.assert_array_equal(_grad(lambda x: nd.min(x, axis=0), [[1.5, 0.0], [1.0, 0.0]]),
                                  [[0, 1], [1, 1]])
    values = _data((3, 5))
    grad = _grad(lambda x: nd.max(x, axis=1), values)
    expected = (values == values.max(axis=1, keepdims=True)).astype("float32")
    np.testing.assert_array_equal(grad, expected)


def test_prod_gradient_is_product_of_the_others():
    values = _data((2, 3))
    grad = _grad(lambda x: nd.prod(x, axis=1), values)
    others = np.stack([np.prod(np.delete(values, j, axis=1), axis=1) for j in range(3)], axis=1)
    np.testing.assert_allclose(grad, others, rtol=1e-5)


# -- norm -----------------------------------------------------------------------------------------
def test_norm_values_and_shapes():
    values = np.random.randn(2, 3, 4).astype("float32")
    x = nd.array(values)
    np.testing.assert_allclose(nd.norm(x).asnumpy(), [np.sqrt((values ** 2).sum())], rtol=1e-5)
    np.testing.assert_allclose(nd.norm(x, ord=1).asnumpy(), [np.abs(values).sum()], rtol=1e-5)
    np.testing.assert_allclose(nd.norm(x, 1, 2).asnumpy(), np.abs(values).sum(axis=2),
                               rtol=1e-5)
    np.testing.assert_allclose(nd.norm(x, axis=(1, 2)).asnumpy(),
                               np.sqrt((values ** 2).sum(axis=(1, 2))), rtol=1e-5)
    assert nd.norm(x, keepdims=True).shape == (1, 1, 1)
    assert nd.norm(x, axis=1, keepdims=True).shape == (2, 1, 4)
    assert nd.norm(x, out_dtype="float64").dtype == np.float64
    assert nd.norm(nd.array([3, 4], dtype="int32")).dtype == np.int32


def test_norm_of_tiny_and_huge_values_does_not_underflow_or_overflow():
    # MXNet 1.9.1 scales before squaring: these give 2.2677063e-30 and 5e+30 there
    np.testing.assert_allclose(nd.norm(nd.array([1.0688746e-30, 2e-30])).asnumpy(),
                               [2.2677063e-30], rtol=1e-6)
    np.testing.assert_allclose(nd.norm(nd.array([[3e30, 4e30]]), axis=1).asnumpy(), [5e30],
                               rtol=1e-6)
    np.testing.assert_array_equal(nd.norm(nd.zeros((2, 3)), axis=1).asnumpy(), [0, 0])


def test_norm_rejects_bad_parameters():
    with pytest.raises(InvalidParameterError, match="ord"):
        nd.norm(nd.ones((2, 3)), ord=3)
    # as MXNet: any number of axes (the entry-wise norm over them)
    np.testing.assert_allclose(nd.norm(nd.ones((2, 3, 4)), axis=(0, 1, 2)).asnumpy(), [24 ** 0.5],
                               rtol=1e-6)


def test_norm_gradients():
    values = np.random.randn(2, 3).astype("float32")
    np.testing.assert_allclose(_grad(nd.norm, values), values / np.sqrt((values ** 2).sum()),
                               rtol=1e-5)
    np.testing.assert_allclose(_grad(lambda x: nd.norm(x, axis=1), values),
                               values / np.sqrt((values ** 2).sum(axis=1, keepdims=True)),
                               rtol=1e-5)
    np.testing.assert_array_equal(_grad(lambda x: nd.norm(x, ord=1), values), np.sign(values))


# -- argmax / argmin ------------------------------------------------------------------------------
def test_argmax_argmin():
    values = np.random.randn(2, 3, 4).astype("float32")
    x = nd.array(values)
    result = nd.argmax(x, axis=1)
    assert result.dtype == np.float32 and result.shape == (2, 4)
    np.testing.assert_array_equal(result.asnumpy(), values.argmax(axis=1))
    np.testing.assert_array_equal(nd.argmin(x, axis=-1).asnumpy(), values.argmin(axis=-1))
    assert nd.argmax(x, axis=1, keepdims=True).shape == (2, 1, 4)
    np.testing.assert_array_equal(nd.argmax(x).asnumpy(), [values.argmax()])
    assert nd.argmax(x, keepdims=True).shape == (1, 1, 1)
    np.testing.assert_array_equal(x.argmax(axis=0).asnumpy(), values.argmax(axis=0))


def test_argmax_ties_dtype_and_channel():
    assert nd.argmax(nd.array([1.0, 3.0, 3.0]), axis=0).asnumpy().tolist() == [1]
    assert nd.argmax(nd.array([1, 2], dtype="float64"), axis=0).dtype == np.float64
    values = np.random.randn(2, 3, 4).astype("float32")
    channel = nd.argmax_channel(nd.array(values))
    assert channel.shape == (2, 4)
    np.testing.assert_array_equal(channel.asnumpy(), values.argmax(axis=1))
    with pytest.raises(InvalidShapeError, match="argmax_channel"):
        nd.argmax_channel(nd.array([1.0, 2.0]))


def test_argmax_is_not_differentiable():
    x = nd.array([[1.0, 5.0], [4.0, 2.0]])
    x.attach_grad()
    with autograd.record():
        index = nd.argmax(x, axis=1)
        y = (index * x.sum(axis=1)).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[1, 1], [0, 0]])


# -- against MXNet 1.9.1 --------------------------------------------------------------------------
_MXNET_SCRIPT = r"""
import json, sys
import mxnet as mx
cases, values = json.loads(sys.stdin.read())
result = []
for name, params in cases:
    x = mx.nd.array(values)
    x.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.nd, name)(x, **params)
    y.backward()
    result.append([y.shape, y.asnumpy().tolist(), x.grad.asnumpy().tolist()])
print(json.dumps(result))
"""

_CASES = [("sum", {}), ("sum", {"axis": 1}), ("sum", {"axis": (0, 2), "keepdims": True}),
          ("sum", {"axis": 1, "exclude": True}), ("mean", {"axis": -1}), ("max", {}),
          ("max", {"axis": 2, "keepdims": True}), ("min", {"axis": (0, 1), "exclude": True}),
          ("prod", {"axis": 1}), ("nansum", {"axis": 0}), ("norm", {}),
          ("norm", {"ord": 1, "axis": 1}), ("norm", {"axis": (1, 2), "keepdims": True})]


def test_values_shapes_and_gradients_match_mxnet(mxnet_python):
    values = np.round(np.random.uniform(0.5, 2.0, size=(2, 3, 4)), 3).tolist()
    answer = subprocess.run([mxnet_python, "-c", _MXNET_SCRIPT], capture_output=True, text=True,
                            input=json.dumps([_CASES, values]), timeout=120)
    assert answer.returncode == 0, answer.stderr[-2000:]
    expected = json.loads(answer.stdout.strip().splitlines()[-1])
    for (name, params), (shape, forward, gradient) in zip(_CASES, expected):
        label = f"{name}{params}"
        x = nd.array(values)
        result = getattr(nd, name)(x, **params)
        assert result.shape == tuple(shape), label
        np.testing.assert_allclose(result.asnumpy(), forward, rtol=1e-5, err_msg=label)
        np.testing.assert_allclose(_grad(lambda v: getattr(nd, name)(v, **params), values),
                                   gradient, rtol=1e-5, err_msg=label)
