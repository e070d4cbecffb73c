"""``nd.sparse``: creating CSR and row-sparse arrays, and the operators that keep them sparse.

Lesson: 13-optimizers (sparse gradients).  Mirrors ``python/mxnet/ndarray/sparse.py``.

``csr_matrix((data, indices, indptr), shape)`` and ``row_sparse_array((data, indices), shape)``
build arrays from their parts (or from a dense array, a scipy matrix, another sparse array or
a shape for an empty one).  Every other ``nd`` operator accepts sparse arrays too (see
``sparse_dispatch.py``); the names below are MXNet's ``nd.sparse`` spellings of them.
"""
import numbers

import numpy as np
# scipy.sparse is imported in the functions that build its matrices: loading it (it loads
# much of scipy) would be about a third of `import minimx`, for programs that never go sparse

from ..base import InvalidShapeError, InvalidTypeError, MXNetError
from ..context import current_context
from ..op import get_op
from ..op.sparse_kernels import retain as retain_rows, take_rows
from ..op.sparse_values import INDEX_DTYPE, RowSparse, csr, empty_value, from_dense
from . import arithmetic
from .ndarray import NDArray
from .sparse_array import (BaseSparseNDArray, CSRNDArray, RowSparseNDArray, cast_storage,
                           class_of, push_value)

__all__ = ["csr_matrix", "row_sparse_array", "zeros", "empty", "array", "dot", "retain",
           "cast_storage", "add", "subtract", "multiply", "divide", "CSRNDArray",
           "RowSparseNDArray", "BaseSparseNDArray"]


def _dtype_of(given, *sources):
    """MXNet's default: the dtype given, else that of a source array, else float32."""
    if given is not None:
        return np.dtype(given)
    for source in sources:
        if isinstance(source, (np.ndarray, NDArray)):
            return np.dtype(source.dtype)
    return np.dtype(np.float32)


def _numpy(part, dtype=None):
    value = part.asnumpy() if isinstance(part, NDArray) else np.asarray(part)
    return value if dtype is None else value.astype(dtype)


def _from_value(value, stype, ctx, operator):
    """A new sparse NDArray on ``ctx`` whose buffer becomes ``value`` (one engine push);
    ``operator`` names the creation function (in the refusal of a device context)."""
    target = class_of(stype)._empty(tuple(value.shape), value.dtype, ctx or current_context(),
                                    operator)
    return push_value(lambda: value, [], target, f"_sparse_{stype}_create")


def _is_shape(arg):
    return isinstance(arg, tuple) and all(isinstance(n, numbers.Integral) for n in arg)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, a 2-D dense array, a scipy CSR matrix,
    another CSRNDArray, or a shape ``(M, N)`` (all zeros)."""
    if _is_shape(arg1):
        if len(arg1) != 2 or (shape is not None and tuple(shape) != tuple(arg1)):
            raise InvalidShapeError(f"csr_matrix: a CSR array is 2-D, got shape {arg1}"
                                    + (f" and shape={tuple(shape)}" if shape else ""))
        return zeros("csr", arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        data, (row, col) = arg1          # coordinates (COO); duplicates are summed
        dtype = _dtype_of(dtype, data)
        import scipy.sparse
        matrix = scipy.sparse.coo_matrix((_numpy(data, dtype), (_numpy(row), _numpy(col))),
                                         shape=shape).tocsr()
        matrix.sum_duplicates()
        return csr_matrix((matrix.data, matrix.indices, matrix.indptr), matrix.shape, ctx,
                          dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = arg1
        dtype = _dtype_of(dtype, data)
        indices, indptr = _numpy(indices, INDEX_DTYPE), _numpy(indptr, INDEX_DTYPE)
        if shape is None:
            if not indices.size:
                raise InvalidShapeError("csr_matrix: no stored entries to infer the number "
                                        "of columns from; give shape=")
            shape = (len(indptr) - 1, int(indices.max()) + 1)
        if len(indptr) != shape[0] + 1:
            raise InvalidShapeError(f"csr_matrix: indptr has {len(indptr)} entries, a "
                                    f"{shape[0]}-row matrix needs {shape[0] + 1}")
        return _from_value(csr(_numpy(arg1[0], dtype), indices, indptr, shape), "csr", ctx,
                           "csr_matrix")
    if hasattr(arg1, "tocsr") and not isinstance(arg1, NDArray):       # a scipy matrix
        matrix = arg1.tocsr(copy=True)
        matrix.sum_duplicates()                 # made canonical, as MXNet's copy is
        matrix.sort_indices()
        return csr_matrix((matrix.data, matrix.indices, matrix.indptr),
                          shape or matrix.shape, ctx, _dtype_of(dtype, matrix.data))
    return _convert(arg1, "csr", shape, ctx, dtype)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)`` (the stored rows and their numbers), a
    dense array, another RowSparseNDArray, or a shape (all zeros)."""
    if _is_shape(arg1):
        if shape is not None and tuple(shape) != tuple(arg1):
            raise ValueError(f"row_sparse_array: the shape {tuple(arg1)} given as the array "
                             f"and shape={tuple(shape)} differ")
        return zeros("row_sparse", arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data, indices = arg1
        dtype = _dtype_of(dtype, data)
        data, indices = _numpy(data, dtype), _numpy(indices, INDEX_DTYPE)
        if data.ndim == 0 or data.shape[0] != len(indices):
            raise InvalidShapeError(f"row_sparse_array: data has shape {data.shape} but "
                                    f"there are {len(indices)} indices (one per stored row)")
        if shape is None:
            shape = (int(indices.max()) + 1 if indices.size else 0,) + data.shape[1:]
        return _from_value(RowSparse(data, indices, shape), "row_sparse", ctx,
                           "row_sparse_array")
    return _convert(arg1, "row_sparse", shape, ctx, dtype)


def _convert(source, stype, shape, ctx, dtype):
    """A sparse copy of a dense or sparse array (NDArray or numpy)."""
    if shape is not None and tuple(shape) != tuple(np.shape(source)):
        raise InvalidShapeError(f"{stype} array: shape={tuple(shape)} differs from the "
                                f"source's shape {tuple(np.shape(source))}")
    if isinstance(source, NDArray):
        result = cast_storage(source, stype)
        if ctx is not None and ctx != source.context:
            result = result.copyto(ctx)
        return result if dtype is None else result.astype(dtype, copy=False)
    if isinstance(source, (np.ndarray, list)):
        dense = np.asarray(source, dtype=_dtype_of(dtype, source))
        if stype == "csr" and dense.ndim != 2:
            raise InvalidShapeError(f"csr_matrix: a CSR array is 2-D, got shape {dense.shape}")
        return _from_value(from_dense(dense, stype), stype, ctx,
                           "csr_matrix" if stype == "csr" else "row_sparse_array")
    raise InvalidTypeError(f"{'csr_matrix' if stype == 'csr' else 'row_sparse_array'}: cannot "
                           f"make a {stype} array from {type(source).__name__}")


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype`` (nothing stored)."""
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    dtype = np.dtype(dtype or np.float32)
    if stype == "default":
        from .creation import zeros as dense_zeros
        return dense_zeros(shape, ctx=ctx, dtype=dtype)
    if stype == "csr" and len(shape) != 2:
        raise InvalidShapeError(f"zeros: a csr array is 2-D, got shape {shape}")
    class_of(stype)            # an unknown storage type is refused here
    return _from_value(empty_value(stype, shape, dtype), stype, ctx, "zeros")


def empty(stype, shape, ctx=None, dtype=None):
    """MXNet's ``empty`` of a sparse type stores nothing, so it is ``zeros``."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse copy of a CSRNDArray, RowSparseNDArray or scipy CSR matrix."""
    if isinstance(source_array, BaseSparseNDArray):
        result = source_array.copyto(ctx or source_array.context)
        return result if dtype is None else result.astype(dtype, copy=False)
    if hasattr(source_array, "tocsr") and not isinstance(source_array, NDArray):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise InvalidTypeError(f"sparse.array: expected a sparse NDArray or a scipy.sparse "
                           f"matrix, got {type(source_array).__name__}")


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    """``lhs @ rhs``: csr x dense is dense, csr.T x dense is row_sparse (only the rows a
    stored column reaches), as MXNet's; other storage types fall back to the dense product."""
    from .dispatch import invoke
    result = invoke(get_op("dot").create(transpose_a=transpose_a, transpose_b=transpose_b),
                    [lhs, rhs])
    if forward_stype is not None and result.stype != forward_stype:
        result = cast_storage(result, forward_stype)
    return result


def retain(data, indices=None, **kwargs):
    """The rows of a RowSparseNDArray whose numbers are in ``indices`` (the others dropped)."""
    if kwargs or indices is None:
        raise MXNetError(f"retain: takes data and indices, got unexpected argument(s) "
                         f"{sorted(kwargs)}" if kwargs else "retain: indices is missing")
    if not isinstance(data, RowSparseNDArray):
        raise MXNetError(f"retain: needs a row_sparse array, got storage type "
                         f"{getattr(data, 'stype', type(data).__name__)!r}")
    keep = indices if isinstance(indices, NDArray) else array_of_indices(indices, data.context)
    target = RowSparseNDArray._empty(data.shape, data._dtype, data.context, "retain")
    return push_value(retain_rows, [data, keep], target, "_sparse_retain")


def rows_of(data, row_ids):
    """A RowSparseNDArray of the rows ``row_ids`` of ``data`` (any storage type), as
    ``KVStore.row_sparse_pull`` hands them out."""
    ids = row_ids.as_in_context(data.context) if isinstance(row_ids, NDArray) else \
        array_of_indices(row_ids, data.context)       # row ids on a device: copied, explicitly
    target = RowSparseNDArray._empty(data.shape, data._dtype, data.context, "row_sparse_pull")
    return push_value(take_rows, [data, ids], target, "_row_sparse_pull")


def array_of_indices(indices, ctx):
    from .creation import array as dense_array
    return dense_array(np.asarray(indices, dtype=np.int64), ctx=ctx, dtype=np.int64)


add, subtract = arithmetic.add, arithmetic.subtract
multiply, divide = arithmetic.multiply, arithmetic.divide


def __getattr__(name):
    """``nd.sparse.<op>``: every other operator, which takes sparse arrays as ``nd.<op>``."""
    from .. import ndarray
    if not name.startswith("__") and hasattr(ndarray.op, name):
        return getattr(ndarray.op, name)
    raise AttributeError(f"module 'minimx.ndarray.sparse' has no attribute {name!r}")
