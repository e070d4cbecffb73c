"""Image helpers of ``mx.image``: decode, resize, crop and normalise HWC images.

Lesson: 11-data. Images are HxWxC arrays (height, width, channels), RGB, uint8 when
decoded; the helpers take an NDArray (or numpy array) and return an NDArray. Random
choices use Python's ``random`` module, as MXNet's do, so ``random.seed`` fixes them.
Mirrors python/mxnet/image/image.py (the functions; augmenters are in augmenters.py).
"""
import functools
import math
import random

import numpy as np

from .. import ndarray as nd
from ..base import InvalidParameterError, MXNetError
from ..ndarray import NDArray
from ..image_codec import decode_array, resize_array
from ..numpy.mode import in_mode

__all__ = ["imread", "imdecode", "imresize", "scale_down", "copyMakeBorder", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop",
           "as_numpy", "as_ndarray"]


def as_numpy(src):
    """The numpy array behind ``src`` (NDArray or array-like)."""
    return src.asnumpy() if isinstance(src, NDArray) else np.asarray(src)


def as_ndarray(array, like=None):
    """``array`` as an NDArray of its own dtype (on ``like``'s context when given; an
    ``np.ndarray`` in NumPy mode)."""
    ctx = like.context if isinstance(like, NDArray) else None
    return in_mode(nd.array(array, ctx=ctx, dtype=array.dtype))


def imdecode(buf, flag=1, to_rgb=1, out=None):
    """Decode an image file's bytes to an HxWxC uint8 NDArray (C=3 when flag=1, 1 when 0).

    Examples
    --------
    >>> from minimx.image_codec import encode_array
    >>> imdecode(encode_array(np.zeros((4, 6, 3), np.uint8), img_fmt=".png")).shape
    (4, 6, 3)
    """
    if isinstance(buf, NDArray):
        buf = buf.asnumpy().astype(np.uint8).tobytes()
    elif isinstance(buf, np.ndarray):
        buf = buf.tobytes()
    elif not isinstance(buf, (bytes, bytearray)):
        raise InvalidParameterError(f"imdecode: buf must be bytes, bytearray, a numpy array "
                                    f"or an NDArray, got {type(buf).__name__}")
    result = as_ndarray(decode_hwc(buf, flag, to_rgb))
    if out is not None:
        out[:] = result
        return out
    return result


def decode_hwc(buf, flag=1, to_rgb=1):
    """Decode image bytes to an HxWxC uint8 numpy array (what ``imdecode`` wraps)."""
    array = decode_array(buf, flag=flag, to_rgb=bool(to_rgb))
    if array.ndim == 2:
        array = array[:, :, None]
    return array.astype(np.uint8, copy=False)


class ImageNotFoundError(MXNetError, FileNotFoundError):
    """``imread`` of a file that is not there (an MXNetError, as MXNet's, and a
    FileNotFoundError)."""


def imread(filename, flag=1, to_rgb=True, out=None):
    """Read and decode an image file."""
    try:
        with open(filename, "rb") as handle:
            content = handle.read()
    except FileNotFoundError:
        raise ImageNotFoundError(f"imread: {filename} does not exist") from None
    return imdecode(content, flag=flag, to_rgb=to_rgb, out=out)


# OpenCV's codes, which MXNet's imresize passes on: nearest, bilinear, bicubic, area,
# Lanczos, exact bilinear; OpenCV refuses any other (9 and 10 are the crop helpers' own)
_OPENCV_INTERP = range(6)


def imresize(src, w, h, interp=1, out=None):
    """Resize ``src`` to width ``w`` and height ``h`` (interp as in OpenCV, 1 = bilinear)."""
    if interp not in _OPENCV_INTERP:
        raise MXNetError(f"imresize: unknown interpolation method {interp}; OpenCV's are "
                         f"0-5 (9 and 10 choose one, in resize_short and the crops)")
    result = as_ndarray(resize_array(as_numpy(src), int(w), int(h), interp), like=src)
    if out is not None:
        out[:] = result
        return out
    return result


def interp_method(interp, sizes=()):
    """Resolve MXNet's automatic interpolation codes: 9 (by direction) and 10 (random)."""
    if interp == 9:
        if not sizes:
            return 2
        old_h, old_w, new_h, new_w = sizes
        if new_h > old_h and new_w > old_w:
            return 2
        if new_h < old_h and new_w < old_w:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise InvalidParameterError(f"Unknown interp method {interp}: expected 0-4, 9 or 10")
    return interp


def scale_down(src_size, size):
    """Shrink the crop ``size`` (w, h) to fit in ``src_size`` (w, h), keeping its ratio."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0):  # noqa: A002 (MXNet name)
    """Pad an HxWxC image: type 0 constant ``value``, 1 replicate, 2 reflect, 4 reflect-101."""
    modes = {0: "constant", 1: "edge", 2: "symmetric", 4: "reflect", 3: "wrap"}
    array = as_numpy(src)
    widths = ((top, bot), (left, right)) + ((0, 0),) * (array.ndim - 2)
    if type == 0:
        padded = np.pad(array, widths, mode="constant", constant_values=value)
    else:
        padded = np.pad(array, widths, mode=modes[type])
    return as_ndarray(padded, like=src)


def short_side_size(h, w, size):
    """(new_h, new_w) of an ``h`` x ``w`` image whose shorter side becomes ``size``."""
    return (size * h // w, size) if h > w else (size, size * w // h)


def resize_short(src, size, interp=2):
    """Resize so that the shorter side is ``size``, keeping the aspect ratio."""
    h, w = src.shape[0], src.shape[1]
    new_h, new_w = short_side_size(h, w, size)
    return imresize(src, new_w, new_h, interp=interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """Crop the ``w`` x ``h`` rectangle at (x0, y0), then resize to ``size`` if given."""
    out = as_numpy(src)[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):     # crop and resize as one numpy step
        sizes = (h, w, size[1], size[0])
        out = resize_array(out, int(size[0]), int(size[1]), interp_method(interp, sizes))
    return as_ndarray(out, like=src)


def random_box(w, h, size):
    """A random (x0, y0, w, h) of ``size`` (w, h), shrunk to fit a ``w`` x ``h`` image."""
    new_w, new_h = scale_down((w, h), size)
    return random.randint(0, w - new_w), random.randint(0, h - new_h), new_w, new_h


def center_box(w, h, size):
    """The central (x0, y0, w, h) of ``size`` (w, h), shrunk to fit a ``w`` x ``h`` image."""
    new_w, new_h = scale_down((w, h), size)
    return int((w - new_w) / 2), int((h - new_h) / 2), new_w, new_h


def random_crop(src, size, interp=2):
    """Crop a random ``size`` (w, h) region (shrunk to fit); returns (image, (x0, y0, w, h))."""
    box = random_box(src.shape[1], src.shape[0], size)
    return fixed_crop(src, *box, size, interp), box


def center_crop(src, size, interp=2):
    """Crop the central ``size`` (w, h) region; returns (image, (x0, y0, w, h))."""
    box = center_box(src.shape[1], src.shape[0], size)
    return fixed_crop(src, *box, size, interp), box


def color_normalize(src, mean, std=None):
    """``src -= mean``, then ``src /= std``, per channel, in place: as MXNet's, ``src`` itself
    changes and is returned (a mean or std that would broadcast it to a larger shape is an
    error)."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


@functools.lru_cache(maxsize=64)
def log_pair(low, high):
    """``(np.log(low), np.log(high))`` as floats (the same ratio range comes every image)."""
    return float(np.log(low)), float(np.log(high))


def random_size_box(w, h, area, ratio):
    """A random (x0, y0, w, h) of random area fraction and aspect ratio inside a ``w`` x
    ``h`` image, or None after 10 draws that do not fit."""
    if isinstance(area, (int, float)):
        area = (area, 1.0)
    log_low, log_high = log_pair(*ratio)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * h * w
        new_ratio = float(np.exp(random.uniform(log_low, log_high)))
        # math.sqrt: np.sqrt's correctly rounded root without numpy's per-scalar cost
        new_w = int(round(math.sqrt(target_area * new_ratio)))
        new_h = int(round(math.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            return random.randint(0, w - new_w), random.randint(0, h - new_h), new_w, new_h
    return None


def random_size_crop(src, size, area, ratio, interp=2):
    """Crop a random region of random area fraction and aspect ratio, resized to ``size``.

    Falls back to a centre crop after 10 tries that do not fit.
    """
    box = random_size_box(src.shape[1], src.shape[0], area, ratio)
    if box is None:
        return center_crop(src, size, interp)
    return fixed_crop(src, *box, size, interp), box
