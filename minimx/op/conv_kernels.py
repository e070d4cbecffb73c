"""The array work behind Convolution and Deconvolution, arranged for BLAS.

Lesson: 09-gluon.  Mirrors the im2col + GEMM strategy of ``src/operator/nn/im2col.h``.
A convolution copies every kernel window once into a column matrix whose last axis
is the output position (``im2col``) and multiplies it by the filters with a batched
``matmul``.  With stride 1 along the first spatial axis, only the other axes are
unfolded (``row_columns``, ``kernel[0]`` times less copying) and each kernel row is
one ``matmul`` on a dense slice of it.  The data gradient multiplies the other way
round and adds each kernel tap back into place (``col2im``, one slice per tap; at stride
1 a kernel large beside its output adds whole rows of taps on flattened planes,
``wide_transpose``).  The
weight gradient of a layer with many channels copies its windows channels-last
(``window_rows``: the channels innermost, so each copied run is long) and sums the whole
batch in one product.
All functions take ``xp`` (numpy or CuPy) and work for 1 to 3 spatial axes, any
stride, dilation, padding and channel groups.  Pooling's array work is in
``pool_kernels.py``.
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


def add_windows(xp, windows, padded_shape, geometry):
    """Adjoint of ``window_view``: the windows ``(N, C, *kernel, *out)`` added back where
    they were read, into a zero padded input (overlapping windows sum)."""
    rank = len(geometry.kernel)
    canvas = xp.zeros(padded_shape, dtype=windows.dtype)
    every = (slice(None),) * 2
    for offset, target in tap_slices(geometry, windows.shape[2 + rank:]):
        canvas[every + target] += windows[every + offset]
    return canvas


def col2im(xp, columns, padded_shape, geometry, out_size):
    """Adjoint of ``im2col``: columns ``(N, C * prod(kernel), prod(out))`` summed back
    into a padded input of ``padded_shape``."""
    windows = columns.reshape(tuple(padded_shape[:2]) + tuple(geometry.kernel) + tuple(out_size))
    return add_windows(xp, windows, padded_shape, geometry)


# Up to these many output positions per sample (7 x 7), the per-sample products (``P``
# columns each) are too thin for BLAS to run fast: the whole batch becomes one product
# instead, at the cost of copying the windows once in batch-inner order (``tensordot``
# does it).  Measured on ResNet-18 and LeNet layers (bench/course_workloads.py): at 6 x 6
# one product is 1.3-3x faster, at 8 x 8 the per-sample products win.
_THIN_FORWARD = 49
_THIN_WEIGHT_GRAD = 49


def _thin(out_size, groups, limit):
    return groups == 1 and math.prod(out_size) <= limit


# Filters per output position above which the weight gradient is one product (below).
_FILTERS_PER_POSITION = 1


def _whole_batch_weight_grad(out_size, filters, groups):
    """The weight gradient as one product over the whole batch: for thin outputs (above),
    and whenever a sample has fewer output positions than there are filters.  The
    per-sample products are then larger (``filters x C * K`` each, N of them, summed
    afterwards) than the columns the single product reads (``positions x C * K`` per
    sample).  CPU time on one core, batch 64: 4x4 stride-2 conv 64->128 channels 16x16 (the
    DCGAN's, and its Conv2DTranspose 128->64's) 21.5 -> 18.2 ms, 3x3 conv 256->256 at 8x8
    74.9 -> 64.3 ms; with more positions than filters (ResNet-18's 3x3 stride-2 64->128
    at 24x24: 23.6 ms against 28.2) the per-sample products stay faster."""
    return _thin(out_size, groups, _THIN_WEIGHT_GRAD) or (
        groups == 1 and filters > _FILTERS_PER_POSITION * math.prod(out_size))


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


# Input channels from which the weight gradient copies its windows channels-last (below).
_LAST_MIN_CHANNELS = 32


def window_rows(xp, padded_last, geometry, out_size):
    """Every kernel window of a channels-last padded input ``(N, *in, C)`` as one row,
    ``(N * prod(out), prod(kernel) * C)``, copied once.  The channels are innermost, so a
    window's taps along the last axis and their channels are one contiguous run (``kernel
    * C`` values with dilate 1) where the channel-first ``im2col`` copies runs of a few
    strided values."""
    batch, channels = padded_last.shape[0], padded_last.shape[-1]
    strides, spatial = padded_last.strides, padded_last.strides[1:-1]
    shape = (batch,) + tuple(out_size) + tuple(geometry.kernel) + (channels,)
    view_strides = ((strides[0],) + tuple(s * t for s, t in zip(spatial, geometry.stride))
                    + tuple(s * d for s, d in zip(spatial, geometry.dilate)) + (strides[-1],))
    view = xp.lib.stride_tricks.as_strided(padded_last, shape, view_strides)
    return view.reshape(batch * math.prod(out_size), math.prod(geometry.kernel) * channels)


def weight_grad_channels_last(xp, out_grad, padded, geometry):
    """The weight gradient as one product over the whole batch, ``out_grad`` as ``(N * P,
    F)`` rows times ``window_rows`` (no channel groups).  Both are copied channels-last
    first (the padded input once, the gradient once), and the product comes back as
    ``(F, *kernel, C)``, moved to ``(F, C, *kernel)``.  One large product instead of the
    per-sample ones summed over the batch, and a fast window copy: CPU ms on one core,
    batch 64 (before -> after): the DCGAN's 4x4 stride-2 layers 64->128 at 16x16 19.0 ->
    16.0, 128->64 deconvolution at 8x8 19.8 -> 16.3; ResNet-18's 3x3 128->128 at 12x12 46.5
    -> 37.2, 3x3 stride-2 64->128 at 24x24 24.4 -> 20.3.  With few channels (LeNet's 6, an
    image's 1 or 3) the rows are short and the channel-first paths stay faster."""
    filters, channels = out_grad.shape[1], padded.shape[1]
    out_size = out_grad.shape[2:]
    rows = window_rows(xp, xp.ascontiguousarray(xp.moveaxis(padded, 1, -1)), geometry,
                       out_size)                                       # (N * P, K * C)
    grads = xp.moveaxis(out_grad, 1, -1).reshape(rows.shape[0], filters)  # (N * P, F)
    product = xp.matmul(grads.T, rows).reshape((filters,) + tuple(geometry.kernel)
                                               + (channels,))
    return xp.ascontiguousarray(xp.moveaxis(product, -1, 1))


def _channels_last_weight_grad(channels, geometry, groups):
    """Whether the weight gradient takes ``weight_grad_channels_last``: many channels, a
    kernel of several taps (a 1x1 kernel's windows are the input itself: the channel-first
    paths copy nothing there, 3.5 ms against 5.9 for ResNet-18's 1x1 stride-2 64->128),
    no channel groups.  At 16 channels the channel-last copy is slower (4.6 -> 9.3 ms for
    a 3x3 16->16 conv at 28x28); at 32 about even (21.4 -> 21.8 at 28x28; stride 2 11.3 ->
    10.3)."""
    return groups == 1 and channels >= _LAST_MIN_CHANNELS and math.prod(geometry.kernel) > 1


def convolve_weight_grad(xp, out_grad, padded, geometry, groups):
    """Gradient in ``weight``: sum over batch and positions of out_grad x window."""
    batch, filters = out_grad.shape[:2]
    out_size = out_grad.shape[2:]
    per_group = padded.shape[1] // groups
    if _channels_last_weight_grad(padded.shape[1], geometry, groups):
        return weight_grad_channels_last(xp, out_grad, padded, geometry)
    if _whole_batch_weight_grad(out_size, filters, groups):
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


def wide_positions(padded_shape, out_size):
    """Output positions per sample of ``wide_transpose``'s grid: the first output axis by
    the padded input's other axes, ``out[0] * prod(padded[1:])``."""
    return out_size[0] * math.prod(padded_shape[3:])


def wide_transpose(xp, out_grad, weight, padded_shape, geometry, groups):
    """Adjoint of a stride-1 ``convolve`` in the input: ``(N, F, *out)`` -> padded
    ``(N, C, *in)``, on flattened planes.

    With stride 1, output position ``o`` reads the padded input at flat index
    ``o0 * s0 + o1 * s1 + ... + tap offset`` (``s`` the padded plane's strides), so the
    gradient is first laid out on a *wide* grid, ``(out[0], *padded[1:])`` flattened
    (zeros where the output ends: they add nothing); a tap's contribution is then that grid
    shifted by its offset.  The taps along the last axis are shifts by ``j * dilate``:
    ``kernel[-1]`` shifted copies of the widened gradient, stacked under the filters,
    make each *row* of taps (the other axes' offsets) one product, the filters of that row
    ``(C, F * kernel[-1])`` times the copies, added into the flat canvas at the row's
    offset.  Compared with the full convolution it computes the wide grid's positions,
    not the whole input's, and copies the gradient ``kernel[-1]`` times instead of
    padding it and copying its windows: LeNet's second layer (16 -> 6 channels, 5x5 over
    8x8 outputs, batch 64), CPU time on one core, 0.60-0.75 ms against 1.05."""
    batch, filters = out_grad.shape[:2]
    out_size = tuple(out_grad.shape[2:])
    channels, kernel = padded_shape[1], tuple(geometry.kernel)
    spatial = tuple(padded_shape[2:])
    per_group_f, per_group_c = filters // groups, channels // groups
    last, step = kernel[-1], geometry.dilate[-1]
    reach = (last - 1) * step                        # the last axis's taps span this much
    wide = (out_size[0],) + spatial[1:]
    length = math.prod(wide)
    # the widened gradient with ``reach`` zeros before and after each plane
    grads = xp.zeros((batch, filters, length + 2 * reach), dtype=out_grad.dtype)
    grads[:, :, reach:reach + length].reshape((batch, filters) + wide)[
        (slice(None), slice(None)) + tuple(slice(0, n) for n in out_size)] = out_grad
    # shifted[n, f, j, q] = widened[q - j * step], q in [0, length + reach)
    strides = grads.strides
    shifted = xp.lib.stride_tricks.as_strided(
        grads[:, :, reach:], (batch, filters, last, length + reach),
        (strides[0], strides[1], -step * strides[2], strides[2]))
    shifted = xp.ascontiguousarray(shifted).reshape(batch, groups, per_group_f * last, -1)
    # each row of taps' filters as (G, C/G, F/G * kernel[-1])
    rows = weight.reshape((groups, per_group_f, per_group_c, -1, last)).transpose(3, 0, 2, 1, 4)
    rows = xp.ascontiguousarray(rows).reshape(-1, groups, per_group_c, per_group_f * last)
    plane = [math.prod(spatial[axis + 1:]) for axis in range(len(spatial))]
    size = math.prod(spatial)
    canvas = xp.zeros((batch, groups, per_group_c, size + length + reach), dtype=grads.dtype)
    product = None
    for filters_2d, offset in zip(rows, itertools.product(*(range(k) for k in kernel[:-1]))):
        start = sum(o * d * s for o, d, s in zip(offset, geometry.dilate, plane))
        product = xp.matmul(filters_2d, shifted, out=product)   # (N, G, C/G, length + reach)
        canvas[..., start:start + product.shape[-1]] += product
    return canvas[..., :size].reshape(padded_shape)

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


# Output rows (samples x positions) from which the data gradient of a layer with many channels
# runs channels-last (``transpose_channels_last``): its filters are copied once into that
# order, a copy that must be small beside the product (batch 1 of a late layer keeps the
# channel-first path, which reads the filters as they lie).
_LAST_MIN_ROWS = 1024


def _channels_last_data_grad(channels, geometry, groups, rows):
    """Whether ``convolve_transpose`` runs channels-last: the weight gradient's rule
    (``_channels_last_weight_grad``) and enough output rows to pay for the filters' copy."""
    return _channels_last_weight_grad(channels, geometry, groups) and rows >= _LAST_MIN_ROWS


def transpose_channels_last(xp, out_grad, weight, padded_shape, geometry):
    """``convolve_transpose`` channels-last (no channel groups): one product of the output
    gradient as ``(N * P, F)`` rows by the filters ``(F, K * C)`` gives every tap's values
    channels-innermost, and each tap's are added into a channels-last canvas ``(N, *in,
    C)`` at its slice, runs of ``C`` contiguous values.  The channel-first path makes one
    product per sample and adds rows of a few strided values.  Batch 64, ms on one BLAS
    thread (two): ResNet-18's 3x3 stride-2 64 -> 128 over 24x24 26.0 -> 23.7 (18.4 ->
    16.3), 128 -> 256 over 12x12 18.2 -> 17.4 (12.2 -> 10.7); the DCGAN's 4x4 stride-2
    64 -> 128 over 16x16 17.8 -> 17.0 (12.4 -> 11.7), 3x3 32 -> 64 over 16x16 4.0 -> 2.9
    (4.3 -> 2.9); a DCGAN step, five fresh processes each way, best 352 -> 338 ms.  With
    few channels (3 or 16) the runs are short and the channel-first path stays faster.
    Returns a channels-first view of the canvas."""
    batch, filters = out_grad.shape[:2]
    out_size, kernel = tuple(out_grad.shape[2:]), tuple(geometry.kernel)
    channels = padded_shape[1]
    grads = xp.moveaxis(out_grad, 1, -1).reshape(-1, filters)             # (N * P, F)
    taps = xp.moveaxis(weight, 1, -1).reshape(filters, -1)                # (F, K * C)
    columns = xp.dot(grads, taps).reshape((batch,) + out_size + kernel + (channels,))
    canvas = xp.zeros((batch,) + tuple(padded_shape[2:]) + (channels,), dtype=columns.dtype)
    every = (slice(None),)
    for offset, target in tap_slices(geometry, out_size):
        canvas[every + target] += columns[every * (1 + len(out_size)) + offset]
    return xp.moveaxis(canvas, -1, 1)


def convolve_transpose(xp, out_grad, weight, padded_shape, geometry, groups):
    """Adjoint of ``convolve`` in the input: ``(N, F, *out)`` -> padded ``(N, C, *in)``.

    The filters' transpose times ``out_grad`` gives every kernel tap's columns, and each
    tap's columns are added into a slice of a zero canvas.  Those adds run over contiguous
    rows of the last output axis; when the rows are short (a small late layer), columns
    and canvas are computed batch-last, ``(G, C/G, K, *out, N)`` and ``(G, C/G, *in, N)``,
    so that the rows are ``N`` times longer, at the cost of two transposes (the result is
    a batch-last view).  There the filters, ``(G, F/G, C/G * K)`` matrices, are read
    transposed as they lie (BLAS takes the transposed view; no copy of the weight): at
    batch 1 a weight-sized copy costs more than the product itself.  Layers with many
    channels over a large batch run channels-last instead (``transpose_channels_last``).
    """
    batch, filters = out_grad.shape[:2]
    out_size = tuple(out_grad.shape[2:])
    channels, kernel = padded_shape[1], tuple(geometry.kernel)
    if _channels_last_data_grad(channels, geometry, groups, batch * math.prod(out_size)):
        return transpose_channels_last(xp, out_grad, weight, padded_shape, geometry)
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
