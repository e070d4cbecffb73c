"""Property tests: ``NDArray[key]``, ``NDArray[key] = value`` and ``reshape`` against numpy
and MXNet's rules.

Keys mix ints, slices with steps and negative bounds, None, Ellipsis and integer arrays.
MXNet differs from numpy in one place: a result with no dims has shape (1,).  First-axis
ints and unit-step slices are views sharing memory with the original.
"""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from minimx import autograd, nd

SETTINGS = settings(max_examples=40, deadline=None)
shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def as_mxnet(result):
    """numpy's result with MXNet's rule: no dims becomes shape (1,)."""
    result = np.asarray(result)
    return result.reshape(1) if result.ndim == 0 else result


@st.composite
def axis_item(draw, size):
    """An int or a slice (any step, bounds past either end) for an axis of ``size``."""
    if draw(st.booleans()):
        return draw(st.integers(-size, size - 1))
    bound = st.none() | st.integers(-size - 2, size + 2)
    step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
    return slice(draw(bound), draw(bound), step)


@st.composite
def basic_keys(draw, shape):
    """A key of ints and slices for leading (and, after an Ellipsis, trailing) axes,
    with None inserted anywhere."""
    leading = draw(st.integers(0, len(shape)))
    items = [draw(axis_item(size)) for size in shape[:leading]]
    if draw(st.booleans()):
        trailing = draw(st.integers(0, len(shape) - leading))
        items.append(Ellipsis)
        items += [draw(axis_item(size)) for size in shape[len(shape) - trailing:]]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(items) if len(items) != 1 or draw(st.booleans()) else items[0]


@st.composite
def advanced_keys(draw, shape):
    """Integer arrays (lists) on one or two axes, slices or ints on the others."""
    array_length = draw(st.integers(1, 3))
    array_axes = draw(st.sets(st.integers(0, len(shape) - 1), min_size=1, max_size=2))
    items = []
    for axis, size in enumerate(shape):
        if axis in array_axes:
            items.append(draw(st.lists(st.integers(-size, size - 1), min_size=array_length,
                                       max_size=array_length)))
        else:
            items.append(draw(axis_item(size)))
    return tuple(items)


def any_key(shape):
    return basic_keys(shape) | advanced_keys(shape)


@st.composite
def array_and_key(draw, key_strategy):
    shape = draw(shapes)
    values = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    return values, draw(key_strategy(shape))


@SETTINGS
@given(array_and_key(basic_keys))
def test_getitem_basic_matches_numpy(case):
    values, key = case
    result = nd.array(values)[key]
    expected = as_mxnet(values[key])
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.asnumpy(), expected)


@SETTINGS
@given(array_and_key(advanced_keys), st.booleans())
def test_getitem_integer_arrays_match_numpy(case, as_ndarray):
    values, key = case
    if as_ndarray:        # index arrays given as (float) NDArrays, as MXNet code often does
        key = tuple(nd.array(item) if isinstance(item, list) else item for item in key)
    result = nd.array(values)[key]
    numpy_key = tuple(np.array(item.asnumpy(), dtype=np.int64) if hasattr(item, "asnumpy")
                      else item for item in key)
    np.testing.assert_array_equal(result.asnumpy(), as_mxnet(values[numpy_key]))


@SETTINGS
@given(array_and_key(any_key), st.booleans())
def test_setitem_matches_numpy(case, with_array):
    values, key = case
    expected = values.copy()
    target_shape = expected[key].shape
    value = -1.0 - np.arange(math.prod(target_shape), dtype=np.float32).reshape(target_shape)
    array = nd.array(values)
    if with_array:
        expected[key] = value
        array[key] = nd.array(value) if value.ndim else value.item()
    else:
        expected[key] = -7.0
        array[key] = -7.0
    np.testing.assert_array_equal(array.asnumpy(), expected)


@SETTINGS
@given(shapes.filter(lambda s: len(s) >= 2), st.data())
def test_first_axis_int_and_slice_are_views(shape, data):
    values = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    size = shape[0]
    key = data.draw(st.integers(-size, size - 1) |
                    st.builds(slice, st.none() | st.integers(-size, size),
                              st.none() | st.integers(-size, size)))
    array = nd.array(values)
    view = array[key]
    view[:] = -1.0                              # writing the view writes the original
    expected = values.copy()
    expected[key] = -1.0
    np.testing.assert_array_equal(array.asnumpy(), expected)
    array[:] = 5.0                              # and the view sees writes to the original
    np.testing.assert_array_equal(view.asnumpy(), np.full(values[key].shape, 5.0))


def test_stepped_slice_is_a_copy():
    array = nd.array(np.zeros((4, 2)))
    copy = array[::2]
    copy[:] = 1.0
    assert array.asnumpy().sum() == 0


@SETTINGS
@given(array_and_key(any_key))
def test_getitem_gradient_scatters_into_zeros(case):
    values, key = case
    array = nd.array(values)
    array.attach_grad()
    with autograd.record():
        result = array[key]
    head = np.arange(1, result.size + 1, dtype=np.float32).reshape(result.shape)
    result.backward(nd.array(head))
    expected = np.zeros_like(values)
    np.add.at(expected, key, head.reshape(values[key].shape))
    np.testing.assert_array_equal(array.grad.asnumpy(), expected)


# -- reshape codes -----------------------------------------------------------------------
# Examples run on MXNet 1.9.1: (input shape, codes, reverse, output shape).
MXNET_RESHAPES = [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4, 5), (-3, -2), False, (6, 4, 5)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((2, 3, 4), (0, -1), True, (3, 8)),
    ((2, 3, 4, 5), (-1, -3), True, (6, 20)),
    ((6, 4), (0, -4, 2, -1), False, (6, 2, 2)),
]


@pytest.mark.parametrize("shape, codes, reverse, expected", MXNET_RESHAPES)
def test_reshape_codes_as_mxnet(shape, codes, reverse, expected):
    values = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    result = nd.array(values).reshape(codes, reverse=reverse)
    assert result.shape == expected
    np.testing.assert_array_equal(result.asnumpy(), values.reshape(expected))
    assert nd.Reshape(nd.array(values), shape=codes, reverse=reverse).shape == expected


@st.composite
def reshape_plans(draw):
    """Codes built group by group from an input shape, with the output each group makes.

    Every input dim is used by exactly one group, so reading the codes from either end
    (``reverse``) gives the same output shape.
    """
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    codes, output, position, inferred = [], [], 0, False
    while position < len(shape):
        size = shape[position]
        choices = ["copy", "keep", "split"] + (["infer"] if not inferred else [])
        if position + 1 < len(shape):
            choices.append("merge")
        choice = draw(st.sampled_from(choices))
        if choice == "copy":
            codes.append(0)
            output.append(size)
        elif choice == "keep":
            codes.append(size)
            output.append(size)
        elif choice == "infer":
            codes.append(-1)
            output.append(size)
            inferred = True
        elif choice == "merge":
            codes.append(-3)
            output.append(size * shape[position + 1])
            position += 1
        else:
            first = draw(st.sampled_from([d for d in range(1, size + 1) if size % d == 0]))
            unknown = draw(st.sampled_from([None, 0, 1]))
            pair = [first, size // first]
            output += pair
            if unknown is not None:
                pair[unknown] = -1
            codes += [-4] + pair
        position += 1
    return shape, tuple(codes), tuple(output)


@SETTINGS
@given(reshape_plans(), st.booleans())
def test_reshape_plans_give_the_planned_shape(plan, reverse):
    shape, codes, output = plan
    assume(not (reverse and -4 in codes))       # MXNet 1.9.1 rejects -4 with reverse=True
    values = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    result = nd.array(values).reshape(codes, reverse=reverse)
    assert result.shape == output
    np.testing.assert_array_equal(result.asnumpy(), values.reshape(output))


@SETTINGS
@given(shapes.filter(lambda s: len(s) >= 2))
def test_reverse_decides_which_dims_a_short_spec_copies(shape):
    # (-1, 0): forward copies dim 1 and infers the rest; reverse copies the last dim
    forward = nd.zeros(shape).reshape((-1, 0))
    backward = nd.zeros(shape).reshape((-1, 0), reverse=True)
    assert forward.shape[-1] == shape[1] and forward.size == math.prod(shape)
    assert backward.shape == (math.prod(shape[:-1]), shape[-1])


def test_reshape_view_shares_memory():
    array = nd.zeros((2, 3))
    view = array.reshape((3, 2))
    view[1] = 4.0
    np.testing.assert_array_equal(array.asnumpy().ravel(), [0, 0, 4, 4, 0, 0])
