"""``NDArray.reshape``: a view sharing the buffer, with MXNet's reshape codes.

Lesson: 02-ndarray-and-context.  Under ``autograd.record()`` the reshape is recorded as the
``Reshape`` operator instead, so gradients flow through it.
"""
from ..tape import recording
from ..base import InvalidParameterError
from ..op.reshape_rule import reshape_target

__all__ = ["reshape"]


def reshape(array, dims, reverse=False, **kwargs):
    """``array.reshape((2, -1))``, ``array.reshape(2, -1)`` or ``array.reshape(shape=...)``;
    ``dims`` holds the positional arguments."""
    if "shape" in kwargs:
        shape = kwargs.pop("shape")
    elif len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        shape = dims[0]
    else:
        shape = dims
    if kwargs:
        raise InvalidParameterError(f"reshape: unexpected arguments {sorted(kwargs)}")
    target = reshape_target(array.shape, tuple(shape), reverse)
    if recording.is_recording() and array._autograd is not None:
        from .register import call
        return call("Reshape", array, shape=target)
    view = (array._view or ()) + (target,)
    return type(array)(array._chunk, target, array._dtype, view)
