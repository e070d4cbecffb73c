"""The JPEG short cut of the decoder gives what Image.open gives, bit for bit."""
import io

import numpy as np
import pytest
from PIL import Image

import minimx as mx
from minimx.image_codec import decode_array, jpeg_frame


def encoded(img, fmt, **options):
    buffer = io.BytesIO()
    img.save(buffer, format=fmt, **options)
    return buffer.getvalue()


@pytest.mark.parametrize("mode, options", [("RGB", {}), ("L", {}),
                                           ("RGB", {"progressive": True}),
                                           ("RGB", {"subsampling": 0, "quality": 75})])
def test_jpeg_short_cut_decodes_as_image_open(mode, options):
    img = Image.fromarray((np.random.RandomState(3).rand(17, 23, 3) * 255).astype("uint8"))
    buf = encoded(img.convert(mode), "JPEG", **options)
    assert jpeg_frame(buf) == (mode, (23, 17))
    colour = np.asarray(Image.open(io.BytesIO(buf)).convert("RGB"))
    np.testing.assert_array_equal(decode_array(buf, flag=1), colour)
    grey = Image.open(io.BytesIO(buf))
    grey.draft("L", grey.size)             # libjpeg's own luma, as OpenCV reads grey
    np.testing.assert_array_equal(decode_array(buf, flag=0), np.asarray(grey)[:, :, None])


def test_jpeg_short_cut_declines_what_it_does_not_know():
    img = Image.fromarray(np.zeros((8, 8, 3), np.uint8))
    cmyk = encoded(img.convert("CMYK"), "JPEG")
    assert jpeg_frame(cmyk) is None                         # four components: Image.open
    np.testing.assert_array_equal(decode_array(cmyk),
                                  np.asarray(Image.open(io.BytesIO(cmyk)).convert("RGB")))
    assert jpeg_frame(encoded(img, "PNG")) is None
    jpeg = encoded(img, "JPEG")
    for broken in (jpeg[:len(jpeg) // 2], jpeg[:40]):       # truncated: Image.open's error
        with pytest.raises(mx.MXNetError, match="cannot decode"):
            decode_array(broken)


@pytest.mark.parametrize("to_rgb", [True, False])
def test_colour_decode_is_a_writable_copy_of_pillows_pixels(to_rgb):
    img = Image.fromarray((np.random.RandomState(4).rand(9, 13, 3) * 255).astype("uint8"))
    for buf in (encoded(img, "JPEG"), encoded(img, "PNG"), encoded(img.convert("P"), "PNG")):
        out = decode_array(buf, flag=1, to_rgb=to_rgb)
        want = np.asarray(Image.open(io.BytesIO(buf)).convert("RGB"))
        np.testing.assert_array_equal(out, want if to_rgb else want[:, :, ::-1])
        assert out.dtype == np.uint8 and out.shape == (9, 13, 3)
        assert out.flags.writeable and out.flags.c_contiguous
        out[0, 0] = 7                      # its own memory: another decode is unchanged
        np.testing.assert_array_equal(decode_array(buf, flag=1, to_rgb=to_rgb)[1:], out[1:])
