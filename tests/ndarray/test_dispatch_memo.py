"""The dispatcher keeps per-call facts (``dispatch._call_facts``: output shapes and dtypes,
BLAS work) and finds operator instances by the call's parameter order
(``register._instance``): neither may change what a call computes."""
import numpy as np
import pytest

import minimx as mx
from minimx import nd
from minimx.base import InvalidParameterError, InvalidShapeError
from minimx.ndarray import dispatch, register


def test_the_kept_facts_follow_numpy_shape_semantics():
    op = mx.op.get_op("_index").create(key=(("int", 0),))
    x = nd.array([1., 2., 3.])
    for _ in range(2):                          # the second round answers from the memo
        assert dispatch.invoke(op, [x]).shape == (1,)       # legacy: a scalar is (1,)
        with mx.util.np_shape(True):
            assert dispatch.invoke(op, [x]).shape == ()


def test_the_kept_facts_follow_the_input_dtype():
    for dtype in ("float32", "float64", "float32"):
        y = nd.relu(nd.ones((2, 2), dtype=dtype))
        assert y.dtype == np.dtype(dtype)
        assert y.asnumpy().dtype == np.dtype(dtype)


def test_a_shape_error_is_raised_every_time_and_nothing_is_kept():
    a, b = nd.ones((2, 3)), nd.ones((4, 5))
    for _ in range(2):
        with pytest.raises(InvalidShapeError):
            nd.dot(a, b)
    assert nd.dot(a, nd.ones((3, 2))).shape == (2, 2)


def test_out_targets_keep_their_own_dtype_in_the_recorded_graph():
    x = nd.array([1., -2.])
    x.attach_grad()
    target = nd.zeros((2,), dtype="float64")
    with mx.autograd.record():
        y = nd.relu(x * 2)
        z = nd.relu(y, out=target)
    assert z is target and z.dtype == np.float64
    z.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2., 0.])


def test_instances_are_shared_whatever_the_order_of_the_parameters():
    x = nd.ones((1, 1, 5, 5))
    w, b = nd.ones((2, 1, 3, 3)), nd.zeros((2,))
    one = nd.Convolution(x, w, b, kernel=(3, 3), num_filter=2)
    other = nd.Convolution(x, w, b, num_filter=2, kernel=(3, 3))
    np.testing.assert_array_equal(one.asnumpy(), other.asnumpy())
    op_cls = mx.op.get_op("Convolution")
    assert (register._instance(op_cls, {"kernel": (3, 3), "num_filter": 2})
            is register._instance(op_cls, {"num_filter": 2, "kernel": (3, 3)}))


def test_unhashable_and_invalid_parameters_behave_as_before():
    x = nd.ones((2, 3))
    assert nd.transpose(x, axes=[1, 0]).shape == (3, 2)        # a list: not kept, still works
    with pytest.raises(InvalidParameterError):
        nd.transpose(x, bogus=1)
    with pytest.raises(InvalidParameterError):
        nd.transpose(x, bogus=1)


def test_graph_attribute_keywords_are_still_ignored():
    x = nd.ones((2, 3))
    assert nd.relu(x, __layout__="NC").shape == (2, 3)
