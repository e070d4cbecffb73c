"""np.pad, diagflat, percentile, bincount, unravel_index: what the differential cases
(np_cases.py) cannot show -- gradients, errors, and where minimx keeps NumPy's meaning."""
import numpy as onp
import pytest

from minimx import autograd, np
from minimx.base import MXNetError


def _grad(function, value):
    x = np.array(value)
    x.attach_grad()
    with autograd.record():
        function(x).sum().backward()
    return x.grad.asnumpy()


def test_constant_pad_gradient_is_the_inner_block_of_the_output_gradient():
    grad = _grad(lambda x: np.pad(x, ((1, 2), (0, 1))) * np.arange(20.0).reshape(5, 4),
                 onp.ones((2, 3)))
    onp.testing.assert_array_equal(grad, onp.arange(20.0).reshape(5, 4)[1:3, 0:3])


def test_edge_pad_has_no_gradient_as_in_mxnet():
    with pytest.raises(MXNetError, match="_npi_pad.*'constant' only"):
        _grad(lambda x: np.pad(x, ((1, 1),), mode="edge"), [1.0, 2.0])


def test_pad_constant_values_keeps_numpys_meaning():
    # MXNet 1.9.1's np.pad drops constant_values (a missing return) and pads with 0
    got = np.pad(np.ones((1, 2)), ((0, 1), (1, 0)), constant_values=7)
    onp.testing.assert_array_equal(got.asnumpy(), [[7, 1, 1], [7, 7, 7]])


@pytest.mark.parametrize("call, kind", [
    (lambda: np.pad(np.ones(2), [(1, 1)]), TypeError),
    (lambda: np.pad(np.ones(2), ((1, 1),), mode="wrap"), ValueError),
    (lambda: np.pad(np.ones(2), ((1, 1),), mode="edge", constant_values=1), ValueError),
    (lambda: np.percentile(np.ones(3), 120), ValueError),
    (lambda: np.percentile(np.ones(3), [50]), TypeError),
    (lambda: np.bincount(np.array([0.0, 1.0])), TypeError),
    (lambda: np.bincount(np.array([0, -1], dtype="int32")), ValueError),
    (lambda: np.diag_indices_from(np.ones((2, 3))), ValueError),
])
def test_bad_input_is_refused(call, kind):
    with pytest.raises(kind):
        call()


def test_diagflat_gradient_is_the_diagonal():
    weights = np.arange(9.0).reshape(3, 3)
    grad = _grad(lambda x: np.diagflat(x, 1) * weights, [[1.0, 2.0]])
    onp.testing.assert_array_equal(grad, [[1.0, 5.0]])


def test_percentile_and_bincount_record_no_gradient_path():
    x = np.array([1.0, 3.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = np.percentile(x, 50) * 2
    y.backward()
    onp.testing.assert_array_equal(x.grad.asnumpy(), [0, 0, 0])


def test_unravel_index_keeps_plain_numbers_on_the_host():
    assert np.unravel_index(7, (3, 4)) == (1, 3)


def test_polyval_of_numbers_is_a_number_and_of_arrays_has_both_gradients():
    assert np.polyval([1, 2], 3) == 5
    p, x = np.array([2.0, -1.0, 3.0]), np.array([0.5, 2.0])
    p.attach_grad()
    x.attach_grad()
    with autograd.record():
        np.polyval(p, x).sum().backward()
    onp.testing.assert_allclose(p.grad.asnumpy(), [0.25 + 4.0, 2.5, 2.0])
    onp.testing.assert_allclose(x.grad.asnumpy(), [4 * 0.5 - 1, 4 * 2.0 - 1])


def test_windows_refuse_a_float_length():
    with pytest.raises(TypeError, match="hanning"):
        np.hanning(3.0)


def test_tensorinv_and_tensorsolve_gradients_are_those_of_inv_and_solve():
    matrix = onp.array([[2.0, 0.5], [0.25, 3.0]])
    a = np.array(matrix.reshape(2, 1, 2))
    b = np.array([[1.0], [2.0]]).reshape(2, 1)
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        np.linalg.tensorsolve(a, b).sum().backward()
    x = onp.linalg.solve(matrix, [1.0, 2.0])
    grad_b = onp.linalg.solve(matrix.T, onp.ones(2))
    onp.testing.assert_allclose(b.grad.asnumpy().reshape(2), grad_b, rtol=1e-5)
    onp.testing.assert_allclose(a.grad.asnumpy().reshape(2, 2), -onp.outer(grad_b, x), rtol=1e-5)


def test_pinv_and_eig_have_a_zero_gradient_as_in_mxnet():
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    a.attach_grad()
    with autograd.record():
        (np.linalg.pinv(a).sum() + np.linalg.eigvals(a).sum()).backward()
    onp.testing.assert_array_equal(a.grad.asnumpy(), onp.zeros((2, 2)))


def test_insert_a_number_keeps_numpys_meaning():
    # MXNet 1.9.1 fails on these two (a shape check, a dtype check); NumPy's values here
    a = onp.arange(6.0).reshape(2, 3)
    got = np.insert(np.array(a), 1, 9.0, axis=1)
    onp.testing.assert_array_equal(got.asnumpy(), onp.insert(a, 1, 9.0, axis=1))
    got = np.insert(np.array(a), np.array([1, 3], dtype="int64"), 5.0, axis=1)
    onp.testing.assert_array_equal(got.asnumpy(), onp.insert(a, [1, 3], 5.0, axis=1))


def test_insert_refuses_values_of_the_wrong_size_as_numpy():
    # MXNet 1.9.1 reads past or short of such values (a row [7, 8, 97] from two values)
    with pytest.raises(ValueError, match="_npi_insert_scalar"):
        np.insert(np.ones((2, 3)), 1, np.array([7.0, 8.0]), axis=0)


def test_delete_and_insert_have_no_gradient_as_in_mxnet():
    x = np.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = np.delete(x, 0)
    with pytest.raises(MXNetError, match="_npi_delete"):
        y.backward()


def test_sym_np_takes_a_legacy_symbol_as_mxnet_does():
    # MXNet's test_np_linalg_tensorinv hybridizes without use_np: F.np on a plain Symbol
    import minimx as mx
    node = mx.sym.np.linalg.tensorinv(mx.sym.var("a"), ind=1)
    out = node.eval(ctx=mx.current_context(), a=mx.nd.array([[2.0, 0.0], [0.0, 4.0]]))[0]
    onp.testing.assert_allclose(out.asnumpy(), [[0.5, 0.0], [0.0, 0.25]])


def test_unravel_index_composes_a_graph_node():
    import minimx as mx
    coords = mx.sym.np.unravel_index(mx.sym.var("i").as_np_ndarray(), (3, 4))
    out = coords[1].eval(ctx=mx.current_context(), i=mx.nd.array([5, 7], dtype="int64"))[0]
    onp.testing.assert_array_equal(out.asnumpy(), [1, 3])
