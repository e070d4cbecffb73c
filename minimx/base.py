"""Errors and the dtype table shared by every layer.

Lesson: 02-ndarray-and-context.  Mirrors MXNet's ``python/mxnet/base.py`` (MXNetError) and
mshadow's type flags (the integers stored in ``.params`` files).
"""
import ctypes

import numpy as np

__all__ = [
    "MXNetError", "InvalidShapeError", "InvalidTypeError", "InvalidParameterError",
    "ContextMismatchError", "DeviceUnavailableError", "OperatorFailedError",
    "OperatorIndexError", "OperatorValueError", "OperatorZeroDivisionError",
    "operator_failure", "UnknownNameError",
    "NotRegisteredError", "ParameterMismatchError", "StateError", "InvalidStorageTypeError",
    "GradientError", "FileFormatError", "ShapeSemanticsError", "NotImplementedForSymbol", "DTYPE_TO_FLAG",
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
    """An unknown, missing or unparsable parameter: of an operator, or a Gluon Parameter
    (something given where a Parameter belongs, a file's parameter no Block has)."""


class InvalidStorageTypeError(InvalidParameterError, AssertionError):
    """A storage type that is not 'default', 'row_sparse' or 'csr': MXNet asserts it for a
    Gluon Parameter and raises ValueError for an array, so this is both."""


# Where MXNet's Python raises a builtin exception, minimx's error for the same mistake is
# of that kind too, so a program's ``except ValueError:`` works the same on both.  MXNet
# checks some conditions with ``assert``: those errors are AssertionErrors.
class UnknownNameError(MXNetError, ValueError):
    """A name that names nothing there, or more than one thing: a Symbol's output, an
    optimizer."""


class NotRegisteredError(MXNetError, AssertionError):
    """``create`` of a registered family (a metric, an initializer) given a name nothing is
    registered under, or something that is no name (MXNet asserts both)."""


class ParameterMismatchError(MXNetError, AssertionError):
    """Loading parameters: the file (or dict) lacks one the Block has, or, for a file of
    full names (``ParameterDict.load``), holds one it lacks (MXNet asserts)."""


class StateError(MXNetError, AssertionError):
    """A call that the object's state or settings do not allow: a Trainer's parameters on
    different devices, ``update()`` while the KVStore runs the optimizer (MXNet asserts)."""


class ContextMismatchError(MXNetError, ValueError):
    """Inputs of one operator that live on different devices."""


class DeviceUnavailableError(MXNetError):
    """A context whose device (or array library) is not present."""


class OperatorFailedError(MXNetError):
    """An operator failed while the engine ran it; raised at the next sync point."""


class OperatorIndexError(OperatorFailedError, IndexError):
    """An operator failed on an index out of range (also an ``IndexError``, as MXNet's)."""


class OperatorValueError(OperatorFailedError, ValueError):
    """An operator failed on a bad value (also a ``ValueError``, as MXNet's)."""


class OperatorZeroDivisionError(OperatorFailedError, ZeroDivisionError):
    """An operator divided integers by zero (also a ``ZeroDivisionError``, Python's kind:
    MXNet's kernel stops the whole process with SIGFPE)."""


def operator_failure(message, cause):
    """The OperatorFailedError for ``cause``, raised inside an operator: MXNet maps an error
    of a builtin kind (``IndexError``, ``ValueError``) to an MXNetError of that kind too, so
    ``except IndexError`` catches an out-of-range index found by a kernel."""
    for kind in (OperatorIndexError, OperatorValueError, OperatorZeroDivisionError):
        if isinstance(cause, kind.__bases__[1]):
            return kind(message)
    return OperatorFailedError(message)


class GradientError(MXNetError):
    """Misuse of autograd: no graph recorded, no gradient buffer attached, graph freed."""


class InvalidArgumentError(MXNetError, AssertionError):
    """An argument outside what a Python-level API allows where MXNet checks it with
    ``assert``: a Vocabulary's settings, an embedding file's lines, a vector's width."""


class FileFormatError(MXNetError, ValueError):
    """A file that is not, or is no longer, in the format it claims."""


class ShapeSemanticsError(FileFormatError):
    """An array file saved under the other shape semantics (MXNet's legacy shapes, file
    version V2, against NumPy's, V3) than the one it is loaded under."""


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


# -- the rest of MXNet's base module that Python code uses ------------------------------------
string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.int32, np.int64, np.integer)
mx_real_t = np.float32


def check_dense(stype, where):
    """Refuse a storage type other than 'default' where an operator's result cannot take
    one (a graph node's storage type follows from its inputs)."""
    if stype not in (None, "default"):
        raise MXNetError(f"{where}: stype={stype!r} is not a parameter of this operator; a "
                         f"node's storage type follows from its inputs' (use "
                         f"sym.cast_storage to change it)")


STORAGE_TYPE_KEY = "__storage_type__"        # a Variable's attribute, as MXNet's
_STORAGE_TYPE_IDS = {"default": 0, "row_sparse": 1, "csr": 2}


def storage_type_id(stype, where):
    """MXNet's number for a storage type name (``__storage_type__`` holds it)."""
    if stype not in _STORAGE_TYPE_IDS:
        raise KeyError(f"{where}: unknown storage type {stype!r}; expected one of "
                       f"{list(_STORAGE_TYPE_IDS)}")
    return _STORAGE_TYPE_IDS[stype]


def storage_type_name(number):
    """The storage type name of MXNet's number (as a string or an int)."""
    return {v: k for k, v in _STORAGE_TYPE_IDS.items()}[int(number)]


def is_attribute_key(key):
    """``__layout__``-style keys: attributes of a graph node, not operator parameters."""
    return key.startswith("__") and key.endswith("__")


def py_str(value):
    """``bytes`` from a C string as ``str`` (and ``str`` unchanged)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def data_dir():
    """MXNet's data folder: ``$MXNET_HOME``, else ``~/.mxnet``."""
    import os
    return os.getenv("MXNET_HOME", os.path.join(os.path.expanduser("~"), ".mxnet"))


def _as_list(obj):
    """``obj`` as a list: lists and tuples stay, anything else is wrapped."""
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


class _NoCLibrary:
    """Stands for MXNet's C library handle ``_LIB``: minimx is written in Python alone.

    Code (and MXNet's own tests) that calls the C API directly cannot run on minimx;
    importing the names works, using them says why not.
    """

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise MXNetError(f"_LIB.{name}: minimx has no C library (it is MXNet written in "
                         f"Python); code calling MXNet's C API directly does not run on it")


_LIB = _NoCLibrary()


def check_call(ret):
    """MXNet checks C API return codes with this; minimx has no C API."""
    raise MXNetError("check_call: minimx has no C library, so there is no C call to check")


def c_str(text):
    return ctypes.c_char_p(text.encode("utf-8"))


def c_str_array(strings):
    return (ctypes.c_char_p * len(strings))(*[s.encode("utf-8") for s in strings])


# the C types of MXNet's API, for code that imports them
mx_uint, mx_int, mx_float = ctypes.c_uint, ctypes.c_int, ctypes.c_float
NDArrayHandle = SymbolHandle = ExecutorHandle = KVStoreHandle = ctypes.c_void_p
DataIterHandle = CachedOpHandle = ctypes.c_void_p
__all__ += ["check_dense", "STORAGE_TYPE_KEY", "storage_type_id", "storage_type_name", "is_attribute_key", "string_types", "numeric_types", "integer_types", "mx_real_t", "py_str",
            "data_dir", "check_call", "c_str", "c_str_array", "mx_uint", "mx_int", "mx_float",
            "NDArrayHandle", "SymbolHandle", "ExecutorHandle", "KVStoreHandle",
            "DataIterHandle", "CachedOpHandle"]
