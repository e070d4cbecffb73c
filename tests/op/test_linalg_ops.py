"""Matrix products (minimx/op/linalg.py): MXNet's N-D ``dot`` with transposes, batch_dot,
linalg_gemm2, and their gradients against the hand formulas dA = dC B^T, dB = A^T dC."""
import numpy as np
import pytest

from minimx import autograd, nd
from minimx.base import InvalidShapeError


def forward_and_gradients(function, a, b, head):
    lhs, rhs = nd.array(a, dtype="float64"), nd.array(b, dtype="float64")
    lhs.attach_grad()
    rhs.attach_grad()
    with autograd.record():
        out = function(lhs, rhs)
    out.backward(nd.array(head, dtype="float64"))
    return out.asnumpy(), lhs.grad.asnumpy(), rhs.grad.asnumpy()


@pytest.mark.parametrize("transpose_a, transpose_b, lhs_shape, rhs_shape, out_shape", [
    (False, False, (2, 3, 4), (4, 3, 5), (2, 3, 3, 5)),
    (True, False, (2, 3, 4), (2, 5), (3, 4, 5)),
    (False, True, (2, 3, 4), (5, 4), (2, 3, 5)),
    (True, True, (3, 2), (4, 3), (2, 4)),
    (False, False, (3,), (3, 2), (2,)),
])
def test_dot_contracts_mxnet_axes(transpose_a, transpose_b, lhs_shape, rhs_shape, out_shape):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(lhs_shape), rng.standard_normal(rhs_shape)
    head = rng.standard_normal(out_shape)
    out, grad_a, grad_b = forward_and_gradients(
        lambda x, y: nd.dot(x, y, transpose_a=transpose_a, transpose_b=transpose_b), a, b, head)
    # the 2-D matrices MXNet multiplies, written independently of the operator
    left = a.reshape(a.shape[0], -1).T if transpose_a else a.reshape(-1, a.shape[-1])
    right = b.reshape(-1, b.shape[-1]).T if transpose_b else b.reshape(b.shape[0], -1)
    assert out.shape == out_shape
    np.testing.assert_allclose(out.reshape(left.shape[0], -1), left @ right)
    grad_left = head.reshape(left.shape[0], -1) @ right.T
    grad_right = left.T @ head.reshape(left.shape[0], -1)
    expected_a = grad_left.T.reshape(a.shape) if transpose_a else grad_left.reshape(a.shape)
    expected_b = grad_right.T.reshape(b.shape) if transpose_b else grad_right.reshape(b.shape)
    np.testing.assert_allclose(grad_a, expected_a)
    np.testing.assert_allclose(grad_b, expected_b)


def test_dot_of_vectors_has_shape_one():
    out = nd.dot(nd.array([1, 2]), nd.array([3, 4]))
    assert out.shape == (1,)
    assert out.asscalar() == 11


def test_dot_shape_error_names_both_shapes():
    with pytest.raises(InvalidShapeError, match=r"dot.*\(2, 3\).*\(2, 3\)"):
        nd.dot(nd.ones((2, 3)), nd.ones((2, 3)))


@pytest.mark.parametrize("transpose_a, transpose_b", [(False, False), (True, False),
                                                      (False, True), (True, True)])
def test_batch_dot_and_its_gradient(transpose_a, transpose_b):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 4, 3) if transpose_a else (2, 3, 4))
    b = rng.standard_normal((2, 5, 4) if transpose_b else (2, 4, 5))
    head = rng.standard_normal((2, 3, 5))
    out, grad_a, grad_b = forward_and_gradients(
        lambda x, y: nd.batch_dot(x, y, transpose_a=transpose_a, transpose_b=transpose_b),
        a, b, head)
    left = a.transpose(0, 2, 1) if transpose_a else a
    right = b.transpose(0, 2, 1) if transpose_b else b
    np.testing.assert_allclose(out, left @ right)
    grad_left, grad_right = head @ right.transpose(0, 2, 1), left.transpose(0, 2, 1) @ head
    np.testing.assert_allclose(grad_a, grad_left.transpose(0, 2, 1) if transpose_a else grad_left)
    np.testing.assert_allclose(grad_b, grad_right.transpose(0, 2, 1) if transpose_b
                               else grad_right)


def test_batch_dot_rejects_different_batches():
    with pytest.raises(InvalidShapeError, match="batch_dot"):
        nd.batch_dot(nd.ones((2, 3, 4)), nd.ones((3, 4, 5)))


def test_linalg_gemm2_alpha_and_row_axis():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 2, 4)), rng.standard_normal((4, 2, 5))
    out = nd.linalg_gemm2(nd.array(a), nd.array(b), alpha=2.0, axis=-3)
    assert out.shape == (3, 2, 5)
    for batch in range(2):
        np.testing.assert_allclose(out.asnumpy()[:, batch, :], 2 * a[:, batch] @ b[:, batch],
                                   rtol=1e-5, atol=1e-5)
    head = rng.standard_normal((3, 2, 5))
    _, grad_a, grad_b = forward_and_gradients(
        lambda x, y: nd.linalg_gemm2(x, y, alpha=2.0, axis=-3), a, b, head)
    for batch in range(2):
        np.testing.assert_allclose(grad_a[:, batch], 2 * head[:, batch] @ b[:, batch].T)
        np.testing.assert_allclose(grad_b[:, batch], 2 * a[:, batch].T @ head[:, batch])
