"""Helpers shared by operator declarations: broadcasting, axes, gradient reduction, channels.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/broadcast_reduce_op.h``.
"""
__all__ = ["broadcast_shape", "sum_to_shape", "normalize_axes", "normalize_axis", "reduced_shape",
           "channel_view", "on_host", "to_device", "holds_negative_zero", "first_zero_along",
           "numpy_keeps_right_zero", "sum_in_order", "scalar_in"]

import functools
import math

import numpy as np


def scalar_in(dtype, value):
    """The number ``value`` in ``dtype``, as MXNet's kernels take a scalar parameter (a
    double) for an array of ``dtype``: the C cast.  For an integer dtype that is x86's
    conversion, toward zero, to a 32-bit integer (64-bit for 8-byte dtypes; out of range it
    gives the lowest one), then the dtype's low bits: 300 as uint8 is 44, -1 is 255, 2**40
    as int32 is -2**31.  ``dtype.type(300)`` would raise OverflowError under NumPy 2."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        return dtype.type(value)
    bits = 64 if dtype.itemsize == 8 else 32
    number = float(value)
    whole = math.trunc(number) if math.isfinite(number) else -(1 << (bits - 1))
    if not -(1 << (bits - 1)) <= whole < 1 << (bits - 1):
        whole = -(1 << (bits - 1))
    size = 8 * dtype.itemsize
    whole %= 1 << size
    if dtype.kind == "i" and whole >= 1 << (size - 1):
        whole -= 1 << size
    return dtype.type(whole)


def broadcast_shape(op, lhs, rhs):
    """numpy's broadcasting rule for two shapes, with an error naming ``op``."""
    ndim = max(len(lhs), len(rhs))
    left = (1,) * (ndim - len(lhs)) + tuple(lhs)
    right = (1,) * (ndim - len(rhs)) + tuple(rhs)
    result = []
    for a, b in zip(left, right):
        if a != b and a != 1 and b != 1:
            raise op.shape_error(
                f"operands could not be broadcast together: lhs {tuple(lhs)}, rhs {tuple(rhs)}")
        result.append(b if a == 1 else a)
    return tuple(result)


def sum_to_shape(xp, grad, shape):
    """Sum ``grad`` over the axes that broadcasting expanded, giving ``shape``."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + index for index, size in enumerate(shape)
        if size == 1 and grad.shape[extra + index] != 1)
    summed = xp.sum(grad, axis=axes, keepdims=True) if axes else grad
    return summed.reshape(shape)


def as_shape(array, shape):
    """``array`` reshaped to ``shape``; itself when it has that shape already.  A reshape to
    the same shape is a view, and an executor copies a view before it keeps it as an output
    or gradient (``NDArray._write``): a gradient handed back as it is saves that copy.
    ``shape`` None leaves ``array`` as it is (as ``reshape(None)`` would)."""
    if shape is None or array.shape == tuple(shape):
        return array
    return array.reshape(shape)


def normalize_axes(op, axis, ndim, exclude=False):
    """Axis parameter -> sorted tuple of non-negative axes (None means all)."""
    if axis is None or axis == ():
        axes = tuple(range(ndim))
    else:
        items = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = []
        for item in items:
            if not -ndim <= item < max(ndim, 1):
                raise op.shape_error(f"axis {item} is out of range for an input of {ndim} dims")
            axes.append(item % max(ndim, 1))
        axes = tuple(sorted(set(axes)))
    if exclude:
        axes = tuple(a for a in range(ndim) if a not in axes)
    return axes


def normalize_axis(op, axis, ndim):
    """One axis, negative allowed, checked against ``ndim``."""
    return normalize_axes(op, axis, ndim)[0]


def reduced_shape(shape, axes, keepdims):
    """The shape after reducing ``axes``; MXNet gives (1,) for a full reduction."""
    if keepdims:
        return tuple(1 if i in axes else size for i, size in enumerate(shape))
    result = tuple(size for i, size in enumerate(shape) if i not in axes)
    return result if result else (1,)


def channel_view(vector, ndim, axis):
    """Reshape a per-channel vector so that it broadcasts along ``axis`` of an ``ndim`` array."""
    shape = [1] * ndim
    shape[axis] = vector.size
    return vector.reshape(shape)


def on_host(xp, array):
    """``array`` as a numpy array (CuPy arrays are copied to the host).  For the few
    operators whose work is a sequential loop over a handful of items -- greedy
    non-maximum suppression, box matching -- which runs on the CPU either way."""
    return xp.asnumpy(array) if hasattr(xp, "asnumpy") else array


def to_device(xp, array, dtype=None):
    """A host (numpy) result back on ``xp``'s device, in ``dtype`` when given."""
    result = xp.asarray(array)
    return result.astype(dtype, copy=False) if dtype is not None else result


def sigmoid(xp, x):
    """``1 / (1 + exp(-x))``, as MXNet computes it, in place on one new buffer.  (Not
    ``(1 + tanh(x / 2)) / 2``: in float32 that cancels to exactly 0 below x = -17, where
    MXNet gives 2e-22 at -50 -- and code that compares probabilities with labels counts
    the difference.)  Below -88 in float32 ``exp(-x)`` overflows to inf and the result is
    0, as in MXNet, without numpy's overflow warning."""
    result = xp.asarray(xp.negative(x), dtype=x.dtype)  # a 0-d input: an array, too
    with np.errstate(over="ignore"):
        xp.exp(result, out=result)
    result += 1
    xp.divide(1, result, out=result)    # as reciprocal (both round 1/x once), but vectorised
    return result


def holds_negative_zero(xp, data):
    """Whether ``data`` (an array of floats) holds a -0: read as integers of the same width,
    its bits (the sign bit alone) are the lowest integer, so one integer ``min`` tells.
    The cheap test that lets an operator skip the work of choosing between tied zeros."""
    data = xp.asarray(data)
    if data.dtype.kind != "f" or data.size == 0:
        return False
    integers = data.view(f"i{data.dtype.itemsize}")
    return int(integers.min()) == int(np.iinfo(integers.dtype).min)


def first_zero_along(xp, data, axes):
    """The first zero (its sign kept) of ``data`` over ``axes`` in row-major order, with the
    axes kept as size 1 (0 where there is none): the zero a sequential ``if (v > best)``
    or ``if (!(best >= v))`` loop keeps when the extremum is 0."""
    kept = [axis for axis in range(data.ndim) if axis not in axes]
    taps = xp.transpose(data, kept + list(axes))
    taps = taps.reshape(taps.shape[:len(kept)] + (-1,))
    first = (taps == 0).argmax(axis=-1)[..., None]
    result = xp.take_along_axis(taps, first, axis=-1)[..., 0]
    return result.reshape([1 if axis in axes else n for axis, n in enumerate(data.shape)])


@functools.lru_cache(maxsize=None)
def numpy_keeps_right_zero(dtype, larger, scalar):
    """Whether numpy's ``maximum`` (``larger``; else ``minimum``) on this machine already
    gives the right-hand one of tied +0 and -0 for ``dtype``, as MXNet's kernel, both in its
    vector loop and in the scalar loop of an array's tail (74 elements: both run), against
    an array or a scalar: then ``extremum`` skips its check for a -0 (two integer ``min``
    passes that doubled the time of ``maximum(x, y)``).  x86's float32 and float64 loops do
    (``maxps`` returns its second operand); float16's keeps the left one."""
    left = np.array([-0.0, 0.0] * 37, dtype)
    function = np.maximum if larger else np.minimum
    if scalar:
        return all(np.array_equal(np.signbit(function(left, left.dtype.type(zero))),
                                  np.full(left.shape, np.signbit(zero)))
                   for zero in (0.0, -0.0))
    right = -left
    return np.array_equal(np.signbit(function(left, right)), np.signbit(right))


def sum_in_order(xp, values, axis):
    """The sum along ``axis`` (kept, of size 1) added one term after the other, as a plain C
    loop does (numpy's own sum adds pairwise): a running sum's last element."""
    if values.shape[axis] <= 1:
        return values.sum(axis=axis, keepdims=True)
    return xp.take(xp.cumsum(values, axis=axis), [-1], axis=axis)
