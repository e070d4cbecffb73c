"""ImageRecordIter: batches against MXNet 1.9.1, augmentation, threads, sharding."""
import os
import time

import numpy as np
import pytest
from mxnet_io_runner import ask_mxnet

import minimx as mx
from minimx import recordio



def make_rec(folder, count=7, sizes=None, label_width=1, fmt=".png"):
    """A .rec/.idx pair of random RGB images; returns (rec, idx, images, labels)."""
    rng = np.random.RandomState(count)
    rec, idx = os.path.join(folder, "img.rec"), os.path.join(folder, "img.idx")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    images, labels = [], []
    for i in range(count):
        h, w = sizes[i] if sizes else (10 + i % 3, 12)
        img = rng.randint(0, 256, (h, w, 3)).astype(np.uint8)
        label = float(i) if label_width == 1 else [float(i + k) for k in range(label_width)]
        writer.write_idx(i, recordio.pack_img((0, label, i, 0), img[:, :, ::-1], quality=1,
                                              img_fmt=fmt))
        images.append(img)
        labels.append(label)
    writer.close()
    return rec, idx, images, labels


def minimx_epochs(kwargs, epochs):
    it = mx.io.ImageRecordIter(**kwargs)
    out = []
    for _ in range(epochs):
        out.append([{"data": [d.asnumpy() for d in b.data],
                     "label": [d.asnumpy() for d in b.label], "pad": b.pad} for b in it])
        it.reset()
    it.close()
    return out


@pytest.mark.mxnet
def test_batches_match_mxnet(mxnet_python, tmp_path):
    rec, idx, _, _ = make_rec(str(tmp_path))
    os.makedirs(tmp_path / "three")
    rec3 = make_rec(str(tmp_path / "three"), label_width=3)[0]
    base = dict(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=3, preprocess_threads=2)
    cases = [dict(base), dict(base, mean_r=123.7, mean_g=116.8, mean_b=103.9, std_r=58.4,
                              std_g=57.1, std_b=57.4, scale=0.5),
             dict(base, pad=2, fill_value=7, data_shape=(3, 14, 16), batch_size=4),
             dict(base, round_batch=True, batch_size=4), dict(base, num_parts=2, part_index=1),
             dict(base, num_parts=3, part_index=0, batch_size=2),
             dict(base, path_imgrec=rec3, label_width=3, batch_size=2),
             dict(base, resize=20, data_shape=(3, 16, 16)), dict(base, path_imgidx=idx)]
    expected = ask_mxnet(mxnet_python, [{"kind": "image_record_iter", "kwargs": c, "epochs": 2}
                                        for c in cases])
    for case, want in zip(cases, expected):
        got = minimx_epochs(case, 2)
        assert len(got) == len(want["epochs"])
        for mine, ref in zip(got, want["epochs"]):
            assert [b["pad"] for b in mine] == [b["pad"] for b in ref], case
            for b_mine, b_ref in zip(mine, ref):
                np.testing.assert_allclose(b_mine["label"][0], np.array(b_ref["label"][0]))
                # bilinear resizing may differ from OpenCV's fixed-point rounding by 1 level
                atol = 1.01 if case.get("resize", -1) > 0 else 1e-4
                np.testing.assert_allclose(b_mine["data"][0], np.array(b_ref["data"][0]),
                                           atol=atol, err_msg=str(case))


def test_values_labels_and_layout(tmp_path):
    rec, _, images, labels = make_rec(str(tmp_path), count=4, sizes=[(8, 8)] * 4)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 6, 6), batch_size=4,
                               mean_r=10, std_b=2)
    batch = it.next()
    data = batch.data[0].asnumpy()
    assert batch.data[0].shape == (4, 3, 6, 6) and batch.label[0].shape == (4,)
    expected = images[2][1:7, 1:7].transpose(2, 0, 1).astype(np.float32)
    expected[0] -= 10
    expected[2] /= 2
    np.testing.assert_allclose(data[2], expected)
    assert batch.label[0].asnumpy().tolist() == labels
    assert it.provide_data[0].shape == (4, 3, 6, 6)
    assert it.provide_label[0].name == "softmax_label"
    with pytest.raises(StopIteration):
        it.next()


def test_mirror_crop_and_seeded_augmentation(tmp_path):
    rec, _, images, _ = make_rec(str(tmp_path), count=4, sizes=[(8, 8)] * 4)
    mirrored = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=4,
                                     mirror=True).next().data[0].asnumpy()
    np.testing.assert_allclose(mirrored[1], images[1][:, ::-1].transpose(2, 0, 1))
    settings = dict(path_imgrec=rec, data_shape=(3, 5, 5), batch_size=4, rand_crop=True,
                    rand_mirror=True, max_rotate_angle=20, max_random_scale=1.3,
                    min_random_scale=1.0, random_h=10, random_s=20, random_l=20, seed=3)
    one = mx.io.ImageRecordIter(preprocess_threads=1, **settings).next().data[0].asnumpy()
    two = mx.io.ImageRecordIter(preprocess_threads=3, **settings).next().data[0].asnumpy()
    np.testing.assert_array_equal(one, two)          # same seed, any number of threads
    other = mx.io.ImageRecordIter(preprocess_threads=1, **dict(settings, seed=4))
    assert not np.array_equal(one, other.next().data[0].asnumpy())
    assert one.min() >= 0 and one.max() <= 255


def test_shuffle_is_a_permutation_per_epoch(tmp_path):
    rec, _, _, _ = make_rec(str(tmp_path), count=8)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=4,
                               shuffle=True, seed=1)
    orders = []
    for _ in range(3):
        orders.append(sum((b.label[0].asnumpy().tolist() for b in it), []))
        it.reset()
    assert all(sorted(order) == list(range(8)) for order in orders)
    assert len({tuple(order) for order in orders}) > 1


def test_sharding_splits_the_records(tmp_path):
    rec, _, _, _ = make_rec(str(tmp_path), count=9)
    seen = []
    for part in range(3):
        it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=1,
                                   num_parts=3, part_index=part)
        seen += [b.label[0].asnumpy()[0] for b in it]
    assert sorted(seen) == list(range(9))


def test_bad_settings_are_reported(tmp_path):
    rec, _, _, _ = make_rec(str(tmp_path), count=2)
    with pytest.raises(mx.MXNetError, match="path_imgrec"):
        mx.io.ImageRecordIter(data_shape=(3, 8, 8), batch_size=2)
    with pytest.raises(mx.MXNetError, match="batch_size is required"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8))
    with pytest.warns(UserWarning, match="fill_vale"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2, fill_vale=1)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 32, 32), batch_size=2)
    with pytest.raises(mx.MXNetError, match="smaller than the input shape"):
        it.next()


def test_seed_configuration_runs(tmp_path):
    """The seed document's ImageRecordIter settings (section 3.5, case 1), on tiny images."""
    rec, _, _, _ = make_rec(str(tmp_path), count=4, sizes=[(40, 40)] * 4, fmt=".jpg")
    it = mx.io.ImageRecordIter(
        path_imgrec=rec, label_width=1, mean_r=123.68, mean_g=116.779, mean_b=109.939,
        data_name="data", label_name="softmax_label", data_shape=(3, 32, 32), batch_size=2,
        rand_crop=True, min_random_scale=1, max_random_scale=1, pad=0, fill_value=1,
        max_aspect_ratio=0, random_h=0, random_s=0, random_l=0, max_rotate_angle=0,
        max_shear_ratio=0, rand_mirror=True, preprocess_threads=2, shuffle=True,
        num_parts=1, part_index=0)
    batches = list(it)
    assert len(batches) == 2 and batches[0].data[0].shape == (2, 3, 32, 32)


def test_preprocess_threads_run_in_parallel(tmp_path, monkeypatch):
    rec, _, _, _ = make_rec(str(tmp_path), count=8, sizes=[(8, 8)] * 8)
    from minimx.io import image_record_iter
    original = image_record_iter.decode_array
    active, peak = [0], [0]

    def slow_decode(*args, **kwargs):
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        active[0] -= 1
        return original(*args, **kwargs)

    monkeypatch.setattr(image_record_iter, "decode_array", slow_decode)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=8,
                               preprocess_threads=4)
    it.next()
    assert peak[0] > 1


def _crop_positions(batches, image, pad, fill):
    """For each augmented image: the (row, column) where its crop starts in the padded image
    and whether it was mirrored; an output that is no such crop fails."""
    padded = np.pad(image, ((pad, pad), (pad, pad), (0, 0)), constant_values=fill)
    height, width = image.shape[:2]
    crops = {(y, x, m): (padded[y:y + height, x:x + width][:, ::-1 if m else 1]
                         .transpose(2, 0, 1))
             for y in range(2 * pad + 1) for x in range(2 * pad + 1) for m in (0, 1)}
    positions = []
    for batch in batches:
        for out in np.asarray(batch["data"][0]):
            found = [key for key, crop in crops.items() if np.array_equal(crop, out)]
            assert len(found) == 1, "an output that is not a crop of the padded image"
            positions.append(found[0])
    return np.array(positions)


@pytest.mark.mxnet
def test_pad_rand_crop_and_rand_mirror_draw_as_mxnet_does(mxnet_python, tmp_path):
    """CIFAR-style augmentation (pad=4, rand_crop, rand_mirror, the default fill 255) of an
    image whose pixels name their coordinates: on both sides every output is a crop of the
    white-padded image, at a start drawn uniformly from 0..8 on each axis, mirrored half of
    the time. (The draws themselves differ: each framework has its own random streams.)"""
    ys, xs = np.mgrid[0:12, 0:12]
    image = np.stack([xs * 20 + 10, ys * 20 + 10, np.full((12, 12), 100)], -1).astype(np.uint8)
    rec = str(tmp_path / "coords.rec")
    writer = recordio.MXIndexedRecordIO(str(tmp_path / "coords.idx"), rec, "w")
    for i in range(540):
        writer.write_idx(i, recordio.pack_img((0, 0.0, i, 0), image[:, :, ::-1], img_fmt=".png"))
    writer.close()
    kwargs = dict(path_imgrec=rec, data_shape=(3, 12, 12), batch_size=180, pad=4,
                  rand_crop=True, rand_mirror=True, preprocess_threads=1)
    theirs = ask_mxnet(mxnet_python, [{"kind": "image_record_iter", "kwargs": kwargs,
                                       "epochs": 1}])[0]["epochs"][0]
    ours = minimx_epochs(kwargs, 1)[0]
    for positions in (_crop_positions(theirs, image, 4, 255),
                      _crop_positions(ours, image, 4, 255)):
        assert len(positions) == 540
        for axis in (0, 1):            # 60 expected per start; a binomial sd of about 7.3
            counts = np.bincount(positions[:, axis], minlength=9)
            assert len(counts) == 9 and counts.min() > 30 and counts.max() < 90, counts
        assert abs(positions[:, 2].mean() - 0.5) < 0.08


def test_mxnet_parameters_not_built_are_refused_unless_at_their_default(tmp_path):
    """random_resized_crop=True was once dropped with a warning: every batch then came out
    without the random-size crops the program asked for.  Now it is refused by name; MXNet's
    default value is accepted (it changes nothing)."""
    rec, _, _, _ = make_rec(str(tmp_path), count=2)
    with pytest.raises(NotImplementedError, match="random_resized_crop=True"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2,
                              random_resized_crop=True, min_random_area=0.08)
    with pytest.raises(NotImplementedError, match="brightness=0.4"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2,
                              brightness=0.4)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2,
                                   random_resized_crop=False, brightness=0.0,
                                   min_aspect_ratio=None)
    assert it.next().data[0].shape == (2, 3, 8, 8)
