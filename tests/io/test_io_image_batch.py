"""ImageIter's batch fast path (minimx/image/batch_augment.py) gives what the plain,
image-by-image path gives, bit for bit: same crops, same pixels, same random state after."""
import io
import random

import numpy as np
import pytest
from PIL import Image

import minimx as mx
from minimx import recordio
from minimx.image.batch_augment import batch_augmenter

SIZES = [(40, 40), (33, 47), (64, 50), (20, 30), (28, 28), (30, 26)]


def encoded(img, fmt, **options):
    buffer = io.BytesIO()
    img.save(buffer, format=fmt, **options)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A .rec/.idx of 45 images of six sizes: JPEG (baseline, progressive, grey) and PNG."""
    folder = tmp_path_factory.mktemp("batch")
    rec, idx = str(folder / "images.rec"), str(folder / "images.idx")
    rng = np.random.RandomState(1)
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(45):
        h, w = SIZES[i % len(SIZES)]
        img = Image.fromarray((rng.rand(h, w, 3) * 255).astype("uint8"))
        if i % 7 == 3:
            img = img.convert("L")
        fmt = "PNG" if i % 5 == 4 else "JPEG"
        options = {"quality": 90, "progressive": i % 4 == 1} if fmt == "JPEG" else {}
        writer.write_idx(i, recordio.pack(recordio.IRHeader(0, float(i % 10), i, 0),
                                          encoded(img, fmt, **options)))
    writer.close()
    return rec, idx


CONFIGS = {
    "random size, bicubic": ((3, 28, 28), dict(rand_crop=True, rand_resize=True,
                                                rand_mirror=True, mean=True, std=True)),
    "random interp (10)": ((3, 24, 20), dict(rand_crop=True, rand_resize=True,
                                             rand_mirror=True, mean=True, std=True,
                                             inter_method=10)),
    "interp by direction (9)": ((3, 30, 26), dict(rand_crop=True, rand_resize=True,
                                                  mean=True, inter_method=9)),
    "bilinear, std only": ((3, 28, 28), dict(rand_crop=True, rand_resize=True, std=True,
                                             inter_method=1)),
    "area": ((3, 22, 22), dict(rand_crop=True, rand_resize=True, inter_method=3)),
    "Lanczos": ((3, 22, 22), dict(rand_crop=True, rand_resize=True, inter_method=4)),
    "nearest": ((3, 22, 22), dict(rand_crop=True, rand_resize=True, inter_method=0)),
    "random crop": ((3, 28, 28), dict(rand_crop=True, rand_mirror=True, mean=True, std=True)),
    "short side, centre": ((3, 32, 32), dict(resize=36, rand_mirror=True, mean=True,
                                             std=True)),
    "cast only": ((3, 28, 28), dict(rand_crop=True, rand_resize=True)),
    "grey": ((1, 28, 28), dict(rand_crop=True, rand_resize=True, rand_mirror=True)),
}


def passes(rec, idx, data_shape, augs, last_batch_handle, plain):
    """Two epochs of batches (data, label, pad) and the random state after them."""
    random.seed(7)
    it = mx.image.ImageIter(8, data_shape, path_imgrec=rec, path_imgidx=idx, shuffle=True,
                            aug_list=augs, last_batch_handle=last_batch_handle)
    if plain:
        it.batch_augmenter = lambda: None
    batches = []
    for _ in range(2):
        batches += [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad) for b in it]
        it.reset()
    return batches, random.getstate()


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("last_batch_handle", ["pad", "roll_over"])
def test_batch_path_equals_the_plain_path(records, name, last_batch_handle):
    data_shape, options = CONFIGS[name]
    augs = mx.image.CreateAugmenter(data_shape, **options)
    assert batch_augmenter(augs, data_shape) is not None
    fast, fast_state = passes(*records, data_shape, augs, last_batch_handle, plain=False)
    plain, plain_state = passes(*records, data_shape, augs, last_batch_handle, plain=True)
    assert len(fast) == len(plain) > 0 and fast_state == plain_state
    for (data, label, pad), (want_data, want_label, want_pad) in zip(fast, plain):
        assert data.dtype == want_data.dtype and pad == want_pad
        assert data.tobytes() == want_data.tobytes()      # bit for bit, NaN-free
        np.testing.assert_array_equal(label, want_label)


def test_two_flips_and_uint8_batches(records):
    """Flips compose (two draws, each may flip) and without CastAug the uint8 crops go into
    the float32 batch as the plain path stores them."""
    augs = [mx.image.RandomSizedCropAug((20, 20), 0.3, (0.75, 1.33), 2),
            mx.image.HorizontalFlipAug(0.5), mx.image.HorizontalFlipAug(0.7)]
    assert batch_augmenter(augs, (3, 20, 20)) is not None
    fast = passes(*records, (3, 20, 20), augs, "discard", plain=False)
    plain = passes(*records, (3, 20, 20), augs, "discard", plain=True)
    assert fast[1] == plain[1]
    for got, want in zip(fast[0], plain[0]):
        assert got[0].tobytes() == want[0].tobytes()


class Brighten(mx.image.Augmenter):
    def __call__(self, src):
        return src * 1.5


def test_other_lists_take_the_plain_path():
    shape = (3, 28, 28)
    crop = mx.image.RandomSizedCropAug((28, 28), 0.3, (0.75, 1.33))
    cast, flip = mx.image.CastAug(), mx.image.HorizontalFlipAug(0.5)
    normalize = mx.image.ColorNormalizeAug(mx.nd.array([1.0, 2.0, 3.0]), None)
    assert batch_augmenter([crop, flip, cast, normalize], shape) is not None
    for augs in ([], [cast], [crop, Brighten()], [crop, cast, Brighten()],
                 [flip, crop, cast],                              # flip before the crop
                 [mx.image.RandomSizedCropAug((20, 28), 0.3, (0.75, 1.33)), cast],
                 [crop, normalize],                               # uint8 normalised
                 [crop, mx.image.CastAug("float16"), normalize],
                 [crop, cast, mx.image.ColorNormalizeAug(mx.nd.ones((2, 1, 1, 3)), None)],
                 mx.image.CreateAugmenter(shape, rand_crop=True, brightness=0.2)):
        assert batch_augmenter(augs, shape) is None, augs
    grey = mx.image.ColorNormalizeAug(mx.nd.array([1.0, 2.0, 3.0]), None)
    assert batch_augmenter([crop, cast, grey], (1, 28, 28)) is None

    class Subclass(mx.image.ImageIter):
        def augmentation_transform(self, data):
            return super().augmentation_transform(data)

    it = Subclass(2, shape, imglist=[[0.0, "a.png"]], aug_list=[crop, cast])
    assert it.batch_augmenter() is None


@pytest.mark.parametrize("threads", [1, 3])
def test_threads_decode_in_order_and_a_bad_file_raises_in_turn(tmp_path, monkeypatch, threads):
    """Decoded by several threads, the images still come in order; a file that does not
    decode raises where the plain path raises, after the same random draws."""
    import minimx.image.batch_augment as batch_augment
    monkeypatch.setattr(batch_augment, "DECODE_THREADS", threads)
    monkeypatch.setattr(batch_augment, "RUN", 2)         # the second batch: runs 6-7, 8-9
    rng = np.random.RandomState(5)
    files = []
    for i in range(12):
        path = tmp_path / f"{i}.jpg"
        img = Image.fromarray((rng.rand(30, 30, 3) * 255).astype("uint8"))
        path.write_bytes(b"not an image" if i == 9 else encoded(img, "JPEG"))
        files.append([float(i), path.name])
    augs = mx.image.CreateAugmenter((3, 20, 20), rand_crop=True, rand_resize=True,
                                    rand_mirror=True)
    results = []
    for plain in (False, True):
        random.seed(3)
        it = mx.image.ImageIter(6, (3, 20, 20), imglist=files, path_root=str(tmp_path),
                                aug_list=augs)
        if plain:
            it.batch_augmenter = lambda: None
        batches = [it.next().data[0].asnumpy()]
        with pytest.raises(mx.MXNetError, match="cannot decode"):
            it.next()
        results.append((batches, random.getstate()))
    (fast, fast_state), (plain, plain_state) = results
    assert fast_state == plain_state
    for got, want in zip(fast, plain):
        assert got.tobytes() == want.tobytes()


def test_a_forked_child_decodes_with_a_pool_of_its_own(records, monkeypatch):
    """The pool's threads stay in the parent: a child forked after a batch makes its own."""
    import multiprocessing
    import minimx.image.batch_augment as batch_augment
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    monkeypatch.setattr(batch_augment, "DECODE_THREADS", 2)
    monkeypatch.setattr(batch_augment, "RUN", 2)
    augs = mx.image.CreateAugmenter((3, 20, 20), rand_crop=True, rand_resize=True)
    it = mx.image.ImageIter(8, (3, 20, 20), path_imgrec=records[0], path_imgidx=records[1],
                            aug_list=augs)
    it.next()
    child = multiprocessing.get_context("fork").Process(target=it.next)
    child.start()
    child.join(60)
    if child.exitcode is None:          # waiting on threads it does not have
        child.kill()
    assert child.exitcode == 0


def test_a_list_or_mean_changed_between_batches_takes_effect(records):
    """The batch path is built once per list of augmenters; replacing the list, one of its
    augmenters or a normaliser's mean between batches gives what the plain path gives."""
    shape = (3, 20, 20)

    def batches(plain):
        random.seed(11)
        crop = mx.image.RandomSizedCropAug((20, 20), 0.3, (0.75, 1.33))
        normalize = mx.image.ColorNormalizeAug(mx.nd.array([1.0, 2.0, 3.0]), None)
        it = mx.image.ImageIter(8, shape, path_imgrec=records[0], path_imgidx=records[1],
                                aug_list=[crop, mx.image.CastAug(), normalize])
        if plain:
            it.batch_augmenter = lambda: None
        out = [it.next().data[0].asnumpy()]
        normalize.mean = mx.nd.array([50.0, 60.0, 70.0])          # an attribute replaced
        out.append(it.next().data[0].asnumpy())
        it.auglist = [crop, mx.image.CastAug()]                   # the list replaced
        out.append(it.next().data[0].asnumpy())
        it.auglist[0] = mx.image.CenterCropAug((20, 20))          # an augmenter replaced
        out.append(it.next().data[0].asnumpy())
        return out

    fast, plain = batches(plain=False), batches(plain=True)
    for n, (got, want) in enumerate(zip(fast, plain)):
        assert got.tobytes() == want.tobytes(), n
    assert not np.array_equal(fast[0], fast[1])
