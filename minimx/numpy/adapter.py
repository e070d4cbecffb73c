"""The one adapter between NumPy's conventions and minimx's registered operators.

Lesson: 03-two-frontends-one-engine.  Every ``mx.np`` function is a thin wrapper: it turns its
NumPy arguments into an operator call through ``nd``'s dispatcher (``register.call``) and
gives the result NumPy's shape.  The rules that differ from ``nd`` are said here, once:

- ``operand``: a Python number, list or host NumPy array becomes an ``np.ndarray`` (float32
  by default, MXNet's default dtype; a host NumPy array keeps its dtype);
- ``numpy_shaped``: where MXNet's operator shapes a one-element result ``(1,)`` and NumPy's
  rule says ``()``, the result is a zero-dimensional view of the same buffer;
- ``reduced_shape``: NumPy's shape of a reduction (no ``(1,)`` for "everything").
"""
import contextlib
import numbers
import threading

import numpy as onp

from ..ndarray import NDArray
from ..ndarray.register import call
from .multiarray import as_np, ndarray, zero_dim

# NumPy's error for a bad axis (a ValueError and IndexError), where numpy 1 and 2 keep it
AxisError = getattr(onp, "exceptions", onp).AxisError

__all__ = ["AxisError", "promote", "operand", "numpy_shaped", "reduced_shape", "call_np",
           "normalize_axis", "public"]


def operand(value, ctx=None, dtype=None):
    """``value`` as an ``np.ndarray`` (arrays pass through; the buffer is shared)."""
    if isinstance(value, NDArray):
        return as_np(value)
    if is_symbolic(value):
        return value
    if hasattr(value, "as_np_ndarray"):     # a legacy Symbol: its np twin, as MXNet accepts it
        return value.as_np_ndarray()
    from .creation import array
    return array(value, dtype=dtype, ctx=ctx)


def call_np(op_name, *inputs, **params):
    """Call registered operator ``op_name`` on ``np`` operands; the result(s) as np arrays.
    On np Symbols (``mx.sym.np``) the call composes a graph node instead."""
    for value in inputs:
        if not isinstance(value, NDArray) and is_symbolic(value):    # arrays: no look-up
            return value._np_compose(op_name, inputs, params)
    compose = getattr(_COMPOSING, "compose", None)
    if compose is not None and not any(isinstance(value, NDArray) for value in inputs):
        return compose(op_name, inputs, params)         # sym.np.arange, eye, ...: a node
    return as_np(call(op_name, *inputs, **params))


_COMPOSING = threading.local()


@contextlib.contextmanager
def composing(compose):
    """While a ``sym.np`` creation function runs, an operator call without array inputs
    composes a graph node with ``compose(op_name, inputs, params)`` (symbol/numpy.py)."""
    previous = getattr(_COMPOSING, "compose", None)
    _COMPOSING.compose = compose
    try:
        yield
    finally:
        _COMPOSING.compose = previous


def is_symbolic(value):
    """Whether ``value`` is an np Symbol (the graph-building twin of ``np.ndarray``)."""
    return hasattr(value, "_np_compose")


def call_reduction(op_name, a, axis, keepdims, **params):
    """Reduction ``op_name`` of ``a`` over ``axis`` with NumPy's result shape.  On a Symbol,
    whose shape is unknown while the graph is built, the rule is said without the shape: a
    full reduction is zero-dimensional, an ``axis`` reduction drops its axes (``_np_squeeze``,
    whose rule gives ``()`` when every axis goes)."""
    if isinstance(axis, tuple) and not axis:    # NumPy's axis=(): nothing is reduced
        return call_np("_copy", a)
    if isinstance(a, NDArray):
        if axis is None and not keepdims and not params:
            # x.sum(), the common case: the operator's defaults reduce every axis (passing
            # no parameters skips their parsing), and NumPy's result is zero-dimensional
            return numpy_shaped(call_np(op_name, a), ())
        result = call_np(op_name, a, axis=() if axis is None else axis, keepdims=keepdims,
                         **params)
        return numpy_shaped(result, reduced_shape(a.shape, axis, keepdims))
    if axis is None:
        result = call_np(op_name, a, axis=(), keepdims=keepdims, **params)
        return result if keepdims else call_np("_np_reshape", result, newshape=())
    result = call_np(op_name, a, axis=axis, keepdims=True, **params)
    return result if keepdims else call_np("_np_squeeze", result, axis=axis)


def as_operand_like(value, other):
    """``value`` as an operand of a binary operator beside ``other``: arrays and Symbols
    pass; a Python number becomes a zero-dimensional array of ``other``'s dtype (a ``_full``
    node beside a Symbol)."""
    if isinstance(value, NDArray) or is_symbolic(value):
        return value
    dtype = getattr(other, "dtype", None) or onp.float32
    if is_symbolic(other):
        return other._np_compose("_full", [], {"shape": (), "value": value,
                                               "dtype": onp.dtype(dtype).name})
    return operand(value, ctx=other.context, dtype=dtype)


def promote(x1, x2):
    """Two arrays (or traced Symbols) cast to one dtype, by NumPy's rule as MXNet 1.9.1
    applies it: an integer (or bool) with a float gives that float type (int32 with float32
    is float32, where NumPy says float64); otherwise NumPy's ``result_type``.  A Symbol
    whose dtype is unknown (outside a trace) is left as it is."""
    dtype1, dtype2 = getattr(x1, "dtype", None), getattr(x2, "dtype", None)
    if dtype1 is None or dtype2 is None or dtype1 == dtype2 or \
            not all(isinstance(x, NDArray) or is_symbolic(x) for x in (x1, x2)):
        return x1, x2
    floats = [x.dtype for x in (x1, x2) if onp.issubdtype(x.dtype, onp.floating)]
    dtype = floats[0] if len(floats) == 1 else onp.result_type(x1.dtype, x2.dtype)
    return x1.astype(dtype, copy=False), x2.astype(dtype, copy=False)


def numpy_shaped(result, shape):
    """``result`` with NumPy's ``shape`` (differs only as ``(1,)`` against ``()``)."""
    shape = tuple(shape)
    if result.shape == shape:
        return result
    if not isinstance(result, NDArray) and is_symbolic(result):     # a traced Symbol: Reshape
        return call_np("_np_reshape", result, newshape=shape)
    if shape == () and result.size == 1:
        return zero_dim(result)
    return as_np(result.reshape(shape))


def normalize_axis(axis, ndim):
    """``axis`` (None, an int or a sequence) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (numbers.Integral, onp.integer)) else tuple(axis)
    for a in axes:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise AxisError(f"axis {a} is out of bounds for array of dimension {ndim}")
    return tuple(sorted(a % max(ndim, 1) for a in axes))


def reduced_shape(shape, axis, keepdims):
    """NumPy's result shape of reducing ``axis`` of ``shape``."""
    axes = normalize_axis(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else size for i, size in enumerate(shape))
    return tuple(size for i, size in enumerate(shape) if i not in axes)


def public(function, name, doc=None):
    """Give a generated function its public name and module, as MXNet's ``mx.np``."""
    function.__name__ = function.__qualname__ = name
    function.__module__ = "minimx.numpy"
    if doc:
        function.__doc__ = doc
    return function


def is_array(value):
    return isinstance(value, ndarray)
