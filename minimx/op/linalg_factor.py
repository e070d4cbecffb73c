"""``linalg`` factorizations: ``potrf`` (Cholesky), ``potri``, ``gelqf`` (LQ), ``syevd``
(symmetric eigenvectors), ``inverse``, ``det``, ``slogdet`` and ``sumlogdiag``.

Lesson: 04-autograd.  Mirrors the LAPACK part of ``src/operator/tensor/la_op.cc``; here
``xp.linalg`` calls LAPACK.  Each gradient is the textbook matrix identity (Murray 2016 for
Cholesky, Seeger et al. 2017 for LQ and eigen), written with ``@`` and ``solve``.
Conventions as MXNet's: ``potrf`` gives ``L`` with ``A = L L^T`` (``lower=False``:
``A = U^T U``); ``gelqf`` gives ``(Q, L)`` with ``A = L Q`` and orthonormal rows in ``Q``;
``syevd`` gives ``(U, lam)`` with ``A = U^T diag(lam) U``, ``lam`` ascending and each row
of ``U`` signed so that its largest entry is positive.
"""
import numpy as np

from .linalg_products import LinalgOp, square_check, transposed, triangle
from .params import Param
from .registry import TestHints, register_op


def _spd(rng, shapes, dtype):
    """Symmetric positive definite test matrices ``m m^T + n I``."""
    arrays = []
    for shape in shapes:
        m = rng.uniform(-1, 1, shape)
        arrays.append((m @ m.swapaxes(-1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype))
    return arrays


def _symmetric(rng, shapes, dtype):
    """Symmetric test matrices with well separated eigenvalues."""
    arrays = []
    for shape in shapes:
        n = shape[-1]
        q, _ = np.linalg.qr(rng.uniform(-1, 1, shape))
        values = np.arange(1, n + 1) * 1.5 + rng.uniform(0, 0.5, shape[:-1])
        arrays.append(((q * values[..., None, :]) @ q.swapaxes(-1, -2)).astype(dtype))
    return arrays


def _phi(xp, x):
    """The lower triangle with its diagonal halved (Cholesky's gradient uses it)."""
    return xp.tril(x) - 0.5 * xp.tril(xp.triu(x))


def _symmetrized(x):
    return 0.5 * (x + transposed(x))


def _copy_lower_to_upper(xp, x):
    return xp.tril(x) + transposed(xp.tril(x, -1))


@register_op
class Potrf(LinalgOp):
    """The Cholesky factor of symmetric positive definite ``A``: lower ``L`` with
    ``A = L L^T`` (``lower=False``: upper ``U`` with ``A = U^T U``)."""
    name = "_linalg_potrf"
    aliases = ("linalg_potrf",)
    inputs = ("A",)
    params = {"lower": Param(bool, default=True)}
    saves = ("output",)
    test = TestHints(shapes=((3, 3),), inputs=_spd,
                     reference=lambda np, a, lower=True: np.linalg.cholesky(a) if lower
                     else np.linalg.cholesky(a).swapaxes(-1, -2),
                     cases=(({"lower": False}, ((2, 3, 3),)),))

    def infer_shape(self, A):
        square_check(self, A)
        return tuple(A)

    def forward(self, xp, A):
        factor = xp.linalg.cholesky(_symmetrized(A))
        return factor if self.lower else transposed(factor)

    def backward(self, xp, out_grad, output):
        factor = output if self.lower else transposed(output)
        grad = out_grad if self.lower else transposed(out_grad)
        inner = _phi(xp, transposed(factor) @ grad)
        # A-bar = L^-T phi(L^T L-bar) L^-1, made symmetric
        left = xp.linalg.solve(transposed(factor), inner)
        return _symmetrized(transposed(xp.linalg.solve(transposed(factor), transposed(left))))


@register_op
class Potri(LinalgOp):
    """``(A A^T)^-1`` from a lower triangular ``A`` (a Cholesky factor: the inverse of the
    matrix it factors); ``lower=False``: ``(A^T A)^-1`` from an upper one."""
    name = "_linalg_potri"
    aliases = ("linalg_potri",)
    inputs = ("A",)
    params = {"lower": Param(bool, default=True)}
    saves = ("A", "output")
    test = TestHints(shapes=((3, 3),), inputs=lambda rng, shapes, dtype: [
        np.linalg.cholesky(a).astype(dtype) for a in _spd(rng, shapes, "float64")],
        reference=lambda np, a, lower=True: np.linalg.inv(np.tril(a) @ np.tril(a).swapaxes(-1, -2)),
        cases=(({"lower": True}, ((2, 2, 2),)),))

    def infer_shape(self, A):
        square_check(self, A)
        return tuple(A)

    def forward(self, xp, A):
        factor = triangle(xp, A, self.lower)
        product = factor @ transposed(factor) if self.lower else transposed(factor) @ factor
        return xp.linalg.inv(product)

    def backward(self, xp, out_grad, A, output):
        factor = triangle(xp, A, self.lower)
        middle = output @ (out_grad + transposed(out_grad)) @ output
        grad = -(middle @ factor if self.lower else factor @ middle)
        return triangle(xp, grad, self.lower)


@register_op
class Gelqf(LinalgOp):
    """The LQ factorization of ``A`` (m x n, m <= n): ``Q`` (m x n, orthonormal rows) and
    lower ``L`` (m x m) with ``A = L Q``."""
    name = "_linalg_gelqf"
    aliases = ("linalg_gelqf",)
    inputs = ("A",)
    outputs = ("Q", "L")
    saves = ("Q", "L")
    test = TestHints(shapes=((2, 3),), reference=lambda np, a: tuple(
        x.swapaxes(-1, -2) for x in np.linalg.qr(a.swapaxes(-1, -2))),
        cases=(({}, ((2, 3, 4),)),))

    def infer_shape(self, A):
        if len(A) < 2 or A[-2] > A[-1]:
            raise self.shape_error(f"expected matrices with rows <= columns, got {tuple(A)}")
        return [tuple(A), tuple(A[:-1]) + (A[-2],)]

    def forward(self, xp, A):
        q, r = xp.linalg.qr(transposed(A))
        return transposed(q), transposed(r)

    def backward(self, xp, grad_q, grad_l, Q, L):
        # A-bar = L^-T (Q-bar + copyltu(M) Q) with M = L^T L-bar - Q-bar Q^T
        m = transposed(L) @ grad_l - grad_q @ transposed(Q)
        inner = grad_q + _copy_lower_to_upper(xp, m) @ Q
        return xp.linalg.solve(transposed(L), inner)


def _reference_syevd(np, a):
    values, vectors = np.linalg.eigh(a)
    rows = vectors.swapaxes(-1, -2)
    biggest = np.take_along_axis(rows, np.abs(rows).argmax(-1)[..., None], -1)
    return rows * np.sign(biggest), values


@register_op
class Syevd(LinalgOp):
    """Eigenvectors (rows of ``U``) and ascending eigenvalues ``lam`` of symmetric ``A``:
    ``A = U^T diag(lam) U``."""
    name = "_linalg_syevd"
    aliases = ("linalg_syevd",)
    inputs = ("A",)
    outputs = ("U", "lam")
    saves = ("U", "lam")
    test = TestHints(shapes=((3, 3),), inputs=_symmetric, reference=_reference_syevd,
                     cases=(({}, ((2, 3, 3),)),))

    def infer_shape(self, A):
        square_check(self, A)
        return [tuple(A), tuple(A[:-1])]

    def forward(self, xp, A):
        values, vectors = xp.linalg.eigh(_symmetrized(A))
        rows = transposed(vectors)
        biggest = xp.take_along_axis(rows, xp.abs(rows).argmax(axis=-1)[..., None], axis=-1)
        return rows * xp.where(biggest < 0, -1.0, 1.0).astype(rows.dtype), values

    def backward(self, xp, grad_u, grad_lam, U, lam):
        # with V = U^T (eigenvectors as columns): A-bar = V (diag(lam-bar) + F o (V^T V-bar)) V^T
        gaps = lam[..., None, :] - lam[..., :, None]
        off = xp.abs(gaps) > 0
        inverse_gaps = xp.where(off, 1.0 / xp.where(off, gaps, 1.0), 0.0)
        inner = inverse_gaps * (U @ transposed(grad_u))
        n = lam.shape[-1]
        inner = inner + xp.eye(n, dtype=U.dtype) * grad_lam[..., None, :]
        return _symmetrized(transposed(U) @ inner @ U)


@register_op
class Inverse(LinalgOp):
    """``A^-1`` of square ``A``."""
    name = "_linalg_inverse"
    aliases = ("linalg_inverse",)
    inputs = ("A",)
    saves = ("output",)
    test = TestHints(shapes=((3, 3),), inputs=_spd, reference=lambda np, a: np.linalg.inv(a),
                     cases=(({}, ((2, 2, 2),)),))

    def infer_shape(self, A):
        square_check(self, A)
        return tuple(A)

    def forward(self, xp, A):
        return xp.linalg.inv(A)

    def backward(self, xp, out_grad, output):
        inverse_t = transposed(output)
        return -(inverse_t @ out_grad @ inverse_t)


class _Determinant(LinalgOp):
    inputs = ("A",)
    saves = ("A",)
    single_shape = (1,)      # the result's shape for one matrix (the ``_npi_`` ones: ``()``)

    def infer_shape(self, A):
        square_check(self, A)
        return tuple(A[:-2]) if len(A) > 2 else self.single_shape

    def inverse_t(self, xp, A):
        return transposed(xp.linalg.inv(A))


@register_op
class Det(_Determinant):
    """``det(A)``: one number per matrix (shape (1,) for a single matrix)."""
    name = "_linalg_det"
    aliases = ("linalg_det",)
    saves = ("A", "output")
    test = TestHints(shapes=((3, 3),), inputs=_spd,
                     reference=lambda np, a: np.linalg.det(a).reshape(-1)
                     if a.ndim == 2 else np.linalg.det(a), cases=(({}, ((2, 2, 2),)),))

    def forward(self, xp, A):
        return xp.linalg.det(A).reshape(self.infer_shape(A.shape))

    def backward(self, xp, out_grad, A, output):
        scale = (out_grad * output).reshape(A.shape[:-2] + (1, 1))
        return scale * self.inverse_t(xp, A)


@register_op
class Slogdet(_Determinant):
    """``(sign, log|det A|)`` per matrix."""
    name = "_linalg_slogdet"
    aliases = ("linalg_slogdet",)
    outputs = ("sign", "logdet")
    test = TestHints(shapes=((3, 3),), inputs=_spd, reference=lambda np, a: tuple(
        x.reshape(-1) if a.ndim == 2 else x for x in np.linalg.slogdet(a)),
        cases=(({}, ((2, 2, 2),)),))

    def infer_shape(self, A):
        shape = super().infer_shape(A)
        return [shape, shape]

    def forward(self, xp, A):
        sign, logdet = xp.linalg.slogdet(A)
        shape = self.infer_shape(A.shape)[0]
        return sign.reshape(shape).astype(A.dtype), logdet.reshape(shape).astype(A.dtype)

    def backward(self, xp, grad_sign, grad_logdet, A):
        return grad_logdet.reshape(A.shape[:-2] + (1, 1)) * self.inverse_t(xp, A)


@register_op
class NumpyDet(Det):
    """``np.linalg.det``: ``_linalg_det`` with NumPy's shapes (one matrix gives ``()``)."""
    name = "_npi_det"
    aliases = ()
    single_shape = ()
    test = TestHints(shapes=((3, 3),), inputs=_spd, reference=lambda np, a: np.linalg.det(a),
                     cases=(({}, ((2, 2, 2),)),))


@register_op
class NumpySlogdet(Slogdet):
    """``np.linalg.slogdet``: ``_linalg_slogdet`` with NumPy's shapes."""
    name = "_npi_slogdet"
    aliases = ()
    single_shape = ()
    test = TestHints(shapes=((3, 3),), inputs=_spd,
                     reference=lambda np, a: tuple(np.linalg.slogdet(a)),
                     cases=(({}, ((2, 2, 2),)),))


@register_op
class Sumlogdiag(_Determinant):
    """``sum(log(diag(A)))`` per matrix (a log-determinant from a Cholesky factor)."""
    name = "_linalg_sumlogdiag"
    aliases = ("linalg_sumlogdiag",)
    test = TestHints(shapes=((3, 3),), inputs=_spd, reference=lambda np, a: np.log(
        np.diagonal(a, axis1=-2, axis2=-1)).sum(-1).reshape(-1) if a.ndim == 2 else np.log(
        np.diagonal(a, axis1=-2, axis2=-1)).sum(-1), cases=(({}, ((2, 2, 2),)),))

    def forward(self, xp, A):
        diagonal = xp.diagonal(A, axis1=-2, axis2=-1)
        return xp.log(diagonal).sum(axis=-1).reshape(self.infer_shape(A.shape))

    def backward(self, xp, out_grad, A):
        n = A.shape[-1]
        diagonal = xp.diagonal(A, axis1=-2, axis2=-1)
        weights = out_grad.reshape(A.shape[:-2] + (1,)) / diagonal
        return xp.eye(n, dtype=A.dtype) * weights[..., None, :]
