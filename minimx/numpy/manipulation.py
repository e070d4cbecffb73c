"""Shape manipulation with NumPy's names and arguments: ``reshape``, ``transpose``,
``expand_dims``, ``squeeze``, ``concatenate``, ``stack``, ``split``, ``tile``, ``repeat``,
``where``, ``clip`` and friends.

Lesson: 03-two-frontends-one-engine.  Each is one call of a registered operator (``Concat``,
``stack``, ``_split_v2``, ``tile``, ``repeat``, ``where``, ``clip``, ...) with NumPy's
keyword names translated to the operator's parameters.
"""
import math
import numbers

import numpy as onp

from ..base import MXNetError
from ..ndarray import NDArray
from ..util import np_shape
from .adapter import (as_operand_like, call_np, is_symbolic, normalize_axis, numpy_shaped,
                      operand)
from .multiarray import as_np

__all__ = ["reshape", "transpose", "expand_dims", "squeeze", "concatenate", "stack", "vstack",
           "hstack", "split", "array_split", "tile", "repeat", "swapaxes", "moveaxis", "flip",
           "ravel", "broadcast_to", "broadcast_arrays", "where", "clip", "atleast_1d",
           "atleast_2d", "atleast_3d", "vsplit", "hsplit", "dsplit", "sort", "argsort", "take",
           "diag", "tril", "triu", "roll", "rot90", "diagonal", "trace", "nan_to_num",
           "flipud", "fliplr", "column_stack", "dstack", "diff", "ediff1d", "append"]


def reshape(a, newshape, order="C"):
    return operand(a).reshape(newshape, order=order)


def ravel(a, order="C"):
    return operand(a).reshape(-1, order=order)


def transpose(a, axes=None):
    a = operand(a)
    return call_np("transpose", a, axes=() if axes is None else tuple(axes))


def swapaxes(a, axis1, axis2):
    return call_np("swapaxes", operand(a), dim1=axis1, dim2=axis2)


def moveaxis(a, source, destination):
    a = operand(a)
    sources = [s % a.ndim for s in ((source,) if isinstance(source, numbers.Integral) else source)]
    targets = [d % a.ndim for d in ((destination,) if isinstance(destination, numbers.Integral)
                                    else destination)]
    order = [axis for axis in range(a.ndim) if axis not in sources]
    for target, source_axis in sorted(zip(targets, sources)):
        order.insert(target, source_axis)
    return transpose(a, order)


def expand_dims(a, axis):
    return call_np("expand_dims", operand(a), axis=axis)


def squeeze(a, axis=None):
    a = operand(a)
    if is_symbolic(a):                  # the operator with NumPy's rule (() when all go)
        return call_np("_np_squeeze", a, axis=axis)
    if a.ndim == 0:
        normalize_axis(axis, 0)         # NumPy accepts axis 0 and -1 of a 0-d array
        return a
    axes = normalize_axis(axis, a.ndim) if axis is not None else \
        tuple(i for i, size in enumerate(a.shape) if size == 1)
    for index in axes:
        if a.shape[index] != 1:
            raise ValueError(f"cannot select an axis to squeeze out which has size not equal "
                             f"to one (axis {index} of shape {a.shape})")
    shape = tuple(size for i, size in enumerate(a.shape) if i not in axes)
    return a.reshape(shape)


def flip(m, axis=None):
    m = operand(m)
    if is_symbolic(m) and axis is not None:
        return call_np("reverse", m, axis=(axis,) if isinstance(axis, numbers.Integral) else
                       tuple(axis))
    axes = normalize_axis(axis, m.ndim)
    return call_np("reverse", m, axis=axes) if axes else call_np("_copy", m)


def concatenate(seq, axis=0, out=None):
    arrays = [operand(x) for x in seq]
    if axis is None:
        arrays, axis = [x.reshape(-1) for x in arrays], 0
    return call_np("Concat", *arrays, dim=axis, out=out)


def stack(arrays, axis=0, out=None):
    return call_np("stack", *[operand(x) for x in arrays], axis=axis, out=out)


def vstack(tup):
    return concatenate([atleast_2d(x) for x in tup], axis=0)


def hstack(tup):
    arrays = [atleast_1d(x) for x in tup]
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def _at_least(ndim, name):
    """``atleast_<ndim>d``: each array with new axes of size 1 until it has ``ndim`` axes
    (NumPy's placement: a vector becomes a row; 3-D puts it in the middle)."""
    def one(a):
        a = operand(a)
        if a.ndim >= ndim:
            return a
        if a.ndim == 0:
            return a.reshape((1,) * ndim)
        if ndim == 2 or a.ndim == 2:
            shape = (1,) * (ndim - a.ndim) + a.shape if ndim == 2 else a.shape + (1,)
            return a.reshape(shape)
        return a.reshape(1, a.shape[0], 1)

    def function(*arys):
        arrays = [one(a) for a in arys]
        return arrays[0] if len(arrays) == 1 else arrays
    function.__name__ = function.__qualname__ = name
    return function


atleast_1d, atleast_2d, atleast_3d = (_at_least(1, "atleast_1d"), _at_least(2, "atleast_2d"),
                                      _at_least(3, "atleast_3d"))


def split(ary, indices_or_sections, axis=0):
    """Equal parts (``sections`` must divide the axis) or parts between indices."""
    ary = operand(ary)
    if isinstance(indices_or_sections, numbers.Integral) and not is_symbolic(ary) and \
            ary.shape[axis] % indices_or_sections:
        raise ValueError("array split does not result in an equal division")
    return as_np(list(_split(ary, indices_or_sections, axis)))


def _split(ary, indices_or_sections, axis):
    if isinstance(indices_or_sections, numbers.Integral) and indices_or_sections == 1:
        return [call_np("_copy", ary)]
    if not isinstance(indices_or_sections, numbers.Integral):
        indices_or_sections = tuple(int(i) for i in indices_or_sections)
    parts = ary.split_v2(indices_or_sections, axis=axis)    # a Symbol composes the node
    return parts if isinstance(parts, (list, tuple)) else [parts]


def array_split(ary, indices_or_sections, axis=0):
    """Like ``split``; unequal sections are allowed (the first ones one larger)."""
    ary = operand(ary)
    if isinstance(indices_or_sections, numbers.Integral):
        size, sections = ary.shape[axis], indices_or_sections
        bounds = onp.cumsum([size // sections + (i < size % sections) for i in range(sections)])
        indices_or_sections = tuple(int(b) for b in bounds[:-1])
    elif not isinstance(indices_or_sections, numbers.Integral):
        indices_or_sections = tuple(int(i) for i in indices_or_sections)
    return as_np(list(_split(ary, indices_or_sections, axis)))


def tile(A, reps):  # noqa: N803 (NumPy's name)
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    with np_shape(True):                # a repetition of 0 is a zero-size axis
        return call_np("tile", operand(A), reps=reps)


def repeat(a, repeats, axis=None):
    return call_np("repeat", operand(a), repeats=repeats, axis=axis)


def broadcast_to(array, shape):
    """``array`` broadcast to ``shape``: the ``_npi_broadcast_to`` operator (a zero-size
    axis is a size, so the result of a recorded call is recorded too; ``-2`` keeps the
    input's size, MXNet's extension; shapes that do not fit raise a ValueError)."""
    array = operand(array)
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    if not is_symbolic(array) and array.shape == shape:
        return array
    return call_np("_npi_broadcast_to", array, shape=shape)


def broadcast_arrays(*args):
    arrays = [operand(a) for a in args]
    if any(is_symbolic(a) for a in arrays):
        shapes = _traced_shapes(arrays)
        if shapes is None or 0 in onp.broadcast_shapes(*shapes):
            return _broadcast_symbols(arrays)
    shape = onp.broadcast_shapes(*[a.shape for a in arrays])
    return [broadcast_to(a, shape) for a in arrays]


def _traced_shapes(arrays):
    """The operands' shapes, or None when a Symbol does not know its own (no trace)."""
    try:
        return [a.shape for a in arrays]
    except MXNetError:
        return None


def _broadcast_symbols(arrays):
    """Broadcasting without the shapes: the broadcast sum of the operands' int8 zeros has
    the common shape, and ``broadcast_like`` gives it to each (``nan * 0`` would not do).
    ``broadcast_like`` needs operands of one ndim: a ``()`` with a ``(4, 2)`` fails when the
    graph runs, with the operator's error."""
    zeros = [call_np("zeros_like", a).astype(onp.int8) for a in arrays]
    common = zeros[0]
    for zero in zeros[1:]:
        common = call_np("broadcast_add", common, zero)
    return [call_np("broadcast_like", a, common) for a in arrays]


def where(condition, x=None, y=None):
    """Elements of ``x`` where ``condition``, else of ``y`` (all three broadcast); with only
    ``condition``: ``nonzero(condition)``, a value-dependent shape."""
    if x is None and y is None:
        from .value_shapes import nonzero
        return nonzero(condition)
    condition = operand(condition)
    x = operand(x, ctx=condition.context)
    y = operand(y, ctx=condition.context)
    if None not in (x.dtype, y.dtype) and x.dtype != y.dtype:      # (a Symbol outside a
        y = y.astype(x.dtype)                                          # trace: no dtype)
    condition, x, y = broadcast_arrays(condition, x, y)
    if None not in (x.dtype, condition.dtype):  # a graph's where takes any condition dtype
        condition = condition.astype(x.dtype, copy=False)
    return call_np("where", condition, x, y)


def clip(a, a_min, a_max, out=None):
    """``a`` limited to ``[a_min, a_max]`` (either may be None)."""
    a = operand(a)
    if isinstance(a_min, NDArray) or isinstance(a_max, NDArray) or (
            a_min is not None and a_max is not None and a_min > a_max):
        from .ufuncs import maximum, minimum       # NumPy's rule: minimum(maximum(a, lo), hi)
        low = a if a_min is None else maximum(a, a_min)
        return low if a_max is None else minimum(low, a_max, out=out)
    low = -onp.inf if a_min is None else float(a_min)
    high = onp.inf if a_max is None else float(a_max)
    if onp.issubdtype(a.dtype, onp.integer):           # bounds beyond the type clip nothing
        info = onp.iinfo(a.dtype)
        low, high = max(low, info.min), min(high, info.max)
    return numpy_shaped(call_np("clip", a, a_min=low, a_max=high, out=out), a.shape)


def _split_along(axis, min_ndim, name):
    def function(ary, indices_or_sections):
        ary = operand(ary)
        shapes = _traced_shapes([ary])
        if shapes is None:              # a Symbol outside a trace: ndim unknown, assume >= 2
            return split(ary, indices_or_sections, axis=axis)
        ndim = len(shapes[0])
        if ndim < min_ndim:
            raise ValueError(f"{name} only works on arrays of {min_ndim} or more dimensions")
        return split(ary, indices_or_sections, axis=axis if ndim > 1 else 0)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``split`` along axis {axis} (of arrays of {min_ndim}+ dimensions)."
    return function


vsplit, hsplit, dsplit = (_split_along(0, 2, "vsplit"), _split_along(1, 1, "hsplit"),
                          _split_along(2, 3, "dsplit"))


def sort(a, axis=-1, kind=None, order=None):
    """The sorted values along ``axis`` (the flattened array when None)."""
    a = operand(a)
    return call_np("sort", a.reshape(-1) if axis is None else a, axis=-1 if axis is None
                   else axis)


def argsort(a, axis=-1, kind=None, order=None):
    """The indices that sort ``a`` along ``axis`` (int64)."""
    a = operand(a)
    return call_np("argsort", a.reshape(-1) if axis is None else a,
                   axis=-1 if axis is None else axis, dtype="int64")


def take(a, indices, axis=None, mode="raise", out=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` when None)."""
    a, indices = operand(a), operand(indices)
    if mode == "raise":
        mode = "clip"             # the operator clips or wraps; NumPy's raise would need a sync
    source = a.reshape(-1) if axis is None else a
    return call_np("take", source, indices, axis=0 if axis is None else axis, mode=mode,
                   out=out)


def diag(v, k=0):
    """The ``k``-th diagonal of a matrix (empty outside it), or a matrix with vector ``v``
    on it."""
    return call_np("_npi_diag", operand(v), k=k)


# -- the operators of op/numpy_rearrange.py, with NumPy's arguments -------------------------
def tril(m, k=0):
    """The lower triangle of the last two axes (below diagonal ``k``), zero above."""
    return call_np("_npi_tril", operand(m), k=k, lower=True)


def triu(m, k=0):
    """The upper triangle of the last two axes (above diagonal ``k``), zero below."""
    return call_np("_npi_tril", operand(m), k=k, lower=False)


def _tuple(value):
    return (value,) if isinstance(value, numbers.Integral) else tuple(value)


def roll(a, shift, axis=None):
    """Elements shifted by ``shift`` along ``axis`` (None: the flattened array), wrapping."""
    return call_np("_npi_roll", operand(a), shift=_tuple(shift),
                   axis=None if axis is None else _tuple(axis))


def rot90(m, k=1, axes=(0, 1)):
    return call_np("_npi_rot90", operand(m), k=k, axes=tuple(axes))


def diagonal(a, offset=0, axis1=0, axis2=1):
    return call_np("_npi_diagonal", operand(a), offset=offset, axis1=axis1, axis2=axis2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    a = operand(a)
    result = call_np("_npi_trace", a if dtype is None else a.astype(dtype), offset=offset,
                     axis1=axis1, axis2=axis2, out=out)
    return numpy_shaped(result, ()) if a.ndim == 2 and not is_symbolic(a) else result


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """nan, +inf, -inf replaced by numbers; ``copy=False`` writes into ``x``."""
    x = operand(x)
    result = call_np("_npi_nan_to_num", x, nan=nan, posinf=posinf, neginf=neginf,
                     out=None if copy or is_symbolic(x) else x)
    return result


def flipud(m):
    return flip(m, 0)


def fliplr(m):
    return flip(m, 1)


def column_stack(tup):
    """1-D arrays become columns, 2-D ones stay; then joined along axis 1."""
    arrays = [operand(a) for a in tup]
    return concatenate([a.reshape(-1, 1) if a.ndim < 2 else a for a in arrays], axis=1)


def dstack(tup):
    return concatenate(atleast_3d(*tup) if len(tup) > 1 else [atleast_3d(*tup)], axis=2)


def diff(a, n=1, axis=-1, prepend=None, append=None):  # noqa: A002 (NumPy's name)
    """The ``n``-th difference along ``axis``, summed as MXNet's kernel sums it: from 0, the
    shifted copies ``a[k:]`` for ``k = n, n-1, ..., 0``, each times ``(-1)**(n-k) * C(n, k)``
    (``slice_axis`` calls, so the gradient comes with them).  NumPy differences ``n`` times,
    ``(a2 - a1) - (a1 - a0)`` where MXNet adds ``(0 + a2 - 2 a1) + a0``: the last bit differs."""
    if prepend is not None or append is not None:
        raise NotImplementedError("diff: prepend= and append= are not supported")
    a = operand(a)
    if n <= 0 or (not is_symbolic(a) and (not a.ndim or a.shape[axis] <= n)):
        for _ in range(n):                  # nothing to sum: differences of what is left
            a = call_np("slice_axis", a, axis=axis, begin=1, end=None) - \
                call_np("slice_axis", a, axis=axis, begin=0, end=-1)
        return a
    total = None
    for k in range(n, -1, -1):              # a[k:len - (n - k)], no shape needed
        term = call_np("slice_axis", a, axis=axis, begin=k, end=k - n if k < n else None)
        factor = (-1) ** (n - k) * math.comb(n, k)
        if factor != 1:
            term = term * factor
        total = term + 0 if total is None else total + term
    return total


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened ``ary``, with ``to_begin`` / ``to_end`` around."""
    ary = operand(ary)

    def flat(extra):        # numbers and lists take ``ary``'s dtype, as NumPy's
        if isinstance(extra, NDArray) or is_symbolic(extra):
            return extra.reshape(-1)
        if is_symbolic(ary) and isinstance(extra, numbers.Number):
            return as_operand_like(extra, ary).reshape(-1)     # a constant node of the graph
        return operand(extra, dtype=ary.dtype).reshape(-1)
    parts = [diff(ary.reshape(-1))]
    if to_begin is not None:
        parts.insert(0, flat(to_begin))
    if to_end is not None:
        parts.append(flat(to_end))
    return concatenate(parts) if len(parts) > 1 else parts[0]


def append(arr, values, axis=None):
    """``values`` after ``arr`` along ``axis`` (None: both flattened)."""
    arr, values = operand(arr), operand(values)
    if axis is None:
        return concatenate([arr.reshape(-1), values.reshape(-1)])
    return concatenate([arr, values], axis=axis)
