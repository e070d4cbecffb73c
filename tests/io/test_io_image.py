"""mx.image: helpers against MXNet 1.9.1, augmenters, ImageIter."""
import json
import os
import random
import subprocess

import numpy as np
import pytest

import minimx as mx
from minimx.image_codec import encode_array

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")

REFERENCE = """
import json, sys
import numpy as np
import mxnet as mx
img = mx.nd.array(np.array(json.loads(sys.argv[1]), np.uint8), dtype='uint8')
out = {
  'resize_nearest': mx.image.imresize(img, 7, 5, interp=0).asnumpy().tolist(),
  'resize_linear': mx.image.imresize(img, 13, 11, interp=1).asnumpy().tolist(),
  'resize_short': mx.image.resize_short(img, 4, interp=1).asnumpy().tolist(),
  'center_crop': mx.image.center_crop(img, (4, 3))[0].asnumpy().tolist(),
  'fixed_crop': mx.image.fixed_crop(img, 1, 2, 3, 4).asnumpy().tolist(),
  'border': mx.image.copyMakeBorder(img, 1, 2, 3, 0, type=0, value=9).asnumpy().tolist(),
  'scale_down': list(mx.image.scale_down((5, 4), (8, 8))),
}
print(json.dumps(out))
"""


@pytest.mark.mxnet
def test_helpers_match_mxnet(mxnet_python):
    img = np.random.RandomState(2).randint(0, 256, (6, 8, 3)).astype(np.uint8)
    result = subprocess.run([mxnet_python, "-c", REFERENCE, json.dumps(img.tolist())],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    want = json.loads(result.stdout.strip().splitlines()[-1])
    src = mx.nd.array(img, dtype="uint8")
    got = {
        "resize_nearest": mx.image.imresize(src, 7, 5, interp=0),
        "resize_linear": mx.image.imresize(src, 13, 11, interp=1),
        "resize_short": mx.image.resize_short(src, 4, interp=1),
        "center_crop": mx.image.center_crop(src, (4, 3))[0],
        "fixed_crop": mx.image.fixed_crop(src, 1, 2, 3, 4),
        "border": mx.image.copyMakeBorder(src, 1, 2, 3, 0, type=0, value=9),
    }
    for name, value in got.items():
        atol = 1 if name.startswith("resize") else 0
        np.testing.assert_allclose(value.asnumpy(), np.array(want[name]), atol=atol,
                                   err_msg=name)
    assert list(mx.image.scale_down((5, 4), (8, 8))) == want["scale_down"]



HALVES = """
import json, sys
import numpy as np
import mxnet as mx
img = mx.nd.array(np.array(json.loads(sys.argv[1]), np.uint8), dtype='uint8')
row = mx.nd.array(np.array([[[0], [2], [5]]] * 2, np.uint8), dtype='uint8')
print(json.dumps({"linear": mx.image.imresize(img, 8, 1, interp=1).asnumpy().tolist(),
                  "area": mx.image.imresize(img, 8, 1, interp=3).asnumpy().tolist(),
                  "image.resize": mx.nd.image.resize(img, size=(8, 1)).asnumpy().tolist(),
                  "3 to 2": mx.image.imresize(row, 2, 2).asnumpy().tolist()}))
"""


@pytest.mark.mxnet
def test_exact_halves_round_up_as_in_mxnet(mxnet_python):
    """Halving a 2 x 16 image of pairs [k, k + 1] puts every output on k + 0.5: MXNet's
    8-bit resize (OpenCV's fixed point) rounds those up; minimx's NumPy ``rint`` rounded
    to even, one level below MXNet for every even k."""
    img = np.zeros((2, 16, 1), np.uint8)
    for k in range(8):
        img[:, 2 * k], img[:, 2 * k + 1] = k, k + 1
    result = subprocess.run([mxnet_python, "-c", HALVES, json.dumps(img.tolist())],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    want = json.loads(result.stdout.strip().splitlines()[-1])
    src = mx.nd.array(img, dtype="uint8")
    row = mx.nd.array(np.array([[[0], [2], [5]]] * 2, np.uint8), dtype="uint8")
    got = {"linear": mx.image.imresize(src, 8, 1, interp=1),
           "area": mx.image.imresize(src, 8, 1, interp=3),
           "image.resize": mx.nd.image.resize(src, size=(8, 1)),
           "3 to 2": mx.image.imresize(row, 2, 2)}
    assert np.ravel(want["linear"]).tolist() == list(range(1, 9))
    for name, value in got.items():
        np.testing.assert_array_equal(value.asnumpy(), np.array(want[name]), err_msg=name)

def test_imdecode_flags_and_errors():
    img = np.random.RandomState(0).randint(0, 256, (4, 5, 3)).astype(np.uint8)
    buf = encode_array(img, img_fmt=".png")
    np.testing.assert_array_equal(mx.image.imdecode(buf).asnumpy(), img)
    np.testing.assert_array_equal(mx.image.imdecode(buf, to_rgb=0).asnumpy(), img[:, :, ::-1])
    assert mx.image.imdecode(buf, flag=0).shape == (4, 5, 1)
    assert mx.image.imdecode(buf).dtype == np.uint8
    with pytest.raises(mx.MXNetError, match="cannot decode"):
        mx.image.imdecode(b"garbage")


def test_augmenters():
    img = mx.nd.array(np.random.RandomState(1).randint(0, 256, (10, 12, 3)), dtype="uint8")
    augs = mx.image.CreateAugmenter((3, 6, 6), resize=8, rand_crop=True, rand_mirror=True,
                                    mean=True, std=True, brightness=0.2, contrast=0.2,
                                    saturation=0.2, hue=0.1, pca_noise=0.1, rand_gray=0.5)
    out = img
    for aug in augs:
        out = aug(out)
    assert out.shape == (6, 6, 3) and out.dtype == np.float32
    assert all(isinstance(json.loads(a.dumps()) if isinstance(a.dumps(), str) else a.dumps(),
                          list) for a in augs)
    flip = mx.image.HorizontalFlipAug(1.0)(img)
    np.testing.assert_array_equal(flip.asnumpy(), img.asnumpy()[:, ::-1])
    gray = mx.image.SaturationJitterAug(0)(img.astype("float32"))
    np.testing.assert_allclose(gray.asnumpy(), img.asnumpy(), rtol=1e-5)
    random.seed(0)
    crop = mx.image.RandomSizedCropAug((5, 5), 0.3, (0.75, 1.33))(img)
    assert crop.shape == (5, 5, 3)
    norm = mx.image.ColorNormalizeAug([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])(img.astype("float32"))
    np.testing.assert_allclose(norm.asnumpy(), (img.asnumpy() - [1, 2, 3]) / 2, rtol=1e-6)


def test_image_iter_over_rec_and_list(tmp_path):
    rec = os.path.join(FIXTURES, "mxnet_images.rec")
    idx = os.path.join(FIXTURES, "mxnet_images.idx")
    # the fixture mixes one-value and three-value labels: with label_width=1 MXNet fails on
    # the first three-value one, and so does minimx (with a message saying why)
    it = mx.image.ImageIter(4, (3, 8, 8), path_imgrec=rec, path_imgidx=idx)
    with pytest.raises(mx.base.MXNetError, match="label has 3 value"):
        list(it)
    it = mx.image.ImageIter(4, (3, 8, 8), path_imgrec=rec, path_imgidx=idx, label_width=3,
                            last_batch_handle="discard", shuffle=True)
    with pytest.raises(mx.base.MXNetError, match="label has 1 value"):
        list(it)
    rng = np.random.RandomState(0)
    for i in range(3):
        (tmp_path / f"{i}.png").write_bytes(
            encode_array(rng.randint(0, 256, (9, 9, 3)).astype(np.uint8), img_fmt=".png"))
    it = mx.image.ImageIter(3, (3, 9, 9), imglist=[[float(i), f"{i}.png"] for i in range(3)],
                            path_root=str(tmp_path), aug_list=[])
    batch = it.next()
    assert batch.label[0].asnumpy().tolist() == [0, 1, 2]
    np.testing.assert_array_equal(batch.data[0].asnumpy()[1].transpose(1, 2, 0),
                                  mx.image.imread(str(tmp_path / "1.png")).asnumpy())


def test_augmenter_numpy_paths_equal_the_operators():
    """CastAug, ColorNormalizeAug and a resizing fixed_crop work in numpy on NDArrays (one
    copy, no operator per image); their values and dtypes are those of the NDArray ops."""
    img = mx.nd.array(np.random.RandomState(4).randint(0, 256, (9, 11, 3)), dtype="uint8")
    cast = mx.image.CastAug()(img)
    assert isinstance(cast, mx.nd.NDArray) and cast.dtype == np.float32
    np.testing.assert_array_equal(cast.asnumpy(), img.astype("float32").asnumpy())
    mean, std = mx.nd.array([123.68, 116.28, 103.53]), mx.nd.array([58.395, 57.12, 57.375])
    normalized = mx.image.ColorNormalizeAug(mean, std)(cast.copy())
    assert normalized.dtype == np.float32
    np.testing.assert_array_equal(normalized.asnumpy(),
                                  mx.image.color_normalize(cast.copy(), mean, std).asnumpy())
    for interp in range(5):
        cropped = mx.image.fixed_crop(img, 1, 2, 7, 6, size=(5, 4), interp=interp)
        by_steps = mx.image.imresize(mx.image.fixed_crop(img, 1, 2, 7, 6), 5, 4, interp=interp)
        assert cropped.dtype == np.uint8
        np.testing.assert_array_equal(cropped.asnumpy(), by_steps.asnumpy())
    # in place, as MXNet's: a mean of more dimensions than the image cannot be subtracted
    # from it (MXNet 1.9.1: "Shape inconsistent, Provided = [9,11,3], inferred shape=[2,9,11,3]")
    with pytest.raises(mx.MXNetError):
        mx.image.ColorNormalizeAug(mx.nd.ones((2, 1, 1, 3)), None)(cast)


NORMALIZE_TWICE = """
import json, sys
import numpy as np
import mxnet as mx
img = mx.nd.array(np.array(json.loads(sys.argv[1]), np.float32))
aug = mx.image.ColorNormalizeAug(mx.nd.array([10.0, 20.0, 30.0]), mx.nd.array([2.0, 4.0, 8.0]))
first = aug(img).asnumpy().tolist()
aug.mean = mx.nd.array([1.0, 2.0, 3.0])
aug.std = None
print(json.dumps([first, aug(img).asnumpy().tolist()]))
"""


@pytest.mark.mxnet
def test_color_normalize_uses_a_mean_replaced_after_a_call(mxnet_python):
    """ColorNormalizeAug works in place and reads its mean and std at each call, as MXNet's:
    a float32 image normalised, the mean replaced and the std dropped, the (changed) image
    normalised again; and the image itself is the result."""
    img = np.random.RandomState(4).rand(5, 6, 3).astype(np.float32) * 255
    result = subprocess.run([mxnet_python, "-c", NORMALIZE_TWICE, json.dumps(img.tolist())],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    want = json.loads(result.stdout.strip().splitlines()[-1])
    aug = mx.image.ColorNormalizeAug(mx.nd.array([10.0, 20.0, 30.0]),
                                     mx.nd.array([2.0, 4.0, 8.0]))
    src = mx.nd.array(img)
    first = aug(src).asnumpy()
    aug.mean, aug.std = mx.nd.array([1.0, 2.0, 3.0]), None
    second = aug(src)
    assert second is src
    second = second.asnumpy()
    np.testing.assert_allclose(first, np.array(want[0]), rtol=1e-6)
    np.testing.assert_allclose(second, np.array(want[1]), rtol=1e-6)
