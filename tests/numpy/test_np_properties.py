"""Property tests of mx.np against official NumPy: broadcasting and indexing."""
import numpy as onp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minimx import np

SETTINGS = settings(max_examples=40, deadline=None)
VALUES = st.floats(min_value=-4, max_value=4, allow_nan=False, width=32)
BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "equal", "greater", "less_equal")


@st.composite
def broadcastable_pair(draw):
    """Two float32 arrays whose shapes broadcast together (0 to 4 dims, sizes 0 to 3)."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4,
                                                    min_side=0, max_side=3))
    lhs, rhs = shapes.input_shapes
    return (draw(hnp.arrays(onp.float32, lhs, elements=VALUES)),
            draw(hnp.arrays(onp.float32, rhs, elements=VALUES)))


@SETTINGS
@given(broadcastable_pair(), st.sampled_from(BINARY))
def test_binary_functions_broadcast_as_numpy(pair, name):
    a, b = pair
    got = getattr(np, name)(np.array(a), np.array(b))
    expected = getattr(onp, name)(a, b)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    onp.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)


@SETTINGS
@given(broadcastable_pair())
def test_operators_broadcast_as_numpy(pair):
    a, b = pair
    x, y = np.array(a), np.array(b)
    for got, expected in ((x + y, a + b), (x * y, a * b), (x - y, a - b), (x > y, a > b)):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        onp.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)


@st.composite
def array_and_basic_index(draw):
    """An array (1 to 3 dims) and a NumPy basic index: ints, slices, None and ``...``."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    data = draw(hnp.arrays(onp.float32, shape, elements=VALUES))
    index = draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=True, allow_ellipsis=True))
    return data, index


@SETTINGS
@given(array_and_basic_index())
def test_basic_indexing_matches_numpy(case):
    data, index = case
    got = np.array(data)[index]
    expected = data[index]
    assert got.shape == expected.shape
    onp.testing.assert_array_equal(got.asnumpy(), expected)


@st.composite
def array_and_advanced_index(draw):
    """An array and a key of integer index arrays, a boolean mask, or an array among
    slices."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    data = draw(hnp.arrays(onp.float32, shape, elements=VALUES))
    kind = draw(st.sampled_from(["integers", "mask", "mixed"]))
    if kind == "mask":
        return data, draw(hnp.arrays(onp.bool_, shape))
    positions = hnp.arrays(onp.int64, draw(hnp.array_shapes(min_dims=1, max_dims=2,
                                                             max_side=3)),
                           elements=st.integers(-shape[0], shape[0] - 1))
    if kind == "integers":
        return data, draw(positions)
    return data, (slice(None),) * (len(shape) - 1) + (
        draw(hnp.arrays(onp.int64, (2,), elements=st.integers(0, shape[-1] - 1))),)


@SETTINGS
@given(array_and_advanced_index())
def test_advanced_indexing_matches_numpy(case):
    data, key = case
    mx_key = tuple(np.array(k, dtype=k.dtype) if isinstance(k, onp.ndarray) else k
                   for k in key) if isinstance(key, tuple) else np.array(key, dtype=key.dtype)
    got = np.array(data)[mx_key]
    expected = data[key]
    assert got.shape == expected.shape
    onp.testing.assert_array_equal(got.asnumpy(), expected)


@SETTINGS
@given(array_and_advanced_index(), st.floats(-3, 3, width=32))
def test_setitem_matches_numpy(case, value):
    data, key = case
    mx_key = tuple(np.array(k, dtype=k.dtype) if isinstance(k, onp.ndarray) else k
                   for k in key) if isinstance(key, tuple) else np.array(key, dtype=key.dtype)
    target = np.array(data)
    target[mx_key] = value
    expected = data.copy()
    expected[key] = value
    onp.testing.assert_array_equal(target.asnumpy(), expected)
