"""Convolution, Deconvolution and Pooling: shapes, gradients, and agreement with MXNet 1.9.1."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import references  # noqa: E402
from _nn_helpers import check_grads, compare_with_mxnet, requires_mxnet  # noqa: E402

from minimx import autograd, nd  # noqa: E402
from minimx.base import InvalidParameterError, InvalidShapeError  # noqa: E402
from minimx.op import get_op  # noqa: E402


def _random(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


def test_convolution_matches_direct_loops():
    x, w, b = _random(1, (2, 3, 6, 5), (4, 3, 3, 2), (4,))
    out = nd.Convolution(nd.array(x), nd.array(w), nd.array(b), kernel=(3, 2), num_filter=4,
                         stride=(2, 2), pad=(1, 1))
    expected = references.convolution(np, x, w, b, kernel=(3, 2), stride=(2, 2), pad=(1, 1))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-5)


def test_convolution_shapes_and_input_inference():
    op = get_op("Convolution")(kernel=(3, 3), num_filter=8, stride=(2, 2), pad=(1, 1))
    assert op.infer_input_shapes((2, 4, 9, 9), None, None) == [(2, 4, 9, 9), (8, 4, 3, 3), (8,)]
    assert op.output_shapes([(2, 4, 9, 9), (8, 4, 3, 3), (8,)]) == [(2, 8, 5, 5)]
    grouped = get_op("Convolution")(kernel=(3,), num_filter=6, num_group=3, no_bias=True)
    assert grouped.list_inputs() == ("data", "weight")
    assert grouped.infer_input_shapes((1, 6, 5), None) == [(1, 6, 5), (6, 2, 3)]
    with pytest.raises(InvalidShapeError, match="weight must have shape"):
        op.output_shapes([(2, 4, 9, 9), (8, 3, 3, 3), (8,)])
    with pytest.raises(InvalidParameterError, match="layout"):
        get_op("Convolution")(kernel=(3, 3), num_filter=2, layout="NCW")     # rank mismatch
    with pytest.raises(InvalidParameterError, match="layout"):
        get_op("Deconvolution")(kernel=(3, 3), num_filter=2, layout="NHWC")


def test_deconvolution_shapes():
    op = get_op("Deconvolution")(kernel=(3, 3), num_filter=2, stride=(2, 2), target_shape=(8, 8))
    assert op.list_inputs() == ("data", "weight")          # no_bias defaults to True
    assert op.output_shapes([(1, 3, 4, 4), (3, 2, 3, 3)]) == [(1, 2, 8, 8)]
    op = get_op("Deconvolution")(kernel=(3, 3), num_filter=2, stride=(2, 2), pad=(1, 1),
                                 adj=(1, 1))
    assert op.output_shapes([(1, 3, 4, 4), (3, 2, 3, 3)]) == [(1, 2, 8, 8)]


def test_deconvolution_is_the_transpose_of_convolution():
    """<conv(x), y> == <x, deconv(y)> for the same weight and geometry."""
    x, w, y = _random(2, (2, 3, 7, 6), (4, 3, 3, 3), (2, 4, 4, 1))
    geometry = dict(kernel=(3, 3), stride=(2, 2), pad=(1, 0), dilate=(1, 2))
    conv = nd.Convolution(nd.array(x), nd.array(w), num_filter=4, no_bias=True, **geometry)
    deconv = nd.Deconvolution(nd.array(y), nd.array(w), num_filter=3, adj=(0, 1), **geometry)
    assert deconv.shape == x.shape
    np.testing.assert_allclose((conv.asnumpy() * y).sum(), (x * deconv.asnumpy()).sum(),
                               rtol=1e-4)


def test_pooling_shapes():
    pool = get_op("Pooling")
    assert pool(kernel=(2, 2), stride=(2, 2)).output_shapes([(1, 1, 5, 5)]) == [(1, 1, 2, 2)]
    full = pool(kernel=(2, 2), stride=(2, 2), pooling_convention="full")
    assert full.output_shapes([(1, 1, 5, 5)]) == [(1, 1, 3, 3)]
    assert pool(global_pool=True).output_shapes([(2, 3, 4, 5)]) == [(2, 3, 1, 1)]


def test_max_pooling_values_and_gradient_go_to_the_maximum():
    x = np.array([[[[1., 5., 2., 0.], [3., 4., 8., 7.]]]])
    data = nd.array(x)
    data.attach_grad()
    from minimx import autograd
    with autograd.record():
        out = nd.Pooling(data, kernel=(2, 2), stride=(2, 2))
    out.backward()
    np.testing.assert_array_equal(out.asnumpy(), [[[[5., 8.]]]])
    np.testing.assert_array_equal(data.grad.asnumpy(),
                                  [[[[0., 1., 0., 0.], [0., 0., 1., 0.]]]])


CONV_CASES = [
    ("Convolution", ((2, 2, 5, 4), (3, 2, 3, 2), (3,)),
     dict(kernel=(3, 2), num_filter=3, pad=(1, 0), stride=(2, 1))),
    ("Convolution", ((1, 4, 9), (4, 2, 3), (4,)),
     dict(kernel=(3,), num_filter=4, stride=(2,), dilate=(2,), num_group=2)),
    ("Convolution", ((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), (2,)),
     dict(kernel=(2, 2, 2), num_filter=2, pad=(1, 0, 1))),
    ("Deconvolution", ((2, 2, 3, 3), (2, 3, 3, 2)),
     dict(kernel=(3, 2), num_filter=3, stride=(2, 1), pad=(1, 0), adj=(1, 0))),
    ("Deconvolution", ((1, 4, 4), (4, 1, 3), (2,)),
     dict(kernel=(3,), num_filter=2, num_group=2, no_bias=False, stride=(2,))),
]

# MXNet's oneDNN deconvolution rejects target_shape with an odd total padding
TARGET_SHAPE_CASE = ("Deconvolution", ((1, 2, 4), (2, 3, 3)),
                     dict(kernel=(3,), num_filter=3, target_shape=(8,), stride=(2,)))

POOL_CASES = [
    dict(kernel=(2, 2), pool_type="avg"),
    dict(kernel=(3, 3), stride=(2, 2), pool_type="max", pad=(1, 1)),
    dict(kernel=(2, 2), stride=(2, 2), pool_type="avg", pad=(1, 1), pooling_convention="full"),
    dict(kernel=(3, 3), stride=(2, 2), pool_type="avg", pad=(1, 1), count_include_pad=False),
    dict(kernel=(2, 3), stride=(2, 1), pool_type="sum", pooling_convention="full"),
    dict(kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=2),
    dict(global_pool=True, pool_type="avg"),
]


@pytest.mark.parametrize("name, shapes, params", CONV_CASES + [TARGET_SHAPE_CASE])
def test_convolution_gradients_numerically(name, shapes, params):
    inputs = _random(3, *shapes)
    check_grads(name, inputs, params, tuple(range(len(inputs))))


@pytest.mark.parametrize("params", POOL_CASES)
def test_pooling_gradients_numerically(params):
    (x,) = _random(4, (1, 2, 5, 5))
    if params["pool_type"] == "lp":
        x = np.abs(x) + 0.5
    check_grads("Pooling", [x], params, (0,))


@requires_mxnet
@pytest.mark.parametrize("name, shapes, params", CONV_CASES)
def test_convolution_matches_mxnet(tmp_path, name, shapes, params):
    inputs = _random(5, *shapes)
    compare_with_mxnet(tmp_path, name, inputs, params, tuple(range(len(inputs))))


@requires_mxnet
@pytest.mark.parametrize("params", POOL_CASES)
def test_pooling_matches_mxnet(tmp_path, params):
    (x,) = _random(6, (2, 2, 5, 5))
    compare_with_mxnet(tmp_path, "Pooling", [x], params, (0,))


@pytest.mark.parametrize("layer", ["conv", "pool"])
def test_channel_last_layouts_compute_the_channel_first_result(layer):
    rng = np.random.RandomState(0)
    data = rng.uniform(-1, 1, (2, 5, 6, 3)).astype(np.float32)     # NHWC
    first = np.ascontiguousarray(data.transpose(0, 3, 1, 2))
    if layer == "conv":
        weight = rng.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)   # (F, kh, kw, C)
        args = [data, weight]
        first_args = [first, np.ascontiguousarray(weight.transpose(0, 3, 1, 2))]
        params = {"kernel": (3, 3), "num_filter": 4, "no_bias": True}
        name = "Convolution"
    else:
        args, first_args = [data], [first]
        params = {"kernel": (2, 2), "stride": (2, 2), "pool_type": "max"}
        name = "Pooling"
    arrays = [nd.array(a) for a in args]
    for array in arrays:
        array.attach_grad()
    with autograd.record():
        out = getattr(nd, name)(*arrays, layout="NHWC", **params)
    out.backward(nd.ones(out.shape))
    references = [nd.array(a) for a in first_args]
    for array in references:
        array.attach_grad()
    with autograd.record():
        want = getattr(nd, name)(*references, **params)
    want.backward(nd.ones(want.shape))
    np.testing.assert_allclose(out.asnumpy(), want.asnumpy().transpose(0, 2, 3, 1), rtol=1e-5,
                               atol=1e-5)
    for got, expected in zip(arrays, references):
        np.testing.assert_allclose(got.grad.asnumpy(),
                                   expected.grad.asnumpy().transpose(0, 2, 3, 1), rtol=1e-5,
                                   atol=1e-5)


def test_same_pooling_gives_ceil_of_size_over_stride_windows():
    data = nd.array(np.arange(10, dtype=np.float32).reshape(1, 1, 10))
    out = nd.Pooling(data, kernel=(3,), stride=(2,), pool_type="max", pooling_convention="same")
    assert out.asnumpy().ravel().tolist() == [2, 4, 6, 8, 9]      # padding: 0 before, 1 after
    with pytest.raises(InvalidParameterError, match="same"):
        nd.Pooling(data, kernel=(2,), stride=(2,), pad=(2,), pooling_convention="same")
