"""mx.np.linalg and npx's softmax family against official NumPy: values, shapes, dtypes and
gradients on the inputs MXNet's own tests give them (zero-size ones, one triangle of a
symmetric matrix, integer dtypes).  Against MXNet 1.9.1: the cases in ``np_cases.py``."""
import numpy as onp
import pytest

import minimx as mx
from minimx import autograd, np, npx


def _numeric_gradient(function, value, step=1e-6):
    """Central differences of the scalar ``function`` (on host float64 arrays)."""
    value = onp.array(value, dtype=onp.float64)
    grad = onp.zeros_like(value)
    for index in onp.ndindex(value.shape):
        up, down = value.copy(), value.copy()
        up[index] += step
        down[index] -= step
        grad[index] = (function(up) - function(down)) / (2 * step)
    return grad


def _gradient(function, value):
    x = np.array(value, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = function(x)
    y.backward()
    return y, x.grad.asnumpy()


def test_det_of_one_matrix_is_zero_dimensional_and_differentiable():
    a = onp.array([[2.0, 1.0, 0.5], [0.3, 3.0, 0.2], [0.1, 0.4, 1.5]])
    y, grad = _gradient(np.linalg.det, a)
    assert y.shape == ()
    onp.testing.assert_allclose(float(y), onp.linalg.det(a), rtol=1e-10)
    onp.testing.assert_allclose(grad, _numeric_gradient(onp.linalg.det, a), rtol=1e-6)


@mx.util.use_np
def test_slogdet_of_a_batch_and_of_an_empty_batch():
    a = onp.random.RandomState(0).uniform(-1, 1, (2, 3, 3)) + 3 * onp.eye(3)
    sign, logdet = np.linalg.slogdet(np.array(a))
    onp.testing.assert_allclose(logdet.asnumpy(), onp.linalg.slogdet(a)[1], rtol=1e-6)
    assert sign.shape == logdet.shape == (2,)
    empty = np.linalg.det(np.ones((1, 0, 2, 2)))
    assert empty.shape == (1, 0)


def test_det_on_an_np_symbol_needs_no_shape():
    x = mx.sym.var("a").as_np_ndarray()
    graph = mx.sym.np.linalg.det(x).as_nd_ndarray()
    a = onp.array([[2.0, 1.0], [1.0, 3.0]], dtype=onp.float32)
    with mx.util.np_shape(True):
        out = graph.eval(a=mx.nd.array(a))[0]
    assert out.shape == ()
    onp.testing.assert_allclose(out.asnumpy(), onp.linalg.det(a), rtol=1e-6)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_only_one_triangle(uplo):
    # the other triangle holds noise: NumPy ignores it, so must minimx
    a = onp.array([[2.0, 7.0, -4.0], [1.0, 3.0, 9.0], [0.5, 0.2, 4.0]])
    w, v = np.linalg.eigh(np.array(a), UPLO=uplo)
    expected_w, expected_v = onp.linalg.eigh(a, UPLO=uplo)
    onp.testing.assert_allclose(w.asnumpy(), expected_w, rtol=1e-6)
    onp.testing.assert_allclose(onp.abs(v.asnumpy()), onp.abs(expected_v), rtol=1e-5)
    onp.testing.assert_allclose(np.linalg.eigvalsh(np.array(a), UPLO=uplo).asnumpy(),
                                expected_w, rtol=1e-6)


@pytest.mark.parametrize("dtype, expected", [("float32", "float32"), ("float64", "float64"),
                                             ("int32", "float64"), ("uint8", "float64")])
def test_eigen_decompositions_answer_in_float32_or_float64(dtype, expected):
    a = np.array([[2, 1], [1, 3]], dtype=dtype)
    for result in (np.linalg.eigvalsh(a), np.linalg.eigh(a)[1], np.linalg.eigvals(a),
                   np.linalg.eig(a)[1]):
        assert str(result.dtype) == expected
    onp.testing.assert_allclose(np.linalg.eigvalsh(a).asnumpy(),
                                onp.linalg.eigvalsh(onp.array([[2, 1], [1, 3]])), rtol=1e-6)


@pytest.mark.parametrize("shape", [(0, 0), (1, 0, 0), (0, 4, 4)])
@mx.util.use_np
def test_eigh_of_zero_size_input(shape):
    w, v = np.linalg.eigh(np.ones(shape))
    expected_w, expected_v = onp.linalg.eigh(onp.ones(shape))
    assert w.shape == expected_w.shape and v.shape == expected_v.shape
    assert np.linalg.eigvalsh(np.ones(shape)).shape == expected_w.shape


def test_eigh_has_a_zero_gradient_as_in_mxnet():
    _, grad = _gradient(lambda x: np.linalg.eigvalsh(x).sum(), [[2.0, 1.0], [1.0, 3.0]])
    onp.testing.assert_array_equal(grad, 0)


@pytest.mark.parametrize("function", [npx.softmax, npx.log_softmax])
@pytest.mark.parametrize("shape", [(3, 0, 4), (0, 0)])
@mx.util.use_np
def test_softmax_of_zero_size_input(function, shape):
    for axis in range(-len(shape), len(shape)):
        x = np.random.uniform(size=shape)
        x.attach_grad()
        with autograd.record():
            y = function(x, axis=axis)
        y.backward()
        assert y.shape == shape and x.grad.shape == shape
