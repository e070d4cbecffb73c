"""``mx.np.linalg``: norms, inverses, determinants, factorizations and solves.

Lesson: 03-two-frontends-one-engine.  Mirrors ``python/mxnet/numpy/linalg.py``.  Each function
is a registered operator (``_linalg_inverse``, ``_linalg_det``, ``_linalg_potrf``,
``_linalg_syevd``, ``_npi_solve``, ``_npi_pinv``, ``_npi_eig``, ``_npi_tensorinv``, ...) or
a composition of them (``_npi_svd`` included); the names MXNet itself hands to host
NumPy (``qr``, ``lstsq``, ...) compute on the host (``fallback.py``).
"""
import numbers

import numpy as onp

from .fallback_linalg import *  # noqa: F401,F403
from .fallback_linalg import __all__ as _fallback_linalg
from .adapter import call_np, numpy_shaped, operand, reduced_shape
from .manipulation import moveaxis
from .reductions import max as _max, min as _min, sum as _sum

__all__ = ["norm", "inv", "det", "slogdet", "cholesky", "solve", "eigh", "eigvalsh", "svd",
           "pinv", "eig", "eigvals", "tensorinv", "tensorsolve", *_fallback_linalg]


# the names MXNet 1.9.1 also accepts for ``ord``
_ORD_NAMES = {"inf": onp.inf, "-inf": -onp.inf, "f": "fro"}


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    """Vector and matrix norms: the 2-norm (Frobenius) by default, ``ord`` 1, 2, inf, ..."""
    x = operand(x)
    ord = _ORD_NAMES.get(ord, ord) if isinstance(ord, str) else ord     # noqa: A001
    vector = isinstance(axis, int) or (axis is None and x.ndim == 1) or \
        (isinstance(axis, tuple) and len(axis) == 1)
    if ord is None or ord == "fro" or (ord == 2 and vector):
        return call_np("sqrt", _sum(x * x, axis=axis, keepdims=keepdims))
    magnitude = call_np("abs", x)
    if vector:
        if ord == onp.inf:
            return _max(magnitude, axis=axis, keepdims=keepdims)
        if ord == -onp.inf:
            return _min(magnitude, axis=axis, keepdims=keepdims)
        if ord == 0:
            return _sum((x != 0).astype(x.dtype), axis=axis, keepdims=keepdims)
        return _sum(magnitude ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)
    rows, cols = axis if axis is not None else (-2, -1)
    if ord in (1, -1):
        sums = _sum(magnitude, axis=rows, keepdims=True)
        found = (_max if ord == 1 else _min)(sums, axis=cols, keepdims=True)
    elif ord in (onp.inf, -onp.inf):
        sums = _sum(magnitude, axis=cols, keepdims=True)
        found = (_max if ord == onp.inf else _min)(sums, axis=rows, keepdims=True)
    elif ord in (2, -2, "nuc"):
        return _singular_norm(x, ord, rows % x.ndim, cols % x.ndim, keepdims)
    else:
        raise NotImplementedError(f"norm: ord={ord!r} for matrices is not supported")
    return numpy_shaped(found.reshape(reduced_shape(x.shape, (rows, cols), True)),
                        reduced_shape(x.shape, (rows, cols), keepdims))


def _singular_norm(x, ord, rows, cols, keepdims):  # noqa: A002 (NumPy's name)
    """The largest (2), smallest (-2) or summed ('nuc') singular value, from the ``_npi_svd``
    operator (differentiable) of the matrices laid out wide (a transpose has the same
    singular values; the operator takes rows <= columns)."""
    wide = (rows, cols) if x.shape[rows] <= x.shape[cols] else (cols, rows)
    singular = svd(moveaxis(x, wide, (-2, -1)))[1]
    found = {2: _max, -2: _min, "nuc": _sum}[ord](singular, axis=-1)
    return numpy_shaped(found, reduced_shape(x.shape, (rows, cols), keepdims))


def inv(a):
    return call_np("_linalg_inverse", operand(a))


def det(a):
    return call_np("_npi_det", operand(a))


def slogdet(a):
    return tuple(call_np("_npi_slogdet", operand(a)))


def cholesky(a):
    """The lower-triangular ``L`` with ``a = L L^T`` (``a`` symmetric positive definite)."""
    return call_np("_linalg_potrf", operand(a))


def solve(a, b):
    return call_np("_npi_solve", operand(a), operand(b))


def eigh(a, UPLO="L"):  # noqa: N803 (NumPy's name)
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix, read from
    its lower (``UPLO='L'``) or upper triangle.  No gradient, as MXNet's."""
    return tuple(call_np("_npi_eigh", operand(a), UPLO=UPLO))


def eigvalsh(a, UPLO="L"):  # noqa: N803 (NumPy's name)
    return call_np("_npi_eigvalsh", operand(a), UPLO=UPLO)


def svd(a):
    """``(ut, s, v)`` with ``a = (ut * s[..., None, :]) @ v`` for matrices (..., m, n), m <= n:
    MXNet's form of NumPy's ``svd(a, full_matrices=False)``.  Differentiable."""
    return tuple(call_np("_npi_svd", operand(a)))


def pinv(a, rcond=1e-15, hermitian=False):
    """The pseudo-inverse; ``rcond`` a number or an array (one per matrix).  No gradient."""
    if hermitian:
        raise NotImplementedError("pinv: hermitian=True is not supported (as in MXNet 1.9.1)")
    if isinstance(rcond, numbers.Real):
        return call_np("_npi_pinv_scalar_rcond", operand(a), rcond=float(rcond))
    return call_np("_npi_pinv", operand(a), operand(rcond))


def eig(a):
    """Eigenvalues and right eigenvectors (columns) of real square matrices whose eigenvalues
    are real.  No gradient, as MXNet's."""
    return tuple(call_np("_npi_eig", operand(a)))


def eigvals(a):
    return call_np("_npi_eigvals", operand(a))


def tensorinv(a, ind=2):
    return call_np("_npi_tensorinv", operand(a), ind=ind)


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (``axes`` of ``a`` moved to the end)."""
    axes = () if axes is None else (axes,) if isinstance(axes, numbers.Integral) else axes
    return call_np("_npi_tensorsolve", operand(a), operand(b), a_axes=tuple(axes))
