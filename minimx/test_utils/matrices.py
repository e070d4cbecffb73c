"""Test matrices with known spectra, for the linear-algebra tests of ``mx.np.linalg``.

Lesson: 02-ndarray-and-context.  Mirrors the matrix helpers of MXNet's ``test_utils``: host
NumPy arrays of shape ``(..., n, n)``.
"""
import numpy as np

__all__ = ["new_matrix_with_real_eigvals_nd", "new_sym_matrix_with_real_eigvals_nd",
           "new_orthonormal_matrix_2d"]


def _batch(shape, make_one):
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([make_one(shape[-1]) for _ in range(count)]).reshape(shape)


def _real_eigvals_2d(n):
    """``H D H`` with ``H`` a Householder reflection (its own inverse) and ``D`` diagonal with
    magnitudes in [0.5, 1]: eigenvalues ``D`` (real), condition number at most 2."""
    direction = np.random.uniform(-1.0, 1.0, (n, 1))
    direction /= np.linalg.norm(direction)
    reflection = np.eye(n) - 2 * direction @ direction.T
    signs = np.random.choice([-1.0, 1.0], n)
    diagonal = np.diag(signs * np.random.uniform(0.5, 1.0, n))
    return reflection @ diagonal @ reflection


def new_orthonormal_matrix_2d(n):
    """A random ``n x n`` orthonormal matrix (the Q of a QR factorization)."""
    return np.linalg.qr(np.random.randn(n, n))[0]


def _sym_real_eigvals_2d(n):
    q = new_orthonormal_matrix_2d(n)
    return q.T @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q


def new_matrix_with_real_eigvals_nd(shape):
    """Well-conditioned (non-symmetric) matrices with real eigenvalues in [-1, 1]."""
    return _batch(shape, _real_eigvals_2d)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """Symmetric matrices with eigenvalues in [-10, 10]."""
    return _batch(shape, _sym_real_eigvals_2d)
