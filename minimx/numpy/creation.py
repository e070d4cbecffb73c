"""``np.array``, ``zeros``, ``ones``, ``full``, ``empty``, ``arange``, ``linspace``, ``eye``,
the ``*_like`` functions and ``meshgrid``: the creation operators with NumPy's arguments.

Lesson: 03-two-frontends-one-engine.  Mirrors the creation functions of
``python/mxnet/numpy/multiarray.py``.  MXNet's defaults: float32 (also for Python ints and
bools in a list), a host NumPy array keeps its dtype, ``ctx`` (or ``device``) picks the
device; ``shape`` may be ``()`` or hold zeros (NumPy's shapes).
"""
import numbers

import numpy as onp

from ..base import normalize_dtype
from ..context import current_context
from ..ndarray import NDArray
from ..ndarray.creation import _from_host
from .adapter import call_np, is_symbolic, operand
from .multiarray import as_np

__all__ = ["array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "eye",
           "identity", "zeros_like", "ones_like", "full_like", "empty_like", "meshgrid",
           "logspace"]


def _shape(shape):
    return (int(shape),) if isinstance(shape, (numbers.Integral, onp.integer)) else tuple(shape)


def _ctx(ctx, device=None):
    return ctx or device or current_context()


def array(object, dtype=None, ctx=None, device=None):  # noqa: A002 (NumPy's name)
    """A new array holding a copy of ``object`` (an array, host NumPy array, list or number)."""
    ctx = _ctx(ctx, device)
    if isinstance(object, NDArray):
        result = object.as_in_context(ctx)
        result = result.copy() if result is object else result
        return as_np(result.astype(dtype or object.dtype, copy=False))
    if isinstance(object, onp.ndarray) and dtype is None:
        dtype = object.dtype
    try:
        value = onp.array(object, dtype=normalize_dtype(dtype))
    except OverflowError:       # numpy 2 refuses 1621 as uint8; MXNet (numpy 1) wraps it
        value = onp.array(object).astype(normalize_dtype(dtype))
    return as_np(_from_host(value, ctx))


def asarray(a, dtype=None, ctx=None, device=None):
    """``a`` itself when it is already an array of ``dtype`` on ``ctx``, else ``array(a)``."""
    if isinstance(a, NDArray) and (dtype is None or onp.dtype(dtype) == a._dtype) and \
            (ctx or device) in (None, a.context):
        return as_np(a)
    return array(a, dtype=dtype, ctx=ctx, device=device)


def _filled(op_name, shape, dtype, ctx, **params):
    return call_np(op_name, shape=_shape(shape), dtype=normalize_dtype(dtype).name,
                   ctx=ctx, **params)


def zeros(shape, dtype=None, order="C", ctx=None, device=None):
    return _filled("_zeros", shape, dtype, _ctx(ctx, device))


def ones(shape, dtype=None, order="C", ctx=None, device=None):
    return _filled("_ones", shape, dtype, _ctx(ctx, device))


def empty(shape, dtype=None, order="C", ctx=None, device=None):
    if order != "C":
        raise NotImplementedError(f"empty: order={order!r}; only 'C' is supported")
    return _filled("_empty", shape, dtype, _ctx(ctx, device))


def full(shape, fill_value, dtype=None, order="C", ctx=None, device=None, out=None):
    """An array of ``fill_value`` (float32 unless ``dtype``, bool for a bool value, as
    MXNet's; an array value broadcasts)."""
    if dtype is None and isinstance(fill_value, (bool, onp.bool_)):
        dtype = onp.bool_
    if isinstance(fill_value, NDArray) or is_symbolic(fill_value):
        value = fill_value if dtype is None else fill_value.astype(dtype)
        return call_np("_npi_broadcast_to", value, shape=_shape(shape))
    return _filled("_full", shape, dtype, _ctx(ctx, device), value=float(fill_value))


def arange(start, stop=None, step=1, dtype=None, ctx=None, device=None):
    """Evenly spaced values in ``[start, stop)`` (float32 unless ``dtype``, as MXNet's)."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    return call_np("_arange", start=start, stop=stop, step=step,
                   dtype=normalize_dtype(dtype).name, ctx=_ctx(ctx, device))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
             ctx=None, device=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    if axis != 0:
        raise NotImplementedError("linspace: axis other than 0 is not supported")
    result = call_np("_linspace", start=start, stop=stop, num=num, endpoint=endpoint,
                     dtype=normalize_dtype(dtype).name, ctx=_ctx(ctx, device))
    if retstep:
        return result, (stop - start) / max(num - 1 if endpoint else num, 1)
    return result


def eye(N, M=None, k=0, dtype=None, ctx=None, device=None):  # noqa: N803 (NumPy's names)
    if M == 0:          # the operator's M=0 means "N" (nd's rule); NumPy's is no columns
        return zeros((N, 0), dtype=dtype, ctx=ctx, device=device)
    return call_np("_eye", N=N, M=M or 0, k=k, dtype=normalize_dtype(dtype).name,
                   ctx=_ctx(ctx, device))


def identity(n, dtype=None, ctx=None, device=None):
    return eye(n, dtype=dtype, ctx=ctx, device=device)


def _like(filler, fill_value):
    def like(a, dtype=None, order="C", subok=True, shape=None, ctx=None, device=None):
        return full_like(a, fill_value, dtype, order, subok, shape, ctx, device)
    like.__name__ = like.__qualname__ = f"{filler.__name__}_like"
    return like


def full_like(a, fill_value, dtype=None, order="C", subok=True, shape=None, ctx=None,
              device=None):
    """An array of ``a``'s shape (or ``shape``) and dtype (or ``dtype``) filled with
    ``fill_value``.  In a traced graph, a ``_full`` node of the traced shape."""
    a = operand(a)
    shape = a.shape if shape is None else shape
    if is_symbolic(a):      # one value broadcast like ``a``, so the node depends on ``a``
        same = tuple(shape) == a.shape
        value = a._np_compose("_full", [], {
            "shape": (1,) * len(shape) if same else tuple(shape), "value": fill_value,
            "dtype": normalize_dtype(dtype or a.dtype).name})
        return call_np("broadcast_like", value, a) if same else value
    return full(shape, fill_value, dtype=dtype or a.dtype, ctx=ctx or device or a.context)


zeros_like, ones_like, empty_like = _like(zeros, 0), _like(ones, 1), _like(empty, 0)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    """Coordinate arrays from coordinate vectors (``indexing='xy'`` or ``'ij'``)."""
    vectors = [operand(x).reshape(-1) for x in xi]
    shape = [v.size for v in vectors]
    if indexing == "xy" and len(vectors) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for position, vector in enumerate(vectors):
        axis = position
        if indexing == "xy" and len(vectors) > 1 and position < 2:
            axis = 1 - position
        view = [1] * len(vectors)
        view[axis] = vector.size
        grid = vector.reshape(view)
        grids.append(grid if sparse else call_np("broadcast_to", grid, shape=tuple(shape)))
    return grids


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None,
             device=None):
    """``base ** linspace(start, stop, num)``."""
    exponents = linspace(start, stop, num, endpoint=endpoint, dtype="float64", axis=axis,
                         ctx=ctx, device=device)
    return (float(base) ** exponents).astype(normalize_dtype(dtype))
