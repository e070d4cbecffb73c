"""``np.linalg``'s general-matrix operators: ``pinv``, ``eig``/``eigvals``, ``eigh``/``eigvalsh``,
``svd``, ``tensorinv`` and ``tensorsolve``.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/numpy/linalg/np_pinv.cc``,
``np_eig.cc``, ``np_eigvals.cc``, ``np_gesvd.cc``, ``np_tensorinv.cc`` and
``np_tensorsolve.cc`` under MXNet's names.  As in MXNet, ``pinv`` and the
eigen-decompositions have a zero gradient (``differentiable = False``; ``nd.linalg.syevd``
is the differentiable symmetric one); ``svd`` has one; ``tensorinv`` and ``tensorsolve``
are a reshaped ``inv`` and ``solve``, and their gradients are those of the matrix ones.
"""
import math

import numpy as np

from .linalg_products import transposed
from .params import Choice, Param, Shape
from .registry import OpDef, TestHints, register_op


def _square_matrices(op, shape):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise op.shape_error(f"the input must be square matrices (..., n, n), got {tuple(shape)}")


class PseudoInverse(OpDef):
    """The Moore-Penrose pseudo-inverse of matrices (..., m, n) -> (..., n, m): singular values
    below ``rcond`` times the largest count as zero."""

    differentiable = False

    def infer_shape(self, a, *rcond):
        if len(a) < 2:
            raise self.shape_error(f"the input must be matrices (..., m, n), got {tuple(a)}")
        return (*a[:-2], a[-1], a[-2])

    def _pinv(self, xp, a, rcond):
        if self.hermitian:
            raise self.param_error("hermitian=True is not supported (as in MXNet 1.9.1)")
        return xp.linalg.pinv(a, rcond).astype(a.dtype, copy=False)


@register_op
class PinvScalarRcond(PseudoInverse):
    """The pseudo-inverse with the cutoff ``rcond`` a number."""
    name = "_npi_pinv_scalar_rcond"
    params = {"rcond": Param(float, default=1e-15, doc="relative cutoff of singular values"),
              "hermitian": Param(bool, default=False, doc="the input is hermitian")}
    test = TestHints(shapes=((3, 2),), cases=(({"rcond": 0.5}, ((2, 3, 4),)),), grad=False,
                     reference=lambda np, a, rcond=1e-15: np.linalg.pinv(a, rcond))

    def forward(self, xp, a):
        return self._pinv(xp, a, self.rcond)


@register_op
class Pinv(PseudoInverse):
    """The pseudo-inverse with the cutoff ``rcond`` an array (one per matrix)."""
    name = "_npi_pinv"
    inputs = ("A", "rcond")
    params = {"hermitian": Param(bool, default=False, doc="the input is hermitian")}
    test = TestHints(shapes=((2, 3, 4), (2,)), grad=False,
                     reference=lambda np, a, rcond: np.linalg.pinv(a, rcond))

    def forward(self, xp, a, rcond):
        return self._pinv(xp, a, rcond)


def _eigen_dtype(op, dtype):
    """MXNet's dtype rule of the eigen-decompositions: float32 stays float32, every other
    dtype (integers included) computes and answers in float64; float16 is refused."""
    if dtype == "float16":
        raise op.type_error("float16 is not supported (as in MXNet's linalg), got float16")
    return "float32" if dtype == "float32" else "float64"


class Eigen(OpDef):
    """Eigenvalues of general real square matrices; complex ones are refused (MXNet has no
    complex dtypes)."""

    differentiable = False

    def infer_shape(self, a):
        _square_matrices(self, a)
        return [tuple(a[:-1]), tuple(a)]

    def infer_type(self, a):
        dtype = _eigen_dtype(self, a)
        return [dtype, dtype]

    def _eig(self, xp, a):
        dtype = _eigen_dtype(self, a.dtype.name)
        values, vectors = xp.linalg.eig(a.astype(dtype, copy=False))
        if bool(xp.any(values.imag != 0)):
            raise self.param_error("the matrix has complex eigenvalues (no complex dtypes)")
        return values.real.astype(dtype), vectors.real.astype(dtype)


def _real_spectrum(rng, shapes, dtype):
    """Upper triangular plus a little: real, distinct eigenvalues."""
    n = shapes[0][-1]
    upper = np.triu(rng.uniform(-1, 1, shapes[0])) + np.diag(np.arange(1.0, n + 1) * 2)
    return [upper.astype(dtype)]


@register_op
class Eig(Eigen):
    """Eigenvalues ``w`` and right eigenvectors ``v`` (columns) of square matrices."""
    name = "_npi_eig"
    outputs = ("w", "v")
    test = TestHints(shapes=((3, 3),), inputs=_real_spectrum, grad=False,
                     reference=lambda np, a: tuple(part.real for part in np.linalg.eig(a)))

    def forward(self, xp, a):
        return self._eig(xp, a)


class ValuesOnly:
    """The eigenvalues alone: the first output of the decomposition it is mixed into."""

    outputs = ("output",)

    def infer_shape(self, a):
        return super().infer_shape(a)[0]

    def infer_type(self, a):
        return super().infer_type(a)[0]

    def forward(self, xp, a):
        return super().forward(xp, a)[0]


@register_op
class Eigvals(ValuesOnly, Eig):
    """Eigenvalues of square matrices."""
    name = "_npi_eigvals"
    test = TestHints(shapes=((3, 3),), inputs=_real_spectrum, grad=False,
                     reference=lambda np, a: np.linalg.eigvals(a).real)


class Symmetric(Eigen):
    """Eigenvalues (ascending) of symmetric matrices, of which only the lower (``UPLO='L'``)
    or upper (``'U'``) triangle is read.  No gradient, as MXNet's ``_npi_eigh``."""

    params = {"UPLO": Param(Choice("L", "U"), default="L",
                            doc="which triangle holds the symmetric matrix")}

    def _eigh(self, xp, a):
        dtype = _eigen_dtype(self, a.dtype.name)
        values, vectors = xp.linalg.eigh(a.astype(dtype, copy=False), UPLO=self.UPLO)
        return values.astype(dtype, copy=False), vectors.astype(dtype, copy=False)


def _lower_only(rng, shapes, dtype):
    """A symmetric lower triangle above noise: ``UPLO='L'`` must not read the upper one."""
    [symmetric] = _real_spectrum(rng, shapes, "float64")
    symmetric = np.tril(symmetric) + np.tril(symmetric, -1).swapaxes(-1, -2)
    return [(symmetric + np.triu(rng.uniform(5, 9, shapes[0]), 1)).astype(dtype)]


@register_op
class Eigh(Symmetric):
    """Eigenvalues ``w`` (ascending) and eigenvectors ``v`` (columns) of symmetric matrices."""
    name = "_npi_eigh"
    outputs = ("w", "v")
    test = TestHints(shapes=((3, 3),), inputs=_lower_only, grad=False,
                     reference=lambda np, a, UPLO="L": tuple(np.linalg.eigh(a, UPLO)),
                     cases=(({"UPLO": "U"}, ((2, 3, 3),)),))

    def forward(self, xp, a):
        return self._eigh(xp, a)


@register_op
class Eigvalsh(ValuesOnly, Eigh):
    """Eigenvalues (ascending) of symmetric matrices."""
    name = "_npi_eigvalsh"
    test = TestHints(shapes=((3, 3),), inputs=_lower_only, grad=False,
                     reference=lambda np, a, UPLO="L": np.linalg.eigvalsh(a, UPLO),
                     cases=(({"UPLO": "U"}, ((2, 3, 3),)),))


def _distinct_singular_values(rng, shapes, dtype):
    """Matrices whose singular values are well apart (the gradient divides by their gaps)."""
    shape = shapes[0]
    m, n = shape[-2:]
    left, _ = np.linalg.qr(rng.uniform(-1, 1, (*shape[:-2], m, m)))
    right, _ = np.linalg.qr(rng.uniform(-1, 1, (*shape[:-2], n, m)))
    values = np.arange(m, 0, -1) * 1.5 + rng.uniform(0, 0.5, (*shape[:-2], m))
    return [((left * values[..., None, :]) @ right.swapaxes(-1, -2)).astype(dtype)]


@register_op
class Svd(OpDef):
    """The singular value decomposition ``A = UT diag(L) V`` of matrices (..., m, n) with
    m <= n: ``UT`` (..., m, m) orthogonal, ``L`` (..., m) descending, ``V`` (..., m, n) with
    orthonormal rows.  (NumPy's ``svd(a, full_matrices=False)``, named as MXNet's.)"""

    name = "_npi_svd"
    inputs = ("A",)
    outputs = ("UT", "L", "V")
    saves = ("UT", "L", "V")
    test = TestHints(shapes=((3, 4),), inputs=_distinct_singular_values,
                     reference=lambda np, a: tuple(np.linalg.svd(a, full_matrices=False)),
                     cases=(({}, ((2, 3, 3),)),))

    def infer_shape(self, A):
        if len(A) < 2 or A[-2] > A[-1]:
            raise self.shape_error(f"the input must be matrices (..., m, n) with m <= n (as "
                                   f"MXNet's gesvd), got {tuple(A)}")
        return [(*A[:-1], A[-2]), tuple(A[:-1]), tuple(A)]

    def infer_type(self, A):
        return [A, A, A]

    def forward(self, xp, A):
        return tuple(xp.linalg.svd(A, full_matrices=False))

    def backward(self, xp, grad_ut, grad_l, grad_v, UT, L, V):
        # Townsend's identity, with U = UT, S = diag(L), V's rows the right vectors:
        #   A-bar = U [(F o (J - J^T)) S + diag(L-bar) + S (F o (K - K^T))] V
        #           + U S^-1 V-bar (I - V^T V)
        # J = U^T U-bar, K = V V-bar^T, F_ij = 1 / (L_j^2 - L_i^2) off the diagonal.  Where
        # two singular values are equal (or one is 0) the gradient is undefined; those
        # terms are left out.
        squares = L * L
        gaps = squares[..., None, :] - squares[..., :, None]
        inverse_gaps = xp.where(gaps != 0, 1.0 / xp.where(gaps != 0, gaps, 1.0), 0.0)
        j = transposed(UT) @ grad_ut
        k = V @ transposed(grad_v)
        inner = (inverse_gaps * (j - transposed(j))) * L[..., None, :] \
            + L[..., :, None] * (inverse_gaps * (k - transposed(k)))
        inner = inner + xp.eye(L.shape[-1], dtype=L.dtype) * grad_l[..., None, :]
        inverse_l = xp.where(L != 0, 1.0 / xp.where(L != 0, L, 1.0), 0.0)
        scaled_grad_v = inverse_l[..., :, None] * grad_v
        outside = scaled_grad_v - (scaled_grad_v @ transposed(V)) @ V   # the part outside V's rows
        return (UT @ (inner @ V + outside)).astype(UT.dtype, copy=False)


def _invertible(rng, dtype):
    """A (2, 3, 6) tensor that is a well-conditioned 6x6 matrix."""
    return (rng.uniform(-0.3, 0.3, (6, 6)) + 2 * np.eye(6)).reshape(2, 3, 6).astype(dtype)


@register_op
class Tensorinv(OpDef):
    """The inverse of ``a`` read as a matrix (first ``ind`` axes by the rest)."""

    name = "_npi_tensorinv"
    params = {"ind": Param(int, default=2, doc="how many leading axes index the rows")}
    saves = ("output",)
    test = TestHints(shapes=((2, 3, 6),), params={"ind": 2},
                     inputs=lambda rng, shapes, dtype: [_invertible(rng, dtype)],
                     reference=lambda np, a, ind=2: np.linalg.tensorinv(a, ind))

    def infer_shape(self, a):
        rows, cols = math.prod(a[:self.ind]), math.prod(a[self.ind:])
        if self.ind <= 0 or rows != cols:
            raise self.shape_error(f"the first {self.ind} axes and the rest must have one "
                                   f"size, got shape {tuple(a)}")
        return (*a[self.ind:], *a[:self.ind])

    def forward(self, xp, a):
        return xp.linalg.tensorinv(a, self.ind)

    def backward(self, xp, out_grad, output):
        # Y = A^-1: grad_A = -Y^T G Y^T, with A, Y, G as (n, n) matrices
        n = math.prod(output.shape[:output.ndim - self.ind])
        inverse = output.reshape(n, n)
        grad = -inverse.T @ out_grad.reshape(n, n) @ inverse.T
        a_shape = (*output.shape[output.ndim - self.ind:], *output.shape[:output.ndim - self.ind])
        return grad.reshape(a_shape)


@register_op
class Tensorsolve(OpDef):
    """``x`` with ``tensordot(a, x, x.ndim) = b``; ``axes`` of ``a`` move to the end first."""

    name = "_npi_tensorsolve"
    inputs = ("a", "b")
    params = {"a_axes": Param(Shape, default=(), doc="axes of a moved to the end first")}
    saves = ("a", "b_shape", "output")
    test = TestHints(shapes=((2, 3, 6), (2, 3)), inputs=lambda rng, shapes, dtype: [
        _invertible(rng, dtype), rng.uniform(-1, 1, (2, 3)).astype(dtype)],
        reference=lambda np, a, b: np.linalg.tensorsolve(a, b))

    def _order(self, ndim):
        moved = [axis % ndim for axis in self.a_axes]
        return [axis for axis in range(ndim) if axis not in moved] + moved

    def infer_shape(self, a, b):
        moved = [a[axis] for axis in self._order(len(a))]
        unknowns = tuple(moved[-(len(a) - len(b)):])     # NumPy's rule, slicing and all
        if math.prod(unknowns) ** 2 != math.prod(a) or math.prod(unknowns) != math.prod(b):
            raise self.shape_error(f"a (axes moved) must be a square matrix of b's size, b "
                                   f"{tuple(b)} and a {tuple(moved)}")
        return unknowns

    def forward(self, xp, a, b):
        return xp.linalg.tensorsolve(a, b, tuple(self.a_axes) or None)

    def backward(self, xp, out_grad, a, b_shape, output):
        # x = A^-1 b with A as an (n, n) matrix: grad_b = A^-T g, grad_A = -grad_b x^T
        order = self._order(a.ndim)
        n = output.size
        matrix = xp.transpose(a, order).reshape(n, n)
        grad_b = xp.linalg.solve(matrix.T, out_grad.reshape(n))
        grad_a = -xp.outer(grad_b, output.reshape(n))
        moved_shape = [a.shape[axis] for axis in order]
        grad_a = xp.transpose(grad_a.reshape(moved_shape), xp.argsort(order))
        return grad_a, grad_b.reshape(b_shape)
