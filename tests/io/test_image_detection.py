"""mx.image's detection side: ImageDetIter, the box-aware augmenters, CreateDetAugmenter,
ImageIter's end-of-epoch modes, and imresize's OpenCV kernels -- against MXNet 1.9.1 where
it is installed."""
import io
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minimx as mx
from minimx import recordio

PIL = pytest.importorskip("PIL.Image", reason="Pillow is not installed")


def write_detection_rec(folder, count=5, seed=0):
    """A .rec/.idx pair of PNG images whose labels are [2, 5, objects...]."""
    rng = np.random.RandomState(seed)
    rec = recordio.MXIndexedRecordIO(str(folder / "det.idx"), str(folder / "det.rec"), "w")
    for index in range(count):
        img = rng.uniform(0, 255, size=(40 + index, 50, 3)).astype(np.uint8)
        objects = []
        for k in range(1 + index % 3):
            x0, y0 = rng.uniform(0, 0.5, 2)
            objects += [k, x0, y0, x0 + 0.3, y0 + 0.4]
        buffer = io.BytesIO()
        PIL.fromarray(img).save(buffer, format="PNG")
        header = recordio.IRHeader(0, [2, 5] + objects, index, 0)
        rec.write_idx(index, recordio.pack(header, buffer.getvalue()))
    rec.close()
    return folder / "det"


READER = """
import sys, json
import numpy as np
mx = __import__(sys.argv[1])
it = mx.image.ImageDetIter(batch_size=2, data_shape=(3, 32, 32), path_imgrec=sys.argv[2] + ".rec",
                           path_imgidx=sys.argv[2] + ".idx")
out = {"label_shape": list(it.label_shape), "batches": []}
for batch in it:
    out["batches"].append({"pad": batch.pad, "label": batch.label[0].asnumpy().tolist(),
                           "data": batch.data[0].asnumpy().tolist()})
print(json.dumps(out))
"""


def read_batches(python, library, prefix):
    done = subprocess.run([python, "-c", READER, library, str(prefix)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_labels_are_padded_objects_and_the_last_batch_wraps_around(tmp_path):
    prefix = write_detection_rec(tmp_path)
    result = read_batches(sys.executable, "minimx", prefix)
    assert result["label_shape"] == [3, 5]                  # at most 3 objects of width 5
    batches = result["batches"]
    assert [b["pad"] for b in batches] == [0, 0, 1]
    first = np.array(batches[0]["label"])
    assert first.shape == (2, 3, 5)
    assert (first[0, 1:] == -1).all() and (first[1, 2:] == -1).all()   # 1 and 2 objects
    # 'pad': the short last batch is filled with the first image again
    np.testing.assert_allclose(batches[2]["label"][1], batches[0]["label"][0])
    np.testing.assert_allclose(batches[2]["data"][1], batches[0]["data"][0])


@pytest.mark.mxnet
def test_the_same_batches_as_mxnet(tmp_path, mxnet_python):
    prefix = write_detection_rec(tmp_path)
    mine = read_batches(sys.executable, "minimx", prefix)
    theirs = read_batches(mxnet_python, "mxnet", prefix)
    assert mine["label_shape"] == theirs["label_shape"]
    for ours, reference in zip(mine["batches"], theirs["batches"], strict=True):
        assert ours["pad"] == reference["pad"]
        np.testing.assert_allclose(ours["label"], reference["label"], rtol=1e-6)
        # bicubic resize of uint8 pixels: OpenCV rounds in fixed point, minimx in float
        np.testing.assert_allclose(ours["data"], reference["data"], atol=2.0)


def write_classification_rec(folder, count=5):
    rec = recordio.MXIndexedRecordIO(str(folder / "cls.idx"), str(folder / "cls.rec"), "w")
    for index in range(count):
        buffer = io.BytesIO()
        PIL.fromarray(np.full((10, 12, 3), index * 20, np.uint8)).save(buffer, format="PNG")
        header = recordio.IRHeader(0, float(index), index, 0)
        rec.write_idx(index, recordio.pack(header, buffer.getvalue()))
    rec.close()
    return folder / "cls"


EPOCHS = """
import sys, json
mx = __import__(sys.argv[1])
out = {}
for mode in ("pad", "discard", "roll_over"):
    it = mx.image.ImageIter(2, (3, 8, 8), path_imgrec=sys.argv[2] + ".rec",
                            path_imgidx=sys.argv[2] + ".idx", last_batch_handle=mode, resize=8)
    out[mode] = []
    for _ in range(3):
        out[mode].append([[b.pad, b.label[0].asnumpy().tolist()] for b in it])
        it.reset()
print(json.dumps(out))
"""


def read_epochs(python, library, prefix):
    done = subprocess.run([python, "-c", EPOCHS, library, str(prefix)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_end_of_epoch_modes_of_image_iter(tmp_path):
    epochs = read_epochs(sys.executable, "minimx", write_classification_rec(tmp_path))
    # five images, batches of two
    assert epochs["pad"][0] == [[0, [0, 1]], [0, [2, 3]], [1, [4, 0]]] == epochs["pad"][2]
    assert epochs["discard"][1] == [[0, [0, 1]], [0, [2, 3]]]
    # roll_over keeps image 4 and completes it at the start of the next epoch (which, as in
    # MXNet, still reports pad=1 for that batch)
    assert epochs["roll_over"] == [[[0, [0, 1]], [0, [2, 3]]],
                                   [[1, [4, 0]], [0, [1, 2]], [0, [3, 4]]],
                                   [[0, [0, 1]], [0, [2, 3]]]]


@pytest.mark.mxnet
def test_end_of_epoch_modes_as_mxnet(tmp_path, mxnet_python):
    prefix = write_classification_rec(tmp_path)
    assert read_epochs(sys.executable, "minimx", prefix) == \
        read_epochs(mxnet_python, "mxnet", prefix)


def test_a_label_longer_than_label_width_is_refused(tmp_path):
    prefix = write_detection_rec(tmp_path)
    it = mx.image.ImageIter(2, (3, 8, 8), path_imgrec=f"{prefix}.rec", resize=8)
    with pytest.raises(mx.base.MXNetError, match="label has 7 value.*label_width is 1"):
        it.next()


def test_a_mirror_moves_the_boxes():
    label = np.array([[0, 0.1, 0.2, 0.4, 0.6], [-1, -1, -1, -1, -1]], dtype=np.float32)
    img = mx.nd.array(np.arange(2 * 3 * 3).reshape(2, 3, 3), dtype="uint8")
    flipped, new = mx.image.DetHorizontalFlipAug(1.0)(img, label)
    np.testing.assert_allclose(new[0], [0, 0.6, 0.2, 0.9, 0.6], rtol=1e-6)
    assert (new[1] == -1).all()
    np.testing.assert_array_equal(flipped.asnumpy(), img.asnumpy()[:, ::-1])


def test_random_crop_keeps_covered_objects_inside_the_crop():
    mx.random.seed(0)
    import random
    random.seed(3)
    label = np.array([[0, 0.1, 0.1, 0.5, 0.5], [1, 0.6, 0.6, 0.9, 0.95]], dtype=np.float32)
    img = mx.nd.array(np.zeros((100, 80, 3)), dtype="uint8")
    crop = mx.image.DetRandomCropAug(min_object_covered=0.5, area_range=(0.3, 0.8))
    for _ in range(20):
        out, new = crop(img, label)
        assert new.shape[1] == 5 and len(new) >= 1
        assert (new[:, 1:] >= 0).all() and (new[:, 1:] <= 1).all()
        assert (new[:, 3] > new[:, 1]).all() and (new[:, 4] > new[:, 2]).all()
        assert out.shape[0] <= 100 and out.shape[1] <= 80


def test_random_pad_shrinks_the_boxes_into_a_larger_canvas():
    import random
    random.seed(1)
    label = np.array([[0, 0.0, 0.0, 1.0, 1.0]], dtype=np.float32)
    img = mx.nd.array(np.full((20, 30, 3), 200), dtype="uint8")
    out, new = mx.image.DetRandomPadAug(area_range=(2.0, 3.0), pad_val=(7, 7, 7))(img, label)
    h, w = out.shape[:2]
    assert h * w >= 2 * 20 * 30 * 0.9
    x0, y0, x1, y1 = new[0, 1:]
    assert (x1 - x0) * w == pytest.approx(30, abs=1e-3)
    assert (y1 - y0) * h == pytest.approx(20, abs=1e-3)
    pixels = out.asnumpy()
    assert (pixels == 7).any() and (pixels == 200).sum() == 20 * 30 * 3


def test_create_det_augmenter_builds_mxnets_list():
    augs = mx.image.CreateDetAugmenter((3, 32, 32), resize=40, rand_crop=0.5, rand_pad=0.5,
                                       rand_mirror=True, mean=True, std=True, brightness=0.1,
                                       hue=0.1, pca_noise=0.1, rand_gray=0.1)
    names = [json.loads(a.dumps())[0] for a in augs]
    assert names == ["detborrowaug", "detrandomselectaug", "dethorizontalflipaug",
                     "detrandomselectaug", "detborrowaug", "detborrowaug", "detborrowaug",
                     "detborrowaug", "detborrowaug", "detborrowaug", "detborrowaug"]
    borrowed = [json.loads(json.loads(a.dumps())[1])[0] for a in augs
                if isinstance(a, mx.image.DetBorrowAug) and isinstance(
                    json.loads(a.dumps())[1], str)]
    assert borrowed[:3] == ["resizeaug", "forceresizeaug", "castaug"]


RESIZE = """
import sys, json
import numpy as np
mx = __import__(sys.argv[1])
img = mx.nd.array(np.random.RandomState(0).uniform(0, 255, (40, 50, 3)).astype(np.float32))
out = {f"{interp}-{w}x{h}": mx.image.imresize(img, w, h, interp=interp).asnumpy().tolist()
       for interp in (0, 1, 2, 3) for w, h in ((32, 32), (80, 70), (25, 45))}
print(json.dumps(out))
"""


@pytest.mark.mxnet
def test_imresize_kernels_match_opencv(mxnet_python):
    def run(python, library):
        done = subprocess.run([python, "-c", textwrap.dedent(RESIZE), library],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    mine, theirs = run(sys.executable, "minimx"), run(mxnet_python, "mxnet")
    for key in theirs:
        np.testing.assert_allclose(mine[key], theirs[key], atol=0.05, err_msg=key)
