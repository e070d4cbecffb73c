"""``nd.sparse``: compressed storage (CSR, row-sparse) -- not part of minimx.

Lesson: 02-ndarray-and-context.  MXNet can store an NDArray as CSR or row-sparse;
minimx stores every array densely (``stype='default'``).  These names exist so that code
mentioning them loads; each raises an error naming the storage type it would need.
"""
from ..base import MXNetError

__all__ = ["csr_matrix", "row_sparse_array", "zeros", "empty", "array", "dot", "retain",
           "CSRNDArray", "RowSparseNDArray", "BaseSparseNDArray"]


def _refuse(name, stype):
    raise MXNetError(f"nd.sparse.{name}: storage type {stype!r} is not supported; minimx "
                     f"stores arrays densely ('default') only")


def csr_matrix(*args, **kwargs):
    _refuse("csr_matrix", "csr")


def row_sparse_array(*args, **kwargs):
    _refuse("row_sparse_array", "row_sparse")


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    if stype == "default":
        from .creation import zeros as dense_zeros
        return dense_zeros(shape, ctx=ctx, dtype=dtype)
    _refuse("zeros", stype)


def empty(stype, shape, ctx=None, dtype=None):
    if stype == "default":
        from .creation import empty as dense_empty
        return dense_empty(shape, ctx=ctx, dtype=dtype)
    _refuse("empty", stype)


def array(source_array, ctx=None, dtype=None):
    _refuse("array", getattr(source_array, "stype", "sparse"))


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    _refuse("dot", getattr(lhs, "stype", "sparse"))


def retain(data, indices):
    _refuse("retain", "row_sparse")


class BaseSparseNDArray:
    """MXNet's base class of sparse arrays; minimx has no instances of it."""

    def __init__(self, *args, **kwargs):
        _refuse(type(self).__name__, "sparse")


class CSRNDArray(BaseSparseNDArray):
    pass


class RowSparseNDArray(BaseSparseNDArray):
    pass
