"""``Executor.reshape``: an executor for new input shapes on the SAME memory, as MXNet's.

Lesson: 08-executors.  Mirrors ``GraphExecutor::Reshape`` in
``src/executor/graph_executor.cc``.  Every array of the new executor (arguments, their
gradients, auxiliary states, outputs) whose new shape is no larger than the old one is a
view on the front of the old array, so a write through either executor shows in the other
(a smaller batch runs in the big batch's buffers).  A larger array would need new memory:
refused unless ``allow_up_sizing=True``, as MXNet ("first make a big executor, then size
it down").  An argument not named whose shape changes (a weight, because the data's
feature size changed) is refused unless ``partial_shaping=True``: the new executor would no
longer share that parameter.
"""
import math

from .. import backend, engine
from ..base import MXNetError
from ..ndarray import NDArray, zeros

__all__ = ["reshaped"]


def reshaped(executor, partial_shaping, allow_up_sizing, shapes):
    """The new Executor of ``executor.reshape(partial_shaping, allow_up_sizing, **shapes)``."""
    from .executor import Executor
    symbol = executor.symbol
    arg_names, aux_names = symbol.list_arguments(), symbol.list_auxiliary_states()
    # as MXNet: only tuples are shapes, and names that are not arguments are ignored
    given = {name: tuple(shape) for name, shape in shapes.items()
             if isinstance(shape, (tuple, list)) and name in arg_names}
    arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**given)
    for name, shape in zip(arg_names + aux_names, arg_shapes + aux_shapes):
        if not shape or 0 in shape:
            raise MXNetError(f"reshape: cannot infer the shape of {name!r} from {given}")

    def share(name, old, shape, free_to_change):
        if old is None:
            return None
        if not free_to_change and tuple(shape) != old.shape:
            raise MXNetError(
                f"reshape: the shape of {name!r}, which was not given, would change from "
                f"{old.shape} to {tuple(shape)}, and the new executor would not share it; "
                f"pass partial_shaping=True if that is meant")
        return _front_view(name, old, tuple(shape), allow_up_sizing)

    args, grads = [], []
    for name, old, grad, shape in zip(arg_names, executor.arg_arrays,
                                      executor.grad_arrays or [None] * len(arg_names),
                                      arg_shapes):
        free = partial_shaping or name in given
        args.append(share(name, old, shape, free))
        grads.append(share(name, grad, shape, free))
    aux = [share(name, old, shape, partial_shaping)
           for name, old, shape in zip(aux_names, executor.aux_arrays, aux_shapes)]
    new = Executor(symbol, executor._ctx, args, grads if executor.grad_arrays else None,
                   list(executor._grad_reqs), aux, executor._group2ctx, executor)
    new.outputs = [_front_view(name, old, fresh.shape, True, allocate=fresh)
                   for name, old, fresh in zip(symbol.list_outputs(), executor.outputs,
                                               new.outputs)]
    new._monitor, new._monitor_all = executor._monitor, executor._monitor_all
    return new


def _front_view(name, old, shape, allow_up_sizing, allocate=None):
    """``old`` itself for its own shape; a view on its first elements for a smaller one; a
    new array (``allocate``, or zeros) for a larger one, where ``allow_up_sizing``."""
    if shape == old.shape:
        return old
    if math.prod(shape) > old.size:
        if not allow_up_sizing:
            raise MXNetError(
                f"reshape: the new shape {shape} of {name!r} is larger than the original "
                f"{old.shape}; first making a big executor and then sizing it down is more "
                f"efficient than the reverse (pass allow_up_sizing=True to allocate new "
                f"arrays)")
        if allocate is not None:
            return allocate
        return zeros(shape, ctx=old.context, dtype=old.dtype)
    _ensure_buffer(old)
    steps = (old._view or ()) + ((-1,), slice(0, math.prod(shape)), shape)
    return NDArray(old._chunk, shape, old._dtype, steps)


def _ensure_buffer(array):
    """Give an array no operation has written yet (an output before the first forward) a
    buffer of zeros, so that a view can write into it."""
    chunk = array._chunk

    def fill():
        if chunk.data is None:
            chunk.data = backend.get_xp(chunk.ctx).zeros(array.shape, array._dtype)
    engine.push(fill, [], [chunk.var], chunk.ctx, "executor_reshape_buffer")
