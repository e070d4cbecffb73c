"""Making NDArrays: ``array`` from data, and ``zeros``/``ones``/``full``/``arange``/...

Lesson: 02-ndarray-and-context.  Mirrors ``python/mxnet/ndarray/utils.py`` and the creation
functions of ``ndarray.py``, with MXNet's signatures (``shape, ctx, dtype``).
"""
import numpy as np

from .. import backend
from ..base import InvalidShapeError, normalize_dtype
from ..context import current_context
from ..util import is_np_shape
from .ndarray import Chunk, NDArray
from .register import call

__all__ = ["array", "empty", "zeros", "ones", "full", "arange", "eye", "zeros_like",
           "ones_like"]


def array(source_array, ctx=None, dtype=None):
    """An NDArray holding a copy of ``source_array`` (an NDArray, numpy array or list).

    The dtype is ``dtype`` if given, else the source's when it is an NDArray,
    else float32 (MXNet's rule, also for numpy input).
    """
    if getattr(source_array, "stype", "default") != "default" or hasattr(source_array, "tocsr"):
        from .sparse import array as sparse_array          # a sparse array or scipy matrix
        return sparse_array(source_array, ctx=ctx, dtype=dtype)
    ctx = ctx or current_context()
    if isinstance(source_array, NDArray):
        dtype = dtype or source_array.dtype
        result = source_array.as_in_context(ctx)
        if result is source_array:
            result = source_array.copy()
        return result.astype(dtype, copy=False)
    dtype = normalize_dtype(dtype)
    value = np.array(source_array, dtype=dtype)
    return _from_host(value, ctx)


def _from_host(value, ctx):
    """Wrap a host numpy array (copied onto ``ctx``) as a ready NDArray."""
    data = backend.from_numpy(value, ctx)
    return NDArray(Chunk(ctx, data), value.shape, value.dtype)


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)


def empty(shape, ctx=None, dtype=None, stype=None):
    """An array whose values are not set."""
    return call("_empty", shape=_shape(shape), dtype=normalize_dtype(dtype).name, ctx=ctx,
                stype=stype)


def _without_symbol_attrs(kwargs):
    """Drop ``name`` (MXNet's nd creation functions accept it, so that
    ``begin_state(func=nd.zeros)`` works like ``sym.zeros``); the operator call drops
    ``__layout__``-style attributes and checks ``stype``."""
    return {key: value for key, value in kwargs.items() if key != "name"}


def _known_shape(name, shape):
    """MXNet's legacy shapes read a 0 size (and the shape ``()``) as "unknown": its
    ``zeros``/``ones`` refuse them unless NumPy shape semantics are on (``mx.np_shape()``);
    ``empty``, ``full`` and ``array`` make zero-size arrays either way."""
    shape = _shape(shape)
    if not is_np_shape() and (shape == () or 0 in shape):
        raise InvalidShapeError(f"{name}: shape {shape} has an unknown size under MXNet's "
                                f"legacy shapes (0 means unknown); use mx.np_shape() for "
                                f"zero-size and scalar arrays")
    return shape


def zeros(shape, ctx=None, dtype=None, **kwargs):
    """An array of zeros. ``nd.zeros((2, 3))``"""
    return call("_zeros", shape=_known_shape("zeros", shape),
                dtype=normalize_dtype(dtype).name, ctx=ctx, **_without_symbol_attrs(kwargs))


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones. ``nd.ones((2, 3))``"""
    return call("_ones", shape=_known_shape("ones", shape), dtype=normalize_dtype(dtype).name,
                ctx=ctx, **_without_symbol_attrs(kwargs))


def full(shape, val, ctx=None, dtype=None, out=None, stype=None):
    """An array filled with ``val``."""
    return call("_full", shape=_shape(shape), value=val, dtype=normalize_dtype(dtype).name,
                ctx=ctx, out=out, stype=stype)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``, as numpy's arange (float32 by default).
    ``infer_range`` is for graphs (``sym.arange``): here, as in MXNet, it is ignored."""
    return call("_arange", start=start, stop=stop, step=step, repeat=repeat,
                infer_range=False, dtype=normalize_dtype(dtype).name, ctx=ctx)


def eye(N, M=0, k=0, ctx=None, dtype=None):
    """A 2-D array with ones on the ``k``-th diagonal."""
    return call("_eye", N=N, M=M, k=k, dtype=normalize_dtype(dtype).name, ctx=ctx)


def zeros_like(data, out=None, name=None, **kwargs):
    """Zeros shaped like ``data`` (``name`` and other keywords are accepted, as MXNet's
    operator without parameters accepts them, and unused)."""
    return call("zeros_like", data, out=out)


def ones_like(data, out=None, name=None, **kwargs):
    """Ones shaped like ``data`` (``name`` and other keywords are accepted, as MXNet's
    operator without parameters accepts them, and unused)."""
    return call("ones_like", data, out=out)
