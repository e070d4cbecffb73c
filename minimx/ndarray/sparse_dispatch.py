"""Operator calls with sparse inputs: a sparse kernel, or MXNet's dense fallback.

Lesson: 13-optimizers (sparse gradients).  Mirrors ``Imperative::Invoke``'s storage
dispatch (``DispatchMode::kFComputeEx`` vs ``kFComputeFallback``).

``dispatch.invoke`` sends here every call that reads or writes a sparse array.  When
``op/sparse_kernels.py`` has a kernel for the operator and these storage types, the call is one
engine push computing the sparse result.  Otherwise -- and while recording a graph the call
takes part in, since gradients are defined on the dense operators -- each sparse input is
converted to a dense copy (itself an engine push) and the dense operator runs; a sparse
``out=`` receives the result compressed.
"""
from ..op import get_op
from .. import engine
from ..op.sparse_kernels import is_lazy_update, lazy_row_update, storage_kernel
from ..tape import recording
from . import dispatch
from .sparse_array import cast_storage, class_of, push_value

__all__ = ["invoke_sparse", "storage_call", "as_dense"]


def invoke_sparse(op, inputs, out=None, ctx=None):
    """Run ``op`` on ``inputs`` of which some (or ``out``) are sparse."""
    stypes = [x.stype for x in inputs]
    op.check_input_stypes(stypes)
    shapes = [x._shape for x in inputs]
    if is_lazy_update(op, stypes) and (out is None or out is inputs[0]):
        return _push_lazy_update(op, inputs)
    found = None if _recorded(inputs) else storage_kernel(op, stypes, shapes)
    if found is None:
        dense = [as_dense(x) for x in inputs]
        targets = [out] if out is not None and not isinstance(out, (list, tuple)) else out
        if targets is None or all(t.stype == "default" for t in targets):
            return dispatch.invoke(op, dense, out=out, ctx=ctx)
        results = dispatch.invoke(op, dense, ctx=ctx)
        results = [results] if len(targets) == 1 else results
        for result, target in zip(results, targets):
            result.copyto(target)
        return out
    out_stype, kernel = found
    shape = op.output_shapes(shapes)[0]
    dtype = op.output_types([x._dtype.name for x in inputs])[0]
    target = class_of(out_stype)._empty(shape, dtype, inputs[0].context)
    push_value(lambda *values: kernel(values), inputs, target, op.name)
    if out is not None:
        return target.copyto(out)
    return target


def _push_lazy_update(op, inputs):
    """An optimizer step on a row-sparse gradient: one push that writes the gradient's rows
    of the weight and of the states in place (the weight is the result, as with out=)."""
    weight, grad, states = inputs[0], inputs[1], inputs[2:]
    weight._check_grad_free_write()

    def run():
        lazy_row_update(op, weight._read(), grad._read(), [s._read() for s in states])

    engine.push(run, [grad._chunk.var], [weight._chunk.var] + [s._chunk.var for s in states],
                weight.context, f"{op.name}(lazy)")
    return weight


def storage_call(op_name, inputs, **params):
    """``invoke_sparse`` of a registered operator by name."""
    return invoke_sparse(get_op(op_name).create(**params), inputs)


def as_dense(x):
    """A dense copy of a sparse input (recorded when it is in a recorded graph, so that the
    gradient reaches it); a dense input as it is.  Also what a hybridized block's graph,
    which computes on dense arrays, makes of a sparse input."""
    if x.stype == "default":
        return x
    if recording.is_recording() and x._autograd is not None:
        return dispatch.invoke_dense(get_op("_sparse_to_dense").create(), [x], None,
                                     x.context)
    return cast_storage(x, "default")


def _recorded(inputs):
    return recording.is_recording() and any(x._autograd is not None for x in inputs)
