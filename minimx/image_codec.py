"""Image encoding, decoding and resizing on numpy arrays (HWC, uint8), through Pillow.

Lesson: 11-data.  The codec layer below RecordIO, the data iterators and ``mx.image``
(it imports nothing of minimx but ``base`` and the resize kernels).  MXNet calls OpenCV
for these; minimx uses Pillow for the codecs (OpenCV, when installed, decodes plain JPEGs
faster: same libjpeg, same pixels) and ``op/resize_kernels.py`` for OpenCV 3's
interpolations (the operator ``nd.image.resize`` uses the same kernels; today's OpenCV
rounds some of them differently from the OpenCV inside MXNet 1.9.1).
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


# JPEG start-of-frame markers (0xFFC0-0xFFCF but for the table markers C4, C8 and CC): the
# segment after one holds the sample precision, height, width and number of components
START_OF_FRAME = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def jpeg_frame(buf):
    """``(mode, (width, height))`` of an 8-bit grey ("L") or colour ("RGB") JPEG, read from
    its frame header by hopping from segment to segment; None for anything else.

    Examples
    --------
    >>> jpeg_frame(encode_array(np.zeros((4, 6, 3), np.uint8)))
    ('RGB', (6, 4))
    >>> jpeg_frame(b"not a jpeg") is None
    True
    """
    if buf[:3] != b"\xff\xd8\xff":
        return None
    pos, end = 2, len(buf) - 10
    while pos <= end and buf[pos] == 0xFF:
        marker = buf[pos + 1]
        if marker in START_OF_FRAME:
            bits, components = buf[pos + 4], buf[pos + 9]
            height, width = buf[pos + 5] << 8 | buf[pos + 6], buf[pos + 7] << 8 | buf[pos + 8]
            if bits != 8 or components not in (1, 3) or not width or not height:
                return None
            return ("L" if components == 1 else "RGB"), (width, height)
        if marker == 0xE2 and buf[pos + 4:pos + 8] == b"MPF\0":
            return None              # a multi-picture file: Pillow opens it as MPO
        if not 0xC0 <= marker <= 0xFE or 0xD0 <= marker <= 0xD9:
            return None              # fill bytes, restart or scan markers before the frame
        pos += 2 + (buf[pos + 2] << 8 | buf[pos + 3])
    return None


def decode_plain_jpeg(image_module, buf, grey=False):
    """A loaded Pillow image of a plain JPEG (see ``jpeg_frame``), else None.

    The short cut: ``Image.open`` would sniff the format and parse every table of the header
    in Python (~100 us for a 40x40 picture) before handing the bytes to libjpeg; here the
    frame header alone gives the mode and size, and Pillow's JPEG decoder gets the whole file
    with the arguments ``Image.open`` gives it (raw mode = mode), so the pixels are the same.
    With ``grey`` libjpeg writes the luma of a colour JPEG ("L"), as OpenCV's grey read does.
    Anything it declines or fails on goes the ``Image.open`` way (and its errors).
    """
    frame = jpeg_frame(buf)
    if frame is None:
        return None
    mode, (width, height) = frame
    limit = image_module.MAX_IMAGE_PIXELS     # Image.open's decompression-bomb guard
    if limit and width * height > limit:
        return None
    mode = "L" if grey else mode
    try:
        return image_module.frombytes(mode, (width, height), bytes(buf), "jpeg", mode, "")
    except (ValueError, OSError):
        return None


# Grey from colour as OpenCV computes it (MXNet's imdecode(flag=0) reads through OpenCV),
# in integer arithmetic: libpng's rgb_to_gray for PNG (0.299 and 0.587 in 1/32768ths,
# rounded down: 9797 R + 19234 G + 3737 B, shifted right 15), OpenCV's own cvtColor for
# the other formats (4899 R + 9617 G + 1868 B, rounded, shifted right 14).  A JPEG is read
# as grey by libjpeg itself (its luma), never through colour.
_GREY_RULES = {"PNG": ((9797, 19234, 3737), 0, 15)}
_CVT_COLOR_GREY = ((4899, 9617, 1868), 1 << 13, 14)


def grey_pixels(image):
    """The ``(H, W)`` uint8 grey pixels of a decoded Pillow image, as MXNet's
    ``imdecode(flag=0)`` gives them: grey images as stored, colour ones by the rule of
    their format (above)."""
    if image.mode in ("RGB", "RGBA", "P", "PA", "CMYK", "YCbCr"):
        weights, rounding, shift = _GREY_RULES.get(image.format, _CVT_COLOR_GREY)
        rgb = np.asarray(image.convert("RGB"), dtype=np.int32)
        grey = (rgb @ np.array(weights, np.int32) + rounding) >> shift
        return grey.astype(np.uint8)
    return np.array(image if image.mode == "L" else image.convert("L"))


_OPENCV = []


def opencv():
    """OpenCV's ``cv2`` when it is installed (MXNet decodes through it), else None."""
    if not _OPENCV:
        try:
            import cv2
        except ImportError:
            cv2 = None
        _OPENCV.append(cv2)
    return _OPENCV[0]


def decode_jpeg_opencv(buf, flag, to_rgb):
    """A plain JPEG (``jpeg_frame``) decoded by OpenCV, colour (``flag`` 1) or grey (0),
    else None (no OpenCV, another file, or a JPEG it fails on).

    The fast path of ``decode_array``: the same libjpeg underneath, so the same pixels as
    Pillow's path (a test checks it, and both against MXNet), for about half the time of a
    small picture (40x40: 25 us against 50), and OpenCV lets go of the GIL while libjpeg
    runs, so decoding threads overlap the rest of a data pipeline.  Orientation tags are
    ignored, as Pillow's path and MXNet do."""
    cv2 = opencv()
    if cv2 is None or flag not in (0, 1) or jpeg_frame(buf) is None:
        return None
    read = (cv2.IMREAD_GRAYSCALE if flag == 0 else cv2.IMREAD_COLOR) | \
        cv2.IMREAD_IGNORE_ORIENTATION
    pixels = cv2.imdecode(np.frombuffer(buf, np.uint8), read)
    if pixels is None:
        return None
    if flag == 0:
        return pixels[:, :, None]
    return cv2.cvtColor(pixels, cv2.COLOR_BGR2RGB) if to_rgb else pixels


def decode_array(buf, flag=1, to_rgb=True):
    """Decode JPEG/PNG/... bytes to a uint8 numpy array.

    ``flag`` 1: three channels (HxWx3); 0: grey (HxWx1); -1: as stored (HxW for grey).
    Colour channels are RGB when ``to_rgb`` else BGR (OpenCV's order).
    """
    pixels = decode_jpeg_opencv(buf, flag, to_rgb)
    if pixels is not None:
        return pixels
    image_module = pil()
    image = decode_plain_jpeg(image_module, buf, grey=flag == 0)
    if image is None:                # any other file, or a JPEG the short cut declined
        try:
            image = image_module.open(io.BytesIO(bytes(buf)))
            if flag == 0 and image.format in ("JPEG", "MPO"):
                image.draft("L", image.size)     # libjpeg's luma, not grey from colour
            image.load()
        except Exception as err:
            raise FileFormatError(f"imdecode: cannot decode {len(buf)} bytes as an image "
                                  f"({err})") from err
    if flag == 0:
        return grey_pixels(image)[:, :, None]
    if flag == -1 and image.mode in ("L", "I;16", "I", "F"):
        return np.asarray(image).copy()
    if image.mode != "RGB":          # converting an RGB image would only copy it
        image = image.convert("RGB")
    # a writable copy of Pillow's pixels: its raw RGB bytes, row by row (the bytes that
    # np.array(image) copies too, through the array interface's slower round trip)
    array = np.frombuffer(bytearray(image.tobytes()), np.uint8).reshape(
        image.height, image.width, 3)
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
