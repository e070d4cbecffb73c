"""Property tests against numpy: broadcasting arithmetic and reductions on random shapes."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minimx import autograd, nd

SETTINGS = settings(max_examples=30, deadline=None)
VALUES = st.floats(min_value=-4, max_value=4, allow_nan=False, width=32)


@st.composite
def broadcastable_pair(draw):
    """Two float32 arrays whose shapes broadcast together (1 to 4 dims, sizes up to 3)."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=4,
                                                    max_side=3))
    lhs, rhs = shapes.input_shapes
    return (draw(hnp.arrays(np.float32, lhs, elements=VALUES)),
            draw(hnp.arrays(np.float32, rhs, elements=VALUES)))


@st.composite
def array_and_axes(draw):
    """A float32 array (1 to 4 dims) and a non-empty tuple of distinct axes, some negative."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3))
    data = draw(hnp.arrays(np.float32, shape, elements=VALUES))
    axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape),
                         unique=True))
    signed = tuple(axis - len(shape) if draw(st.booleans()) else axis for axis in axes)
    return data, signed


def _reduce_to(grad, shape):
    """numpy: sum a broadcast gradient back down to ``shape``."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


@SETTINGS
@given(broadcastable_pair())
def test_broadcast_arithmetic_matches_numpy(pair):
    a, b = pair
    x, y = nd.array(a), nd.array(b)
    for result, expected in ((x + y, a + b), (x - y, a - b), (x * y, a * b),
                             (nd.maximum(x, y), np.maximum(a, b)),
                             (nd.minimum(x, y), np.minimum(a, b)),
                             (x > y, (a > b).astype(np.float32)),
                             (x == y, (a == b).astype(np.float32))):
        assert result.shape == expected.shape
        np.testing.assert_allclose(result.asnumpy(), expected, rtol=1e-6, atol=1e-6)
    safe = np.where(np.abs(b) < 0.5, np.float32(1), b)
    np.testing.assert_allclose((x / nd.array(safe)).asnumpy(), a / safe, rtol=1e-6)


@SETTINGS
@given(broadcastable_pair())
def test_broadcast_gradients_sum_back_to_each_shape(pair):
    a, b = pair
    x, y = nd.array(a), nd.array(b)
    x.attach_grad()
    y.attach_grad()
    with autograd.record():
        z = (x * y + x).sum()
    z.backward()
    out_shape = np.broadcast_shapes(a.shape, b.shape)
    np.testing.assert_allclose(x.grad.asnumpy(),
                               _reduce_to(np.broadcast_to(b + 1, out_shape), a.shape),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.grad.asnumpy(),
                               _reduce_to(np.broadcast_to(a, out_shape), b.shape),
                               rtol=1e-5, atol=1e-5)


@SETTINGS
@given(array_and_axes(), st.booleans(),
       st.sampled_from(["sum", "mean", "max", "min", "prod", "nansum"]))
def test_reductions_match_numpy(data_axes, keepdims, name):
    data, axes = data_axes
    expected = getattr(np, name)(data, axis=axes, keepdims=keepdims)
    expected = expected.reshape(1) if expected.ndim == 0 else expected
    result = getattr(nd, name)(nd.array(data), axis=axes, keepdims=keepdims)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.asnumpy(), expected, rtol=1e-5, atol=1e-5)


@SETTINGS
@given(array_and_axes(), st.booleans())
def test_exclude_reduces_the_other_axes(data_axes, keepdims):
    data, axes = data_axes
    listed = {axis % data.ndim for axis in axes}
    others = tuple(axis for axis in range(data.ndim) if axis not in listed)
    expected = np.sum(data, axis=others, keepdims=keepdims)
    expected = expected.reshape(1) if expected.ndim == 0 else expected
    result = nd.sum(nd.array(data), axis=axes, keepdims=keepdims, exclude=True)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.asnumpy(), expected, rtol=1e-5, atol=1e-5)


@SETTINGS
@given(array_and_axes())
def test_sum_and_mean_gradients_are_uniform_over_reduced_axes(data_axes):
    data, axes = data_axes
    count = np.prod([data.shape[axis] for axis in axes])
    for name, expected in (("sum", 1.0), ("mean", 1.0 / count)):
        x = nd.array(data)
        x.attach_grad()
        with autograd.record():
            y = getattr(nd, name)(x, axis=axes)
        y.backward()
        np.testing.assert_allclose(x.grad.asnumpy(), np.full(data.shape, expected), rtol=1e-6)


@SETTINGS
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                  elements=VALUES), st.data())
def test_argmax_argmin_and_norm_match_numpy(data, draw):
    axis = draw.draw(st.integers(-data.ndim, data.ndim - 1))
    np.testing.assert_array_equal(nd.argmax(nd.array(data), axis=axis).asnumpy().reshape(-1),
                                  np.argmax(data, axis=axis).reshape(-1))
    np.testing.assert_array_equal(nd.argmin(nd.array(data), axis=axis).asnumpy().reshape(-1),
                                  np.argmin(data, axis=axis).reshape(-1))
    # float32 subnormals (1e-45) cannot hold a norm like 1.4e-45: an absolute floor of a few
    # of float32's smallest steps
    np.testing.assert_allclose(nd.norm(nd.array(data)).asnumpy(),
                               [np.linalg.norm(data.astype(np.float64).ravel())], rtol=1e-5,
                               atol=4 * np.finfo(np.float32).smallest_subnormal)
    np.testing.assert_allclose(nd.norm(nd.array(data), ord=1, axis=axis).asnumpy(),
                               np.abs(data).sum(axis=axis).reshape(-1) if data.ndim == 1
                               else np.abs(data).sum(axis=axis), rtol=1e-5, atol=1e-6)
