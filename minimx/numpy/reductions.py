"""``np.sum``, ``mean``, ``max``, ``min``, ``prod``, ``argmax``, ``argmin``, ``std``, ``var``
and ``cumsum``: the reduction operators with NumPy's arguments and result shapes.

Lesson: 03-two-frontends-one-engine.  The operators reduce as MXNet's ``nd`` does; the adapter
gives the result NumPy's shape (a full reduction is zero-dimensional).  NumPy's dtype rules
as MXNet 1.9.1 applies them: ``mean`` of integers is float32, ``argmax`` is int64, ``dtype=``
casts the input first, except a float input's result is cast when ``dtype`` is narrower.
"""
import builtins

import numpy as onp

from ..base import InvalidShapeError
from .adapter import call_np, call_reduction, numpy_shaped, operand, public, reduced_shape

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "argmax", "argmin", "std",
           "var", "cumsum", "average"]

# NumPy's name -> the registered reduction
REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "max", "amax": "max",
              "min": "min", "amin": "min"}


def _prepared(a, dtype, op_name):
    a = operand(a)
    if dtype is not None:
        return a.astype(dtype, copy=False)
    if op_name == "mean" and not onp.issubdtype(a.dtype, onp.floating):
        return a.astype(onp.float32)
    if op_name in ("sum", "prod", "_np_cumsum") and a.dtype == onp.bool_:
        return a.astype(onp.int64)          # NumPy counts: the sum of a mask is an int64
    return a


def _narrowed_float(dtype, wanted):
    """Whether ``wanted`` is narrower than the floating ``dtype`` (unknown: False)."""
    return dtype is not None and onp.issubdtype(dtype, onp.floating) and \
        not onp.can_cast(dtype, wanted, "safe")


def _reduction(name, op_name):
    def function(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        if initial is not None:
            raise NotImplementedError(f"np.{name}: initial= is not supported")
        a = operand(a)
        if dtype is not None and _narrowed_float(a.dtype, dtype):
            # float32 -> float16, float -> int: MXNet reduces in the input's dtype and
            # casts the result, so no precision is lost on the way
            result = call_reduction(op_name, _prepared(a, None, op_name), axis, keepdims)
            return _into(result.astype(dtype, copy=False), out)
        return _into(call_reduction(op_name, _prepared(a, dtype, op_name), axis, keepdims), out)
    return public(function, name, f"``np.{name}``: the ``{op_name}`` operator over ``axis``.")


def _into(result, out):
    if out is None:
        return result
    out[...] = result
    return out


def _arg_reduction(name):
    def function(a, axis=None, out=None, keepdims=False):
        a = operand(a)
        if axis is not None and a.ndim == 0:    # NumPy: a 0-d array's axis 0 (or -1)
            if axis not in (0, -1):             # MXNet's operator error for other axes
                raise InvalidShapeError(f"{name}: axis {axis} is out of range for a "
                                        f"zero-dimensional array")
            axis = None
        flat = a.reshape(-1) if axis is None else a
        if axis is None and keepdims:               # (1,) * a.ndim
            result = numpy_shaped(call_np(name, flat, axis=0), (1,) * a.ndim)
        else:
            result = call_reduction(name, flat, 0 if axis is None else axis, keepdims)
        return _into(result.astype(onp.int64), out)
    return public(function, name, f"``np.{name}``: the index of the {name[3:]}imum (int64).")


for _name, _op in REDUCTIONS.items():
    globals()[_name] = _reduction(_name, _op)
argmax, argmin = _arg_reduction("argmax"), _arg_reduction("argmin")


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The variance over ``axis``: ``mean((a - mean(a))**2) * n / (n - ddof)``."""
    a = _prepared(a, dtype, "mean")
    centered = a - mean(a, axis=axis, keepdims=True)
    count = a.size // builtins.max(int(onp.prod(reduced_shape(a.shape, axis, True))), 1)
    result = mean(centered * centered, axis=axis, keepdims=keepdims)
    if ddof:
        with onp.errstate(divide="ignore", invalid="ignore"):   # ddof >= n: inf, as NumPy
            result = result * float(onp.float64(count) / builtins.max(count - ddof, 0))
    return _into(result, out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The standard deviation over ``axis`` (the square root of ``var``)."""
    return _into(call_np("sqrt", var(a, axis, dtype, None, ddof, keepdims)), out)


def average(a, axis=None, weights=None, returned=False):
    """The (weighted) mean over ``axis``."""
    a = _prepared(a, None, "mean")
    if weights is None:
        from .creation import full_like
        result = mean(a, axis=axis)
        # MXNet 1.9.1 gives the count as a zero-dimensional array (NumPy: avg's shape)
        total = full_like(result, a.size / builtins.max(result.size, 1), shape=())
    else:
        from .manipulation import broadcast_to
        weights = operand(weights)
        if weights.shape != a.shape:            # NumPy's rule: 1-D weights along ``axis``
            if axis is None or weights.ndim != 1 or not isinstance(axis, int):
                raise TypeError("average: weights of another shape than a must be 1-D and "
                                "need one int axis")
            if weights.shape[0] != a.shape[axis]:
                raise ValueError("average: length of weights not compatible with the axis")
            along = [1] * a.ndim
            along[axis] = -1
            total = sum(weights)        # zero-dimensional, as MXNet 1.9.1 (NumPy: avg's shape)
            weights = broadcast_to(weights.reshape(along), a.shape)
        else:
            total = sum(weights, axis=axis)
        result = sum(a * weights, axis=axis) / total
    return (result, total) if returned else result


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along ``axis`` (the flattened array when None): the ``_np_cumsum`` operator."""
    a = _prepared(a, dtype, "_np_cumsum")
    result = call_np("_np_cumsum", a.reshape(-1) if axis is None else a,
                     axis=0 if axis is None else axis)
    return _into(result, out)
