"""The array work behind Convolution, Deconvolution and Pooling, arranged for BLAS.

Lesson: 08-gluon.  Mirrors the im2col + GEMM strategy of ``src/operator/nn/im2col.h``.
A convolution copies every kernel window once into a column matrix whose last axis
is the output position (``im2col``) and multiplies it by the filters with a batched
``matmul``.  With stride 1 along the first spatial axis, only the other axes are
unfolded (``row_columns``, ``kernel[0]`` times less copying) and each kernel row is
one ``matmul`` on a dense slice of it.  The data gradient multiplies the other way
round and adds each kernel tap back into place (``col2im``, one slice per tap).
Pooling reads the taps as ``prod(kernel)`` strided slices of the input, or, when
windows overlap, as contiguous runs of the input split by stride phase; the max
gradient then finds each window's winning tap and adds with one ``add.at``.  All
functions take ``xp`` (numpy or CuPy) and work for 1 to 3 spatial axes, any
stride, dilation, padding and channel groups.
"""
import itertools
import math


def tap_slices(geometry, out_size):
    """For each kernel offset (row-major), the slices of the padded input it reads."""
    for offset in itertools.product(*(range(k) for k in geometry.kernel)):
        yield offset, tuple(slice(o * d, o * d + s * (n - 1) + 1, s) for o, d, s, n in
                            zip(offset, geometry.dilate, geometry.stride, out_size))


def window_view(xp, padded, geometry, out_size):
    """Every kernel window of a padded input as a strided view ``(N, C, *kernel, *out)``."""
    strides, spatial = padded.strides, padded.strides[2:]
    shape = padded.shape[:2] + tuple(geometry.kernel) + tuple(out_size)
    view_strides = (strides[:2] + tuple(s * d for s, d in zip(spatial, geometry.dilate))
                    + tuple(s * t for s, t in zip(spatial, geometry.stride)))
    return xp.lib.stride_tricks.as_strided(padded, shape, view_strides)


def im2col(xp, padded, geometry, out_size):
    """Contiguous columns ``(N, C * prod(kernel), prod(out))`` of a padded input."""
    batch, channels = padded.shape[:2]
    view = window_view(xp, padded, geometry, out_size)
    return view.reshape(batch, channels * math.prod(geometry.kernel), math.prod(out_size))


# Up to these many output positions per sample (7 x 7), the per-sample products (``P``
# columns each) are too thin for BLAS to run fast: the whole batch becomes one product
# instead, at the cost of copying the windows once in batch-inner order (``tensordot``
# does it).  Measured on ResNet-18 and LeNet layers (bench/course_workloads.py): at 6 x 6
# one product is 1.3-3x faster, at 8 x 8 the per-sample products win.
_THIN_FORWARD = 49
_THIN_WEIGHT_GRAD = 49


def _thin(out_size, groups, limit):
    return groups == 1 and math.prod(out_size) <= limit


def _window_axes(out_size):
    """Axes of ``window_view`` holding channel and kernel offsets, and output positions."""
    spatial = len(out_size)
    return list(range(1, 2 + spatial)), list(range(2 + spatial, 2 + 2 * spatial))


def row_columns(xp, padded, geometry, out_size):
    """Columns unfolded along every spatial axis but the first, copied once:
    ``(N, C, *kernel[1:], in[0], *out[1:])``, a kernel-row's worth of im2col."""
    strides, spatial = padded.strides, padded.strides[2:]
    shape = padded.shape[:2] + tuple(geometry.kernel[1:]) + padded.shape[2:3] + tuple(
        out_size[1:])
    view_strides = (strides[:2] + tuple(s * d for s, d in zip(spatial[1:], geometry.dilate[1:]))
                    + spatial[:1] + tuple(s * t for s, t in zip(spatial[1:], geometry.stride[1:])))
    return xp.ascontiguousarray(xp.lib.stride_tricks.as_strided(padded, shape, view_strides))


def _row_blocks(columns, geometry, out_size, groups):
    """For each kernel row: its ``(N, G, C/G * prod(kernel[1:]), prod(out))`` columns,
    a view of ``row_columns`` (stride 1 along the first axis keeps each block dense)."""
    before = (slice(None),) * (1 + len(out_size))
    for row in range(geometry.kernel[0]):
        start = row * geometry.dilate[0]
        block = columns[before + (slice(start, start + out_size[0]),)]
        yield block.reshape(columns.shape[0], groups, -1, math.prod(out_size))


# A kernel row's product sums over ``C * kernel[1:]`` values; below this depth (LeNet's
# first layer: 1 channel x 5 = 5) BLAS runs such thin products slowly, and one im2col
# product over the whole kernel is faster (4.9 ms -> 1.5 ms at batch 256).
_MIN_ROW_DEPTH = 16


def _by_rows(geometry):
    """Unfold one kernel row at a time (a ``kernel[0]`` times smaller copy) when the first
    spatial axis has stride 1; the row products are then summed."""
    return geometry.stride[0] == 1 and geometry.kernel[0] > 1


def convolve(xp, padded, weight, geometry, groups, out_size):
    """``padded (N, C, *in)`` correlated with ``weight (F, C/groups, *kernel)``."""
    batch, filters = padded.shape[0], weight.shape[0]
    shape = (batch, filters) + tuple(out_size)
    per_row = math.prod(geometry.kernel[1:]) * weight.shape[1]
    if _thin(out_size, groups, _THIN_FORWARD):
        window_axes, _ = _window_axes(out_size)
        product = xp.tensordot(weight, window_view(xp, padded, geometry, out_size),
                               axes=(window_axes, window_axes))        # (F, N, *out)
        return xp.ascontiguousarray(xp.moveaxis(product, 0, 1))
    if not _by_rows(geometry) or filters > 2 * per_row or per_row < _MIN_ROW_DEPTH:
        columns = im2col(xp, padded, geometry, out_size)
        columns = columns.reshape(batch, groups, -1, columns.shape[-1])
        filters_2d = weight.reshape(groups, filters // groups, -1)
        return xp.matmul(filters_2d, columns).reshape(shape)
    rows = xp.moveaxis(weight, 2, 0).reshape(geometry.kernel[0], groups, filters // groups, -1)
    columns = row_columns(xp, padded, geometry, out_size)
    blocks = _row_blocks(columns, geometry, out_size, groups)
    result = xp.matmul(rows[0], next(blocks))
    product = xp.empty_like(result)         # one buffer for the other rows' products
    for filters_2d, block in zip(rows[1:], blocks):
        result += xp.matmul(filters_2d, block, out=product)
    return result.reshape(shape)


def convolve_weight_grad(xp, out_grad, padded, geometry, groups):
    """Gradient in ``weight``: sum over batch and positions of out_grad x window."""
    batch, filters = out_grad.shape[:2]
    out_size = out_grad.shape[2:]
    per_group = padded.shape[1] // groups
    if _thin(out_size, groups, _THIN_WEIGHT_GRAD):
        window_axes, position_axes = _window_axes(out_size)
        summed = [0] + [axis for axis in range(2, out_grad.ndim)]
        return xp.tensordot(out_grad, window_view(xp, padded, geometry, out_size),
                            axes=(summed, [0] + position_axes))
    grads = out_grad.reshape(batch, groups, filters // groups, -1)
    if not _by_rows(geometry):
        columns = im2col(xp, padded, geometry, out_size)
        columns = columns.reshape(batch, groups, -1, columns.shape[-1])
        per_sample = xp.matmul(grads, columns.swapaxes(-1, -2))  # (N, G, F/G, C/G * K)
        return per_sample.sum(axis=0).reshape((filters, per_group) + tuple(geometry.kernel))
    columns = row_columns(xp, padded, geometry, out_size)
    rows = [xp.matmul(grads, block.swapaxes(-1, -2)).sum(axis=0)
            for block in _row_blocks(columns, geometry, out_size, groups)]
    rows = xp.stack(rows).reshape((geometry.kernel[0], filters, per_group)
                                  + tuple(geometry.kernel[1:]))
    return xp.ascontiguousarray(xp.moveaxis(rows, 0, 2))


def adjoint_filters(xp, weight, groups):
    """``(F, C/G, *kernel)`` filters as the ``(C, F/G, *kernel)`` filters of the adjoint
    convolution: channels and filters swapped within each group, flipped in space."""
    filters, per_group_c = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    flipped = weight[(slice(None), slice(None)) + (slice(None, None, -1),) * len(kernel)]
    swapped = flipped.reshape((groups, filters // groups, per_group_c) + kernel).swapaxes(1, 2)
    return xp.ascontiguousarray(swapped).reshape((groups * per_group_c, filters // groups)
                                                 + kernel)


_LONG_ROW = 16      # output rows at least this long make batch-first col2im adds efficient


def convolve_transpose(xp, out_grad, weight, padded_shape, geometry, groups):
    """Adjoint of ``convolve`` in the input: ``(N, F, *out)`` -> padded ``(N, C, *in)``.

    The filters' transpose times ``out_grad`` gives every kernel tap's columns, and each
    tap's columns are added into a slice of a zero canvas.  Those adds run over contiguous
    rows of the last output axis; when the rows are short (a small late layer), columns
    and canvas are computed batch-last, ``(G, C/G, K, *out, N)`` and ``(G, C/G, *in, N)``,
    so that the rows are ``N`` times longer, at the cost of two transposes (the result is
    a batch-last view).  There the filters, ``(G, F/G, C/G * K)`` matrices, are read
    transposed as they lie (BLAS takes the transposed view; no copy of the weight): at
    batch 1 a weight-sized copy costs more than the product itself.
    """
    batch, filters = out_grad.shape[:2]
    out_size = tuple(out_grad.shape[2:])
    channels, kernel = padded_shape[1], tuple(geometry.kernel)
    per_group_f, per_group_c = filters // groups, channels // groups
    adjoint = weight.reshape(groups, per_group_f, -1).swapaxes(1, 2)   # (G, C/G * K, F/G)
    every = (slice(None),)
    if out_size[-1] >= _LONG_ROW or math.prod(kernel) == 1:
        # tap-major columns (one contiguous block per tap); the filters' copy into that
        # order is small beside a batch of long rows
        taps = weight.reshape(groups, per_group_f, per_group_c, -1).transpose(0, 3, 2, 1)
        grads = out_grad.reshape(batch, groups, per_group_f, -1)
        columns = xp.matmul(taps.reshape(groups, -1, per_group_f), grads)  # (N, G, K*C/G, P)
        columns = columns.reshape((batch, groups) + kernel + (per_group_c,) + out_size)
        canvas = xp.zeros((batch, groups, per_group_c) + tuple(padded_shape[2:]),
                          dtype=columns.dtype)
        for offset, target in tap_slices(geometry, out_size):
            canvas[every * 3 + target] += columns[every * 2 + offset]
        return canvas.reshape(padded_shape)
    grads = xp.moveaxis(out_grad.reshape(batch, groups, per_group_f, -1), 0, -1)
    grads = grads.reshape(groups, per_group_f, -1)                      # (G, F/G, P * N)
    columns = xp.matmul(adjoint, grads)                                 # (G, C/G * K, P * N)
    columns = columns.reshape((groups, per_group_c) + kernel + out_size + (batch,))
    canvas = xp.zeros((groups, per_group_c) + tuple(padded_shape[2:]) + (batch,),
                      dtype=columns.dtype)
    for offset, target in tap_slices(geometry, out_size):
        canvas[every * 2 + target] += columns[every * 2 + offset]
    canvas = canvas.reshape((channels,) + tuple(padded_shape[2:]) + (batch,))
    return xp.moveaxis(canvas, -1, 0)


def pool_taps(xp, padded, geometry, out_size, kind):
    """Max or sum over the kernel taps, one strided slice at a time."""
    every = (slice(None), slice(None))
    return _combine(xp, (padded[every + target] for _, target in tap_slices(geometry, out_size)),
                    kind)


def _combine(xp, taps, kind):
    """The running maximum (``kind == 'max'``) or sum of the arrays ``taps``, in a new array."""
    result = None
    for tap in taps:
        if result is None:
            result = tap.copy()
        elif kind == "max":
            xp.maximum(result, tap, out=result)
        else:
            result += tap
    return result


def max_pool_grad(xp, out_grad, padded, output, geometry):
    """Gradient of max pooling: each window's first maximal tap (row-major) gets it all."""
    out_size = output.shape[2:]
    disjoint = all(s >= d * (k - 1) + 1 for k, s, d in
                   zip(geometry.kernel, geometry.stride, geometry.dilate))
    tiled = disjoint and all(d == 1 and s == k and o * s == n for k, s, d, o, n in zip(
        geometry.kernel, geometry.stride, geometry.dilate, out_size, padded.shape[2:]))
    # windows that tile the input write every element exactly once
    grad = (xp.empty if tiled else xp.zeros)(padded.shape, dtype=out_grad.dtype)
    every = (slice(None), slice(None))
    hit = xp.empty(output.shape, dtype=bool)
    unclaimed = xp.ones(output.shape, dtype=bool)
    for _, target in tap_slices(geometry, out_size):
        xp.equal(padded[every + target], output, out=hit)
        hit &= unclaimed            # the window's first maximum only
        unclaimed ^= hit
        if disjoint:                # every input element is in at most one window
            xp.multiply(out_grad, hit, out=grad[every + target])
        else:
            grad[every + target] += out_grad * hit
    return grad


# -- overlapping pooling: each tap one contiguous run of a stride phase -----------------------
# A strided tap slice walks rows only ``out[-1]`` long, and a ufunc pays per row.  Split the
# padded input by stride phase instead: phase ``a`` (per axis) holds the padded positions
# ``s * i + a``, so tap ``o`` reads phase ``o % s`` shifted by ``o // s``.  Each phase plane is
# stored flat per (batch, channel) with trailing axes ``q`` long (a bit longer than the output):
# a tap's elements for all output positions are then ONE contiguous run of the flat plane, laid
# out as an "extended" output ``(out[0], q[1], ..., q[-1])`` whose extra trailing positions
# are garbage, cropped away (forward) or given zero gradient (backward).


def phase_layout(geometry, out_size):
    """Plane shape (one spare first-axis row so every tap's run fits) and extended output."""
    lengths = tuple(o - 1 + -(-(d * (k - 1) + 1) // s) for o, k, s, d in zip(
        out_size, geometry.kernel, geometry.stride, geometry.dilate))
    return lengths, (lengths[0] + 1,) + lengths[1:], tuple(out_size[:1]) + lengths[1:]


def _phase_regions(geometry, size, lengths):
    """For each stride phase (row-major): the data slices it holds and where in its plane."""
    for phase in itertools.product(*(range(s) for s in geometry.stride)):
        source, target = [], []
        for a, s, p, n, q in zip(phase, geometry.stride, geometry.pad, size, lengths):
            low, high = max(0, -((a - p) // s)), min(q, -((a - p - n) // s))
            start = s * low + a - p
            source.append(slice(start, start + s * (high - low - 1) + 1, s))
            target.append(slice(low, max(low, high)))
        yield tuple(source), tuple(target)


def _tap_runs(geometry, planes):
    """For each kernel tap (row-major): its phase's index and the run's start in the plane."""
    plane_strides = [math.prod(planes[i + 1:]) for i in range(len(planes))]
    for offset in itertools.product(*(range(k) for k in geometry.kernel)):
        shift = [o * d for o, d in zip(offset, geometry.dilate)]
        phase = 0
        for x, s in zip(shift, geometry.stride):
            phase = phase * s + x % s
        yield phase, sum(x // s * t for x, s, t in zip(shift, geometry.stride, plane_strides))


def split_phases(xp, data, geometry, out_size, fill):
    """Padded ``data`` as flat phase planes ``(prod(stride), N * C, prod(planes))``."""
    lengths, planes, _ = phase_layout(geometry, out_size)
    batch, channels = data.shape[:2]
    every = (slice(None), slice(None))
    phases = xp.full((math.prod(geometry.stride), batch, channels) + planes, fill,
                     dtype=data.dtype)
    for index, (source, target) in enumerate(_phase_regions(geometry, data.shape[2:], lengths)):
        if all(t.stop > t.start for t in target):
            phases[(index,) + every + target] = data[every + source]
    return phases.reshape(phases.shape[0], batch * channels, -1)


def merge_phases(xp, phases, data_shape, geometry, out_size):
    """Adjoint of ``split_phases``: phase-plane gradients back to ``data_shape``."""
    lengths, planes, _ = phase_layout(geometry, out_size)
    every = (slice(None), slice(None))
    covered = all(p + n <= s * q for p, n, s, q in zip(
        geometry.pad, data_shape[2:], geometry.stride, lengths))
    grad = (xp.empty if covered else xp.zeros)(data_shape, dtype=phases.dtype)
    phases = phases.reshape(phases.shape[:1] + tuple(data_shape[:2]) + planes)
    for index, (source, target) in enumerate(_phase_regions(geometry, data_shape[2:], lengths)):
        if all(t.stop > t.start for t in target):
            grad[every + source] = phases[(index,) + every + target]
    return grad


def _extend(xp, array, extended, fill):
    """``(N, C, *out)`` placed in ``(N * C, prod(extended))``, the rest ``fill``."""
    batch, channels = array.shape[:2]
    if tuple(array.shape[2:]) == tuple(extended):
        return array.reshape(batch * channels, -1)
    result = xp.full((batch, channels) + tuple(extended), fill, dtype=array.dtype)
    result[(slice(None), slice(None)) + tuple(slice(0, n) for n in array.shape[2:])] = array
    return result.reshape(batch * channels, -1)


def pool_phases(xp, data, geometry, out_size, kind, lowest):
    """Max or sum pooling of overlapping windows, one contiguous run per tap; ``lowest``
    is the padding of max pooling."""
    _, planes, extended = phase_layout(geometry, out_size)
    phases = split_phases(xp, data, geometry, out_size, lowest if kind == "max" else 0)
    length = math.prod(extended)
    runs = (phases[phase, :, start:start + length]
            for phase, start in _tap_runs(geometry, planes))
    result = _combine(xp, runs, kind).reshape(tuple(data.shape[:2]) + extended)
    return xp.ascontiguousarray(result[(Ellipsis,) + tuple(slice(0, n) for n in out_size)])


def sum_pool_phases_grad(xp, scale, data_shape, geometry):
    """Gradient of sum pooling (``scale`` = out_grad, divided by the counts for avg)."""
    out_size = scale.shape[2:]
    _, planes, extended = phase_layout(geometry, out_size)
    length = math.prod(extended)
    grads = xp.zeros((math.prod(geometry.stride), data_shape[0] * data_shape[1],
                      math.prod(planes)), dtype=scale.dtype)
    scale = _extend(xp, scale, extended, 0)
    for phase, start in _tap_runs(geometry, planes):
        grads[phase, :, start:start + length] += scale
    return merge_phases(xp, grads, data_shape, geometry, out_size)


def max_pool_scatter_grad(xp, out_grad, data, output, geometry, lowest):
    """Gradient of max pooling with overlapping windows.

    Each window's first maximal tap (row-major) gets the window's gradient.  The taps
    are compared in that order while ``passed`` counts, per window, the taps before
    its first maximum; a weighted ``bincount`` then adds every window's gradient at its
    winner's flat position in ``data`` (windows may share a winner).  Every maximum must be
    above ``lowest``, the padding, so that no winner is padding.
    """
    out_size = output.shape[2:]
    _, planes, extended = phase_layout(geometry, out_size)
    length = math.prod(extended)
    phases = split_phases(xp, data, geometry, out_size, lowest)
    peak = _extend(xp, output, extended, lowest)
    hit = xp.empty(peak.shape, dtype=bool)
    searching = xp.ones(peak.shape, dtype=bool)         # first maximum not met yet
    passed = xp.zeros(peak.shape, dtype=xp.uint8)
    for phase, start in list(_tap_runs(geometry, planes))[:-1]:   # the last wins the rest
        xp.equal(phases[phase, :, start:start + length], peak, out=hit)
        xp.greater(searching, hit, out=searching)
        passed += searching
    passed = passed.reshape(tuple(output.shape[:2]) + extended)
    index = _winner_index(xp, passed[(Ellipsis,) + tuple(slice(0, n) for n in out_size)],
                          data.shape, geometry)
    # windows sharing a winner add up: a weighted bincount (``add.at`` is ~20x slower)
    grad = xp.bincount(index.reshape(-1), weights=out_grad.reshape(-1), minlength=data.size)
    return grad.astype(out_grad.dtype, copy=False).reshape(data.shape)


def _winner_index(xp, passed, data_shape, geometry):
    """Flat position in ``data`` of each window's tap number ``passed`` (row-major)."""
    size = data_shape[2:]
    steps = [math.prod(size[axis + 1:]) for axis in range(len(size))]
    offsets = [sum(o * d * t for o, d, t in zip(offset, geometry.dilate, steps))
               for offset in itertools.product(*(range(k) for k in geometry.kernel))]
    index = xp.take(xp.asarray(offsets, dtype=xp.int64), passed)
    corner = xp.arange(passed.shape[0] * passed.shape[1], dtype=xp.int64) * math.prod(size)
    corner = corner.reshape((-1, 1))
    for axis, (n, s, p, t) in enumerate(zip(passed.shape[2:], geometry.stride, geometry.pad,
                                            steps)):
        along = (xp.arange(n, dtype=xp.int64) * s - p) * t
        if axis == 0:           # planes and the first axis: a small table
            corner = (corner + along).reshape(passed.shape[:3] + (1,) * (len(size) - 1))
        else:
            corner = along.reshape((n,) + (1,) * (len(size) - 1 - axis))
        index += corner
    return index

