"""NDArray behaviour: creation, dtype rules, views, in-place writes, devices, printing."""
import numpy as np
import pytest

import minimx as mx
from minimx import nd
from minimx.base import ContextMismatchError, InvalidShapeError, InvalidTypeError, MXNetError


def test_array_from_list_and_numpy_is_float32_by_default():
    assert nd.array([1, 2, 3]).dtype == np.float32
    assert nd.array(np.array([1, 2], dtype=np.int64)).dtype == np.float32
    assert nd.array([1, 2], dtype="int32").dtype == np.int32
    assert nd.array(nd.array([1], dtype="float64")).dtype == np.float64


def test_array_copies_its_source():
    source = np.ones((2, 2), dtype=np.float32)
    x = nd.array(source)
    source[:] = 5
    assert x.asnumpy().sum() == 4


def test_seed_numpy_interop_example():
    np_array = np.arange(10, dtype=np.float32).reshape((2, 5))
    mx_array = nd.arange(10, dtype=np.float32).reshape((2, 5))
    np.testing.assert_array_equal(mx_array.asnumpy(), np_array)
    ones = nd.array(np.ones(shape=(2, 2)), dtype=np.float32)
    assert ones.asnumpy().dtype == np.float32
    assert ones.shape == (2, 2) and ones.size == 4 and ones.ndim == 2


def test_repr_matches_mxnet():
    text = repr(nd.ones((2, 3)))
    assert text.endswith("<NDArray 2x3 @cpu(0)>")
    assert "[[1. 1. 1.]" in text
    assert str(nd.ones((2, 3))) == text


def test_first_axis_int_and_slice_are_views():
    x = nd.arange(6).reshape((2, 3))
    row = x[1]
    row[:] = 9
    np.testing.assert_array_equal(x.asnumpy(), [[0, 1, 2], [9, 9, 9]])
    x[0:1][:] = 7
    np.testing.assert_array_equal(x.asnumpy()[0], [7, 7, 7])


def test_reshape_is_a_view_and_other_slices_copy():
    x = nd.arange(6).reshape((2, 3))
    flat = x.reshape((-1,))
    flat[:] = 1
    assert x.asnumpy().sum() == 6
    column = x[:, 1]
    column[:] = 0
    assert x.asnumpy().sum() == 6


def test_scalar_index_gives_shape_1_like_mxnet():
    x = nd.arange(24).reshape((2, 3, 4))
    assert x[1].shape == (3, 4)
    assert x[1, 2].shape == (4,)
    assert x[1, 2, 3].shape == (1,)
    assert nd.arange(5)[1].shape == (1,)
    assert x[1, 2, 3].asscalar() == 23


def test_setitem_forms():
    x = nd.zeros((2, 3))
    x[1, 2] = 5
    x[:, 0] = nd.array([7, 8])
    x[0] = np.array([1, 2, 3])
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2, 3], [8, 0, 5]])


def test_setitem_shape_mismatch_is_clear():
    x = nd.zeros((2, 3))
    with pytest.raises(MXNetError, match="cannot assign a value of shape"):
        x[0] = nd.ones((4,))


def test_in_place_loop_keeps_order():
    x = nd.zeros((3,))
    for _ in range(200):
        x += 1
    assert x.asnumpy().tolist() == [200, 200, 200]


def test_reflected_and_scalar_arithmetic():
    x = nd.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose((2 - x).asnumpy(), [1, 0, -2])
    np.testing.assert_allclose((8 / x).asnumpy(), [8, 4, 2])
    np.testing.assert_allclose((2 ** x).asnumpy(), [2, 4, 16])
    np.testing.assert_allclose((x ** 2).asnumpy(), [1, 4, 16])
    np.testing.assert_allclose((x > 1.5).asnumpy(), [0, 1, 1])
    np.testing.assert_allclose((1.5 < x).asnumpy(), [0, 1, 1])
    assert (x == x).dtype == np.float32


def test_broadcast_error_names_operator_and_shapes():
    with pytest.raises(InvalidShapeError, match=r"broadcast_add.*\(2, 3\).*\(3, 2\)"):
        nd.ones((2, 3)) + nd.ones((3, 2))


def test_asscalar_and_bool():
    assert nd.array([3.5]).asscalar() == 3.5
    assert bool(nd.array([1.0]))
    with pytest.raises(MXNetError, match="one element"):
        nd.ones((2,)).asscalar()
    with pytest.raises(ValueError):
        bool(nd.ones((2,)))


def test_unsupported_operand_is_a_type_error():
    with pytest.raises(InvalidTypeError):
        nd.ones((2,)) + "a"


def test_copyto_and_as_in_context_on_cpu():
    x = nd.array([1, 2])
    assert x.as_in_context(mx.cpu(0)) is x
    y = nd.zeros((2,))
    x.copyto(y)
    assert y.asnumpy().tolist() == [1, 2]
    z = x.copyto(mx.cpu(1))
    assert z.context == mx.cpu(1)
    with pytest.raises(MXNetError, match="shape"):
        x.copyto(nd.zeros((3,)))


def test_mixing_contexts_names_both():
    a = nd.ones((2,), ctx=mx.cpu(0))
    b = nd.ones((2,), ctx=mx.cpu(1))
    with pytest.raises(ContextMismatchError, match=r"cpu\(0\).*cpu\(1\)"):
        a + b


def test_default_context_scope():
    with mx.cpu(3):
        assert nd.zeros((1,)).context == mx.cpu(3)
        assert mx.current_context() == mx.cpu(3)
    assert nd.zeros((1,)).context == mx.cpu(0)


def test_gpu_without_device_fails_clearly():
    if mx.num_gpus():
        pytest.skip("a GPU is present")
    with pytest.raises(MXNetError, match="no GPU is available"):
        nd.ones((2, 2), ctx=mx.gpu(0)).asnumpy()


def test_astype_and_numpy_conversion():
    x = nd.array([1.7, -2.2])
    assert x.astype("int32").dtype == np.int32
    assert np.asarray(x).dtype == np.float32
    assert x.astype(np.float32, copy=False) is x


def test_iteration_and_len():
    x = nd.arange(6).reshape((3, 2))
    assert len(x) == 3
    assert [row.asnumpy().tolist() for row in x] == [[0, 1], [2, 3], [4, 5]]


def test_pickle_round_trip():
    import pickle
    x = nd.array([[1, 2], [3, 4]])
    y = pickle.loads(pickle.dumps(x))
    assert y.asnumpy().tolist() == [[1, 2], [3, 4]]


def test_unknown_and_missing_parameters_are_clear():
    from minimx.base import InvalidParameterError
    with pytest.raises(InvalidParameterError, match="_plus_scalar: unknown parameter 'scalr'"):
        nd._internal._plus_scalar(nd.ones((1,)), scalr=1)
    with pytest.raises(InvalidParameterError, match="expects a float"):
        nd._internal._plus_scalar(nd.ones((1,)), scalar="abc")


def test_generated_function_has_signature_and_doc():
    import inspect
    function = nd.broadcast_add
    assert "lhs" in inspect.signature(function).parameters
    assert function.__doc__ and "Parameters" in function.__doc__
    assert function.__name__ == "broadcast_add"
