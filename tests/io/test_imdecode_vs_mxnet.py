"""``imdecode`` gives MXNet 1.9.1's pixels, bit for bit, in colour and in grey.

MXNet decodes through OpenCV.  Colour is libjpeg's or libpng's output either way.  Grey
(``flag=0``) is where readers differ: OpenCV asks libjpeg for the luma of a colour JPEG
(no colour round trip), libpng's own integer rule for a colour PNG, and its ``cvtColor``
rule for the other formats.  Taking a colour JPEG's grey from its RGB pixels was off by
up to 46 levels on noisy pictures; Pillow's ``convert("L")`` rounds where libpng truncates
(off by one on about half the pixels of a colour PNG).
"""
import io
import json

import numpy as np
import pytest
from PIL import Image

import minimx as mx
from minimx import image_codec
from same_program import on_mxnet


def pictures():
    """{name: encoded bytes}: colour and grey JPEGs (every chroma subsampling, progressive,
    odd sizes), PNGs (RGB, RGBA, palette, grey), BMP and TIFF."""
    rng = np.random.RandomState(7)
    found = {}
    for index in range(3):
        height, width = rng.randint(5, 50, 2)
        noisy = (rng.rand(height, width, 3) * 255).astype("uint8")
        smooth = np.clip(np.cumsum(rng.randint(-9, 10, (height, width, 3)), axis=1) + 128,
                         0, 255).astype("uint8")
        for look, pixels in (("noisy", noisy), ("smooth", smooth)):
            image = Image.fromarray(pixels)
            for name, fmt, options in [
                    ("jpeg444", "JPEG", {"subsampling": 0, "quality": 90}),
                    ("jpeg422", "JPEG", {"subsampling": 1, "quality": 75}),
                    ("jpeg420", "JPEG", {"subsampling": 2, "quality": 60}),
                    ("progressive", "JPEG", {"progressive": True}),
                    ("png", "PNG", {}), ("bmp", "BMP", {}), ("tiff", "TIFF", {})]:
                found[f"{name}-{look}-{index}"] = encoded(image, fmt, **options)
            found[f"grey-jpeg-{look}-{index}"] = encoded(image.convert("L"), "JPEG")
            found[f"grey-png-{look}-{index}"] = encoded(image.convert("L"), "PNG")
            found[f"rgba-png-{look}-{index}"] = encoded(image.convert("RGBA"), "PNG")
            found[f"palette-png-{look}-{index}"] = encoded(image.convert("P"), "PNG")
    return found


def encoded(image, fmt, **options):
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


MXNET_DECODER = """
import json
files = json.loads(INPUT)
print(json.dumps({name: [mx.image.imdecode(bytes.fromhex(text), flag=flag).asnumpy().tolist()
                         for flag in (1, 0)] for name, text in files.items()}))
"""


@pytest.fixture(params=["opencv", "pillow"])
def decoder(request, monkeypatch):
    """Each of minimx's decoding paths: OpenCV's (when installed) and Pillow's."""
    if request.param == "opencv" and image_codec.opencv() is None:
        pytest.skip("OpenCV (cv2) is not installed")
    if request.param == "pillow":
        monkeypatch.setattr(image_codec, "_OPENCV", [None])
    return request.param


def test_opencv_and_pillow_paths_give_the_same_pixels(monkeypatch):
    if image_codec.opencv() is None:
        pytest.skip("OpenCV (cv2) is not installed")
    for name, buf in pictures().items():
        for flag in (1, 0, -1):
            for to_rgb in (True, False):
                fast = image_codec.decode_array(buf, flag, to_rgb)
                with monkeypatch.context() as patch:
                    patch.setattr(image_codec, "_OPENCV", [None])
                    plain = image_codec.decode_array(buf, flag, to_rgb)
                assert fast.dtype == plain.dtype and fast.shape == plain.shape, name
                np.testing.assert_array_equal(fast, plain, err_msg=f"{name} flag={flag}")
                assert fast.flags.writeable


@pytest.mark.mxnet
def test_imdecode_gives_mxnets_pixels_in_colour_and_grey(mxnet_python, decoder):
    files = pictures()
    theirs = on_mxnet(mxnet_python, MXNET_DECODER,
                      json.dumps({name: buf.hex() for name, buf in files.items()}))
    different = []
    for name, buf in files.items():
        for flag, want in zip((1, 0), theirs[name]):
            mine = mx.image.imdecode(buf, flag=flag).asnumpy()
            want = np.array(want, dtype=np.uint8)
            if mine.shape != want.shape or not np.array_equal(mine, want):
                different.append(f"{name} flag={flag}")
    assert not different, different
