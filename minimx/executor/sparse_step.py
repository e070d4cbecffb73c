"""One graph node on sparse values: the sparse kernel, or the dense operator.

Lesson: 13-optimizers (sparse gradients).  Mirrors what MXNet's graph executor does for a
node whose inputs are csr or row_sparse (``FComputeEx``, else the storage fallback).  The
rule is the imperative one (``op/sparse_kernels.graph_kernel``): a kernel keeps the result
sparse where one exists; otherwise the inputs are read as dense arrays and the dense
declaration runs.  Backward uses the dense declarations too, except for ``dot`` of a csr
matrix, whose gradient for the dense side is ``csr.T @ grad`` -- row_sparse, holding only the
rows the batch's features reach: what makes a sparse linear model's update cheap.
"""
from ..op.sparse_kernels import dot_csr_dense, graph_kernel, row_sparse_sum
from ..op.sparse_values import RowSparse, from_dense, to_dense

__all__ = ["is_sparse", "forward_node", "backward_node", "add_gradients", "write_gradient",
           "dense_of"]


def is_sparse(value):
    return hasattr(value, "toarray")


def _stype(value):
    if isinstance(value, RowSparse):
        return "row_sparse"
    return "csr" if is_sparse(value) else "default"


def forward_node(call, xp, arrays, is_train, rng):
    """``(outputs, the arrays backward saves)`` of one node of which an input is sparse."""
    op = call.op
    found = graph_kernel(op, [_stype(a) for a in arrays], [tuple(a.shape) for a in arrays])
    if found is None:
        dense = [dense_of(a) for a in arrays]
        return call.forward(xp, dense, is_train, rng), dense
    read, _, kernel = found
    arrays = [dense_of(a) if s == "default" else a for a, s in zip(arrays, read)]
    return (kernel(arrays),), arrays


def backward_node(call, xp, out_grads, saved, wanted, is_train):
    """The input gradients of one node whose saved values or gradients are sparse."""
    op = call.op
    out_grads = [dense_of(g) for g in out_grads]
    lhs = saved.get("lhs")
    if op.name == "dot" and _stype(lhs) == "csr" and not op.transpose_b:
        grad_lhs = None
        if wanted[0]:       # the gradient of the csr input itself is dense, as MXNet's
            grad_lhs = call.backward(xp, out_grads, _dense(saved), wanted, is_train)[0]
        grad_rhs = dot_csr_dense(lhs, out_grads[0], not op.transpose_a) if wanted[1] else None
        return grad_lhs, grad_rhs
    return call.backward(xp, out_grads, _dense(saved), wanted, is_train)


def _dense(saved):
    return {name: dense_of(value)
            for name, value in saved.items()}


def dense_of(value):
    """A dense value as it is (numpy or a device's array); a sparse one made dense."""
    return value.toarray() if is_sparse(value) else value


def add_gradients(total, more):
    """The sum of two gradients of one value: row_sparse while both are."""
    if isinstance(total, RowSparse) and isinstance(more, RowSparse):
        return row_sparse_sum([total, more])
    return dense_of(total) + dense_of(more)


def write_gradient(array, value, req):
    """Store a gradient into a bound gradient array of any storage type (``req`` 'write' or
    'add'): a row_sparse array keeps the rows the gradient holds (a dense gradient is
    compressed to its non-zero rows, as ``cast_storage``); a dense array gets it dense."""
    if req == "add":
        value = add_gradients(array._read(), value)
    if array.stype == "default":
        value = dense_of(value)
    elif array.stype == "row_sparse" and not isinstance(value, RowSparse):
        value = from_dense(to_dense(value), "row_sparse")
    elif array.stype == "csr" and isinstance(value, RowSparse):
        value = from_dense(to_dense(value), "csr")
    array._write(value)
