"""Shape inference from partly known shapes (0: an unknown size), both ways through the
graph, as MXNet's: elementwise merges, sampled output rules, layers' backward rules."""
import warnings

import pytest

import minimx as mx
from minimx.base import InvalidShapeError
from minimx.symbol.inference import sampled_output_shapes
from minimx.op import get_op


def _arguments(symbol, **known):
    shapes, _, _ = symbol.infer_shape(**known)
    return dict(zip(symbol.list_arguments(), shapes))


def test_elementwise_inputs_complete_each_other():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.Variable("b", shape=(12, 0))
    assert _arguments(a + b) == {"a": (12, 10), "b": (12, 10)}


def test_a_layer_takes_its_batch_from_a_later_sum():
    a = mx.sym.Variable("a", shape=(0, 10))
    hidden = mx.sym.FullyConnected(a, num_hidden=21, name="fc")
    total = hidden + mx.sym.Variable("c", shape=(5, 0))
    shapes = _arguments(total)
    assert shapes["a"] == (5, 10) and shapes["c"] == (5, 21)
    assert shapes["fc_weight"] == (21, 10)


def test_convolution_back_calculates_batch_and_stride_one_sizes():
    a = mx.sym.Variable("a", shape=(0, 10, 0, 0))
    conv = mx.sym.Convolution(a, num_filter=21, kernel=(3, 3), pad=(1, 1))
    shapes = _arguments(conv + mx.sym.Variable("c", shape=(5, 21, 32, 32)))
    assert shapes["a"] == (5, 10, 32, 32)


def test_concat_and_split_pass_sizes_back_to_their_inputs():
    a, b = mx.sym.Variable("a", shape=(0, 10)), mx.sym.Variable("b", shape=(0, 5))
    joined = mx.sym.Concat(a, b, dim=1) + mx.sym.Variable("d", shape=(2, 0))
    assert _arguments(joined) == {"a": (2, 10), "b": (2, 5), "d": (2, 15)}
    x = mx.sym.Variable("x", shape=(0, 15, 0))
    parts = mx.sym.SliceChannel(x, num_outputs=3)
    assert _arguments(parts[1] + mx.sym.Variable("y", shape=(3, 5, 2)))["x"] == (3, 15, 2)


def test_partial_outputs_keep_the_unknown_sizes():
    x, y = mx.sym.Variable("x"), mx.sym.Variable("y")
    assert mx.sym.dot(x, y).infer_shape_partial(x=(0, 3, 4), y=(4, 5))[1] == [(0, 3, 5)]
    assert mx.sym.batch_dot(x, y).infer_shape_partial(x=(0, 3, 4), y=(0, 0, 5))[1] == [()]
    with mx.np_shape(True):
        assert mx.sym.dot(x, y).infer_shape_partial(x=(-1, 3, 4), y=(4, 5))[1] == [(-1, 3, 5)]
        assert mx.sym.sin(x).infer_shape_partial() == ([None], [None], [])


def test_sampling_tells_which_sizes_depend_on_the_unknown_ones():
    add = get_op("broadcast_add")()
    assert sampled_output_shapes(add, [(0, 3), (1, 3)]) == [(0, 3)]
    assert sampled_output_shapes(add, [(0, 3), None]) is None
    reshape = get_op("Reshape")(shape=(-1, 3, 4))
    assert sampled_output_shapes(reshape, [(0, 12)]) == [(0, 3, 4)]


def test_where_waits_for_a_known_condition_as_in_mxnet():
    cond, x, y = (mx.sym.Variable(n) for n in ("cond", "x", "y"))
    result = mx.sym.where(cond, x, y).infer_shape_partial(cond=(0, 2), x=(0, 2), y=(0, 2))
    assert result[1] == [()]


def test_unknown_shapes_warn_and_give_none():
    net = mx.sym.FullyConnected(mx.sym.Variable("a"), num_hidden=3)
    with pytest.warns(UserWarning, match="Cannot decide shape.*\\n\\ta: \\(\\)"):
        assert net.infer_shape() == (None, None, None)


def test_elementwise_conflicts_name_the_operator():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.Variable("b", shape=(3, 11))
    with pytest.raises(InvalidShapeError, match="same shape"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (a + b).infer_shape()


def test_slices_of_an_unknown_axis_stay_unknown_as_mxnet():
    data = mx.sym.var("data", shape=(0, 20))
    out = mx.sym.slice(data, begin=(None, 3), end=(5, 10))
    assert out.infer_shape_partial()[1][0] == (0, 7)


def test_under_np_shape_zero_is_a_size_and_minus_one_is_unknown():
    with mx.np_shape(True):
        index = mx.sym.contrib.index_array(mx.sym.var("data"))
        assert index.infer_shape(data=())[1] == [(0,)]
        assert index.infer_shape(data=(0, 2))[1] == [(0, 2, 2)]
        out = mx.sym.slice(mx.sym.var("data", shape=(-1, 20)), begin=(None, 3), end=(5, 10))
        assert out.infer_shape_partial()[1][0] == (-1, 7)


def test_a_creation_with_unknown_sizes_takes_them_back_through_a_transpose():
    known = mx.sym.ones(shape=(2, 3))
    unknown = mx.sym.ones(shape=(3, -1))          # -1: a size to be inferred, as MXNet's
    out = (known + mx.sym.transpose(unknown)).bind(mx.cpu(), args={}).forward()[0]
    assert out.shape == (2, 3) and (out.asnumpy() == 2).all()
