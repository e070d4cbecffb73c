"""Storage-type inference and the kernels that compute on sparse values.

Lesson: 13-optimizers (sparse gradients).  Mirrors MXNet's ``FInferStorageType`` and
``FComputeEx``: for a call with sparse inputs, ``storage_kernel`` answers which storage the
outputs get and which kernel computes them -- or ``None``, and the caller falls back to the
dense operator on dense copies of the inputs (MXNet's "storage fallback").

Only operators that keep zeros zero stay sparse: ``abs``, ``sqrt``, ``x * 2``, ``x == 1``,
``x + y`` of two arrays of one storage type; ``exp``, ``x + 1`` or ``x == 0`` would fill every
zero, so they fall back and give a dense array, as MXNet's do.  Each kernel reuses the dense
declaration's ``forward`` on the stored entries (``op.forward(np, value.data)``), so no
formula is written twice.
"""
import numpy as np
# scipy.sparse is imported in the functions that build its matrices: loading it (it loads
# much of scipy) would be about a third of `import minimx`, for programs that never go sparse

from .sparse_values import RowSparse, astype, csr, empty_value, from_dense, to_dense

__all__ = ["storage_kernel", "graph_kernel", "ZERO_PRESERVING_UNARY"]

# f(0) == 0: applied to the stored entries only, the zeros stay zeros
ZERO_PRESERVING_UNARY = frozenset((
    "abs", "negative", "sign", "sqrt", "square", "relu", "sin", "tan", "arcsin", "arctan",
    "sinh", "tanh", "arcsinh", "arctanh", "round", "rint", "fix", "floor", "ceil", "trunc",
    "expm1", "log1p", "degrees", "radians", "_copy", "identity", "cbrt"))
_ZERO_FOR_SOME_PARAMS = frozenset(("_contrib_quadratic",))      # a x^2 + b x + c: when c == 0
_SAME_SHAPE_BINARY = {"elemwise_add": "add", "broadcast_add": "add", "elemwise_sub": "sub",
                      "broadcast_sub": "sub", "elemwise_mul": "mul", "broadcast_mul": "mul"}


def storage_kernel(op, stypes, shapes):
    """``(output stype, kernel(values) -> value)`` for ``op`` on inputs of these storage types
    and shapes, or ``None`` when only the dense operator can compute it."""
    name = op.name
    if len(stypes) == 1 and stypes[0] != "default":
        if name in ZERO_PRESERVING_UNARY or (name in _ZERO_FOR_SOME_PARAMS or
                                             name.endswith("_scalar")) and _keeps_zero(op):
            return stypes[0], lambda values: _map_stored(values[0], op)
        if name == "Cast":
            return stypes[0], lambda values: astype(values[0], np.dtype(op.dtype))
        if name == "zeros_like":
            return stypes[0], lambda values: empty_value(stypes[0], values[0].shape,
                                                         values[0].dtype)
        if name == "slice" and stypes[0] == "csr":
            return _csr_row_slice(op, shapes[0])
        if name == "slice_axis" and stypes[0] == "csr" and op.axis == 0:
            start, stop, _ = slice(op.begin, op.end).indices(shapes[0][0])
            return "csr", lambda values: csr_rows(values[0], start, stop)
    if name == "take" and stypes == ["csr", "default"] and op.axis == 0 and op.mode != "raise":
        return "csr", lambda values: _csr_take(values[0], values[1], op.mode)
    if name in _SAME_SHAPE_BINARY and len(set(stypes)) == 1 and stypes[0] != "default" \
            and shapes[0] == shapes[1]:
        return stypes[0], _binary(_SAME_SHAPE_BINARY[name], stypes[0])
    if name == "add_n" and set(stypes) == {"row_sparse"}:
        return "row_sparse", row_sparse_sum
    if name == "cast_storage" and (stypes[0] != "default" or op.stype != "default") or name == "_sparse_retain" and \
            stypes == ["row_sparse", "default"]:
        return _storage_op(op, stypes[0])
    if name == "_square_sum" and stypes == ["row_sparse"] and len(shapes[0]) == 2 and \
            op.reduced_axes(2) == (1,):
        return "row_sparse", lambda values: RowSparse(
            op.forward(np, values[0].data), values[0].indices.copy(),
            op.infer_shape(values[0].shape))
    if name == "dot" and stypes == ["csr", "row_sparse"] and not (op.transpose_a or
                                                                  op.transpose_b):
        return "default", lambda values: dot_csr_row_sparse(values[0], values[1])
    if name == "dot" and stypes[0] == "csr" and stypes[1] == "default" and not op.transpose_b:
        return ("row_sparse" if op.transpose_a else "default"), \
            lambda values: dot_csr_dense(values[0], values[1], op.transpose_a)
    return None


def graph_kernel(op, stypes, shapes):
    """What a graph node does with inputs of these storage types: ``(storage types the
    kernel reads, output stype, kernel)``, or ``None`` for the dense operator on dense copies.
    A kernel for the given types comes first; else one for the types with the row_sparse
    inputs read densely (their missing rows are zeros), so ``dot(csr, row_sparse weight)``
    still runs the csr kernel and never makes the csr batch dense."""
    found = storage_kernel(op, stypes, shapes)
    if found is not None:
        return (stypes,) + found
    if "row_sparse" in stypes:
        read = ["default" if s == "row_sparse" else s for s in stypes]
        if any(s != "default" for s in read) or op.name == "cast_storage":
            found = storage_kernel(op, read, shapes)
            if found is not None:
                return (read,) + found
    return None


def _storage_op(op, stype):
    """cast_storage of a sparse value; retain of a row_sparse one."""
    if op.name == "_sparse_retain":
        return "row_sparse", lambda values: retain(values[0], values[1])
    if op.stype == stype:
        return stype, lambda values: values[0].copy()
    return op.stype, lambda values: (to_dense(values[0]) if op.stype == "default" else
                                      from_dense(to_dense(values[0]), op.stype))


def _keeps_zero(op):
    """An operator with a scalar keeps sparse storage when it maps 0 to 0 for this scalar
    (``x * 3``, ``x == 1``; not ``x + 1`` or ``x == 0``), as MXNet's do."""
    with np.errstate(all="ignore"):
        return not np.any(op.forward(np, np.zeros(1, np.float32)))


def _map_stored(value, op):
    data = op.forward(np, value.data)
    if isinstance(value, RowSparse):
        return RowSparse(data, value.indices.copy(), value.shape)
    return csr(data, value.indices.copy(), value.indptr.copy(), value.shape)


def _csr_row_slice(op, shape):
    begin, end, step = (tuple(op.begin), tuple(op.end), tuple(op.step or ()))
    if len(begin) != 1 or any(s not in (None, 1) for s in step):
        return None
    start, stop, _ = slice(begin[0], end[0]).indices(shape[0])
    return "csr", lambda values: csr_rows(values[0], start, stop)


def _csr_take(value, ids, mode):
    """Rows ``ids`` of a CSR value, out-of-range ids clipped or wrapped (``take``'s modes)."""
    ids = np.asarray(ids).astype(np.int64).ravel()
    rows = value.shape[0]
    ids = np.clip(ids, 0, rows - 1) if mode == "clip" else np.mod(ids, rows)
    taken = value[ids]
    return csr(taken.data, taken.indices, taken.indptr, (len(ids), value.shape[1]))


def csr_rows(value, start, stop):
    """Rows ``start:stop`` of a CSR value (the row pointers rebased to 0)."""
    stop = max(start, stop)
    low, high = value.indptr[start], value.indptr[stop]
    return csr(value.data[low:high].copy(), value.indices[low:high].copy(),
               value.indptr[start:stop + 1] - low, (stop - start, value.shape[1]))


def _binary(kind, stype):
    if stype == "csr":
        def csr_kernel(values):
            a, b = values
            result = {"add": lambda: a + b, "sub": lambda: a - b,
                      "mul": lambda: a.multiply(b)}[kind]().tocsr()
            result.sort_indices()
            return csr(result.data.astype(a.dtype), result.indices, result.indptr, a.shape)
        return csr_kernel

    def row_sparse_kernel(values):
        a, b = values
        rows = np.union1d(a.indices, b.indices) if kind != "mul" else \
            np.intersect1d(a.indices, b.indices)
        dense_a, dense_b = _rows_of(a, rows), _rows_of(b, rows)
        data = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[kind](dense_a, dense_b)
        return RowSparse(data.astype(a.dtype), rows, a.shape)
    return row_sparse_kernel


def _rows_of(value, rows):
    """The rows ``rows`` (ascending) of a row-sparse value, zeros where none is stored."""
    out = np.zeros((len(rows),) + value.shape[1:], dtype=value.dtype)
    found = np.searchsorted(rows, value.indices)
    keep = found < len(rows)
    keep[keep] = rows[found[keep]] == value.indices[keep]
    out[found[keep]] = value.data[keep]
    return out


def row_sparse_sum(values):
    rows = np.unique(np.concatenate([v.indices for v in values]))
    total = sum(_rows_of(v, rows) for v in values)
    return RowSparse(np.asarray(total, dtype=values[0].dtype), rows, values[0].shape)


def dot_csr_dense(matrix, dense, transpose_a):
    """``matrix @ dense`` (dense), or ``matrix.T @ dense`` as row-sparse: only the rows of the
    result that a stored column of ``matrix`` reaches can be non-zero."""
    if not transpose_a:
        return np.asarray(matrix @ dense, dtype=dense.dtype)
    # the columns the batch has, renumbered 0..k-1: nothing here grows with matrix.shape[1]
    rows, renumbered = np.unique(matrix.indices, return_inverse=True)
    import scipy.sparse
    compact = scipy.sparse.csr_matrix((matrix.data, renumbered.ravel(), matrix.indptr),
                                      shape=(matrix.shape[0], len(rows)))
    product = np.asarray(compact.T @ dense, dtype=dense.dtype)
    return RowSparse(product, rows, (matrix.shape[1],) + dense.shape[1:])


def dot_csr_row_sparse(matrix, weight):
    """``matrix @ weight`` (dense) for a row_sparse ``weight``: each stored entry of
    ``matrix`` meets the stored row its column names (found by binary search; a column with
    no stored row meets zeros), so the cost follows the batch's entries, never the weight's
    height (a sparse model's weight of a million rows)."""
    stored = weight.indices
    width = int(np.prod(weight.shape[1:], dtype=np.int64))
    at = np.searchsorted(stored, matrix.indices)
    found = at < len(stored)
    found[found] = stored[at[found]] == matrix.indices[found]
    import scipy.sparse
    moved = scipy.sparse.csr_matrix((np.where(found, matrix.data, 0), np.where(found, at, 0),
                                     matrix.indptr), shape=(matrix.shape[0], max(len(stored), 1)))
    rows = weight.data.reshape(len(stored), width) if len(stored) else \
        np.zeros((1, width), weight.dtype)
    product = np.asarray(moved @ rows, dtype=weight.dtype)
    return product.reshape((matrix.shape[0],) + tuple(weight.shape[1:]))


def take_rows(value, rows):
    """A row-sparse value holding the rows ``rows`` (made unique and ascending) of a dense
    array or a sparse value, stored even where they are zero."""
    rows = np.unique(np.asarray(rows, dtype=np.int64))
    if isinstance(value, RowSparse):
        return RowSparse(_rows_of(value, rows), rows, value.shape)
    dense = value.toarray() if hasattr(value, "toarray") else value
    return RowSparse(dense[rows], rows, dense.shape)


def retain(value, keep):
    """The rows of a row-sparse ``value`` whose numbers are in ``keep`` (the rest dropped)."""
    mask = np.isin(value.indices, np.asarray(keep, dtype=np.int64))
    return RowSparse(value.data[mask].copy(), value.indices[mask].copy(), value.shape)


def lazy_row_update(op, weight, grad, states):
    """MXNet's ``lazy_update`` of an optimizer step with a row-sparse gradient: the update
    operator ``op`` (its own dense ``forward``) runs on the gradient's rows only, and only
    those rows of the weight and of its states (momentum, moments) change.  The arrays are
    written in place; the cost follows the rows touched, not the size of the weight."""
    rows = grad.indices
    if not len(rows):
        return
    (weight, at), *state_places = [_stored_rows(op, value, rows) for value in [weight, *states]]
    gathered = [state[place] for state, place in state_places]   # copies: forward updates them
    weight[at] = op.forward(np, weight[at], grad.data, *gathered)
    for (state, place), rows_of_state in zip(state_places, gathered):
        state[place] = rows_of_state


def _stored_rows(op, value, rows):
    """``(array, index)``: where rows ``rows`` of a dense array or of a row-sparse value
    (which must store them, as a row_sparse weight of MXNet's lazy update does) are."""
    if not isinstance(value, RowSparse):
        return value, rows
    at = np.searchsorted(value.indices, rows)
    if np.any(at >= len(value.indices)) or np.any(value.indices[np.minimum(
            at, len(value.indices) - 1)] != rows):
        raise ValueError(f"operator {op.name}: a row_sparse weight or state must store every "
                         f"row the gradient holds (rows {rows.tolist()})")
    return value.data, at


def is_lazy_update(op, stypes):
    """An optimizer update with ``lazy_update`` on a row-sparse gradient; the weight and
    states dense or row-sparse.  ``ftrl_update`` has no such flag: MXNet's updates a
    row_sparse weight lazily (a dense one falls back to the dense step)."""
    lazy = getattr(op, "lazy_update", False) or (op.name == "ftrl_update"
                                                 and stypes[0] == "row_sparse")
    return (lazy and len(stypes) > 1 and stypes[1] == "row_sparse"
            and all(s in ("default", "row_sparse") for s in stypes))
