"""From an operator call to an engine push: the imperative dispatcher.

Lesson: 04-lazy-evaluation, 03-autograd.  Mirrors ``Imperative::Invoke`` and
``Imperative::Backward`` in ``src/imperative/imperative.cc``.

``invoke`` checks devices, infers output shapes and dtypes (so errors surface
at the call, and the result's shape is known at once), allocates the outputs,
records the call on the autograd tape when recording, and pushes the
computation.  ``push_backward`` does the same for one recorded call's gradient.
"""
from .. import backend, engine, random_state
from ..autograd import recording
from ..autograd.tape import OpNode
from ..base import ContextMismatchError, InvalidShapeError, InvalidTypeError
from ..context import current_context
from .ndarray import NDArray, own_buffers

__all__ = ["invoke", "push_backward"]


def invoke(op, inputs, out=None, ctx=None):
    """Run operator instance ``op`` on NDArrays ``inputs``; returns its visible output(s)."""
    ctx = _context_of(op, inputs, ctx)
    out_shapes = op.output_shapes([x._shape for x in inputs])
    out_types = op.output_types([_dtype_name(x._dtype) for x in inputs])
    outputs = _allocate_outputs(op, out_shapes, out_types, ctx, out)
    write_vars = [o._chunk.var for o in outputs]
    if op.aux:
        write_vars += [inputs[i]._chunk.var for i in _aux_indices(op, len(inputs))]
    if op.differentiable and recording.is_recording():
        _record(op, inputs, outputs, ctx)
    elif out is not None:
        _forget_graph(outputs)       # fresh outputs are outside any graph already
    run = _forward_closure(op, inputs, outputs, ctx)
    engine.push(run, [x._chunk.var for x in inputs], write_vars, ctx, op.name)
    visible = op.num_visible()
    return outputs[0] if visible == 1 else outputs[:visible]


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
            names = op.list_inputs(len(inputs))
            raise ContextMismatchError(
                f"operator {op.name}: all inputs must be on the same context, but "
                f"'{names[0]}' is on {context} and '{names[position]}' is on {x._chunk.ctx}")
    return context


def _allocate_outputs(op, shapes, dtypes, ctx, out):
    if len(shapes) == 1:
        outputs = [NDArray._empty(shapes[0], dtypes[0], ctx)]
    else:
        outputs = [NDArray._empty(shape, dtype, ctx) for shape, dtype in zip(shapes, dtypes)]
    if out is None:
        return outputs
    given = [out] if isinstance(out, NDArray) else list(out)
    for index, target in enumerate(given):
        if target._shape != shapes[index]:
            raise InvalidShapeError(
                f"operator {op.name}: out= has shape {target._shape}, but the result has "
                f"shape {shapes[index]}")
        if target._chunk.ctx != ctx:
            raise ContextMismatchError(
                f"operator {op.name}: out= is on {target._chunk.ctx}, inputs are on {ctx}")
        target._check_grad_free_write()
        outputs[index] = target
    return outputs


def _aux_indices(op, count):
    if not op.aux:
        return ()
    names = op.list_inputs(count)
    return [names.index(name) for name in op.aux if name in names]


def _forward_closure(op, inputs, outputs, ctx):
    xp = backend.get_xp(ctx)
    extras = {}
    seed = None
    if op.forward_extras:
        if "rng" in op.forward_extras:
            seed = random_state.next_seed(ctx)
        if "is_train" in op.forward_extras:
            extras["is_train"] = recording.is_training()
    single = len(outputs) == 1

    def run():
        arrays = [x._read() for x in inputs]
        if seed is not None:
            extras["rng"] = backend.make_rng(ctx, seed)
        result = op.forward(xp, *arrays, **extras)
        result = [result] if single else list(result)
        for target, value in zip(outputs, own_buffers(result, arrays)):
            target._write(value)

    return run


# -- autograd: recording and the backward step ------------------------------------------------
def _forget_graph(outputs):
    for target in outputs:
        entry = target._autograd
        if entry is not None and not hasattr(entry[0], "grad_req"):   # variables stay marked
            target._autograd = None


def _record(op, inputs, outputs, ctx):
    entries = [x._autograd for x in inputs]
    if not any(entries):
        _forget_graph(outputs)
        return
    names = op.list_inputs(len(inputs))
    known = {*names, *op.list_outputs(), *(f"{name}_shape" for name in names), "input_shapes"}
    saved = {name: _saved_value(op, name, names, inputs, outputs)
             for name in op.saves if name in known}
    node = OpNode(op, entries, saved, [x._shape for x in inputs], [x._dtype for x in inputs],
                  [o._shape for o in outputs], [o._dtype for o in outputs], ctx,
                  recording.is_training())
    for index, target in enumerate(outputs[:op.num_visible()]):
        target._autograd = (node, index)


def _saved_value(op, name, input_names, inputs, outputs):
    if name == "input_shapes":
        return tuple(x._shape for x in inputs)
    if name.endswith("_shape") and name[:-6] in input_names:
        return inputs[input_names.index(name[:-6])]._shape
    if name in input_names:
        return inputs[input_names.index(name)]._detached()
    return outputs[op.list_outputs().index(name)]._detached()


def push_backward(node, out_grads):
    """Push the gradient step of one recorded call.

    ``out_grads``: one NDArray per visible output.  Returns one NDArray per
    input, or None where the input needs no gradient.
    """
    op, ctx = node.op, node.ctx
    names = op.list_inputs(len(node.inputs))
    in_grads = [
        NDArray._empty(shape, dtype, ctx)
        if entry is not None and name not in op.no_grad_inputs and name not in op.aux else None
        for entry, name, shape, dtype in zip(node.inputs, names, node.input_shapes,
                                             node.input_dtypes)]
    saved = node.saved
    xp = backend.get_xp(ctx)
    extras = {"is_train": node.is_train} if "is_train" in op.backward_extras else {}
    if "needs" in op.backward_extras:
        extras["needs"] = tuple(g is not None for g in in_grads)

    def run():
        grads = [g._read() for g in out_grads]
        values = {key: value._read() if isinstance(value, NDArray) else value
                  for key, value in saved.items()}
        result = op.backward(xp, *grads, **values, **extras)
        if not isinstance(result, (tuple, list)):
            result = (result,)
        result = list(result) + [None] * (len(in_grads) - len(result))
        for target, value in zip(in_grads, own_buffers(result, [*grads, *values.values()])):
            if target is not None:
                target._write(xp.zeros(target._shape, target._dtype) if value is None else value)

    reads = [g._chunk.var for g in out_grads]
    reads += [value._chunk.var for value in saved.values() if isinstance(value, NDArray)]
    engine.push(run, reads, [g._chunk.var for g in in_grads if g is not None], ctx,
                f"_backward_{op.name}")
    return in_grads
