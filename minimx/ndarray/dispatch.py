"""From an operator call to an engine push: the imperative dispatcher.

Lesson: 05-lazy-evaluation, 04-autograd.  Mirrors ``Imperative::Invoke`` and
``Imperative::Backward`` in ``src/imperative/imperative.cc``.

``invoke`` checks devices, infers output shapes and dtypes (so errors surface
at the call, and the result's shape is known at once), allocates the outputs,
records the call on the autograd tape when recording, and pushes the
computation.  ``push_backward`` does the same for one recorded call's gradient.
"""
import weakref

from .. import backend, engine, random_state
from ..base import ContextMismatchError, InvalidShapeError, InvalidTypeError
from ..context import current_context
from ..op import get_op
from ..op.call import op_call, own_buffers
from ..tape import recording
from ..tape.nodes import OpNode, live_entry
from ..util import is_np_shape
from .ndarray import NDArray

__all__ = ["invoke", "invoke_dense", "push_backward", "recorded_copy", "gradient_targets"]


def invoke(op, inputs, out=None, ctx=None):
    """Run operator instance ``op`` on NDArrays ``inputs``; returns its visible output(s)."""
    ctx = _context_of(op, inputs, ctx)
    if _any_sparse(inputs, out):              # storage-type dispatch: sparse_dispatch.py
        from .sparse_dispatch import invoke_sparse
        return invoke_sparse(op, inputs, out, ctx)
    return invoke_dense(op, inputs, out, ctx)


def invoke_dense(op, inputs, out, ctx):
    """``invoke`` once the storage is settled: every output dense (inputs may be sparse only
    for an operator that reads sparse values, ``_sparse_to_dense``)."""
    call = op_call(op, len(inputs))
    facts = _call_facts(call, inputs)
    out_shapes, out_types, work = facts.out_shapes, facts.out_types, facts.work
    # outputs are of the inputs' frontend class (nd.NDArray or np.ndarray; creation: NDArray)
    array_class = type(inputs[0]) if inputs and inputs[0].stype == "default" else NDArray
    outputs = _allocate_outputs(op, out_shapes, out_types, ctx, out, array_class)
    write_vars = [o._chunk.var for o in outputs]
    if call.aux_positions:
        write_vars += [inputs[i]._chunk.var for i in call.aux_positions]
    if recording.is_recording():
        # also an operator without a gradient (a comparison): its output stays in the graph,
        # so a gradient taken through it is zero rather than "not in a recorded graph"
        _record(call, inputs, outputs, ctx, facts, fresh=out is None)
    elif out is not None:
        _forget_graph(outputs)       # fresh outputs are outside any graph already
    run = _forward_closure(call, inputs, outputs, ctx)
    engine.push(run, [x._chunk.var for x in inputs], write_vars, ctx, op.name, work,
                engine.is_small(out_shapes, work) and not op.meets)
    visible = call.num_visible
    return outputs[0] if visible == 1 else outputs[:visible]


class _Facts:
    """What a call of one operator instance on inputs of given shapes and dtypes needs
    before its push: the outputs' shapes and dtypes, the BLAS work (``OpCall.work``), and
    the inputs' shapes and dtypes themselves (a recorded node keeps them), as tuples."""

    __slots__ = ("in_shapes", "in_types", "out_shapes", "out_types", "work")

    def __init__(self, call, in_shapes, in_types):
        op = call.op
        self.in_shapes, self.in_types = in_shapes, in_types
        self.out_shapes = tuple(op.output_shapes(list(in_shapes)))
        self.out_types = tuple(op.output_types([_dtype_name(t) for t in in_types]))
        self.work = call.work(in_shapes) if call.uses_blas else 0


# (OpCall, input shapes, input dtypes, NumPy shape semantics) -> _Facts.  An instance is
# immutable and shared between equal calls (``OpDef.create``), so for an operator with
# ``fixed_inference`` these facts never change: a training loop calls the same operators on
# the same shapes every step, and one lookup replaces shape and type inference (two memo
# lookups of their own, ``op/registry.py``) and the work estimate.  Cleared when full.
_FACTS = {}
_FACTS_LIMIT = 4096


def _call_facts(call, inputs):
    in_shapes = tuple([x._shape for x in inputs])
    in_types = tuple([x._dtype for x in inputs])
    key = (call, in_shapes, in_types, is_np_shape())
    facts = _FACTS.get(key)
    if facts is None:
        facts = _Facts(call, in_shapes, in_types)      # raises for shapes that do not fit
        if call.op.fixed_inference:
            if len(_FACTS) >= _FACTS_LIMIT:
                _FACTS.clear()
            _FACTS[key] = facts
    return facts


def _any_sparse(inputs, out):
    for x in inputs:
        if x.stype != "default":
            return True
    if out is None:
        return False
    return any(o.stype != "default" for o in ([out] if isinstance(out, NDArray) else out))


_DTYPE_NAMES = {}       # numpy dtype -> name: ``dtype.name`` costs ~2 us, a third of a push


def _dtype_name(dtype):
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


def _context_of(op, inputs, ctx):
    if not inputs:
        return ctx if ctx is not None else current_context()
    first = inputs[0]
    if not isinstance(first, NDArray):
        raise InvalidTypeError(f"operator {op.name}: inputs must be NDArrays, got {type(first)}")
    context = first._chunk.ctx
    for position in range(1, len(inputs)):
        x = inputs[position]
        if not isinstance(x, NDArray):
            raise InvalidTypeError(
                f"operator {op.name}: input {position} must be an NDArray, got {type(x).__name__}")
        # Most inputs share one Context object: ``is`` skips the Python-level __eq__.
        if x._chunk.ctx is not context and x._chunk.ctx != context:
            names = op_call(op, len(inputs)).input_names
            raise ContextMismatchError(
                f"operator {op.name}: all inputs must be on the same context, but "
                f"'{names[0]}' is on {context} and '{names[position]}' is on {x._chunk.ctx}")
    return context


def _allocate_outputs(op, shapes, dtypes, ctx, out, array_class):
    if out is None:
        if len(shapes) == 1:
            return [array_class._empty(shapes[0], dtypes[0], ctx)]
        return [array_class._empty(shape, dtype, ctx) for shape, dtype in zip(shapes, dtypes)]
    given = [out] if isinstance(out, NDArray) else list(out)
    for index, target in enumerate(given):
        if target._shape != shapes[index]:
            raise InvalidShapeError(
                f"operator {op.name}: out= has shape {target._shape}, but the result has "
                f"shape {shapes[index]}")
        if target._chunk.ctx is not ctx and target._chunk.ctx != ctx:
            raise ContextMismatchError(
                f"operator {op.name}: out= is on {target._chunk.ctx}, inputs are on {ctx}")
        target._check_grad_free_write()
    # the outputs ``out`` leaves out (hidden ones, as Dropout's mask) are fresh arrays
    return given + [array_class._empty(shapes[index], dtypes[index], ctx)
                    for index in range(len(given), len(shapes))]


def _forward_closure(call, inputs, outputs, ctx):
    xp = backend.get_xp(ctx)
    # decided at push time, not in the worker: the mode and the seed of the call
    is_train = recording.is_training() if call.takes_is_train else False
    seed = random_state.next_seed(ctx) if call.random else None

    def run():
        arrays = [x._read() for x in inputs]
        rng = backend.make_rng(ctx, seed) if seed is not None else None
        result = list(call.forward(xp, arrays, is_train, rng))
        for target, value in zip(outputs, own_buffers(result, arrays)):
            target._write(value)

    return run


# -- autograd: recording and the backward step ------------------------------------------------
def _forget_graph(outputs):
    for target in outputs:
        entry = target._autograd
        if entry is not None and not hasattr(entry[0], "grad_req"):   # variables stay marked
            target._autograd = None


def _record(call, inputs, outputs, ctx, facts, fresh):
    """Link ``outputs`` to a new tape node of this call (``fresh``: they are new arrays,
    not ``out=`` targets, so none of them is an input)."""
    entries = [live_entry(x._autograd) for x in inputs]
    if not any(entries):
        _forget_graph(outputs)
        return
    if not fresh:
        for target in outputs:
            if any(target is x for x in inputs):        # ``x *= w``, ``relu(x, out=x)``
                target._check_grad_free_write(
                    f"{call.op.name} reads it and writes it, and its gradient needs the "
                    f"value read")
    saved = {name: value._detached() if isinstance(value, NDArray) else value
             for name, value in call.saved(inputs, outputs).items()}
    # (an ``out=`` target keeps its own dtype: the result is cast to it)
    node = OpNode(call.op, entries, saved, facts.in_shapes, facts.in_types, facts.out_shapes,
                  facts.out_types if fresh else tuple([o._dtype for o in outputs]), ctx)
    reader = None
    for x, entry in zip(inputs, entries):
        if entry is None:                           # a constant of the graph: keep it so
            if reader is None:
                reader = weakref.ref(node)
            x._reader = reader
    for index, target in enumerate(outputs[:call.num_visible]):
        target._autograd = (node, index)


def recorded_copy(source, target):
    """``source`` copied into ``target`` as a recorded ``_copy`` (``target[:] = source``,
    ``source.copyto(target)`` while recording): ``target`` joins the graph, and the
    gradient flows back to ``source``, as in MXNet."""
    if source.size == target.size:
        source = source.reshape(target._shape)          # ``x[None] = y``: axes of size 1
    elif source._shape != target._shape:
        source = invoke(get_op("broadcast_to").create(shape=target._shape), [source])
    return invoke(get_op("_copy").create(), [source], out=target)


def _grad_classes(call, ctx):
    """The array class of each input's gradient: NDArray, or a sparse class
    (Embedding's ``sparse_grad``)."""
    stypes = call.grad_stypes
    if stypes is None:
        return [NDArray] * len(call.input_names)
    from .sparse_array import check_host_context, class_of
    for stype in stypes:
        check_host_context(f"{call.op.name} (its {stype} gradient)", stype, ctx)
    return [class_of(stype) for stype in stypes]


def push_backward(node, out_grads, into=None):
    """Push the gradient step of one recorded call.

    ``out_grads``: one NDArray per visible output.  Returns one NDArray per
    input, or None where the input needs no gradient.  ``into``: per input, None or the
    array its gradient may be written to directly (a variable's ``.grad``, see
    ``gradient_targets``); it is used when it fits.
    """
    ctx = node.ctx
    call = op_call(node.op, len(node.inputs))
    # the gradients to compute: of the inputs in the graph that can have one
    needs = call.needs([entry is not None for entry in node.inputs])
    saved = node.saved
    reads = [g._chunk.var for g in out_grads]
    reads += [value._chunk.var for value in saved.values() if isinstance(value, NDArray)]
    if call.grad_stypes is None:                # dense gradients (all but a few)
        in_grads = [NDArray._empty(shape, dtype, ctx) if need else None
                    for need, shape, dtype in zip(needs, node.input_shapes, node.input_dtypes)]
    else:
        in_grads = [array_class._empty(shape, dtype, ctx) if need else None
                    for need, shape, dtype, array_class in zip(
                        needs, node.input_shapes, node.input_dtypes, _grad_classes(call, ctx))]
    if into is not None:
        in_grads = gradient_targets(in_grads, into, reads)
    xp = backend.get_xp(ctx)
    is_train = recording.is_training()          # the backward pass's mode, as MXNet's

    def run():
        grads = [g._read() for g in out_grads]
        values = {key: value._read() if isinstance(value, NDArray) else value
                  for key, value in saved.items()}
        result = call.backward_needs(xp, grads, values, needs, is_train)
        for target, value in zip(in_grads, own_buffers(result, [*grads, *values.values()])):
            if target is not None:
                target._write(xp.zeros(target._shape, target._dtype) if value is None else value)

    work = call.work(node.input_shapes) if call.uses_blas else 0
    writes = [g._chunk.var for g in in_grads if g is not None]
    writes += [saved[name]._chunk.var for name in call.aux_saves]    # BatchNorm's statistics
    engine.push(run, reads, writes, ctx,
                f"_backward_{node.op.name}", work,
                engine.is_small(node.input_shapes, work) and not node.op.meets)
    return in_grads


def gradient_targets(in_grads, into, reads):
    """``in_grads`` with each fresh dense array replaced by ``into``'s array for that input
    where that one can take the gradient as it is: dense, of the same shape, dtype and device,
    and not read by the step (a ``.grad`` recorded as an input of the graph).  The step
    then writes a variable's gradient itself, as MXNet's backward does with ``req='write'``,
    instead of a fresh array that a copy moves into ``.grad`` afterwards."""
    result = list(in_grads)
    for index, (fresh, target) in enumerate(zip(in_grads, into)):
        if (type(fresh) is NDArray and isinstance(target, NDArray) and target.stype == "default"
                and target._shape == fresh._shape and target._dtype == fresh._dtype
                and target._chunk.ctx == fresh._chunk.ctx and target._chunk.var not in reads):
            result[index] = target
    return result
