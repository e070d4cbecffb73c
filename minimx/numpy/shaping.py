"""``np.pad``, ``diagflat``, ``indices``, ``diag_indices_from``, ``percentile``/``quantile``,
``bincount``, ``unravel_index``, ``resize``, ``delete`` and ``insert`` with MXNet 1.9.1's
arguments.

Lesson: 03-two-frontends-one-engine.  The first five, ``unravel_index`` and ``resize``
call the operators of ``op/numpy_shaping.py``, ``delete``/``insert`` those of
``op/numpy_insert_delete.py`` (an index array as ``obj`` is waited for: the result's shape
depends on it).  ``bincount``'s result length is the largest input value, so it waits for
its input (a value-dependent shape, as ``unique``).
"""
import numbers

import numpy as onp

from ..base import (InvalidParameterError, InvalidShapeError, InvalidTypeError,
                    normalize_dtype)
from ..ndarray import NDArray
from .adapter import call_np, is_symbolic, numpy_shaped, operand
from .creation import _ctx, array
from .value_shapes import wait_for_values

__all__ = ["pad", "diagflat", "indices", "diag_indices_from", "percentile", "quantile",
           "bincount", "unravel_index", "resize", "delete", "insert"]

_UNSUPPORTED_PAD_MODES = ("linear_ramp", "wrap", "median", "mean", "empty")
_PAD_KEYWORDS = {"constant": {"constant_values"}, "edge": set(), "reflect": {"reflect_type"},
                 "symmetric": {"reflect_type"}, "maximum": {"stat_length"},
                 "minimum": {"stat_length"}}


def pad(x, pad_width=None, mode="constant", **kwargs):
    """``x`` padded by ``pad_width`` (a tuple: one int, one pair, or a pair per axis)."""
    x = operand(x)
    if not isinstance(pad_width, tuple):
        raise TypeError(f"pad: pad_width must be a tuple, got {type(pad_width).__name__}")
    if onp.asarray(pad_width).dtype.kind not in "iu":
        raise TypeError("pad: pad_width must hold integers")
    if callable(mode) or mode in _UNSUPPORTED_PAD_MODES:
        raise ValueError(f"pad: mode {mode!r} is not supported (MXNet 1.9.1 has "
                         f"constant, edge, reflect, symmetric, maximum and minimum)")
    unexpected = set(kwargs) - _PAD_KEYWORDS[mode]
    if unexpected:
        raise ValueError(f"pad: unexpected keywords for mode {mode!r}: {sorted(unexpected)}")
    if kwargs.get("reflect_type", "even") not in ("even", None):
        raise ValueError(f"pad: unsupported reflect_type {kwargs['reflect_type']!r}")
    if kwargs.get("stat_length") is not None:
        raise ValueError(f"pad: unsupported stat_length {kwargs['stat_length']!r}")
    widths = onp.broadcast_to(onp.asarray(pad_width), (x.ndim, 2))
    params = {"pad_width": tuple(map(tuple, widths.tolist())), "mode": mode}
    if mode == "constant":
        # NumPy's meaning; MXNet 1.9.1's np.pad loses constant_values (pads with 0)
        params["constant_value"] = kwargs.get("constant_values", 0)
    return call_np("_npi_pad", x, **params)


def diagflat(array, k=0):  # noqa: A002 (MXNet's name)
    """A square matrix with the flattened ``array`` on diagonal ``k``."""
    return call_np("_np_diagflat", operand(array), k=k)


def indices(dimensions, dtype=onp.int32, ctx=None):
    """The index grid of shape ``(len(dimensions), *dimensions)``."""
    if isinstance(dimensions, numbers.Integral):
        dimensions = (dimensions,)
    return call_np("_npi_indices", dimensions=tuple(dimensions),
                   dtype=normalize_dtype(dtype).name, ctx=_ctx(ctx))


def diag_indices_from(arr):
    """The indices of the main diagonal of ``arr`` (shape ``(n, ..., n)``): a tuple per axis."""
    arr = operand(arr)
    grid = call_np("_npi_diag_indices_from", arr)
    return tuple(grid[i] for i in range(arr.ndim))


def _interpolation(name, interpolation, method):
    """The interpolation asked for: ``interpolation=`` (MXNet's and NumPy 1's keyword) or
    ``method=`` (NumPy 2's, which host NumPy passes on when ``numpy.percentile(x)`` of an
    mx.np array dispatches here); not both."""
    if method is None:
        return interpolation
    if interpolation != "linear":
        raise TypeError(f"{name}: give interpolation= or method=, not both")
    return method


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
               keepdims=False, *, method=None):
    """The ``q``-th percentiles (0..100) of ``a`` along ``axis`` (no gradient, as MXNet's)."""
    if overwrite_input is not None:
        raise NotImplementedError("percentile: overwrite_input is not supported")
    a = operand(a)
    axis = None if axis is None else (axis,) if isinstance(axis, numbers.Integral) else axis
    params = {"axis": axis, "interpolation": _interpolation("percentile", interpolation, method),
              "keepdims": keepdims}
    if isinstance(q, numbers.Real):
        result = call_np("_npi_percentile", a, q_scalar=float(q), out=out, **params)
        if axis is None and not keepdims and not is_symbolic(result):
            return numpy_shaped(result, ())
        return result
    if not (isinstance(q, NDArray) or is_symbolic(q)):
        raise TypeError(f"percentile: q must be a number or an ndarray, got "
                        f"{type(q).__name__}")
    return call_np("_npi_percentile", a, q, out=out, **params)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
             keepdims=False, *, method=None):
    """The ``q``-th quantiles (0..1): ``percentile`` at ``100 * q``."""
    return percentile(a, q * 100, axis, out, overwrite_input,
                      _interpolation("quantile", interpolation, method), keepdims)


def bincount(x, weights=None, minlength=0):
    """How often each value 0..max(x) occurs in the 1-D int ``x`` (summing ``weights`` if
    given).  The length depends on the values: it waits for ``x`` (a sync point)."""
    x = operand(x)
    if minlength < 0:
        raise InvalidParameterError(f"bincount: minlength must be non-negative, got "
                                    f"{minlength}")
    if x.ndim > 1:
        raise InvalidShapeError(f"bincount: the input must be 1-D, got shape {x.shape}")
    if x.dtype.kind not in "iu":
        raise InvalidTypeError(f"bincount: the input must be an int array, got {x.dtype}")
    values = wait_for_values(x)
    if values.size and values.min() < 0:
        raise InvalidParameterError(f"bincount: the input must be non-negative, got "
                                    f"{values.min()}")
    if weights is None:
        counts = onp.bincount(values.reshape(-1), minlength=minlength).astype(x.dtype)
    else:
        weights = operand(weights)
        if weights.shape != x.shape:
            raise InvalidShapeError(f"bincount: weights must have the input's shape {x.shape}, "
                                    f"got {weights.shape}")
        counts = onp.bincount(values.reshape(-1), wait_for_values(weights).reshape(-1),
                              minlength).astype(weights.dtype)
    return array(counts, dtype=counts.dtype, ctx=x.context)


def unravel_index(indices, shape, order="C"):  # noqa: A002 (NumPy's names)
    """The coordinates of flat ``indices`` in an array of ``shape``, in the indices' dtype
    (numbers give NumPy's answer, as MXNet's)."""
    if order != "C":
        raise NotImplementedError("unravel_index: only order='C' is supported")
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    if not (isinstance(indices, NDArray) or is_symbolic(indices)):
        return onp.unravel_index(indices, shape)
    coords = call_np("_npi_unravel_index_fallback", operand(indices), shape=shape)
    return tuple(coords[i] for i in range(len(shape)))


def resize(a, new_shape):
    """The flattened ``a`` repeated (or cut) to fill ``new_shape``.  No gradient, as MXNet's."""
    new_shape = (new_shape,) if isinstance(new_shape, numbers.Integral) else tuple(new_shape)
    return call_np("_npi_resize_fallback", operand(a), new_shape=new_shape)


def _where(name, obj):
    """``obj`` of delete/insert as the operators' parameters, and the operator's suffix."""
    if isinstance(obj, numbers.Integral) and not isinstance(obj, bool):
        return {"int_ind": int(obj)}, "scalar"
    if isinstance(obj, slice):
        return {"start": obj.start, "stop": obj.stop, "step": obj.step}, "slice"
    if isinstance(obj, NDArray):        # the result's shape depends on the values: wait
        return {"indices": tuple(wait_for_values(obj).astype(onp.int64).reshape(-1))}, "tensor"
    raise TypeError(f"{name}: 'obj' can not support type {type(obj)}")


def delete(arr, obj, axis=None):
    """``arr`` without the entries ``obj`` (an int, a slice or an index array) along
    ``axis`` (None: flattened).  An index array is waited for (a sync point)."""
    where, _ = _where("delete", obj)
    return call_np("_npi_delete", operand(arr), axis=axis, **where)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` (a number or an array) before ``obj`` (an int, a slice or an
    index array) along ``axis`` (None: flattened)."""
    if isinstance(obj, NDArray) and obj.dtype != onp.int64:
        raise InvalidTypeError(f"insert: an index array must be int64, got {obj.dtype}")
    where, kind = _where("insert", obj)
    arr = operand(arr)
    if isinstance(values, numbers.Real):
        return call_np(f"_npi_insert_{kind}", arr, val=float(values), axis=axis, **where)
    return call_np(f"_npi_insert_{kind}", arr, operand(values), axis=axis, **where)
