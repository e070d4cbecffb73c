"""Max pooling over windows that tile their planes, worked on the planes as one flat array.

Lesson: 09-gluon.  Windows *tile* a plane when the stride equals the window and nothing is
padded: 2x2/2 pooling (LeNet, VGG, U-Net).  A tap of such windows is a view of every
other element of every other row, and numpy runs one short loop per row of such a view:
over 64 x 6 planes of 24x24 (LeNet's first pooling) an ``fmax`` of two views of the
planes' 24-element rows takes 66 us, where one flat run over the same number of elements
takes 11 us.  So the kernels here treat a chunk of planes as one flat array and let
numpy's vector loops run over all of it, computing some values that are thrown away:

Forward (``max_of_tiles``): the flat array ``fmax``-ed with itself shifted by one row
(by each further row of the window) holds at every element the maximum of the column of
taps below it; the same along the row, shifted by one element at a time, holds at each
window's top-left element that window's maximum (and elsewhere maxima of strips that
straddle two windows, never read).  The top-left elements are then picked out.

Backward of 2x2 windows (``max_pairs_grad``, 16- and 32-bit floats), where a window's two
taps in a row are adjacent and fit one integer of twice the width:

1. each window's maximum is put at its four taps (a value's bits times ``0x1_0000_0001``
   as a 64-bit integer are the value twice, side by side; rows by ``numpy.repeat``), and
   compared with the input: a flag at every tap that holds its window's maximum;
2. a row's two flags read as one 16-bit integer are ``left + 256 * right``; ``f & ~(f <<
   8)`` clears the right flag where the left is set: the first of the row;
3. the bottom row's flag counts only where the top row of its window has none: in the
   flat array of pairs the top row lies ``out_width`` pairs before the bottom one
   (``_bottom_rows`` marks the pairs of bottom rows, so that top rows are left alone);
4. the flags widened to 32 bits and read two by two as a 64-bit integer are 0, 1 or
   ``2**32``: the gradient's bits (as a 64-bit integer) times it are the gradient in the
   winning column and 0 in the other, both columns written at once.  The gradient is
   copied as bits, never multiplied by a 0/1 mask, so an infinite or NaN gradient reaches
   the winner alone; and ``g + 0`` first makes a ``-0`` gradient +0, as MXNet's ``0 + g``
   does, while the other taps get +0.

Every window's maximum must be one of its taps (``Pooling`` sends windows of NaN or
-inf only, whose result is the lowest finite value, to its general path).
``pool_kernels.max_pool_grad``'s tap-by-tap loop is the plain version of the same rule,
and the tests hold the two to the same bits.
"""
import functools

import numpy

# Unsigned integers of a float's width, and of twice it.
_WORDS = {2: (numpy.uint16, numpy.uint32), 4: (numpy.uint32, numpy.uint64)}


def max_of_tiles(xp, planes, kernel, out_size):
    """Max pooling of planes ``(P, H, W)`` tiled by ``kernel`` windows (NaN skipped, as
    ``fmax`` does; ``pool_max`` mends the sign of tied zeros)."""
    height, width = kernel
    flat, row = planes.reshape(-1), planes.shape[-1]
    size = flat.size
    down = xp.empty(size, dtype=planes.dtype)      # maxima of the columns of taps below
    reach = (height - 1) * row
    if height > 1:
        xp.fmax(flat[:size - reach], flat[row:size - reach + row], out=down[:size - reach])
        for tap in range(2, height):
            xp.fmax(down[:size - reach], flat[tap * row:size - reach + tap * row],
                    out=down[:size - reach])
    else:
        down[:] = flat
    across = xp.empty(size, dtype=planes.dtype)    # maxima of the windows at their corner
    runs = size - reach - (width - 1)
    if width > 1:
        xp.fmax(down[:runs], down[1:runs + 1], out=across[:runs])
        for tap in range(2, width):
            xp.fmax(across[:runs], down[tap:runs + tap], out=across[:runs])
    else:
        across = down
    corners = across.reshape(planes.shape[0], out_size[0], height, out_size[1], width)
    return xp.ascontiguousarray(corners[:, :, 0, :, 0])


def pairs_suit(kernel, dtype):
    """Whether ``max_pairs_grad`` takes 2-D windows of ``kernel`` over ``dtype``."""
    dtype = numpy.dtype(dtype)
    return tuple(kernel) == (2, 2) and dtype.kind == "f" and dtype.itemsize in _WORDS


@functools.lru_cache(maxsize=16)
def _bottom_rows(pairs, out_width):
    """Flags (read-only) of the pairs in the bottom rows of windows, a flat array of
    ``pairs`` pairs in rows of ``out_width``, top and bottom rows taking turns."""
    flags = numpy.zeros((pairs // (2 * out_width), 2, out_width), dtype=bool)
    flags[:, 1] = True
    flags = flags.reshape(-1)
    flags.setflags(write=False)
    return flags


def max_pairs_grad(out_grad, planes, outputs, result):
    """Gradient of 2x2/2 max pooling of ``planes`` ``(P, H, W)`` with maxima ``outputs``
    and output gradient ``out_grad`` ``(P, H/2, W/2)``, written into ``result`` like
    ``planes``: each window's gradient at its first tap (row-major) that equals its
    maximum, +0 at the others."""
    one, two = _WORDS[planes.dtype.itemsize]
    bits = 8 * planes.dtype.itemsize
    rows = planes.shape[0] * planes.shape[1] // 2          # rows of windows
    width = planes.shape[2] // 2
    # 1. the maxima at their windows' four taps, and the taps that hold them
    doubled = outputs.reshape(rows, 1, width).view(one).astype(two)
    doubled *= two((1 << bits) + 1)
    at_taps = numpy.repeat(doubled.view(planes.dtype), 2, axis=1)
    flags = numpy.equal(planes.reshape(rows, 2, 2 * width), at_taps)
    pairs = flags.reshape(-1).view(numpy.uint16)           # left + 256 * right
    # 2. the first flag of each row of a window
    first = numpy.left_shift(pairs, 8)
    numpy.invert(first, out=first)
    first &= pairs
    # 3. the bottom row's only where the top row has none
    blocked = numpy.not_equal(pairs[:-width], 0)
    blocked &= _bottom_rows(pairs.size, width)[width:]
    numpy.logical_not(blocked, out=blocked)
    numpy.multiply(first[width:], blocked, out=first[width:])
    # 4. the gradient's bits times 0, 1 or 2**bits: into the winning column of each pair
    factors = first.view(numpy.uint8).astype(one).view(two)
    grads = numpy.add(out_grad, 0, dtype=planes.dtype).reshape(rows, 1, width)
    grads = numpy.repeat(grads.view(one).astype(two), 2, axis=1).reshape(-1)
    numpy.multiply(grads, factors, out=result.reshape(-1).view(two))
    return result
