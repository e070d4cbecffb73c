"""Convolution as one product per kernel tap, over only the positions that tap reads.

Lesson: 09-gluon.  im2col (``conv_kernels.py``) copies every window whole, padding
included, and multiplies the zeros of the padding with the filters like any other value.
On small planes most windows overhang the border: a 3x3 kernel padded by 1 over a 3x3 plane
(ResNet-18's last stage at 96 px) reads padding at 32 of its 81 taps, so 40 % of the
products are of zeros.  Here the sum is taken the other way round:

    out[:, :, i, j] = sum over taps (a, b) of  data[:, :, s*i + a - p, s*j + b - p] @ W[:, :, a, b]

Each tap is one matrix product, ``(positions * N, C) x (C, F)``, over the rectangle of
output positions whose input under that tap lies inside the plane (``spans``), added into
the output where those positions are.  The padding is never read or multiplied, no column
matrix is built, and each product is as deep as the channels are many.  For that the
arrays are moved positions-first, ``(*plane, N, C)``: a rectangle of positions is then a
block of whole ``(N, C)`` rows.

The data gradient is the same sum read the other way (each tap's rectangle of output
gradients times that tap's filters, added where its inputs lie), and the weight gradient
is one product per tap, ``(F, positions * N) x (positions * N, C)``.

It pays where much of the im2col product is padding and the products are deep
(``suits``; figures in its comment); elsewhere im2col or Winograd's path stays faster.
``conv_kernels`` stays the reference the tests hold these kernels to.
"""
import itertools
import math

__all__ = ["suits", "plan", "convolve", "convolve_transpose", "weight_grad"]

# Where a tap-by-tap product pays (one thread, ms, forward + both gradients, before ->
# after; the 2-thread figures in brackets): 3x3 over 64 x 512 planes of 3x3 (ResNet-18's
# last stage at 96 px, 40 % padding) 95.9 -> 58.0 (59.3 -> 36.0); 5x5 planes, 128
# channels (25 %) 22.6 -> 13.8; 6x6 planes at stride 2, 256 -> 512 channels (21 %) 48.4
# -> 40.2 (30.6 -> 25.0).  Where the padding is a smaller share the products lose:
# 12x12 planes at stride 2 (11 %) 58.0 -> 52.1 on one thread but 37.2 -> 45.8 on two,
# 7x7 planes of 512 channels (18 %, Winograd's path) 175 -> 205, 56x56 planes (4 %)
# 198 -> 369; and with 64 channels (24x24 at stride 2) 69.8 -> 77.2.
_MIN_PADDING_SHARE = 0.2
_MIN_CHANNELS = 128
# Output rows (positions times samples) below which moving the filters taps-first costs
# more than the products save: batch 1 over 3x3 planes of 512 channels 5.1 -> 9.1 ms;
# batch 16 (144 rows) 6.5 -> 4.6.
_MIN_ROWS = 64
_FLOATS = ("float32", "float64")      # numpy's BLAS types (a numpy dtype equals its name)


def spans(size, kernel, stride, dilate, pad, out):
    """Along one axis, for each kernel tap: ``(output slice, input slice)`` of the output
    positions whose input under that tap lies inside ``size`` (not in the padding), or
    None where there are none."""
    result = []
    for tap in range(kernel):
        start = tap * dilate - pad                # the input output 0 reads at this tap
        first = max(0, -(start // stride))        # the first output reading index >= 0
        stop = min(out, (size - 1 - start) // stride + 1)
        result.append(None if stop <= first else (
            slice(first, stop), slice(start + stride * first,
                                      start + stride * (stop - 1) + 1, stride)))
    return result


def plan(in_size, geometry, out_size):
    """The taps that read the input anywhere: ``(tap index (row-major), output slices,
    input slices)``."""
    per_axis = [spans(n, k, s, d, p, o) for n, k, s, d, p, o in zip(
        in_size, geometry.kernel, geometry.stride, geometry.dilate, geometry.pad, out_size)]
    return [(index, tuple(span[0] for span in parts), tuple(span[1] for span in parts))
            for index, parts in enumerate(itertools.product(*per_axis))
            if all(span is not None for span in parts)]


def padding_share(in_size, geometry, out_size):
    """Of the ``taps x output positions`` products im2col makes, the share that reads
    padding."""
    read = sum(math.prod(s.stop - s.start for s in outs)
               for _, outs, _ in plan(in_size, geometry, out_size))
    return 1 - read / (math.prod(geometry.kernel) * math.prod(out_size))


def suits(xp, data_shape, dtype, filters, geometry, groups, out_size):
    """Whether a convolution of this shape takes the tap-by-tap products: no channel
    groups, float32 or float64 on the CPU, many channels in and out, enough output rows,
    and a large share of padding in im2col's product."""
    if groups != 1 or xp.__name__ != "numpy" or dtype not in _FLOATS:
        return False
    if min(data_shape[1], filters) < _MIN_CHANNELS or \
            data_shape[0] * math.prod(out_size) < _MIN_ROWS:
        return False
    return padding_share(data_shape[2:], geometry, out_size) >= _MIN_PADDING_SHARE


def _positions_first(xp, array):
    """``(N, C, *plane)`` -> ``(*plane, N, C)``, contiguous."""
    return xp.ascontiguousarray(xp.moveaxis(array, (0, 1), (-2, -1)))


def _channels_first(xp, array):
    """``(*plane, N, C)`` -> ``(N, C, *plane)``, contiguous."""
    return xp.ascontiguousarray(xp.moveaxis(array, (-2, -1), (0, 1)))


def _taps_first(xp, weight):
    """``(F, C, *kernel)`` -> ``(taps, F, C)``, contiguous: each tap's filters one matrix."""
    filters, channels = weight.shape[:2]
    return xp.ascontiguousarray(xp.moveaxis(weight.reshape(filters, channels, -1), -1, 0))


def _covers(slices, size):
    return all(s.start == 0 and s.stop == n and s.step in (None, 1) for s, n in zip(slices, size))


def _sum_of_products(xp, target, taps, product):
    """``target (*plane, N, X)`` = the sum over ``taps`` of ``product(tap)`` (two matrices),
    each added at the tap's slices ``tap[1]``.  A tap that covers the whole plane (the
    centre tap of a padded stride-1 kernel) writes its product first, in place of zeros."""
    plane = target.shape[:-2]
    first = next((tap for tap in taps if _covers(tap[1], plane)), None)
    if first is None:
        target[...] = 0
    else:
        xp.matmul(*product(first), out=target.reshape(-1, target.shape[-1]))
    for tap in taps:
        if tap is not first:
            view = target[tap[1]]
            view += xp.matmul(*product(tap)).reshape(view.shape)
    return target


def convolve(xp, data, weight, geometry, out_size):
    """``data (N, C, *in)`` correlated with ``weight (F, C, *kernel)`` -> ``(N, F, *out)``."""
    batch, channels = data.shape[:2]
    data_first, filters = _positions_first(xp, data), _taps_first(xp, weight)
    out = xp.empty(tuple(out_size) + (batch, weight.shape[0]), dtype=data.dtype)

    def product(tap):           # the inputs this tap reads, times its filters
        index, _, inputs = tap
        return data_first[inputs].reshape(-1, channels), filters[index].T
    taps = plan(data.shape[2:], geometry, out_size)
    return _channels_first(xp, _sum_of_products(xp, out, taps, product))


def convolve_transpose(xp, out_grad, weight, data_shape, geometry):
    """Adjoint of ``convolve`` in ``data``: ``(N, F, *out)`` -> ``(N, C, *in)``."""
    batch, filters = out_grad.shape[:2]
    in_size = tuple(data_shape[2:])
    grad_first, taps_filters = _positions_first(xp, out_grad), _taps_first(xp, weight)
    result = xp.empty(in_size + (batch, weight.shape[1]), dtype=out_grad.dtype)

    def product(tap):           # this tap's output gradients, times its filters
        index, _, outputs = tap
        return grad_first[outputs].reshape(-1, filters), taps_filters[index]
    # the same taps, each writing where its inputs lie
    taps = [(index, inputs, outputs) for index, outputs, inputs in
            plan(in_size, geometry, out_grad.shape[2:])]
    return _channels_first(xp, _sum_of_products(xp, result, taps, product))


def weight_grad(xp, out_grad, data, geometry):
    """Gradient of ``convolve`` in ``weight``: ``(F, C, *kernel)``, each tap's filters
    one product over the positions it reads (zero for a tap that reads only padding)."""
    filters, channels = out_grad.shape[1], data.shape[1]
    grad_first, data_first = _positions_first(xp, out_grad), _positions_first(xp, data)
    grads = xp.zeros((math.prod(geometry.kernel), filters, channels), dtype=out_grad.dtype)
    for index, outputs, inputs in plan(data.shape[2:], geometry, out_grad.shape[2:]):
        xp.matmul(grad_first[outputs].reshape(-1, filters).T,
                  data_first[inputs].reshape(-1, channels), out=grads[index])
    return xp.ascontiguousarray(xp.moveaxis(grads, 0, -1)).reshape(
        (filters, channels) + tuple(geometry.kernel))
