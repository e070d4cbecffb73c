"""The array work behind Pooling: planes last, a cache-sized chunk of planes at a time.

Lesson: 09-gluon.  Mirrors what ``src/operator/nn/pool.h`` computes (max, sum and average
over kernel windows, and their gradients); the arrangement is minimx's own.

Pooling treats every (sample, channel) plane alike.  A window's result is the maximum (or
sum) over its taps, and a kernel tap of a chunk of planes is one strided slice of it: one
whole-chunk ``fmax`` per tap (a maximum that skips NaN, as MXNet's does: ``pool_max.py``
mends the rest of MXNet's rule), and no window is ever copied.  Small planes go to the last
axis: a chunk of ``P`` planes ``(P, *spatial)`` becomes ``(*padded spatial, P)``, so that a
tap's rows are ``P`` contiguous values, long and dense for numpy's loops, however small the
planes (a 3x3 plane would otherwise give rows of 3).  Large planes stay as they are, and so
do small ones whose windows lie apart without padding (2x2/2 pooling) in rows of a few
windows: every tap is then a view of the input and the gradient is written in place, so
planes-last would only add copies.

numpy makes one pass over memory per operation, and pooling takes several operations per
tap.  A chunk of planes small enough to stay in the processor's cache (``CHUNK_BYTES``)
makes those passes cache reads instead of memory reads: 2-3x faster than the same
operations over the whole batch (GoogLeNet's pooling layers, batch 128).  On a GPU the
whole batch is one chunk.

The gradient of max pooling goes to each window's *first* maximal tap (row-major), as
MXNet's: the taps are compared with the output in that order while ``searching`` marks
the windows whose maximum is not found yet; windows that share a winner add up.

Overlapping 2-D windows on planes as they lie (3x3/2: ResNet's stem, AlexNet, NiN,
GoogLeNet) would make every tap a stride-2 slice, which numpy walks element by element.
There a chunk is first split into its stride phases (``_Phases``: for stride 2, even/odd
rows x even/odd columns), where every tap is one contiguous stretch: the same taps, in the
same order, through numpy's vector loops -- the same bits, 1.5-2x faster for 3x3/2.
"""
import math

import numpy

from . import pool_tiles
from .conv_kernels import tap_slices

# Input bytes per chunk of planes: measured on GoogLeNet's pooling layers (batch 128), 256 kB
# to 1 MB were alike and 2-3x faster than one chunk; the machines' L2 cache is 1-2 MB a core.
CHUNK_BYTES = 256 * 1024
# Planes of fewer elements than this go planes-last.  A large plane (VGG's 224x224, AlexNet's
# 54x54) already has long rows, and a cache-sized chunk holds only a few such planes: it is
# faster as it lies, ``(P, *spatial)`` (2x2 windows over 128 x 32 planes of 112x112: 56 ms
# against 139 ms planes-last), and small ones are faster planes-last (3x3 windows over
# 128 x 512 planes of 6x6: 8 ms against 29 ms).
PLANES_LAST_BELOW = 512
# ... except where planes-first needs no copy at all: windows apart (stride >= window) over
# unpadded planes, each tap a view of the input and the gradient written in place.  There
# output rows of at least this many windows are faster as they lie (2x2/2 max pooling,
# batch 64, forward + backward, CPU time: 16 channels of 8x8 planes, LeNet's second pooling,
# 0.23 ms against 0.45; of 12x12 0.43 against 0.54; of 16x16 1.0 against 1.8), shorter
# rows are not (32 channels of 6x6 planes: 0.45 against 0.36; 3x3/3 over 7x7: 2.3 against 0.9).
FIRST_ROWS_FROM = 4
# Windows that tile unpadded planes as they lie take their max gradient over the whole batch
# at once below this many input bytes, and in cache-sized chunks from it: a large batch's
# passes then stream from memory, each of its dozen numpy passes once more.  2x2/2, CPU ms on
# one core, interleaved best of 3 (whole -> chunks): 256x6x24x24 (3.5 MB) 1.12 -> 1.46,
# 64x32x28x28 (6.4 MB) 2.41 -> 3.07, 128x32x24x24 (9.4 MB) 5.78 -> 4.77, 64x64x28x28 (12.8
# MB) 8.34 -> 6.08, 32x64x56x56 (25.7 MB) 15.5 -> 11.0, 16x32x112x112 (25.7 MB) 22.4 -> 14.
WHOLE_TILED_BELOW = 8 * 1024 * 1024
# Input bytes per chunk of planes split into stride phases (``_Phases``: overlapping 2-D
# windows on planes as they lie).  Its passes are contiguous and fast, so each chunk's ~40
# numpy calls weigh more: larger chunks, though their working set (phases, canvas, the
# taps' masks and shares) outgrows the L2 cache.  3x3/2 max pooling, forward / backward ms
# of CPU (256 kB, 512 kB, 1 MB, 2 MB, 4 MB): 64x64x48x48 pad 1 9.4/26.7, 8.5/25.0, 8.4/24.2,
# 8.3/25.7, 8.3/31.6; 128x96x54x54 33.8/97.6, 31.8/90.1, 29.6/87.7, 28.9/92.6, 28.3/103.5;
# 128x256x26x26 23.4/66.2, 24.5/69.4, 21.2/57.0, 20.5/58.1, 20.4/67.8.
PHASED_CHUNK_BYTES = 1024 * 1024
# Planes of at least this many elements whose windows ``_Phases`` takes stay as they lie,
# however small (PLANES_LAST_BELOW): phased beats planes-last from 7x7 planes on.  Max
# pooling, batch 128, forward / backward ms of CPU, planes-last against phased: 3x3/1 pad 1
# over 256 x 8x8 10.8/25.6 against 4.6/20.2, 512 x 7x7 10.8/38.2 against 7.5/33.4, 256 x
# 12x12 13.4/43.5 against 7.5/35.6, 480 x 12x12 25.5/83.4 against 13.8/65.7, 256 x 16x16
# 47.3/58.5 against 11.9/59.4; 3x3/2 pad 1 over 256 x 8x8 4.3/14.2 against 3.9/10.1, 16x16
# 24.8/64.5 against 13.5/33.1; 3x3/2 over 20x20 23.3/75.4 against 19.4/52.6.  Not below:
# 832 x 6x6, 3x3/1 pad 1 10.9/37.4 against 10.2/43.6, 3x3/2 pad 1 6.7/15.9 against 8.7/23.1.
PHASED_FROM = 49
# Whether phased max pooling takes each kernel row's maximum first (``_RowMaxima``).
ROWS_FIRST = True


def _chunks(xp, planes, limit=None):
    """Slices of the first axis of ``planes`` ``(P, *spatial)``, each a cache-sized chunk
    (``limit`` input bytes, CHUNK_BYTES unless given)."""
    count = planes.shape[0]
    if xp is not numpy or count == 0:
        return [slice(0, count)]
    per = max(1, (limit or CHUNK_BYTES) // max(1, planes[0].nbytes))
    return [slice(start, start + per) for start in range(0, count, per)]


def _at(spatial, last):
    """The index of spatial slices ``spatial`` in a chunk laid out planes-last or -first."""
    return spatial if last else (slice(None),) + tuple(spatial)


def _arranged(xp, planes, last):
    """A chunk ``(P, *spatial)`` in its layout (contiguous)."""
    return xp.ascontiguousarray(xp.moveaxis(planes, 0, -1)) if last else planes


def _restored(xp, arranged, last):
    """A chunk in its layout back as ``(P, *spatial)`` (a view)."""
    return xp.moveaxis(arranged, -1, 0) if last else arranged


def _padded(xp, planes, before, after, fill, last):
    """A chunk ``(P, *spatial)`` in its layout with ``before``/``after`` elements of ``fill``
    around each spatial axis; also the index of the chunk's own elements in it."""
    spatial = planes.shape[1:]
    inner = _at(tuple(slice(b, b + n) for b, n in zip(before, spatial)), last)
    if not last and not any(before) and not any(after):
        return planes, inner                            # as it lies: no copy
    grown = tuple(b + n + a for b, n, a in zip(before, spatial, after))
    padded = xp.empty(grown + planes.shape[:1] if last else planes.shape[:1] + grown,
                      dtype=planes.dtype)
    if any(before) or any(after):
        padded.fill(fill)
    padded[inner] = xp.moveaxis(planes, 0, -1) if last else planes
    return padded, inner


def _as_planes(array):
    """``(N, C, *spatial)`` as ``(N * C, *spatial)``."""
    return array.reshape((-1,) + tuple(array.shape[2:]))


def _apart(geometry):
    """Whether the windows lie apart (stride >= window): each element in one window at most."""
    return all(s >= d * (k - 1) + 1 for k, s, d in
               zip(geometry.kernel, geometry.stride, geometry.dilate))


def _planes_last(geometry, out_size, after, planes):
    """Whether a chunk of ``planes`` is laid out planes-last (see the thresholds above)."""
    size = math.prod(planes.shape[1:])
    if size >= PLANES_LAST_BELOW or (size >= PHASED_FROM and _phases_fit(geometry, planes)):
        return False
    copy_free = _apart(geometry) and not any(geometry.pad) and not any(after)
    return not (copy_free and out_size[-1] >= FIRST_ROWS_FROM)


def _taps(geometry, out_size, after, planes):
    """Whether the planes go last, and each tap's index in a padded chunk."""
    last = _planes_last(geometry, out_size, after, planes)
    return last, [_at(target, last) for _, target in tap_slices(geometry, out_size)]


def _tiles(geometry, out_size, after, in_size):
    """Whether 2-D windows tile the planes exactly (stride = window, no pad, no dilation)."""
    return len(in_size) == 2 and not any(geometry.pad) and not any(after) and all(
        d == 1 and s == k and o * s == n for k, s, d, o, n in
        zip(geometry.kernel, geometry.stride, geometry.dilate, out_size, in_size))


def _max_along(xp, taps):
    """The maximum over the second axis of ``taps``, its entries taken in order."""
    if taps.shape[1] == 1:
        return taps[:, 0].copy()
    result = xp.fmax(taps[:, 0], taps[:, 1])
    for tap in range(2, taps.shape[1]):
        xp.fmax(result, taps[:, tap], out=result)
    return result


class _Phases:
    """A chunk of 2-D planes split into its stride phases, each flat and contiguous.

    Phase ``(a, b)`` of a padded plane holds its elements ``[s0 * i + a, s1 * j + b]``, so
    kernel tap ``(r, c)`` reads phase ``(r % s0, c % s1)`` from row ``r // s0`` and column
    ``c // s1`` on: every tap a contiguous stretch of one phase, instead of a strided slice
    of the plane (stride-2 slices run numpy's element-by-element loops, contiguous ones its
    vector loops).  A phase plane is ``rows x cols`` (the output size plus the reach of the
    farthest tap), and the chunk's planes lie one after the other in one flat array, so a
    tap is one flat slice of ``planes * rows * cols`` elements starting at ``r // s0 * cols
    + c // s1``: a window for every phase position, the real ones (``[:, :out0, :out1]``)
    among windows that run past the plane's edge, whose results are thrown away (and whose
    gradient is 0).  ``over`` elements at the end let the last slices run on.  The padding
    (and what lies past the input) is filled once; each chunk then writes the input's
    elements over the same places."""

    def __init__(self, xp, geometry, out_size, per, in_size, dtype, fill):
        stride = self.stride = tuple(geometry.stride)
        reach = tuple((k - 1) // s for k, s in zip(geometry.kernel, stride))
        self.rows, self.cols = (o + r for o, r in zip(out_size, reach))
        self.out_size = tuple(out_size)
        self.over = reach[0] * self.cols + reach[1]
        # (phase, flat start) of each tap, row-major
        self.taps = [((r % stride[0]) * stride[1] + c % stride[1],
                      r // stride[0] * self.cols + c // stride[1])
                     for r in range(geometry.kernel[0]) for c in range(geometry.kernel[1])]
        self.flat = xp.full((stride[0] * stride[1], per * self.rows * self.cols + self.over),
                            fill, dtype=dtype)
        self.places = list(self._places(geometry.pad, in_size))
        # whether every input element is in a phase (a stride past the last window's reach
        # leaves the last elements out: no window reads them)
        self.covers = all(s * m - p >= n for s, m, p, n in
                          zip(stride, (self.rows, self.cols), geometry.pad, in_size))

    def _places(self, pad, in_size):
        """For each phase: its index, the slices of a phase plane that hold input elements
        and the matching strided slices of an input plane."""
        for a in range(self.stride[0]):
            for b in range(self.stride[1]):
                inner, outer = [slice(None)], [slice(None)]
                for offset, s, p, n, m in zip((a, b), self.stride, pad, in_size,
                                              (self.rows, self.cols)):
                    first = max(0, -(-(p - offset) // s))       # first phase index inside
                    start = s * first + offset - p               # its input index
                    length = max(0, min(m - first, -(-(n - start) // s)))
                    inner.append(slice(first, first + length))
                    outer.append(slice(start, start + s * (length - 1) + 1, s))
                yield a * self.stride[1] + b, tuple(inner), tuple(outer)

    def size(self, planes):
        """The flat length of a tap over ``planes`` planes."""
        return planes * self.rows * self.cols

    def grid(self, flat, planes):
        """A flat phase (or tap-sized array) of ``planes`` planes as ``(P, rows, cols)``."""
        return flat[:self.size(planes)].reshape(planes, self.rows, self.cols)

    def real(self, flat, planes):
        """The real windows ``(P, out0, out1)`` of a tap-sized flat array."""
        return self.grid(flat, planes)[:, :self.out_size[0], :self.out_size[1]]

    def split(self, planes):
        """Copy a chunk ``(P, H, W)`` into the phases (their padding is already filled)."""
        for index, inner, outer in self.places:
            self.grid(self.flat[index], planes.shape[0])[inner] = planes[outer]

    def tap_views(self, planes):
        """Each tap over ``planes`` planes, a flat contiguous view."""
        size = self.size(planes)
        return [self.flat[index, start:start + size] for index, start in self.taps]


def _phases_fit(geometry, planes):
    """Whether ``_Phases`` can take these windows: 2-D, overlapping, not dilated."""
    return (planes.ndim == 3 and not _apart(geometry)
            and all(d == 1 for d in geometry.dilate))


def _phased(geometry, planes, last):
    """Whether a chunk goes through ``_Phases``: windows it takes, on planes as they lie
    (planes-last chunks already read taps as runs of planes)."""
    return not last and _phases_fit(geometry, planes)


def _pool_phased(xp, planes, geometry, out_size, fill, kind, result):
    """``pool`` through ``_Phases``: the same taps in the same order, each contiguous.
    A maximum is taken a kernel row at a time (``_RowMaxima``), then down the rows."""
    chunks = _chunks(xp, planes, PHASED_CHUNK_BYTES)
    per = chunks[0].stop - chunks[0].start
    phases = _Phases(xp, geometry, out_size, per, planes.shape[1:], planes.dtype, fill)
    pooled = xp.empty(phases.size(per), dtype=planes.dtype)
    by_rows = ROWS_FIRST and kind == "max" and geometry.kernel[1] > 1
    if by_rows:
        rows = _RowMaxima(xp, phases, geometry.kernel, per)
    views = {}
    for chunk in chunks:
        part = planes[chunk]
        count = part.shape[0]
        if count not in views:
            views[count] = (rows.views(count) if by_rows else phases.tap_views(count),
                            pooled[:phases.size(count)])
        taps, into = views[count]
        phases.split(part)
        if by_rows:
            rows.compute(count)
        into[...] = taps[0]
        for tap in taps[1:]:
            if kind == "max":
                xp.fmax(into, tap, out=into)
            else:
                xp.add(into, tap, out=into)
        result[chunk] = phases.real(into, count)
    return result


class _RowMaxima:
    """Each kernel row's maximum at every phase position: the maximum of a window is then
    the maximum of its rows' (3 + 3 taps for 3x3 instead of 9).  A maximum has no rounding
    and ``fmax`` skips NaN however the taps are grouped, so the values are the plain path's
    (which of a +0 and a -0 that tie comes out is mended after, ``pool_max.follow_mxnet``).
    Row phase ``a`` holds the maxima of the rows ``s0 * i + a``; kernel row ``r`` of the
    windows is the flat slice of row phase ``r % s0`` from ``r // s0 * cols`` on."""

    def __init__(self, xp, phases, kernel, per):
        self.xp, self.phases, self.stride = xp, phases, phases.stride
        self.kernel = kernel
        self.reach = (kernel[0] - 1) // self.stride[0] * phases.cols
        self.flat = xp.empty((self.stride[0], phases.size(per) + self.reach),
                             dtype=phases.flat.dtype)
        self._views = {}

    def views(self, count):
        """The windows' kernel rows over ``count`` planes, in order."""
        size = self.phases.size(count)
        return [self.flat[r % self.stride[0], r // self.stride[0] * self.phases.cols:][:size]
                for r in range(self.kernel[0])]

    def compute(self, count):
        """Row maxima of the phases' first ``count`` planes."""
        if count not in self._views:
            length = self.phases.size(count) + self.reach
            s1 = self.stride[1]
            self._views[count] = [
                (self.flat[a, :length],
                 [self.phases.flat[a * s1 + c % s1, c // s1:c // s1 + length]
                  for c in range(self.kernel[1])])
                for a in range(self.stride[0])]
        for into, taps in self._views[count]:
            self.xp.fmax(taps[0], taps[1], out=into)
            for tap in taps[2:]:
                self.xp.fmax(into, tap, out=into)


def pool(xp, data, geometry, out_size, after, kind, fill):
    """Max (``kind == 'max'``) or sum over every window: ``(N, C, *in)`` -> ``(N, C, *out)``.
    ``after`` is the padding at the end of each axis (the pad, plus what a 'full' window
    overhangs); ``fill`` is what padding holds."""
    planes = _as_planes(data)
    if kind == "max" and _tiles(geometry, out_size, after, planes.shape[1:]):
        return pool_tiles.max_of_tiles(xp, planes, geometry.kernel, out_size).reshape(
            data.shape[:2] + tuple(out_size))
    result = xp.empty(planes.shape[:1] + tuple(out_size), dtype=data.dtype)
    last, taps = _taps(geometry, out_size, after, planes)
    if xp is numpy and _phased(geometry, planes, last):
        _pool_phased(xp, planes, geometry, out_size, fill, kind, result)
        return result.reshape(data.shape[:2] + tuple(out_size))
    for chunk in _chunks(xp, planes):
        padded, _ = _padded(xp, planes[chunk], geometry.pad, after, fill, last)
        pooled = padded[taps[0]].copy() if last else result[chunk]
        if not last:
            pooled[...] = padded[taps[0]]
        for tap in taps[1:]:
            if kind == "max":
                xp.fmax(pooled, padded[tap], out=pooled)
            else:
                pooled += padded[tap]
        if last:
            result[chunk] = _restored(xp, pooled, last)
    return result.reshape(data.shape[:2] + tuple(out_size))


def sum_pool_grad(xp, scale, data_shape, geometry, after):
    """Gradient of sum pooling: every window's ``scale`` (the output gradient, divided by
    the window's count for average pooling) added to each of its taps."""
    scales = _as_planes(scale)
    result = xp.empty((scales.shape[0],) + tuple(data_shape[2:]), dtype=scale.dtype)
    last, taps = _taps(geometry, scale.shape[2:], after, result)
    for chunk in _chunks(xp, result):
        canvas, inner = _padded(xp, result[chunk], geometry.pad, after, 0, last)
        canvas.fill(0)                  # (the chunk of ``result`` itself when it lies as is)
        added = _arranged(xp, scales[chunk], last)
        for tap in taps:
            canvas[tap] += added
        result[chunk] = _restored(xp, canvas[inner], last)
    return result.reshape(data_shape)


def max_pool_grad(xp, out_grad, data, output, geometry, after, fill):
    """Gradient of max pooling: each window's gradient goes to its first maximal tap
    (row-major).  Every window's maximum must be a real element (above ``fill``, not NaN):
    the last tap takes the windows still searching without being compared.

    A tap's share is the window's gradient times its 0/1 mask; an infinite or NaN gradient
    times 0 is NaN, which would spread to every tap of the window (and, added, to the
    windows overlapping it) where MXNet writes the gradient to the winner alone and leaves
    the others 0.  So when the head gradient is not all finite (its sum is not: one
    reduction, rare to be wrong the other way), the shares are selected, not multiplied."""
    planes, outputs, grads = _as_planes(data), _as_planes(output), _as_planes(out_grad)
    result = xp.empty(planes.shape, dtype=out_grad.dtype)
    last, taps = _taps(geometry, output.shape[2:], after, planes)
    # windows apart (stride >= window): each element is in one window at most, and a tap's
    # gradient can be written into place instead of added
    apart = _apart(geometry)
    unpadded = not any(geometry.pad) and not any(after)
    as_is = not last and unpadded                   # no padded copy, no planes-last copy
    # windows that tile the planes exactly write every element once: no zeros first
    tiled = apart and all(d == 1 and s == k and o * s == n for k, s, d, o, n in zip(
        geometry.kernel, geometry.stride, geometry.dilate, output.shape[2:], data.shape[2:]))
    # windows that tile unpadded planes as they lie read each element once, in place: the
    # whole batch at once is faster than cache-sized chunks (2x2/2, 64 x 6 planes of 24x24,
    # CPU time: 0.28 ms against 0.32; 256 x 6: 1.05 against 1.25), up to WHOLE_TILED_BELOW
    whole = tiled and planes.nbytes < WHOLE_TILED_BELOW
    batch = [slice(0, planes.shape[0])]
    if xp is numpy and tiled and unpadded and pool_tiles.pairs_suit(geometry.kernel, data.dtype):
        # 2x2 windows (pool_tiles.py) on the planes as they lie, small planes too, which the
        # loop below takes planes-last: 64 x 32 planes of 6x6 0.17 ms against 0.21, 64 x 64
        # of 4x4 0.10 against 0.21, 128 x 512 of 2x2 0.42 against 0.62
        for chunk in batch if whole else _chunks(xp, planes):
            pool_tiles.max_pairs_grad(grads[chunk], planes[chunk], outputs[chunk],
                                      result[chunk])
        return result.reshape(data.shape)
    chunks = batch if whole and as_is else _chunks(xp, planes)
    select = not bool(xp.isfinite(grads.sum()))
    if xp is numpy and not select and _phased(geometry, planes, last):
        return _max_pool_grad_phased(xp, grads, planes, outputs, geometry, fill,
                                     result).reshape(data.shape)
    for chunk in chunks:
        padded, inner = _padded(xp, planes[chunk], geometry.pad, after, fill, last)
        peak, given = _arranged(xp, outputs[chunk], last), _arranged(xp, grads[chunk], last)
        canvas = result[chunk] if as_is else xp.empty(padded.shape, dtype=result.dtype)
        if not (as_is and tiled):
            canvas.fill(0)
        searching = xp.ones(peak.shape, dtype=bool)     # first maximum not met yet
        hit = xp.empty(peak.shape, dtype=bool)
        taken = xp.empty(peak.shape, dtype=out_grad.dtype)
        for index, tap in enumerate(taps):
            if index < len(taps) - 1:
                xp.equal(padded[tap], peak, out=hit)
                hit &= searching
                searching ^= hit
            else:
                hit = searching
            if select:          # a non-finite gradient: the winner's, and 0 elsewhere
                share = xp.where(hit, given, xp.zeros((), dtype=given.dtype))
                if apart:
                    canvas[tap] = share
                else:
                    canvas[tap] += share
            elif apart:
                xp.multiply(given, hit, out=canvas[tap])
            else:
                xp.multiply(given, hit, out=taken)
                canvas[tap] += taken
        if not as_is:
            result[chunk] = _restored(xp, canvas[inner], last)
    if apart:       # MXNet adds each share to a 0: +0 where a product with 0 gave -0
        xp.add(result, 0, out=result)
    return result.reshape(data.shape)


def _max_pool_grad_phased(xp, grads, planes, outputs, geometry, fill, result):
    """``max_pool_grad`` through ``_Phases``: the taps compared with the output in the same
    order, and their gradients added in the same order into the phases of a zero canvas,
    put back in place at the end (the same additions as ``max_pool_grad``'s, bit for bit)."""
    out_size = outputs.shape[1:]
    chunks = _chunks(xp, planes, PHASED_CHUNK_BYTES)
    per = chunks[0].stop - chunks[0].start
    phases = _Phases(xp, geometry, out_size, per, planes.shape[1:], planes.dtype, fill)
    # (a phase no tap reads stays 0; the others are written by their first tap)
    canvas = xp.zeros(phases.flat.shape, dtype=result.dtype)
    first = [all(index != earlier for earlier, _ in phases.taps[:number])
             for number, (index, _) in enumerate(phases.taps)]
    full, count = phases.size(per), len(phases.taps)
    # the windows past the planes' edges: maximum 0 and gradient 0 (kept across chunks)
    peak, given = xp.zeros(full, dtype=outputs.dtype), xp.zeros(full, dtype=grads.dtype)
    searching = xp.empty(full, dtype=bool)              # first maximum not met yet
    hits = xp.empty((count, full), dtype=bool)          # each window's first maximal tap
    taken = xp.empty((1, full), dtype=result.dtype)     # a tap's share of the gradient
    if not phases.covers:
        result.fill(0)                                  # elements no window reads
    views = {}
    for chunk in chunks:
        part = planes[chunk]
        planes_now = part.shape[0]
        size = phases.size(planes_now)
        if planes_now not in views:
            views[planes_now] = (
                phases.tap_views(planes_now), hits[:, :size], taken[:, :size],
                [canvas[index, start:start + size] for index, start in phases.taps],
                peak[:size], given[:size], searching[:size])
        taps, hit, share, targets, peak_now, given_now, search = views[planes_now]
        phases.split(part)
        phases.real(peak, planes_now)[...] = outputs[chunk]
        phases.real(given, planes_now)[...] = grads[chunk]
        search.fill(True)
        for number in range(count - 1):
            xp.equal(taps[number], peak_now, out=hit[number])
            hit[number] &= search
            search ^= hit[number]
        hit[count - 1] = search              # every window's maximum is a real element
        # a tap's mask to float, times the gradient (a product with the bool mask would cast
        # as it goes, slower); a phase's first tap starts at 0 and covers its planes: it
        # writes 0 + its share (the zero canvas's first addition: -0 shares give 0), the
        # later ones add theirs
        for number, target in enumerate(targets):
            xp.copyto(share[0], hit[number])
            xp.multiply(share[0], given_now, out=share[0])
            if first[number]:
                xp.add(share[0], 0, out=target)
            else:
                target += share[0]
        into = result[chunk]
        for index, inner, outer in phases.places:
            into[outer] = phases.grid(canvas[index], planes_now)[inner]
    return result
