"""What a max-pooling window gives, and which tap its gradient goes to, as in MXNet.

Lesson: 09-gluon.  MXNet's CPU kernel (``src/operator/nn/pool.h``) starts every window at
the type's lowest finite value (``-3.4e38`` for float32) and walks the taps in row-major
order, taking one only when it is *strictly greater*: ``if (v > out) out = v``.  Three
corners follow that a plain ``max`` gets wrong:

* a NaN tap is never taken (``NaN > out`` is false): the window's maximum skips it;
* a window of nothing but NaN or ``-inf`` keeps the start, the lowest finite value;
* of taps that tie, the first is kept: where ``+0`` and ``-0`` tie, the result has the
  first one's sign.

minimx's kernels take each tap with ``fmax`` (a maximum that skips NaN, as fast as
``maximum``) and ``follow_mxnet`` then mends the other two corners.  Which of two equal
zeros ``fmax`` returns is up to the machine (x86's ``maxps`` returns the second, Arm's
``fmaxnm`` returns +0), so the windows whose maximum is 0 are redone from their first zero
tap -- only when the input holds a ``-0`` at all, which one integer ``min`` tells: read as
an integer of the same width, ``-0``'s bits (the sign bit alone) are the lowest integer.

The gradient goes to the window's first tap equal to its maximum (``first_winner``).  A
window whose maximum is the lowest finite value because nothing beat it has no such tap:
MXNet's own kernel then sends its gradient nowhere, while the oneDNN kernel it uses for
float32 in channels-first layouts sends it to the window's first tap (dropped when that
tap is padding).  minimx does the same as each.
"""
import numpy

from .common import first_zero_along, holds_negative_zero


def lowest_finite(dtype):
    """Where MXNet's max pooling starts a window: the type's lowest finite value."""
    kind = numpy.dtype(dtype)
    return numpy.finfo(kind).min if kind.kind == "f" else numpy.iinfo(kind).min


def nan_skipping_max(xp, windows, axes):
    """The maximum of ``windows`` over ``axes``, NaN skipped (NaN if all are)."""
    if xp is numpy:
        return numpy.fmax.reduce(windows, axis=axes)
    if windows.dtype.kind != "f":
        return windows.max(axis=axes)
    return xp.where(xp.isnan(windows), -xp.inf, windows).max(axis=axes)


def follow_mxnet(xp, result, data, windows):
    """Mend ``result``, the NaN-skipping maximum of every window, into MXNet's (in place).
    ``windows()`` gives the window view ``(N, C, *out, *kernel)`` of ``data``, padded
    with anything but 0; it is asked for only when tied zeros may differ in sign."""
    if result.dtype.kind != "f" or result.size == 0:
        return result
    start, low = lowest_finite(result.dtype), result.min()
    if not bool(low >= start):                  # a window of NaN or -inf only
        xp.fmax(result, start, out=result)
        low = start
    if not bool(low <= 0):                      # (one reduction, where all are above 0)
        return result
    zero = result == 0
    if bool(zero.any()) and holds_negative_zero(xp, data):
        taps = windows()
        firsts = first_zero_along(xp, taps, tuple(range(result.ndim, taps.ndim)))
        result[zero] = firsts.reshape(result.shape)[zero]
    return result


def first_winner(xp, taps, output, empty_to_first):
    """One-hot ``taps``-shaped mask ``(..., T)`` of each window's first tap equal to its
    maximum ``output`` ``(...)``; a window with none (its maximum is the lowest finite
    value and no tap holds it) marks its first tap when ``empty_to_first``, else none."""
    equal = taps == output[..., None]
    marked = equal.argmax(axis=-1)[..., None] == xp.arange(taps.shape[-1])
    return marked if empty_to_first else marked & equal.any(axis=-1)[..., None]
