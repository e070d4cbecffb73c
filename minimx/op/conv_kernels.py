"""The array work behind Convolution, Deconvolution and Pooling, arranged for BLAS.

Lesson: 08-gluon.  Mirrors the im2col + GEMM strategy of ``src/operator/nn/im2col.h``.
A convolution copies every kernel window once into a column matrix whose last axis
is the output position (``im2col``) and multiplies it by the filters with a batched
``matmul``.  With stride 1 along the first spatial axis, only the other axes are
unfolded (``row_columns``, ``kernel[0]`` times less copying) and each kernel row is
one ``matmul`` on a dense slice of it.  The data gradient multiplies the other way
round and adds each kernel tap back into place (``col2im``, one slice per tap).
Pooling reads the taps as ``prod(kernel)`` strided slices of the input.  All
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


def im2col(xp, padded, geometry, out_size):
    """Contiguous columns ``(N, C * prod(kernel), prod(out))`` of a padded input."""
    batch, channels = padded.shape[:2]
    strides, spatial = padded.strides, padded.strides[2:]
    shape = padded.shape[:2] + tuple(geometry.kernel) + tuple(out_size)
    view_strides = (strides[:2] + tuple(s * d for s, d in zip(spatial, geometry.dilate))
                    + tuple(s * t for s, t in zip(spatial, geometry.stride)))
    view = xp.lib.stride_tricks.as_strided(padded, shape, view_strides)   # (N, C, *k, *out)
    return view.reshape(batch, channels * math.prod(geometry.kernel), math.prod(out_size))


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


def _by_rows(geometry):
    """Unfold one kernel row at a time (a ``kernel[0]`` times smaller copy) when the first
    spatial axis has stride 1; the row products are then summed."""
    return geometry.stride[0] == 1 and geometry.kernel[0] > 1


def convolve(xp, padded, weight, geometry, groups, out_size):
    """``padded (N, C, *in)`` correlated with ``weight (F, C/groups, *kernel)``."""
    batch, filters = padded.shape[0], weight.shape[0]
    shape = (batch, filters) + tuple(out_size)
    per_row = math.prod(geometry.kernel[1:]) * weight.shape[1]
    if not _by_rows(geometry) or filters > 2 * per_row:    # summing rows would cost more
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


_LONG_ROW = 16      # output rows at least this long make batch-first col2im adds efficient


def convolve_transpose(xp, out_grad, weight, padded_shape, geometry, groups):
    """Adjoint of ``convolve`` in the input: ``(N, F, *out)`` -> padded ``(N, C, *in)``.

    Each kernel tap's columns are added into a slice of a zero canvas.  Those adds
    run over contiguous rows of the last output axis; when the rows are short (a
    small late layer), columns and canvas are computed batch-last, ``(G, K, C/G,
    *out, N)`` and ``(G, C/G, *in, N)``, so that the rows are ``N`` times longer,
    at the cost of two transposes (the result is a batch-last view).
    """
    batch, filters = out_grad.shape[:2]
    out_size = tuple(out_grad.shape[2:])
    channels, kernel = padded_shape[1], tuple(geometry.kernel)
    per_group_f, per_group_c = filters // groups, channels // groups
    taps = weight.reshape(groups, per_group_f, per_group_c, -1)
    every = (slice(None),)
    if out_size[-1] >= _LONG_ROW or math.prod(kernel) == 1:
        grads = out_grad.reshape(batch, groups, per_group_f, -1)
        columns = xp.matmul(taps.transpose(0, 3, 2, 1).reshape(groups, -1, per_group_f), grads)
        columns = columns.reshape((batch, groups) + kernel + (per_group_c,) + out_size)
        canvas = xp.zeros((batch, groups, per_group_c) + tuple(padded_shape[2:]),
                          dtype=columns.dtype)
        for offset, target in tap_slices(geometry, out_size):
            canvas[every * 3 + target] += columns[every * 2 + offset]
        return canvas.reshape(padded_shape)
    grads = xp.moveaxis(out_grad.reshape(batch, groups, per_group_f, -1), 0, -1)
    grads = grads.reshape(groups, 1, per_group_f, -1)                # (G, 1, F/G, P * N)
    columns = xp.matmul(taps.transpose(0, 3, 2, 1), grads)           # (G, K, C/G, P * N)
    columns = columns.reshape((groups,) + kernel + (per_group_c,) + out_size + (batch,))
    canvas = xp.zeros((groups, per_group_c) + tuple(padded_shape[2:]) + (batch,),
                      dtype=columns.dtype)
    for offset, target in tap_slices(geometry, out_size):
        canvas[every * 2 + target] += columns[every + offset]
    canvas = canvas.reshape((channels,) + tuple(padded_shape[2:]) + (batch,))
    return xp.moveaxis(canvas, -1, 0)


def pool_taps(xp, padded, geometry, out_size, kind):
    """Max or sum over the kernel taps, one strided slice at a time."""
    result = None
    every = (slice(None), slice(None))
    for _, target in tap_slices(geometry, out_size):
        tap = padded[every + target]
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
