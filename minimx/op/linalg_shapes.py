"""``linalg`` reshuffles: ``extractdiag``/``makediag`` and ``extracttrian``/``maketrian``.

Lesson: 02-ndarray-and-context.  Mirrors the copy operators of
``src/operator/tensor/la_op.cc``.  ``offset`` picks a diagonal (> 0 above, < 0 below);
a triangle is the part on and below it (``offset < 0``, or ``0`` with ``lower``) or on and
above it.  ``extracttrian`` lists a lower triangle row by row and an upper one column by
column (MXNet's order), ``maketrian`` puts such a list back; each pair are each other's
gradients.
"""
import math

from .linalg_products import LinalgOp, square_check
from .params import Param
from .registry import TestHints, register_op

_OFFSET = Param(int, default=0, doc="which diagonal: > 0 above the main one, < 0 below")


def _diagonal_positions(xp, n, offset):
    rows = xp.arange(max(n - abs(offset), 0))
    return (rows, rows + offset) if offset >= 0 else (rows - offset, rows)


def _triangle_positions(xp, n, offset, lower):
    """(rows, cols) of the triangle's entries in MXNet's order (a lower triangle row by
    row, an upper one column by column)."""
    is_lower = offset < 0 or (offset == 0 and lower)
    rows, cols = [], []
    for i in range(n):
        for j in range(n):
            a, b = (i, j) if is_lower else (j, i)     # an upper one is read transposed
            if (is_lower and b - a <= offset) or (not is_lower and b - a >= offset):
                rows.append(a)
                cols.append(b)
    return xp.asarray(rows, dtype="int64"), xp.asarray(cols, dtype="int64")


def _reference_positions(np, n, offset, lower):
    """numpy's triangle indices in MXNet's order: a lower triangle row by row (numpy's own
    order), an upper one column by column."""
    if offset < 0 or (offset == 0 and lower):
        return np.tril_indices(n, offset)
    rows, cols = np.triu_indices(n, offset)
    order = np.lexsort((rows, cols))
    return rows[order], cols[order]


def _reference_extract(np, a, offset=0, lower=True):
    rows, cols = _reference_positions(np, a.shape[-1], offset, lower)
    return a[..., rows, cols]


def _reference_make(np, a, offset=0, lower=True):
    m = int((np.sqrt(8 * a.shape[-1] + 1) - 1) // 2)
    n = m + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    rows, cols = _reference_positions(np, n, offset, lower)
    out[..., rows, cols] = a
    return out


def _trian_length(n, offset):
    m = n - abs(offset)
    return m * (m + 1) // 2


class _Extract(LinalgOp):
    """A vector of each square matrix's entries at ``positions(xp, n)``; its gradient puts
    them back into zeros."""
    inputs = ("A",)
    saves = ("A_shape",)

    def infer_shape(self, A):
        square_check(self, A)
        if abs(self.offset) >= A[-1]:
            raise self.shape_error(f"offset {self.offset} is outside matrices {tuple(A)}")
        return tuple(A[:-2]) + (self.length(A[-1]),)

    def forward(self, xp, A):
        rows, cols = self.positions(xp, A.shape[-1])
        return A[..., rows, cols]

    def backward(self, xp, out_grad, A_shape):
        grad = xp.zeros(A_shape, dtype=out_grad.dtype)
        rows, cols = self.positions(xp, A_shape[-1])
        grad[..., rows, cols] = out_grad
        return grad


class _Make(LinalgOp):
    """Square matrices of zeros with each vector of ``A`` at ``positions(xp, n)``; the
    gradient reads those entries back."""
    inputs = ("A",)

    def infer_shape(self, A):
        n = self.size(A[-1])
        return tuple(A[:-1]) + (n, n)

    def forward(self, xp, A):
        n = self.size(A.shape[-1])
        out = xp.zeros(A.shape[:-1] + (n, n), dtype=A.dtype)
        rows, cols = self.positions(xp, n)
        out[..., rows, cols] = A
        return out

    def backward(self, xp, out_grad):
        rows, cols = self.positions(xp, out_grad.shape[-1])
        return out_grad[..., rows, cols]


class _Diagonal:
    params = {"offset": _OFFSET}

    def positions(self, xp, n):
        return _diagonal_positions(xp, n, self.offset)

    def length(self, n):
        return n - abs(self.offset)

    def size(self, length):
        return length + abs(self.offset)


class _Triangle:
    params = {"offset": _OFFSET, "lower": Param(bool, default=True,
                                                doc="offset 0: the lower triangle")}

    def positions(self, xp, n):
        return _triangle_positions(xp, n, self.offset, self.lower)

    def length(self, n):
        return _trian_length(n, self.offset)

    def size(self, length):
        m = (math.isqrt(8 * length + 1) - 1) // 2
        if m * (m + 1) // 2 != length:
            raise self.shape_error(f"{length} entries do not fill a triangle")
        return m + abs(self.offset)


@register_op
class ExtractDiag(_Diagonal, _Extract):
    """The diagonal ``offset`` of each matrix, as a vector."""
    name = "_linalg_extractdiag"
    aliases = ("linalg_extractdiag",)
    test = TestHints(shapes=((3, 3),), params={"offset": 1},
                     reference=lambda np, a, offset: np.diagonal(a, offset, -2, -1),
                     cases=(({"offset": -1}, ((2, 3, 3),)),))


@register_op
class MakeDiag(_Diagonal, _Make):
    """Square matrices with each vector of ``A`` on diagonal ``offset``, zeros elsewhere."""
    name = "_linalg_makediag"
    aliases = ("linalg_makediag",)
    test = TestHints(shapes=((3,),), params={"offset": 1},
                     reference=lambda np, a, offset: np.diagflat(a, offset),
                     cases=(({"offset": -2}, ((2,),)),))


@register_op
class ExtractTrian(_Triangle, _Extract):
    """The entries of each matrix's triangle (see the module), as a vector."""
    name = "_linalg_extracttrian"
    aliases = ("linalg_extracttrian",)
    test = TestHints(shapes=((3, 3),), params={"offset": 1},
                     reference=_reference_extract,
                     cases=(({"offset": 0, "lower": False}, ((2, 3, 3),)),
                            ({"offset": -1}, ((4, 4),))))


@register_op
class MakeTrian(_Triangle, _Make):
    """Square matrices holding each vector of ``A`` in their triangle, zeros elsewhere."""
    name = "_linalg_maketrian"
    aliases = ("linalg_maketrian",)
    test = TestHints(shapes=((3,),), params={"offset": 1},
                     reference=_reference_make,
                     cases=(({"offset": 0, "lower": False}, ((2, 6),)),
                            ({"offset": -1}, ((3,),))))
