"""The values a sparse NDArray's buffer holds: CSR matrices and row-sparse arrays.

Lesson: 13-optimizers (sparse gradients).  Mirrors the storage formats of
``include/mxnet/ndarray.h`` (``kCSRStorage``, ``kRowSparseStorage``).

* ``csr`` (2-D only): ``scipy.sparse.csr_matrix`` -- ``data`` (the non-zeros), ``indices``
  (their columns) and ``indptr`` (where each row starts in ``data``).
* ``row_sparse``: a ``RowSparse`` -- ``data`` holds the stored rows (``(k,) + shape[1:]``)
  and ``indices`` their row numbers, ascending; every other row is zero.

These are raw values, like the numpy arrays of a dense buffer: the engine orders their reads
and writes, and the kernels in ``sparse_kernels.py`` compute on them.
"""
import numpy as np
# scipy.sparse is imported in the functions that build its matrices: loading it (it loads
# much of scipy) would be about a third of `import minimx`, for programs that never go sparse

__all__ = ["RowSparse", "INDEX_DTYPE", "to_dense", "from_dense", "csr", "empty_value",
           "value_dtype", "astype"]

INDEX_DTYPE = np.int64       # MXNet's aux types: indices and indptr are int64


class RowSparse:
    """Stored rows ``data`` at row numbers ``indices`` of an array of ``shape``."""

    __slots__ = ("data", "indices", "shape")

    def __init__(self, data, indices, shape):
        self.data = data
        self.indices = np.asarray(indices, dtype=INDEX_DTYPE)
        self.shape = tuple(shape)

    @property
    def dtype(self):
        return self.data.dtype

    def copy(self):
        return RowSparse(self.data.copy(), self.indices.copy(), self.shape)

    def toarray(self):
        dense = np.zeros(self.shape, dtype=self.data.dtype)
        dense[self.indices] = self.data
        return dense


def csr(data, indices, indptr, shape):
    """A CSR matrix holding exactly these three arrays (no sorting, no summing of duplicates,
    no check: as MXNet, it keeps what it is given, and ``check_format`` judges it)."""
    data = np.asarray(data)
    import scipy.sparse
    matrix = scipy.sparse.csr_matrix(tuple(int(n) for n in shape), dtype=data.dtype)
    matrix.data, matrix.indices = data, np.asarray(indices, dtype=INDEX_DTYPE)
    matrix.indptr = np.asarray(indptr, dtype=INDEX_DTYPE)
    return matrix


def to_dense(value):
    """The value as a dense numpy array."""
    return value.toarray() if hasattr(value, "toarray") else np.asarray(value)


def from_dense(dense, stype):
    """Compress a dense numpy array: the non-zero entries (csr) or rows (row_sparse)."""
    dense = np.asarray(dense)
    if stype == "csr":
        import scipy.sparse
        matrix = scipy.sparse.csr_matrix(dense)
        return csr(matrix.data, matrix.indices, matrix.indptr, dense.shape)
    rows = np.flatnonzero(dense.reshape(dense.shape[0], -1).any(axis=1)) if dense.size else \
        np.zeros(0, INDEX_DTYPE)
    return RowSparse(dense[rows], rows, dense.shape)


def empty_value(stype, shape, dtype):
    """An all-zero value: no stored entries."""
    if stype == "csr":
        return csr(np.zeros(0, dtype), np.zeros(0, INDEX_DTYPE),
                   np.zeros(shape[0] + 1, INDEX_DTYPE), shape)
    return RowSparse(np.zeros((0,) + tuple(shape[1:]), dtype), np.zeros(0, INDEX_DTYPE), shape)


def value_dtype(value):
    return value.dtype


def astype(value, dtype):
    """The value with its stored entries converted to ``dtype`` (a new value)."""
    if isinstance(value, RowSparse):
        return RowSparse(value.data.astype(dtype), value.indices.copy(), value.shape)
    return csr(value.data.astype(dtype), value.indices.copy(), value.indptr.copy(), value.shape)
