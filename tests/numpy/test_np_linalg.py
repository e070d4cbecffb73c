"""mx.np.linalg and npx's softmax family against official NumPy: values, shapes, dtypes and
gradients on the inputs MXNet's own tests give them (zero-size ones, one triangle of a
symmetric matrix, integer dtypes).  Against MXNet 1.9.1: the cases in ``np_cases.py``."""
import numpy as onp
import pytest

import minimx as mx
from minimx import autograd, np, npx

from np_cases import SETUP


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


def _mxnet_svd_gradient(ut, s, v):
    """The gradient of the sum of every output of ``svd`` (m x m input), as MXNet 1.9.1's
    test_np_linalg_svd states it (its own formula, not minimx's)."""
    m = v.shape[-2]
    e = onp.zeros_like(ut)
    for i in range(m):
        for j in range(i + 1, m):
            e[..., i, j] = 1.0 / (s[..., i] - s[..., j]) / (s[..., i] + s[..., j])
            e[..., j, i] = -e[..., i, j]
    ones_ut, ones_v = onp.ones_like(ut), onp.ones_like(v)
    g1 = onp.matmul(1.0 / s[..., None] * ones_v, v.swapaxes(-1, -2)) * s[..., None, :]
    x = (g1 + onp.matmul(ones_ut.swapaxes(-1, -2), ut)) * e
    g2 = onp.eye(m) + (x + x.swapaxes(-1, -2)) * s[..., None, :] \
        - 1.0 / s[..., None] * onp.matmul(ones_v, v.swapaxes(-1, -2)) * onp.eye(m)
    return onp.matmul(ut, onp.matmul(g2, v) + 1.0 / s[..., None] * ones_v)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (3, 5), (2, 2, 3)])
def test_svd_reconstructs_and_its_gradient_is_mxnets_and_numerical(shape):
    a = onp.random.RandomState(1).uniform(-10, 10, shape)
    x = np.array(a, dtype="float64")
    x.attach_grad()
    with autograd.record():
        ut, s, v = np.linalg.svd(x)
    autograd.backward([ut, s, v])
    ut, s, v = ut.asnumpy(), s.asnumpy(), v.asnumpy()
    onp.testing.assert_allclose((ut * s[..., None, :]) @ v, a, atol=1e-10)
    onp.testing.assert_allclose(s, onp.linalg.svd(a, compute_uv=False), rtol=1e-10)
    if shape[-1] == shape[-2]:          # MXNet's formula leaves out the non-square term
        onp.testing.assert_allclose(x.grad.asnumpy(), _mxnet_svd_gradient(ut, s, v),
                                    rtol=1e-6, atol=1e-8)
    # sign-free losses: the sum of the singular values, and u1 v1^T against fixed weights
    weights = onp.random.RandomState(2).uniform(-1, 1, shape)

    def loss(values, module):
        ut, s, v = module.linalg.svd(values) if module is np else \
            onp.linalg.svd(values, full_matrices=False)
        top = module.matmul(ut[..., :, :1], v[..., :1, :])
        return s.sum() + (top * module.array(weights)).sum()

    _, grad = _gradient(lambda x: loss(x, np), a)
    onp.testing.assert_allclose(grad, _numeric_gradient(lambda b: loss(b, onp), a),
                                rtol=1e-5, atol=1e-7)


def test_svd_of_zero_size_input_and_wide_only():
    with mx.util.np_shape(True):
        for shape in [(0, 1), (5, 0, 3, 3), (3, 3, 0, 0)]:
            ut, s, v = np.linalg.svd(np.ones(shape))
            assert (ut.shape, s.shape, v.shape) == (shape[:-1] + shape[-2:-1], shape[:-1],
                                                    shape)
    with pytest.raises(ValueError, match="_npi_svd.*m <= n"):
        np.linalg.svd(np.ones((3, 2)))


@pytest.mark.parametrize("ord, axis", [(2, None), (-2, None), ("nuc", None), (2, (0, 2)),
                                       ("nuc", (2, 1)), ("inf", 1), ("-inf", (1, 0)),
                                       (1, None), ("fro", (0, 2)), (-3.2, 2), (4, 1)])
def test_norm_gradients_are_numerical(ord, axis):
    a = onp.random.RandomState(3).uniform(-10, 10, (2, 3, 4) if axis is not None else (3, 4))
    named = {"inf": onp.inf, "-inf": -onp.inf}.get(ord, ord) if isinstance(ord, str) else ord
    y, grad = _gradient(lambda x: np.linalg.norm(x, ord, axis).sum(), a)
    expected = onp.linalg.norm(a, named, axis)
    onp.testing.assert_allclose(y.asnumpy(), expected.sum(), rtol=1e-10)
    onp.testing.assert_allclose(
        grad, _numeric_gradient(lambda b: onp.linalg.norm(b, named, axis).sum(), a),
        rtol=1e-5, atol=1e-7)


GRADIENT_SETUP = SETUP + """
W = np.array([[0.3, -0.7, 0.2], [0.9, 0.1, -0.4]])
T = np.arange(18.0).reshape(3, 3, 2) * 0.1 - 0.5
A, S, V, W, T = (x.astype('float64') for x in (A, S, V, W, T))
def grad_of(function, value):
    x = np.array(value, dtype='float64')
    x.attach_grad()
    with mx.autograd.record():
        y = function(x)
    y.backward()
    return x.grad
"""
# gradients MXNet 1.9.1 computes right; the svd losses do not depend on the vectors' signs
GRADIENT_CASES = {
    "svd-values": "grad_of(lambda x: np.linalg.svd(x)[1].sum(), A)",
    "svd-top-pair": "grad_of(lambda x: (lambda r: (np.matmul(r[0][:, :1], r[2][:1]) * W)"
                    ".sum())(np.linalg.svd(x)), A)",
    "svd-squared-vectors": "grad_of(lambda x: (np.linalg.svd(x)[0] ** 2 * S[:2, :2]).sum() "
                           "+ (np.linalg.svd(x)[2] ** 2 * W).sum(), A)",
    "norm-2": "grad_of(lambda x: np.linalg.norm(x, 2), A)",
    "norm-minus-2": "grad_of(lambda x: np.linalg.norm(x, -2), S)",
    "norm-nuc": "grad_of(lambda x: np.linalg.norm(x, 'nuc'), A)",
    "norm-inf-rows": "grad_of(lambda x: np.linalg.norm(x, 'inf', axis=1).sum(), A)",
    "norm-p": "grad_of(lambda x: np.linalg.norm(x, 3.5, axis=0).sum(), A)",
    "norm-1-matrix": "grad_of(lambda x: np.linalg.norm(x, 1), A)",
    "norm-fro": "grad_of(lambda x: np.linalg.norm(x, 'fro'), A)",
    "einsum-trace": "grad_of(lambda x: np.einsum('ii', x), S)",
    "einsum-diagonal": "grad_of(lambda x: (np.einsum('ii->i', x) * V).sum(), S)",
    "einsum-iij": "grad_of(lambda x: (np.einsum('iij->j', x) * np.array([1.0, -2.0])).sum(), T)",
    "einsum-ellipsis-broadcast": "grad_of(lambda x: (np.einsum('...ij,...jk->...ik', x, "
                                 "T.reshape(2, 3, 3)) ** 2).sum(), A)",
    "einsum-optimize": "grad_of(lambda x: (np.einsum('ij,jk,kl->il', x, S, S * W[0], "
                       "optimize=True) ** 2).sum(), A)",
    "det": "grad_of(lambda x: np.linalg.det(x), S)",
    "slogdet": "grad_of(lambda x: np.linalg.slogdet(x)[1], S)",
}


def test_gradients_match_mxnet(mxnet_python):
    from test_np_vs_mxnet import ask_mxnet
    wanted = ask_mxnet(mxnet_python, GRADIENT_SETUP, GRADIENT_CASES)
    names = {"np": np, "npx": npx, "mx": mx}
    with mx.util.np_shape(True), mx.util.np_array(True):
        exec(GRADIENT_SETUP, names)
        for name, source in GRADIENT_CASES.items():
            assert "error" not in wanted[name], (name, wanted[name])
            got = eval(source, dict(names)).asnumpy()
            onp.testing.assert_allclose(got, onp.array(wanted[name]["value"]), rtol=1e-6,
                                        atol=1e-9, err_msg=name)


TALL_NORMS = {"nuc": "np.linalg.norm(np.stack([A.T, A.T * 2]), 'nuc', axis=(1, 2))",
              "2": "np.linalg.norm(A.T, 2)", "-2": "np.linalg.norm(A.T, -2)"}


def test_norms_of_tall_matrices_follow_numpy_where_mxnet_refuses(mxnet_python):
    # MXNet 1.9.1's _npi_norm hands a tall matrix to gesvd, which takes rows <= columns
    # only ("Check failed: V.size(0) <= V.size(1)"); NumPy answers, and so does minimx
    from test_np_vs_mxnet import ask_mxnet
    wanted = ask_mxnet(mxnet_python, SETUP, TALL_NORMS)
    assert all(wanted[name].get("error") == "MXNetError" for name in TALL_NORMS), wanted
    host, names = {"np": onp}, {"np": np}
    exec(SETUP, host)
    exec(SETUP, names)
    for source in TALL_NORMS.values():
        onp.testing.assert_allclose(eval(source, names).asnumpy(), eval(source, host),
                                    rtol=1e-5)


def test_einsum_gradient_through_a_size_1_broadcast_follows_calculus_not_mxnet(mxnet_python):
    # 'ij,ij->i' with x (1, 3) broadcast against A (2, 3): d/dx sum_i (x . A_i)^2 is
    # sum_i 2 (x . A_i) A_i = [-127, -238.75, 276]; MXNet 1.9.1 gives [95, 66.5, -57]
    # (its 'broadcast bug' test case only checks head gradients of ones)
    case = {"grad": "grad_of(lambda x: (np.einsum('ij,ij->i', x, A) ** 2).sum(), "
                    "V.reshape(1, 3))"}
    from test_np_vs_mxnet import ask_mxnet
    theirs = onp.array(ask_mxnet(mxnet_python, GRADIENT_SETUP, case)["grad"]["value"])
    a = onp.array([[1.0, -2.0, 3.0], [4.0, 5.5, -6.0]])
    x = onp.array([[0.5, -1.5, 2.0]])
    _, ours = _gradient(lambda x: (np.einsum("ij,ij->i", x, np.array(a)) ** 2).sum(), x)
    expected = _numeric_gradient(lambda b: (onp.einsum("ij,ij->i", b, a) ** 2).sum(), x)
    onp.testing.assert_allclose(ours, expected, rtol=1e-6)
    onp.testing.assert_allclose(ours, [[-127.0, -238.75, 276.0]], rtol=1e-12)
    assert not onp.allclose(theirs, expected)
