"""Shape operators (minimx/op/shape.py, join_split.py, slicing.py, broadcast.py,
rearrange.py): the semantics and gradients the generated tests
cannot see: list outputs of split, gradients of concat/slice/broadcast, methods, errors."""
import numpy as np
import pytest

from minimx import nd
from minimx.base import InvalidParameterError, InvalidShapeError
from _nn_helpers import gradients


def test_split_returns_a_list_and_one_output_alone():
    x = np.arange(12.0).reshape(3, 4)
    parts = nd.split(nd.array(x), num_outputs=2)
    assert isinstance(parts, list) and len(parts) == 2
    for part, expected in zip(parts, np.split(x, 2, axis=1)):
        np.testing.assert_array_equal(part.asnumpy(), expected)
    single = nd.split(nd.array(x), num_outputs=1, axis=0)
    assert single.shape == (3, 4)
    rows = nd.array(x).split(3, axis=0, squeeze_axis=True)
    assert [r.shape for r in rows] == [(4,)] * 3
    np.testing.assert_array_equal(rows[2].asnumpy(), x[2])


def test_split_gradient_when_only_one_output_is_used():
    x = np.arange(6.0).reshape(2, 3)
    head = np.array([[1.0, 2.0, 3.0]])
    (grad,) = gradients(lambda a: nd.SliceChannel(a, num_outputs=2, axis=0)[1], [x], [head])
    np.testing.assert_array_equal(grad, [[0, 0, 0], [1, 2, 3]])


def test_split_gradient_with_squeeze_axis():
    x = np.arange(6.0).reshape(3, 2)
    heads = [np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0, 6.0])]
    (grad,) = gradients(lambda a: nd.split(a, 3, axis=0, squeeze_axis=True), [x], heads)
    np.testing.assert_array_equal(grad, np.stack(heads))


def test_split_rejects_uneven_parts():
    with pytest.raises(InvalidShapeError, match="SliceChannel"):
        nd.split(nd.ones((2, 3)), num_outputs=2)


def test_concat_default_dim_and_gradient_slices():
    a, b = np.arange(4.0).reshape(2, 2), np.arange(6.0).reshape(2, 3)
    out = nd.concat(nd.array(a), nd.array(b))
    np.testing.assert_array_equal(out.asnumpy(), np.concatenate([a, b], axis=1))
    head = np.arange(10.0).reshape(2, 5)
    grad_a, grad_b = gradients(lambda x, y: nd.Concat(x, y, dim=1), [a, b], [head])
    np.testing.assert_array_equal(grad_a, head[:, :2])
    np.testing.assert_array_equal(grad_b, head[:, 2:])
    assert nd.concatenate([nd.array(a), nd.array(a)], axis=0).shape == (4, 2)


def test_concat_shape_error_names_the_operator():
    with pytest.raises(InvalidShapeError, match="Concat"):
        nd.concat(nd.ones((2, 2)), nd.ones((3, 3)), dim=0)


def test_stack_gradient_splits_the_head():
    a, b = np.ones((2, 3)), np.zeros((2, 3))
    head = np.arange(12.0).reshape(2, 3, 2)
    grad_a, grad_b = gradients(lambda x, y: nd.stack(x, y, axis=2), [a, b], [head])
    np.testing.assert_array_equal(grad_a, head[..., 0])
    np.testing.assert_array_equal(grad_b, head[..., 1])


def test_slice_with_steps_and_its_gradient():
    x = np.arange(20.0).reshape(4, 5)
    key = (slice(3, None, -2), slice(None, 4, 3))
    out = nd.slice(nd.array(x), begin=(3, None), end=(None, 4), step=(-2, 3))
    np.testing.assert_array_equal(out.asnumpy(), x[key])
    head = np.arange(1.0, 5.0).reshape(2, 2)
    (grad,) = gradients(lambda a: a.slice(begin=(3, None), end=(None, 4), step=(-2, 3)),
                        [x], [head])
    expected = np.zeros_like(x)
    expected[key] = head
    np.testing.assert_array_equal(grad, expected)


def test_slice_parameters_parse_from_strings():
    x = np.arange(12.0).reshape(3, 4)
    out = nd.slice(nd.array(x), begin="(None, 1)", end="(2, None)", step="(1, -1)")
    np.testing.assert_array_equal(out.asnumpy(), x[0:2, 1::-1])


def test_slice_axis_and_slice_like():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(nd.slice_axis(nd.array(x), axis=-1, begin=1, end=None)
                                  .asnumpy(), x[..., 1:])
    like = nd.slice_like(nd.array(x), nd.ones((1, 2, 9)), axes=(0, 1))
    np.testing.assert_array_equal(like.asnumpy(), x[:1, :2])


def test_broadcast_to_keeps_zero_dims_and_sums_gradients():
    x = np.array([[1.0, 2.0, 3.0]])
    out = nd.broadcast_to(nd.array(x), shape=(2, 0))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x, (2, 3)))
    head = np.arange(6.0).reshape(2, 3)
    (grad,) = gradients(lambda a: a.broadcast_to((2, 3)), [x], [head])
    np.testing.assert_array_equal(grad, head.sum(axis=0, keepdims=True))


def test_broadcast_to_method_prepends_axes_as_mxnet():
    assert nd.ones((3,)).broadcast_to((2, 3)).shape == (2, 3)
    with pytest.raises(InvalidShapeError, match="broadcast_to"):
        nd.broadcast_to(nd.ones((2, 3)), shape=(4, 3))


def test_broadcast_axis_and_like_gradients():
    x = np.array([[[1.0], [2.0]]])            # (1, 2, 1)
    (grad,) = gradients(lambda a: a.broadcast_axes(axis=(0, 2), size=(3, 4)), [x])
    np.testing.assert_array_equal(grad, np.full(x.shape, 12.0))
    grad_x, grad_like = gradients(
        lambda a, b: nd.broadcast_like(a, b, lhs_axes=(2,), rhs_axes=(0,)),
        [x, np.zeros((5, 7))])
    np.testing.assert_array_equal(grad_x, np.full(x.shape, 5.0))
    np.testing.assert_array_equal(grad_like, np.zeros((5, 7)))


def test_reshape_codes_and_recorded_reshape_gradient():
    x = nd.array(np.arange(24.0).reshape(2, 3, 4))
    assert nd.Reshape(x, shape=(-4, 1, 2, -3)).shape == (1, 2, 12)
    assert nd.reshape(x, shape=(-1, 0), reverse=True).shape == (6, 4)
    head = np.arange(24.0).reshape(6, 4)
    (grad,) = gradients(lambda a: a.reshape((-1, 4)) * 1, [np.zeros((2, 3, 4))], [head])
    np.testing.assert_array_equal(grad, head.reshape(2, 3, 4))


def test_reshape_like_with_ranges():
    out = nd.reshape_like(nd.ones((30, 7)), nd.ones((15, 2, 4)), lhs_begin=0, lhs_end=1,
                          rhs_begin=0, rhs_end=2)
    assert out.shape == (15, 2, 7)


def test_transpose_swapaxes_flip_and_T():
    x = np.arange(24.0).reshape(2, 3, 4)
    a = nd.array(x)
    np.testing.assert_array_equal(a.T.asnumpy(), x.T)
    np.testing.assert_array_equal(a.transpose(axes=(1, 2, 0)).asnumpy(), x.transpose(1, 2, 0))
    np.testing.assert_array_equal(a.swapaxes(0, 2).asnumpy(), np.swapaxes(x, 0, 2))
    np.testing.assert_array_equal(a.flip(axis=1).asnumpy(), x[:, ::-1])
    assert a.flatten().shape == (2, 12)
    head = np.arange(24.0).reshape(3, 4, 2)
    (grad,) = gradients(lambda b: b.transpose(axes=(1, 2, 0)), [x], [head])
    np.testing.assert_array_equal(grad, head.transpose(2, 0, 1))


def test_expand_dims_and_squeeze():
    a = nd.ones((2, 1, 3))
    assert a.expand_dims(-1).shape == (2, 1, 3, 1)
    assert a.squeeze().shape == (2, 3)
    assert nd.squeeze(nd.ones((1, 1))).shape == (1,)
    with pytest.raises(InvalidShapeError, match="squeeze"):
        nd.squeeze(a, axis=0)


def test_tile_and_repeat_gradients_count_the_copies():
    x = np.arange(6.0).reshape(2, 3)
    (grad,) = gradients(lambda a: a.tile(reps=(2, 1, 2)), [x])
    np.testing.assert_array_equal(grad, np.full(x.shape, 4.0))
    head = np.arange(12.0).reshape(2, 6)
    (grad,) = gradients(lambda a: a.repeat(repeats=2, axis=1), [x], [head])
    np.testing.assert_array_equal(grad, head[:, 0::2] + head[:, 1::2])


def test_pad_edge_gradient_adds_the_copies_into_the_edges():
    x = np.arange(4.0).reshape(1, 1, 2, 2)
    out = nd.pad(nd.array(x), mode="edge", pad_width=(0, 0, 0, 0, 1, 0, 0, 2))
    np.testing.assert_array_equal(out.asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 2)), mode="edge"))
    (grad,) = gradients(lambda a: a.pad(mode="edge", pad_width=(0, 0, 0, 0, 1, 0, 0, 2)), [x])
    # row 0 is copied once more (the padded row); column 1 is copied twice more
    np.testing.assert_array_equal(grad[0, 0], [[2.0, 6.0], [1.0, 3.0]])


def test_pad_follows_mxnet_restrictions():
    with pytest.raises(InvalidParameterError, match="Pad"):
        nd.pad(nd.ones((2, 3)), mode="constant", pad_width=(1, 1, 1, 1))
    with pytest.raises(InvalidShapeError, match="Pad"):
        nd.pad(nd.ones((2, 3)), mode="constant", pad_width=(0, 0, 0, 0, 1, 1, 1, 1))
    with pytest.raises(InvalidParameterError, match="first two axes"):
        nd.pad(nd.ones((1, 1, 2, 2)), mode="constant", pad_width=(1, 0, 0, 0, 1, 1, 1, 1))


def test_depth_to_space_and_back():
    x = np.arange(32.0).reshape(1, 8, 2, 2)
    moved = nd.depth_to_space(nd.array(x), 2)
    assert moved.shape == (1, 2, 4, 4)
    # block (i, j) of channel c comes from input channel (i * 2 + j) * 2 + c
    np.testing.assert_array_equal(moved.asnumpy()[0, 1, 0:2, 0:2], x[0, [1, 3, 5, 7], 0, 0]
                                  .reshape(2, 2))
    np.testing.assert_array_equal(nd.space_to_depth(moved, 2).asnumpy(), x)


def test_diag_of_a_stack_and_its_gradient():
    x = np.arange(24.0).reshape(2, 3, 4)
    out = nd.diag(nd.array(x), k=1, axis1=1, axis2=2)
    np.testing.assert_array_equal(out.asnumpy(), np.diagonal(x, 1, 1, 2))
    (grad,) = gradients(lambda a: a.diag(k=1, axis1=1, axis2=2), [x])
    expected = np.zeros_like(x)
    for row in range(3):
        expected[:, row, row + 1] = 1
    np.testing.assert_array_equal(grad, expected)
