"""ImageDetRecordIter: label layout and values against MXNet 1.9.1; boxes follow the pixels."""
import os

import numpy as np
import pytest
from mxnet_io_runner import ask_mxnet

import minimx as mx
from minimx import recordio

LABELS = [[2, 5, 0, 0.1, 0.2, 0.5, 0.6], [2, 5, 1, 0.0, 0.0, 0.5, 0.5, 3, 0.5, 0.5, 1.0, 1.0],
          [3, 5, 9.0, 2, 0.25, 0.25, 0.75, 0.75]]


def make_det_rec(folder, count=5, size=(12, 16)):
    rng = np.random.RandomState(1)
    path = os.path.join(folder, "det.rec")
    writer = recordio.MXRecordIO(path, "w")
    for i in range(count):
        img = rng.randint(0, 256, size + (3,)).astype(np.uint8)
        writer.write(recordio.pack_img((0, LABELS[i % 3], i, 0), img, quality=1, img_fmt=".png"))
    writer.close()
    return path


@pytest.mark.mxnet
def test_batches_match_mxnet(mxnet_python, tmp_path):
    rec = make_det_rec(str(tmp_path))
    base = dict(path_imgrec=rec, data_shape=(3, 12, 16), batch_size=2, preprocess_threads=1)
    cases = [dict(base), dict(base, label_pad_width=20, label_pad_value=-2.0),
             dict(base, rand_mirror_prob=1.0, mean_r=100, std_g=2.0, scale=0.5),
             dict(base, data_shape=(3, 24, 20))]
    expected = ask_mxnet(mxnet_python, [{"kind": "image_det_record_iter", "kwargs": c,
                                         "epochs": 1} for c in cases])
    for case, want in zip(cases, expected):
        it = mx.io.ImageDetRecordIter(**case)
        got = list(it)
        assert [b.pad for b in got] == [b["pad"] for b in want["epochs"][0]]
        for mine, ref in zip(got, want["epochs"][0]):
            np.testing.assert_allclose(mine.label[0].asnumpy(), np.array(ref["label"][0]),
                                       rtol=1e-6, err_msg=str(case))
            np.testing.assert_allclose(mine.data[0].asnumpy(), np.array(ref["data"][0]),
                                       atol=1.01, err_msg=str(case))


def box_image(size=40):
    """A grey image with one red box at (0.25, 0.25)-(0.75, 0.5) and its label."""
    img = np.full((size, size, 3), 128, np.uint8)
    img[size // 4:size // 2, size // 4:3 * size // 4] = (255, 0, 0)
    return img, [2, 5, 1, 0.25, 0.25, 0.75, 0.5]


def redness_inside_box(data, label, size):
    c, h, w = data.shape
    _, xmin, ymin, xmax, ymax = label[6:11]
    region = data[:, int(ymin * h) + 1:int(ymax * h) - 1, int(xmin * w) + 1:int(xmax * w) - 1]
    return region[0].mean() - region[1].mean()


def test_boxes_follow_crop_pad_and_mirror(tmp_path):
    img, label = box_image()
    path = str(tmp_path / "box.rec")
    with recordio.MXRecordIO(path, "w") as writer:
        for i in range(6):
            writer.write(recordio.pack_img((0, label, i, 0), img[:, :, ::-1], img_fmt=".png",
                                                    quality=1))   # pack_img takes BGR
    it = mx.io.ImageDetRecordIter(
        path_imgrec=path, data_shape=(3, 32, 32), batch_size=6, rand_crop_prob=1.0,
        min_crop_scales=0.6, max_crop_scales=0.9, rand_pad_prob=1.0, max_pad_scale=2.0,
        rand_mirror_prob=0.5, fill_value=0, seed=7)
    batch = it.next()
    labels, data = batch.label[0].asnumpy(), batch.data[0].asnumpy()
    assert len({tuple(row) for row in labels}) > 1         # the boxes moved
    for row, image in zip(labels, data):
        assert row[3] == 7                                 # one object kept
        assert redness_inside_box(image, row, 32) > 200    # and it still covers the red box


def test_mirror_flips_x_coordinates(tmp_path):
    img, label = box_image(20)
    path = str(tmp_path / "box.rec")
    with recordio.MXRecordIO(path, "w") as writer:
        writer.write(recordio.pack_img((0, label, 0, 0), img, img_fmt=".png", quality=1))
    row = mx.io.ImageDetRecordIter(path_imgrec=path, data_shape=(3, 20, 20), batch_size=1,
                                   rand_mirror_prob=1.0).next().label[0].asnumpy()[0]
    np.testing.assert_allclose(row[7:11], [0.25, 0.25, 0.75, 0.5])   # symmetric box


def test_seed_configuration_runs(tmp_path):
    """The seed document's ImageDetRecordIter settings (section 3.5, case 2), tiny images."""
    path = make_det_rec(str(tmp_path), count=4, size=(24, 24))
    it = mx.io.ImageDetRecordIter(
        path_imgrec=path, label_width=-1, label_pad_width=350, label_pad_value=-1,
        mean_r=123.68, mean_g=116.779, mean_b=109.939, data_shape=(3, 16, 16), batch_size=2,
        shuffle=True, random_hue_prob=0.5, max_random_hue=18, random_saturation_prob=0.5,
        max_random_saturation=32, random_illumination_prob=0.5, max_random_illumination=32,
        random_contrast_prob=0.5, max_random_contrast=0.5)
    batches = list(it)
    assert len(batches) == 2 and batches[0].label[0].shape == (2, 354)
    assert it.provide_label[0].shape == (2, 354)


def test_bad_labels_are_reported(tmp_path):
    path = str(tmp_path / "bad.rec")
    img = np.zeros((4, 4, 3), np.uint8)
    with recordio.MXRecordIO(path, "w") as writer:
        writer.write(recordio.pack_img((0, 1.0, 0, 0), img, img_fmt=".png"))
    with pytest.raises(mx.MXNetError, match="holds one label"):
        mx.io.ImageDetRecordIter(path_imgrec=path, data_shape=(3, 4, 4), batch_size=1)
    path = make_det_rec(str(tmp_path))
    with pytest.raises(mx.MXNetError, match="label_pad_width=3 is smaller"):
        mx.io.ImageDetRecordIter(path_imgrec=path, data_shape=(3, 4, 4), batch_size=1,
                                 label_pad_width=3)
