"""``minimx.ndarray`` (``nd``): the imperative array API.

Lesson: 02-ndarray-and-context.  Mirrors ``python/mxnet/ndarray/``.  Every ``nd.<op>`` below
that is not written by hand here is generated from the operator registry by
``register.make_function``; operators whose names start with ``_`` go to
``nd._internal``.  Operators declared with ``method = True`` also become
NDArray methods (``x.sum()``, ``x.exp()``).
"""
import types

from .. import engine
from ..op.registry import install_generated_functions
from . import contrib, image, linalg, random, register, sparse, utils
from .arithmetic import (add, divide, equal, greater, greater_equal, lesser, lesser_equal,
                         logical_and, logical_or, logical_xor, maximum, minimum, modulo,
                         multiply, negative, not_equal, power, subtract, true_divide)
from .creation import arange, array, empty, eye, full, ones, ones_like, zeros, zeros_like
from .ndarray import NDArray
from .sparse_array import cast_storage
from .utils import load, load_frombuffer, save
from .functions import cumsum, from_numpy, histogram, linspace, moveaxis, onehot_encode, split_v2
from .dlpack import from_dlpack, to_dlpack_for_read, to_dlpack_for_write

__all__ = ["NDArray", "array", "empty", "zeros", "ones", "full", "arange", "eye", "zeros_like",
           "ones_like", "add", "subtract", "multiply", "divide", "true_divide", "modulo",
           "power", "maximum", "minimum", "equal", "not_equal", "greater", "greater_equal",
           "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor", "negative",
           "waitall", "concatenate", "save", "load", "load_frombuffer", "_internal", "op",
           "random", "utils", "contrib", "linalg", "image", "from_numpy", "linspace",
           "moveaxis", "onehot_encode", "split_v2", "histogram", "cumsum", "sparse", "cast_storage",
           "from_dlpack", "to_dlpack_for_read", "to_dlpack_for_write"]


def waitall():
    """Block until every pushed operation has finished (a sync point for all arrays)."""
    engine.wait_all()


_internal = types.ModuleType("minimx.ndarray._internal", "Operators whose names start with _.")
op = types.ModuleType("minimx.ndarray.op", "Every generated operator function.")


def __getattr__(name):
    """``nd.np`` and ``nd.npx``: MXNet reaches the NumPy frontend's functions from ``nd`` too
    (``F.np.dot`` in a ``hybrid_forward`` run with ``F = nd``); a lazy import of the layer
    above, listed in ``.importlinter``."""
    if name == "np":
        from .. import numpy
        return numpy
    if name == "npx":
        from .. import numpy_extension
        return numpy_extension
    raise AttributeError(f"module 'minimx.ndarray' has no attribute {name!r}")


# after the module's own __getattr__, which answers the names that are no operator's
install_generated_functions(globals(), __all__, op, _internal, NDArray, register,
                            {"contrib": contrib, "linalg": linalg, "image": image})


def concatenate(arrays, axis=0, always_copy=True):
    """Join a list of arrays along ``axis`` (MXNet's older name for ``concat``)."""
    return op.concat(*arrays, dim=axis)
