"""Image encoding, decoding and resizing on numpy arrays (HWC, uint8), through Pillow.

Lesson: 11-data.  The codec layer below RecordIO, the data iterators and ``mx.image``
(it imports nothing of minimx but ``base`` and the resize kernels).  MXNet calls OpenCV
for these; minimx uses Pillow for the codecs and ``op/resize_kernels.py`` for OpenCV's
interpolations (the operator ``nd.image.resize`` uses the same kernels).
Mirrors src/io/image_io.cc (imdecode, imresize) in its conventions.
"""
import io

import numpy as np

from .base import FileFormatError, MXNetError
from .op.resize_kernels import resize_array

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
    if image.mode != "RGB":          # converting an RGB image would only copy it
        image = image.convert("RGB")
    array = np.array(image)          # a writable copy of Pillow's pixels
    return array if to_rgb else array[:, :, ::-1].copy()


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
