"""MXNet's test_utils for sparse storage: random CSR and row-sparse arrays.

Lesson: 13-optimizers (sparse gradients).  Mirrors the sparse helpers of
``python/mxnet/test_utils.py`` (their signatures and what they return).
"""
import numpy as np

from .. import ndarray as nd
from ..context import current_context

__all__ = ["rand_sparse_ndarray", "create_sparse_array", "create_sparse_array_zd",
           "shuffle_csr_column_indices", "assign_each", "assign_each2"]


def assign_each(values, function):
    """``function`` applied to every element (a new array of the same dtype)."""
    return np.vectorize(function)(values).astype(np.asarray(values).dtype) \
        if function is not None else np.array(values)


def assign_each2(first, second, function):
    """``function(a, b)`` applied to every pair of elements."""
    return np.vectorize(function)(first, second).astype(np.asarray(first).dtype)


def shuffle_csr_column_indices(matrix):
    """The same CSRNDArray values with each row's column order shuffled (unsorted indices)."""
    indptr, indices, data = (matrix.indptr.asnumpy(), matrix.indices.asnumpy(),
                             matrix.data.asnumpy())
    for row in range(len(indptr) - 1):
        order = np.random.permutation(np.arange(indptr[row], indptr[row + 1]))
        indices[indptr[row]:indptr[row + 1]] = indices[order]
        data[indptr[row]:indptr[row + 1]] = data[order]
    return nd.sparse.csr_matrix((data, indices, indptr), shape=matrix.shape, ctx=matrix.context)


def _uniform_csr(rows, cols, density, dtype, data_init):
    """``round(density * rows * cols)`` entries at uniformly drawn places."""
    count = int(round(density * rows * cols))
    places = np.random.choice(rows * cols, count, replace=False)
    values = np.zeros(rows * cols, dtype)
    values[places] = data_init if data_init is not None else np.random.rand(count) + 1e-3
    return values.reshape(rows, cols)


def _powerlaw_csr(rows, cols, density, dtype):
    """Row r holds about twice as many entries as row r-1, until ``density`` is reached."""
    remaining = int(rows * cols * density)
    values = np.zeros((rows, cols), dtype)
    count = 1
    for row in range(rows):
        take = min(count, cols, remaining)
        values[row, :take] = np.random.rand(take) + 1
        remaining -= take
        count *= 2
    return values


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts as numpy: ``(arr, (data, indices))`` for
    row_sparse, ``(arr, (indptr, indices, data))`` for csr."""
    ctx = ctx or current_context()
    density = np.random.rand() if density is None else density
    dtype = np.dtype(dtype or np.float32)
    distribution = distribution or "uniform"
    if stype == "row_sparse":
        if distribution != "uniform":
            raise ValueError(f"rand_sparse_ndarray: distribution {distribution!r} is not "
                             f"supported for row_sparse")
        indices = np.asarray(rsp_indices) if rsp_indices is not None else \
            np.flatnonzero(np.random.rand(shape[0]) < density)
        if indices.shape[0] == 0:
            return (nd.sparse.zeros("row_sparse", shape, ctx=ctx, dtype=dtype),
                    (np.array([], dtype=dtype), np.array([])))
        values = np.random.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            values.fill(data_init)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        array = nd.sparse.row_sparse_array((values, indices), shape=shape, dtype=dtype, ctx=ctx)
        return array, (values, indices)
    if stype != "csr" or len(shape) != 2:
        raise ValueError(f"rand_sparse_ndarray: unknown storage type {stype!r} or a csr "
                         f"shape that is not 2-D: {shape}")
    if distribution == "uniform":
        dense = _uniform_csr(shape[0], shape[1], density, dtype, data_init)
    elif distribution == "powerlaw":
        dense = _powerlaw_csr(shape[0], shape[1], density, dtype)
    else:
        raise ValueError(f"rand_sparse_ndarray: unknown distribution {distribution!r}")
    if modifier_func is not None:
        dense = np.where(dense != 0, assign_each(dense, modifier_func), 0).astype(dtype)
    array = nd.sparse.csr_matrix(dense, dtype=dtype, ctx=ctx)
    if shuffle_csr_indices:
        array = shuffle_csr_column_indices(array)
    return array, (array.indptr.asnumpy(), array.indices.asnumpy(), array.data.asnumpy())


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=.5, shuffle_csr_indices=False):
    """A random sparse array (row_sparse indices sorted)."""
    if stype not in ("row_sparse", "csr"):
        raise AssertionError(f"Unknown storage type: {stype}")
    indices = None if rsp_indices is None else np.sort(np.asarray(rsp_indices))
    return rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                               rsp_indices=indices if stype == "row_sparse" else None,
                               dtype=dtype, modifier_func=modifier_func,
                               shuffle_csr_indices=shuffle_csr_indices)[0]


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """``create_sparse_array`` where ``density`` may be 0 (then no rows for row_sparse)."""
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None and len(rsp_indices):
            density = len(rsp_indices) / shape[0]
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)
