"""Indexing operators (minimx/op/indexing.py): out-of-range modes, scatter-add gradients for
repeated indices, Embedding, where, topk/sort/argsort outputs and dtypes."""
import json

import numpy as np
import pytest

from minimx import nd
from minimx.base import InvalidParameterError, InvalidShapeError
from _nn_helpers import gradients


def test_take_clip_and_wrap():
    x = np.arange(12.0).reshape(3, 4)
    indices = nd.array([0, 5, -1])
    np.testing.assert_array_equal(nd.take(nd.array(x), indices).asnumpy(), x[[0, 2, 0]])
    np.testing.assert_array_equal(nd.take(nd.array(x), indices, axis=1, mode="wrap").asnumpy(),
                                  x[:, [0, 1, 3]])
    assert nd.take(nd.array(x), nd.array([[0, 1], [2, 2]])).shape == (2, 2, 4)


def test_take_gradient_adds_repeated_rows():
    x = np.zeros((3, 2))
    indices = nd.array([2, 0, 2, 2])
    head = np.arange(8.0).reshape(4, 2)
    (grad,) = gradients(lambda a: nd.take(a, indices), [x], [head])
    np.testing.assert_array_equal(grad, [head[1], [0, 0], head[0] + head[2] + head[3]])


def test_take_gradient_on_an_inner_axis():
    x = np.zeros((2, 3, 2))
    indices = nd.array([[1, 1]])
    head = np.arange(8.0).reshape(2, 1, 2, 2)
    (grad,) = gradients(lambda a: a.take(indices, axis=1), [x], [head])
    expected = np.zeros_like(x)
    expected[:, 1, :] = head[:, 0, 0, :] + head[:, 0, 1, :]
    np.testing.assert_array_equal(grad, expected)


def test_pick_values_modes_and_gradient():
    x = np.arange(12.0).reshape(3, 4)
    index = nd.array([0, 5, -1])
    np.testing.assert_array_equal(nd.pick(nd.array(x), index).asnumpy(), [0, 7, 8])
    np.testing.assert_array_equal(nd.pick(nd.array(x), index, mode="wrap").asnumpy(),
                                  [0, 5, 11])
    assert nd.pick(nd.array(x), nd.array([0, 2, 1, 1]), axis=0, keepdims=True).shape == (1, 4)
    (grad,) = gradients(lambda a: a.pick(nd.array([1, 3, 1])), [x], [np.array([1., 2., 3.])])
    np.testing.assert_array_equal(grad, [[0, 1, 0, 0], [0, 0, 0, 2], [0, 3, 0, 0]])
    with pytest.raises(InvalidParameterError, match="pick"):
        nd.pick(nd.array(x), index, axis=None)



@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_pick_gradient_signed_zeros_and_dtype(dtype):
    """As MXNet 1.9.1's: zeros, with the gradient added at the picked positions, bit for
    bit -- +0.0 where nothing was picked, even beside a negative gradient (not a 0/1 mask
    times it, which gives -0.0), +0.0 for a -0.0 gradient (0 + -0) -- in the gradient's
    dtype."""
    from minimx.op import get_op
    op = get_op("pick").create(axis=1, keepdims=False, mode="clip")
    index = np.array([0, 9, -4], dtype=np.float32)
    grad = np.array([-1.5, 2.0, -0.0], dtype=dtype)
    result = op.backward(np, grad, index, (3, 4))[0]
    chosen = np.clip(index.astype(np.int64), 0, 3)[:, None]
    expected = np.zeros((3, 4), dtype=dtype)
    expected[np.arange(3), chosen[:, 0]] += grad
    assert result.dtype == np.dtype(dtype)
    assert result.tobytes() == expected.tobytes()
    assert not np.signbit(result[result == 0]).any()

def test_one_hot_rows_and_out_of_range():
    out = nd.one_hot(nd.array([1, 5, -1, 0]), 3, on_value=2, off_value=-1)
    expected = np.full((4, 3), -1.0)
    expected[0, 1] = expected[3, 0] = 2
    np.testing.assert_array_equal(out.asnumpy(), expected)
    assert nd.one_hot(nd.array([1]), 3, dtype="int32").dtype == np.int32


def test_embedding_lookup_and_scatter_add_gradient():
    weight = np.arange(15.0).reshape(5, 3)
    data = nd.array([[0, 2], [2, 7]])            # 7 is clipped to row 4
    out = nd.Embedding(data, nd.array(weight), input_dim=5, output_dim=3)
    np.testing.assert_array_equal(out.asnumpy(), weight[[[0, 2], [2, 4]]])
    head = np.arange(12.0).reshape(2, 2, 3)
    (grad,) = gradients(lambda w: nd.Embedding(data, w, input_dim=5, output_dim=3),
                        [weight], [head])
    expected = np.zeros_like(weight)
    expected[0], expected[2], expected[4] = head[0, 0], head[0, 1] + head[1, 0], head[1, 1]
    np.testing.assert_array_equal(grad, expected)


def test_embedding_checks_the_weight_shape():
    with pytest.raises(InvalidShapeError, match="Embedding"):
        nd.Embedding(nd.array([0]), nd.ones((4, 3)), input_dim=5, output_dim=3)
    op = nd.Embedding.op.create(input_dim=5, output_dim=3)
    assert op.infer_input_shapes((2, 7), None) == [(2, 7), (5, 3)]


def test_where_with_row_condition_and_gradient():
    x, y = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3)
    condition = nd.array([0, 1])
    np.testing.assert_array_equal(nd.where(condition, nd.array(x), nd.array(y)).asnumpy(),
                                  [y[0], x[1]])
    head = np.arange(1.0, 7.0).reshape(2, 3)
    grad_x, grad_y = gradients(lambda a, b: nd.where(condition, a, b), [x, y], [head])
    np.testing.assert_array_equal(grad_x, [[0, 0, 0], head[1]])
    np.testing.assert_array_equal(grad_y, [head[0], [0, 0, 0]])


def test_gather_nd_and_scatter_nd_are_inverse():
    x = np.arange(12.0).reshape(3, 4)
    indices = nd.array([[0, 2, 1], [3, 0, 1]])
    gathered = nd.gather_nd(nd.array(x), indices)
    np.testing.assert_array_equal(gathered.asnumpy(), [3, 8, 5])
    scattered = nd.scatter_nd(gathered, indices, shape=(3, 4))
    expected = np.zeros_like(x)
    expected[[0, 2, 1], [3, 0, 1]] = [3, 8, 5]
    np.testing.assert_array_equal(scattered.asnumpy(), expected)
    (grad,) = gradients(lambda d: nd.scatter_nd(d, indices, shape=(3, 4)), [np.ones(3)],
                        [np.arange(12.0).reshape(3, 4)])
    np.testing.assert_array_equal(grad, [3, 8, 5])


def test_gather_nd_gradient_adds_repeats():
    (grad,) = gradients(lambda d: nd.gather_nd(d, nd.array([[1, 1, 0]])), [np.zeros((2, 2))],
                        [np.array([[1., 2.], [3., 4.], [5., 6.]])])
    np.testing.assert_array_equal(grad, [[5, 6], [4, 6]])


def test_topk_return_types_and_dtypes():
    x = nd.array([[3, 1, 2], [0, 5, 4]])
    values, indices = nd.topk(x, k=2, ret_typ="both", dtype="int32")
    np.testing.assert_array_equal(values.asnumpy(), [[3, 2], [5, 4]])
    np.testing.assert_array_equal(indices.asnumpy(), [[0, 2], [1, 2]])
    assert indices.dtype == np.int32 and values.dtype == np.float32
    assert nd.topk(x).dtype == np.float32                      # indices, float32 by default
    np.testing.assert_array_equal(nd.topk(x, k=2, ret_typ="mask").asnumpy(),
                                  [[1, 0, 1], [0, 1, 1]])
    np.testing.assert_array_equal(nd.topk(x, axis=None, k=2, is_ascend=True).asnumpy(), [3, 1])
    assert nd.topk(x, k=0, ret_typ="value").shape == (2, 3)   # k < 1: every element


def test_topk_value_gradient_goes_to_the_chosen_elements():
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    head = np.array([[10.0, 20.0], [30.0, 40.0]])
    (grad,) = gradients(lambda a: a.topk(k=2, ret_typ="value"), [x], [head])
    np.testing.assert_array_equal(grad, [[10, 0, 20], [0, 30, 40]])


def test_sort_and_argsort():
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    np.testing.assert_array_equal(nd.sort(nd.array(x), is_ascend=False).asnumpy(),
                                  -np.sort(-x, axis=-1))
    np.testing.assert_array_equal(nd.sort(nd.array(x), axis=None).asnumpy(), np.sort(x.ravel()))
    order = nd.array(x).argsort(axis=0)
    assert order.dtype == np.float32
    np.testing.assert_array_equal(order.asnumpy(), np.argsort(x, axis=0))
    head = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (grad,) = gradients(lambda a: nd.sort(a, axis=-1), [x], [head])
    np.testing.assert_array_equal(grad, [[3, 1, 2], [4, 6, 5]])


def _stable_order(row, ascending):
    """Python's sort is stable: equal keys keep their order, descending too."""
    return sorted(range(len(row)), key=lambda i: row[i] if ascending else -row[i])


@pytest.mark.parametrize("ascending", [True, False])
def test_ties_keep_their_order_as_in_mxnet(ascending):
    """MXNet sorts stably (by key, on the CPU and the GPU): among equal elements the first
    comes first, whichever the direction -- ``topk`` of [-1, 2, 3, 3] is [2, 3], not [3, 2].
    numpy's default argsort is not stable, and on ties of a few elements it reorders them."""
    rng = np.random.RandomState(0)
    data = rng.randint(0, 3, (40, 17)).astype(np.float32)        # ties in every row
    expected = np.array([_stable_order(row, ascending) for row in data])
    x = nd.array(data)
    np.testing.assert_array_equal(nd.argsort(x, is_ascend=ascending).asnumpy(), expected)
    np.testing.assert_array_equal(
        nd.topk(x, k=5, is_ascend=ascending, ret_typ="indices").asnumpy(), expected[:, :5])
    np.testing.assert_array_equal(nd.argsort(x.T, axis=0, is_ascend=ascending).asnumpy(),
                                  expected.T)
    flat = data.ravel()
    np.testing.assert_array_equal(nd.topk(x, axis=None, k=30, is_ascend=ascending).asnumpy(),
                                  _stable_order(flat, ascending)[:30])
    mask = nd.topk(x, k=5, is_ascend=ascending, ret_typ="mask").asnumpy()
    np.testing.assert_array_equal(np.flatnonzero(mask[0]), np.sort(expected[0, :5]))
    if ascending:   # mx.np's argsort has no direction
        from minimx import np as mnp
        np.testing.assert_array_equal(mnp.argsort(mnp.array(data)).asnumpy(), expected)


TIES_PROGRAM = """
import json
import numpy as np
data = np.array(json.loads(INPUT), np.float32)
x = mx.nd.array(data)
out = {}
for ascending in (True, False):
    out[str(ascending)] = [mx.nd.argsort(x, is_ascend=ascending).asnumpy().tolist(),
                           mx.nd.topk(x, k=4, is_ascend=ascending).asnumpy().tolist()]
print(json.dumps(out))
"""


def test_ties_order_matches_mxnet(mxnet_python):
    from same_program import on_minimx, on_mxnet
    data = np.random.RandomState(1).randint(0, 3, (6, 9)).astype(np.float32)
    given = json.dumps(data.tolist())
    assert on_minimx(TIES_PROGRAM, given) == on_mxnet(mxnet_python, TIES_PROGRAM, given)
