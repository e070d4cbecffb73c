"""Errors and the dtype table shared by every layer.

Lesson: 02-ndarray-and-context.  Mirrors MXNet's ``python/mxnet/base.py`` (MXNetError) and
mshadow's type flags (the integers stored in ``.params`` files).
"""
import numpy as np

__all__ = [
    "MXNetError", "InvalidShapeError", "InvalidTypeError", "InvalidParameterError",
    "ContextMismatchError", "DeviceUnavailableError", "OperatorFailedError",
    "GradientError", "FileFormatError", "NotImplementedForSymbol", "DTYPE_TO_FLAG",
    "FLAG_TO_DTYPE", "normalize_dtype",
]


class MXNetError(RuntimeError):
    """Base class of every error minimx raises on bad input (MXNet's name)."""


class InvalidShapeError(MXNetError, ValueError):
    """Input shapes that an operator cannot accept.

    Raised by graph shape inference, it carries ``node_name`` (the graph node that failed)
    and ``detail`` (the operator's own message), so a caller can say which layer it was
    without parsing the text; both are None when no graph node is involved.
    """

    def __init__(self, message, node_name=None, detail=None):
        super().__init__(message)
        self.node_name = node_name
        self.detail = detail


class InvalidTypeError(MXNetError, TypeError):
    """A dtype an operator cannot accept, or an unknown dtype name."""


class InvalidParameterError(MXNetError, ValueError):
    """An unknown, missing or unparsable operator parameter."""


class ContextMismatchError(MXNetError, ValueError):
    """Inputs of one operator that live on different devices."""


class DeviceUnavailableError(MXNetError):
    """A context whose device (or array library) is not present."""


class OperatorFailedError(MXNetError):
    """An operator failed while the engine ran it; raised at the next sync point."""


class GradientError(MXNetError):
    """Misuse of autograd: no graph recorded, no gradient buffer attached, graph freed."""


class FileFormatError(MXNetError, ValueError):
    """A file that is not, or is no longer, in the format it claims."""


class NotImplementedForSymbol(MXNetError):
    """An NDArray-only function called on a Symbol, which has no values (MXNet's name).

    Typically ``if x.sum() > 0:`` or ``x.asnumpy()`` inside a ``hybrid_forward`` being traced.
    """

    def __init__(self, function, alias=None, *args):
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.arg_types = [str(type(arg)) for arg in args]
        message = f"Function {self.function}"
        if alias:
            message += f' (namely operator "{alias}")'
        if self.arg_types:
            message += f" with arguments ({', '.join(self.arg_types)})"
        super().__init__(message + " is not implemented for Symbol and only available in "
                                   "NDArray.")


# mshadow's type flags: the integers MXNet writes into .params files and JSON.
DTYPE_TO_FLAG = {
    np.dtype("float32"): 0, np.dtype("float64"): 1, np.dtype("float16"): 2,
    np.dtype("uint8"): 3, np.dtype("int32"): 4, np.dtype("int8"): 5,
    np.dtype("int64"): 6, np.dtype("bool"): 7, np.dtype("int16"): 8,
    np.dtype("uint16"): 9, np.dtype("uint32"): 10, np.dtype("uint64"): 11,
}
FLAG_TO_DTYPE = {flag: dtype for dtype, flag in DTYPE_TO_FLAG.items()}


def normalize_dtype(dtype, default="float32"):
    """Turn a dtype given as a name, numpy type or dtype into a numpy dtype."""
    if dtype is None:
        dtype = default
    try:
        result = np.dtype(dtype)
    except TypeError as error:
        raise InvalidTypeError(f"unknown dtype {dtype!r}") from error
    if result not in DTYPE_TO_FLAG:
        raise InvalidTypeError(
            f"dtype {result.name} is not supported; expected one of "
            f"{sorted(d.name for d in DTYPE_TO_FLAG)}")
    return result
