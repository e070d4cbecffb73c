"""Image encoding, decoding and resizing on numpy arrays (HWC, uint8), through Pillow.

Lesson: 10-data.  The codec layer below RecordIO, the data iterators and ``mx.image``
(it imports nothing of minimx but ``base``).  MXNet calls OpenCV for these; minimx uses
Pillow for the codecs and numpy for the two interpolations training code uses most
(nearest and bilinear, with OpenCV's pixel-centre convention), so a resized image
matches MXNet's to within rounding.
Mirrors src/io/image_io.cc (imdecode, imresize) in its conventions.
"""
import io

import numpy as np

from .base import FileFormatError, MXNetError

__all__ = ["decode_array", "encode_array", "resize_array", "pil"]


def pil():
    """The Pillow ``Image`` module, or a clear error naming the extra to install."""
    try:
        from PIL import Image
    except ImportError as err:
        raise MXNetError("image decoding needs Pillow: pip install 'minimx[image]'") from err
    return Image


def decode_array(buf, flag=1, to_rgb=True):
    """Decode JPEG/PNG/... bytes to a uint8 numpy array.

    ``flag`` 1: three channels (HxWx3); 0: grey (HxWx1); -1: as stored (HxW for grey).
    Colour channels are RGB when ``to_rgb`` else BGR (OpenCV's order).
    """
    image_module = pil()
    try:
        image = image_module.open(io.BytesIO(bytes(buf)))
        image.load()
    except Exception as err:
        raise FileFormatError(f"imdecode: cannot decode {len(buf)} bytes as an image "
                              f"({err})") from err
    if flag == 0:
        return np.asarray(image.convert("L"))[:, :, None].copy()
    if flag == -1 and image.mode in ("L", "I;16", "I", "F"):
        return np.asarray(image).copy()
    array = np.asarray(image.convert("RGB"))
    return (array if to_rgb else array[:, :, ::-1]).copy()


def encode_array(img, quality=95, img_fmt=".jpg", from_rgb=True):
    """Encode a HxW or HxWxC uint8 array as JPEG (quality 1-100) or PNG (compression 0-9)."""
    image_module = pil()
    img = np.asarray(img)
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim == 3 and not from_rgb:
        img = img[:, :, ::-1]
    image = image_module.fromarray(np.ascontiguousarray(img.astype(np.uint8)))
    out = io.BytesIO()
    fmt = img_fmt.lower().lstrip(".")
    if fmt in ("jpg", "jpeg"):
        image.save(out, format="JPEG", quality=int(quality))
    elif fmt == "png":
        image.save(out, format="PNG", compress_level=int(min(max(quality, 0), 9)))
    else:
        raise MXNetError(f"pack_img: unsupported image format {img_fmt!r}; use .jpg or .png")
    return out.getvalue()


def source_coords(out_size, in_size):
    """For each output pixel, the two input pixels and the weight of the second."""
    scale = in_size / out_size
    pos = (np.arange(out_size) + 0.5) * scale - 0.5
    pos = np.clip(pos, 0, in_size - 1)
    low = np.floor(pos).astype(np.int64)
    high = np.minimum(low + 1, in_size - 1)
    return low, high, (pos - low).astype(np.float32)


def bilinear(img, w, h):
    y0, y1, wy = source_coords(h, img.shape[0])
    x0, x1, wx = source_coords(w, img.shape[1])
    src = img.astype(np.float32)
    wx = wx[None, :, None]
    top = src[y0][:, x0] * (1 - wx) + src[y0][:, x1] * wx
    bottom = src[y1][:, x0] * (1 - wx) + src[y1][:, x1] * wx
    out = top * (1 - wy[:, None, None]) + bottom * wy[:, None, None]
    return out


def nearest(img, w, h):
    rows = np.minimum((np.arange(h) * img.shape[0] / h).astype(np.int64), img.shape[0] - 1)
    cols = np.minimum((np.arange(w) * img.shape[1] / w).astype(np.int64), img.shape[1] - 1)
    return img[rows][:, cols]


PIL_FILTERS = {2: "BICUBIC", 3: "BOX", 4: "LANCZOS"}


def resize_array(img, w, h, interp=1):
    """Resize a HxWxC numpy array to ``(h, w)``; interp as OpenCV: 0 nearest, 1 bilinear,
    2 bicubic, 3 area, 4 lanczos (2-4 through Pillow, per channel, on float32)."""
    if w <= 0 or h <= 0:
        raise MXNetError(f"imresize: target size must be positive, got w={w}, h={h}")
    img = np.asarray(img)
    squeeze = img.ndim == 2
    if squeeze:
        img = img[:, :, None]
    if interp == 0:
        out = nearest(img, w, h)
    elif interp in PIL_FILTERS:
        image_module = pil()
        method = getattr(image_module, PIL_FILTERS[interp])
        channels = [np.asarray(image_module.fromarray(img[:, :, c].astype(np.float32), "F")
                               .resize((w, h), method)) for c in range(img.shape[2])]
        out = np.stack(channels, axis=2)
    else:
        out = bilinear(img, w, h)
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    out = out.astype(img.dtype)
    return out[:, :, 0] if squeeze else out
