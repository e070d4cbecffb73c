"""Resizing HxWxC images as OpenCV does, in numpy: the kernels of ``mx.image.imresize`` and
of the operator ``nd.image.resize``.

Lesson: 11-data.  Nearest, bilinear, bicubic and area follow OpenCV's pixel-centre
convention, so a resized image matches MXNet's to within rounding.  Every interpolation but
nearest is *separable*: an output pixel is a weighted sum over rows, then over columns,
each with a few taps (2 for bilinear, 4 for bicubic, 8 for Lanczos) whose positions and
weights are computed once per size and cached.
"""
import functools

import numpy as np

from ..base import MXNetError

__all__ = ["resize_array"]


def source_coords(out_size, in_size):
    """For each output pixel, the two input pixels and the weight of the second."""
    scale = in_size / out_size
    pos = (np.arange(out_size) + 0.5) * scale - 0.5
    pos = np.clip(pos, 0, in_size - 1)
    low = np.floor(pos).astype(np.int64)
    high = np.minimum(low + 1, in_size - 1)
    return low, high, pos - low


def linear_weights(out_size, in_size):
    """(out_size, in_size) matrix of bilinear weights: two taps per output pixel."""
    low, high, frac = source_coords(out_size, in_size)
    weights = np.zeros((out_size, in_size), dtype=np.float64)
    rows = np.arange(out_size)
    np.add.at(weights, (rows, low), 1 - frac)
    np.add.at(weights, (rows, high), frac)
    return weights


def cubic_weights(out_size, in_size, a=-0.75):
    """(out_size, in_size) matrix of OpenCV's bicubic weights (a = -0.75, borders
    replicated): row i mixes the four input pixels around output pixel i's centre."""
    pos = (np.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
    base = np.floor(pos).astype(np.int64)
    frac = pos - base
    weights = np.zeros((out_size, in_size), dtype=np.float64)
    for tap in range(-1, 3):
        distance = np.abs(frac - tap)
        near = ((a + 2) * distance - (a + 3)) * distance * distance + 1
        far = ((a * distance - 5 * a) * distance + 8 * a) * distance - 4 * a
        weight = np.where(distance <= 1, near, np.where(distance < 2, far, 0.0))
        np.add.at(weights, (np.arange(out_size), np.clip(base + tap, 0, in_size - 1)), weight)
    return weights


def lanczos_weights(out_size, in_size):
    """(out_size, in_size) matrix of OpenCV's Lanczos-4 weights: eight taps around each
    output pixel's centre, ``sinc(d) * sinc(d / 4)`` normalised to sum 1, borders
    replicated (no widening when shrinking, as OpenCV's)."""
    pos = (np.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
    base = np.floor(pos).astype(np.int64)
    frac = pos - base
    taps = np.arange(-3, 5)
    distance = frac[:, None] - taps[None, :]
    weight = np.sinc(distance) * np.sinc(distance / 4)
    weight /= weight.sum(axis=1, keepdims=True)
    weights = np.zeros((out_size, in_size), dtype=np.float64)
    rows = np.repeat(np.arange(out_size), len(taps))
    np.add.at(weights, (rows, np.clip(base[:, None] + taps, 0, in_size - 1).ravel()),
              weight.ravel())
    return weights


def nearest_index(out_size, in_size):
    """For each output pixel, the input pixel nearest resizing picks (OpenCV's INTER_NEAREST:
    the pixel under the output pixel's top-left corner)."""
    return np.minimum((np.arange(out_size) * in_size / out_size).astype(np.int64), in_size - 1)


def nearest_weights(out_size, in_size):
    """(out_size, in_size): nearest resizing as one tap of weight 1 per output pixel."""
    weights = np.zeros((out_size, in_size), dtype=np.float64)
    weights[np.arange(out_size), nearest_index(out_size, in_size)] = 1.0
    return weights


def box_weights(out_size, in_size):
    """(out_size, in_size): the share of input pixel j inside output pixel i's footprint
    [i * s, (i + 1) * s), s = in/out >= 1 (OpenCV's INTER_AREA when shrinking)."""
    scale = in_size / out_size
    starts = np.arange(out_size)[:, None] * scale
    pixels = np.arange(in_size)[None, :]
    overlap = np.minimum(starts + scale, pixels + 1) - np.maximum(starts, pixels)
    return np.maximum(overlap, 0) / scale


def area_linear_weights(out_size, in_size):
    """OpenCV's INTER_AREA when an image grows on some axis: two taps per output pixel,
    the second weighted by how far the pixel's right edge passes an input pixel edge."""
    inv_scale = out_size / in_size
    x = np.arange(out_size)
    sx = np.floor(x * in_size / out_size).astype(np.int64)
    fx = (x + 1) - (sx + 1) * inv_scale
    fx = np.where(fx <= 0, 0.0, fx - np.floor(fx))
    last = sx >= in_size - 1
    sx, fx = np.where(last, in_size - 1, sx), np.where(last, 0.0, fx)
    weights = np.zeros((out_size, in_size), dtype=np.float64)
    np.add.at(weights, (x, sx), 1 - fx)
    np.add.at(weights, (x, np.minimum(sx + 1, in_size - 1)), fx)
    return weights


def area_weights(out_size, in_size, shrinking):
    return box_weights(out_size, in_size) if shrinking else area_linear_weights(out_size,
                                                                                in_size)


@functools.lru_cache(maxsize=256)
def axis_taps(kind, out_size, in_size, *extra):
    """One interpolation along one axis as taps: ``(index, weight)``, both (out_size, K).

    Output pixel i is ``sum_k weight[i, k] * input[index[i, k]]``.  The weight matrix has
    only K non-zeros a row (2 for bilinear, 4 for bicubic), so gathering K rows beats a
    dense matrix product by far.  Cached per size: the same sizes come back every batch.
    """
    make = {"nearest": nearest_weights, "linear": linear_weights, "cubic": cubic_weights,
            "area": area_weights, "lanczos": lanczos_weights}[kind]
    weights = make(out_size, in_size, *extra)
    nonzero = weights != 0
    count = max(int(nonzero.sum(axis=1).max()), 1)
    index = np.argsort(~nonzero, axis=1, kind="stable")[:, :count]
    tap_weights = np.take_along_axis(weights, index, axis=1).astype(np.float32)
    index.flags.writeable = tap_weights.flags.writeable = False
    return index, tap_weights


def separable(img, rows, cols):
    """Interpolate every channel of a HxWxC image over rows, then over columns."""
    return tap_sum(tap_sum(img.astype(np.float32, copy=False), *rows), *cols, axis=1)


def nearest(img, w, h):
    rows, cols = nearest_index(h, img.shape[0]), nearest_index(w, img.shape[1])
    return img.take(rows, axis=0).take(cols, axis=1)     # two gathers: fastest in numpy


INTERP_KINDS = {0: "nearest", 1: "linear", 2: "cubic", 3: "area", 4: "lanczos"}


def resize_taps(in_h, in_w, h, w, interp):
    """The (rows, columns) taps that resize an ``in_h`` x ``in_w`` image to ``h`` x ``w``
    (interp as in ``resize_array``; any other code is bilinear)."""
    kind = INTERP_KINDS.get(interp, "linear")
    if kind == "area":
        shrinking = bool(in_h >= h and in_w >= w)  # OpenCV picks the kind for both axes
        return axis_taps(kind, h, in_h, shrinking), axis_taps(kind, w, in_w, shrinking)
    return axis_taps(kind, h, in_h), axis_taps(kind, w, in_w)


def round_to(out, dtype):
    """A float32 result as ``dtype``: integers rounded half up and clipped to range.  Half
    up as OpenCV's fixed-point resize for 8-bit images (it adds half of the last unit and
    shifts): halving a row [k, k + 1] gives k + 1, where NumPy's ``rint`` (half to even)
    gave k for every even k -- one level apart from MXNet on exact halves, which a
    downscale by 2 makes common."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        out = np.add(out, 0.5, out=out if out.dtype == np.float32 else None)
        np.floor(out, out=out)
        np.clip(out, info.min, info.max, out=out)
    return out.astype(dtype, copy=False)


def resize_array(img, w, h, interp=1):
    """Resize a HxWxC numpy array to ``(h, w)``; interp as OpenCV: 0 nearest, 1 bilinear,
    2 bicubic, 3 area and 4 Lanczos, all with OpenCV's weights."""
    if w <= 0 or h <= 0:
        raise MXNetError(f"imresize: target size must be positive, got w={w}, h={h}")
    img = np.asarray(img)
    squeeze = img.ndim == 2
    if squeeze:
        img = img[:, :, None]
    if interp == 0:
        out = nearest(img, w, h)         # picks pixels: nothing to round
    else:
        out = round_to(separable(img, *resize_taps(img.shape[0], img.shape[1], h, w, interp)),
                       img.dtype)
    return out[:, :, 0] if squeeze else out


def tap_sum(source, index, weight, axis=0):
    """``sum_k weight[..., k] * source.take(index[..., k], axis)`` in float32, k in order:
    one gather a tap; each weight spreads over the gathered pixel's other axes."""
    out = None
    for k in range(index.shape[-1]):
        term = source.take(index[..., k], axis=axis)
        spread = (1,) * axis + weight.shape[:-1]
        term *= weight[..., k].reshape(spread + (1,) * (term.ndim - len(spread)))
        out = term if out is None else np.add(out, term, out=out)
    return out


def resize_batch(images, rows, cols):
    """Resize a batch of float32 N x C x H x W images (each channel a plane), each image
    with taps of its own; returns N x C x h x w.

    ``rows`` = (index, weight), both (N, h, K): output row i of image n is the sum over k of
    ``weight[n, i, k] * images[n, :, index[n, i, k]]``; ``cols`` (N, w, K) likewise over
    columns.  Each pass gathers whole lines of the planes (rows, then columns after a
    transpose, which planes make cheap).  Taps padded with weight 0 at the end add exact
    zeros, so an image's pixels do not depend on the rest of the batch.
    """
    out = lines_pass(images, *rows)                                    # N x C x h x W
    out = lines_pass(np.ascontiguousarray(out.swapaxes(2, 3)), *cols)  # N x C x w x h
    return np.ascontiguousarray(out.swapaxes(2, 3))


def lines_pass(images, index, weight):
    """Interpolate N x C x L x M images along L (taps ``index``, ``weight``: N x l x K),
    gathering whole lines from all the planes stacked as one."""
    n, channels, lines = images.shape[:3]
    first = (np.arange(n)[:, None] * channels + np.arange(channels)) * lines   # each plane's
    index = index[:, None] + first[:, :, None, None]                           # N x C x l x K
    return tap_sum(images.reshape(n * channels * lines, -1), index, weight[:, None])
