"""gluon.data: datasets, samplers, DataLoader (workers), vision datasets and transforms."""
import gzip
import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import nd, recordio
from minimx.gluon import data as gdata
from minimx.gluon.data.vision import transforms as T
from minimx.op.image_color import contrast as _contrast, hue as _hue, saturation as _saturation


# -- datasets ------------------------------------------------------------------------------------
def test_array_dataset_samples_and_length_check():
    data = gdata.ArrayDataset(nd.arange(6).reshape((3, 2)), nd.array([5, 6, 7]), ["a", "b", "c"])
    x, y, z = data[1]
    assert x.shape == (2,) and isinstance(y, np.floating) and y == 6 and z == "b"
    assert len(data) == 3
    assert gdata.ArrayDataset([1, 2, 3])[2] == 3
    with pytest.raises(ValueError, match=r"array\[1\] has 2"):
        gdata.ArrayDataset([1, 2, 3], [1, 2])


def test_transform_and_transform_first():
    data = gdata.ArrayDataset(list(range(4)), list(range(10, 14)))
    assert data.transform(lambda x, y: x + y)[1] == 12
    first = data.transform_first(lambda x: x * 2)
    assert first[3] == (6, 13)
    calls = []
    eager = gdata.SimpleDataset([1, 2]).transform(lambda x: calls.append(x) or x, lazy=False)
    assert calls == [1, 2] and list(eager) == [1, 2]
    assert gdata.SimpleDataset([1, 2]).transform_first(lambda x: -x)[1] == -2


def test_filter_take_sample():
    data = gdata.SimpleDataset(list(range(10)))
    assert list(data.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert list(data.take(3)) == [0, 1, 2]
    assert len(data.take(None)) == 10 and len(data.take(50)) == 10
    assert list(data.sample(gdata.SequentialSampler(3, start=4))) == [4, 5, 6]
    with pytest.raises(TypeError, match="Invalid sampler"):
        data.sample([1, 2])


@settings(max_examples=30, deadline=None)
@given(length=st.integers(0, 30), num_shards=st.integers(1, 7))
def test_shards_partition_the_dataset(length, num_shards):
    data = gdata.SimpleDataset(list(range(length)))
    shards = [list(data.shard(num_shards, i)) for i in range(num_shards)]
    assert sum(shards, []) == list(range(length))
    sizes = [len(shard) for shard in shards]
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_shard_bad_index():
    with pytest.raises(ValueError, match="out of 2"):
        gdata.SimpleDataset([1]).shard(2, 2)


def write_records(tmp_path, payloads):
    rec, idx = str(tmp_path / "data.rec"), str(tmp_path / "data.idx")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    for i, payload in enumerate(payloads):
        writer.write_idx(i, payload)
    writer.close()
    return rec


def test_record_file_dataset(tmp_path):
    rec = write_records(tmp_path, [b"zero", b"one!", b"two"])
    data = gdata.RecordFileDataset(rec)
    assert len(data) == 3 and data[1] == b"one!" and data[2] == b"two"
    with pytest.raises(FileNotFoundError, match="im2rec"):
        gdata.RecordFileDataset(str(tmp_path / "missing.rec"))


# -- samplers ------------------------------------------------------------------------------------
def test_random_sampler_is_a_permutation():
    order = list(gdata.RandomSampler(20))
    assert sorted(order) == list(range(20)) and len(gdata.RandomSampler(20)) == 20


@settings(max_examples=30, deadline=None)
@given(length=st.integers(0, 20), batch=st.integers(1, 6),
       mode=st.sampled_from(["keep", "discard", "rollover"]))
def test_batch_sampler_modes(length, batch, mode):
    sampler = gdata.BatchSampler(gdata.SequentialSampler(length), batch, mode)
    expected_len = len(sampler)
    batches = list(sampler)
    assert len(batches) == expected_len
    flat = sum(batches, [])
    full = length - length % batch
    assert flat[:full] == list(range(full))
    if mode == "keep":
        assert flat == list(range(length))
    else:
        assert all(len(b) == batch for b in batches) and len(flat) == full
    if mode == "rollover" and length % batch:
        leftover = list(range(full, length))
        second = sum(list(sampler), []) + sampler._prev
        assert second[:len(leftover)] == leftover


def test_batch_sampler_bad_mode():
    with pytest.raises(ValueError, match="last_batch must be one of"):
        gdata.BatchSampler(gdata.SequentialSampler(3), 2, "drop")


# -- DataLoader ----------------------------------------------------------------------------------
def loader_batches(loader):
    out = []
    for batch in loader:
        if isinstance(batch, nd.NDArray):
            out.append(batch.asnumpy())
        else:
            out.append(tuple(item.asnumpy() for item in batch))
    return out


def assert_same_batches(a, b):
    assert len(a) == len(b)
    for left, right in zip(a, b):
        left, right = np.atleast_1d(left), np.atleast_1d(right)
        if isinstance(left, tuple):
            for x, y in zip(left, right):
                np.testing.assert_array_equal(x, y)
        else:
            np.testing.assert_array_equal(left, right)


def transformed_dataset():
    images = nd.array(np.arange(11 * 4 * 4 * 3).reshape(11, 4, 4, 3) % 256, dtype="uint8")
    labels = np.arange(11, dtype=np.int32)
    return gdata.ArrayDataset(images, labels).transform_first(
        T.Compose([T.ToTensor(), T.Normalize(0.5, 0.25)]))


@pytest.mark.parametrize("last_batch", ["keep", "discard", "rollover"])
def test_workers_give_the_same_batches(last_batch):
    dataset = transformed_dataset()
    reference = loader_batches(gdata.DataLoader(dataset, 4, last_batch=last_batch))
    expected_count = {"keep": 3, "discard": 2, "rollover": 2}[last_batch]
    assert len(reference) == expected_count
    assert reference[0][0].shape == (4, 3, 4, 4) and reference[0][0].dtype == np.float32
    np.testing.assert_array_equal(reference[1][1], [4, 5, 6, 7])
    for kwargs in ({"num_workers": 2}, {"num_workers": 2, "thread_pool": True},
                   {"num_workers": 2, "prefetch": 0}):
        loader = gdata.DataLoader(dataset, 4, last_batch=last_batch, **kwargs)
        assert len(loader) == expected_count
        got = loader_batches(loader)
        for (x, y), (rx, ry) in zip(got, reference):
            np.testing.assert_array_equal(x, rx)
            np.testing.assert_array_equal(y, ry)
        assert len(got) == len(reference)


def test_rollover_carries_samples_into_the_next_epoch():
    loader = gdata.DataLoader(gdata.SimpleDataset(list(range(5))), 2, last_batch="rollover")
    first = [b.asnumpy().tolist() for b in loader]
    second = [b.asnumpy().tolist() for b in loader]
    assert first == [[0, 1], [2, 3]]
    assert second == [[4, 0], [1, 2], [3, 4]]


def test_shuffle_visits_every_sample_once():
    loader = gdata.DataLoader(gdata.SimpleDataset(list(range(9))), 4, shuffle=True)
    seen = np.concatenate([b.asnumpy() for b in loader])
    assert sorted(seen.tolist()) == list(range(9))


def test_process_workers_shuffle_and_epochs():
    loader = gdata.DataLoader(gdata.SimpleDataset(list(range(9))), 3, shuffle=True,
                              num_workers=2)
    for _ in range(2):
        seen = np.concatenate([b.asnumpy() for b in loader])
        assert sorted(seen.tolist()) == list(range(9))


def test_batchify_fn_and_batch_sampler():
    def batchify(samples):
        return nd.array([sum(samples)])
    sampler = gdata.BatchSampler(gdata.SequentialSampler(6), 3)
    loader = gdata.DataLoader(gdata.SimpleDataset(list(range(6))), batch_sampler=sampler,
                              batchify_fn=batchify, num_workers=1)
    assert [b.asscalar() for b in loader] == [3, 12]


def test_default_batchify_fn_nesting():
    batch = gdata.default_batchify_fn([(nd.ones((2,)), (np.zeros(3), 1)),
                                       (nd.zeros((2,)), (np.ones(3), 2))])
    assert batch[0].shape == (2, 2)
    assert batch[1][0].shape == (2, 3) and batch[1][1].asnumpy().tolist() == [1, 2]


def test_pin_memory_context():
    loader = gdata.DataLoader(gdata.SimpleDataset([1.0, 2.0]), 2, pin_memory=True)
    assert next(iter(loader)).context == mx.context.cpu_pinned(0)


def test_dataloader_argument_errors():
    dataset = gdata.SimpleDataset([1, 2, 3])
    sampler = gdata.BatchSampler(gdata.SequentialSampler(3), 2)
    with pytest.raises(ValueError, match="must not be specified if batch_sampler"):
        gdata.DataLoader(dataset, batch_size=2, batch_sampler=sampler)
    with pytest.raises(ValueError, match="batch_size must be specified"):
        gdata.DataLoader(dataset)
    with pytest.raises(ValueError, match="shuffle must not be specified"):
        gdata.DataLoader(dataset, 2, shuffle=True, sampler=gdata.SequentialSampler(3))
    with pytest.raises(ValueError, match="timeout must be positive"):
        gdata.DataLoader(dataset, 2, timeout=0)


def test_worker_errors_reach_the_loop():
    def broken(index):
        raise KeyError("sample missing")
    dataset = gdata.SimpleDataset([0, 1]).transform(broken)
    with pytest.raises(KeyError, match="sample missing"):
        list(gdata.DataLoader(dataset, 1, num_workers=1))


def test_a_failed_loader_is_collected_and_its_workers_stop():
    """The exit finaliser holds the batches in flight weakly: a failed batch's exception
    (whose traceback holds the loader's frames) must not keep the loader and its worker
    processes alive till exit -- a forked worker also holds every pipe the parent had open,
    and a program waiting for one of those to close (a browser driver's) would hang."""
    import gc
    import multiprocessing
    import weakref

    def broken(index):
        raise KeyError("sample missing")
    loader = gdata.DataLoader(gdata.SimpleDataset([0, 1]).transform(broken), 1, num_workers=1)
    alive = weakref.ref(loader)
    with pytest.raises(KeyError):
        list(loader)
    del loader
    gc.collect()
    assert alive() is None
    assert not [child for child in multiprocessing.active_children()
                if child.name.startswith("ForkPoolWorker")]


LEAVE_EARLY = """
import time
import numpy
import mxnet as mx
def batchify(samples):          # slow, and bigger than a pipe's buffer
    time.sleep(0.3)
    return mx.nd.array(numpy.ones((len(samples), 1 << 18), dtype="float32"))
loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(list(range(64))), 4,
                                  batchify_fn=batchify, num_workers=2)
for batch in loader:
    print(batch.shape)
    break
print("end")
"""


@pytest.mark.programs
def test_a_program_that_leaves_an_epoch_early_exits(tmp_path, mxnet_python):
    """The book's word-embedding page takes one batch of a 4-worker loader and ends: the
    workers, still sending batches, must not keep the program from exiting (minimx hung
    until killed; MXNet 1.9.1 exits in 3 s)."""
    printed = printed_on_both(tmp_path, mxnet_python, LEAVE_EARLY)
    assert printed["minimx"] == printed["mxnet"] == ["(4,", "262144)", "end"]


def printed_on_both(tmp_path, mxnet_python, program):
    """What ``program`` (MXNet code) prints, split in words, run as a script by
    ``python -m minimx.compat`` and by MXNet 1.9.1 (each must end within a minute)."""
    script = tmp_path / "program.py"
    script.write_text(program)
    printed = {}
    for side, command in (("minimx", [sys.executable, "-m", "minimx.compat", str(script)]),
                          ("mxnet", [mxnet_python, str(script)])):
        done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
        assert done.returncode == 0, done.stderr[-2000:]
        printed[side] = done.stdout.split()
    return printed


POOL_OF_A_DATASET = """
import multiprocessing
from mxnet import np, npx
npx.set_np()
class Pairs:                    # as d2l's SNLIBERTDataset: a Pool maps a bound method
    def __init__(self):
        self.labels = np.array([0, 1, 2])
    def work(self, x):
        return x * 2 + int(self.labels.shape[0])
pool = multiprocessing.Pool(2)
print(pool.map(Pairs().work, [1, 2, 3]))
pool.close()
"""


def test_np_arrays_cross_a_pool_after_set_np(tmp_path, mxnet_python):
    """An np array pickled by a Pool's task thread (outside this thread's NumPy mode) loads in
    the worker (inside it): before, the workers died on a ShapeSemanticsError and the book's
    natural-language-inference-bert page hung."""
    printed = printed_on_both(tmp_path, mxnet_python, POOL_OF_A_DATASET)
    assert printed["minimx"] == printed["mxnet"] == ["[5,", "7,", "9]"]


# -- vision datasets -----------------------------------------------------------------------------
def write_idx_files(root, prefix, images, labels):
    with gzip.open(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz"), "wb") as handle:
        handle.write(struct.pack(">II", 2049, len(labels)) + labels.astype(np.uint8).tobytes())
    with open(os.path.join(root, f"{prefix}-images-idx3-ubyte"), "wb") as handle:
        handle.write(struct.pack(">IIII", 2051, len(images), 28, 28) + images.tobytes())


def test_mnist_reads_local_idx_files(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (3, 28, 28), dtype=np.uint8)
    labels = np.array([7, 1, 4])
    write_idx_files(str(tmp_path), "t10k", images, labels)
    data = gdata.vision.MNIST(root=str(tmp_path), train=False)
    assert len(data) == 3
    image, label = data[1]
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8 and label == 1
    np.testing.assert_array_equal(image.asnumpy()[:, :, 0], images[1])
    scaled = gdata.vision.FashionMNIST(root=str(tmp_path), train=False,
                                       transform=lambda x, y: (x.astype("float32") / 255, y))
    assert scaled[0][0].dtype == np.float32
    with pytest.raises(FileNotFoundError, match="train-labels-idx1-ubyte.gz was not found"):
        gdata.vision.MNIST(root=str(tmp_path), train=True)


def test_cifar10_reads_binary_batches(tmp_path):
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 256, (4, 3073), dtype=np.uint8)
    rows[:, 0] = [3, 9, 0, 1]
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    (folder / "test_batch.bin").write_bytes(rows.tobytes())
    data = gdata.vision.CIFAR10(root=str(tmp_path), train=False)
    image, label = data[1]
    assert len(data) == 4 and label == 9 and image.shape == (32, 32, 3)
    np.testing.assert_array_equal(image.asnumpy()[:, :, 0], rows[1, 1:1025].reshape(32, 32))
    with pytest.raises(FileNotFoundError, match="data_batch_1.bin.*cifar-10-binary"):
        gdata.vision.CIFAR10(root=str(tmp_path), train=True)


def cifar_records(label_bytes, labels, count=4, seed=1):
    """``count`` CIFAR records: label bytes, then 3x32x32 random pixels."""
    rows = np.random.default_rng(seed).integers(0, 256, (count, 3072 + label_bytes),
                                                dtype=np.uint8)
    rows[:, :label_bytes] = labels
    return rows


def write_cifar_archive(path, folder, batches):
    """A CIFAR ``*-binary.tar.gz`` holding ``folder/NAME`` for each {NAME: records}."""
    with tarfile.open(path, "w:gz") as tar:
        for name, rows in batches.items():
            payload = rows.tobytes()
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))


def test_cifar10_unpacks_its_archive(tmp_path):
    batches = {f"data_batch_{i}.bin": cifar_records(1, [[i], [9], [0], [1]], seed=i)
               for i in range(1, 6)}
    batches["test_batch.bin"] = cifar_records(1, [[5], [6], [7], [8]], seed=9)
    write_cifar_archive(tmp_path / "cifar-10-binary.tar.gz", "cifar-10-batches-bin", batches)
    train = gdata.vision.CIFAR10(root=str(tmp_path), train=True)
    assert len(train) == 20 and (tmp_path / "cifar-10-batches-bin" / "data_batch_5.bin").exists()
    image, label = train[10]                    # third record of data_batch_3
    assert label == 0
    np.testing.assert_array_equal(
        image.asnumpy().transpose(2, 0, 1).ravel(), batches["data_batch_3.bin"][2, 1:])
    test = gdata.vision.CIFAR10(root=str(tmp_path), train=False)
    assert [test[i][1] for i in range(4)] == [5, 6, 7, 8]


@pytest.mark.parametrize("fine_label, expected", [(False, [1, 2, 3]), (True, [11, 42, 99])])
def test_cifar100_unpacks_its_archive_with_coarse_or_fine_labels(tmp_path, fine_label,
                                                                 expected):
    labels = [[1, 11], [2, 42], [3, 99]]
    batches = {"train.bin": cifar_records(2, labels, count=3),
               "test.bin": cifar_records(2, labels[:1], count=1)}
    write_cifar_archive(tmp_path / "cifar-100-binary.tar.gz", "cifar-100-binary", batches)
    data = gdata.vision.CIFAR100(root=str(tmp_path), fine_label=fine_label, train=True)
    assert [data[i][1] for i in range(3)] == expected
    image = data[2][0].asnumpy()
    assert image.shape == (32, 32, 3) and image.dtype == np.uint8
    np.testing.assert_array_equal(image.transpose(2, 0, 1).ravel(), batches["train.bin"][2, 2:])
    assert len(gdata.vision.CIFAR100(root=str(tmp_path), train=False)) == 1


def test_a_cifar_archive_that_escapes_its_folder_is_refused(tmp_path):
    from minimx.archive import UnsafeArchiveError
    root = tmp_path / "root"
    root.mkdir()
    write_cifar_archive(root / "cifar-10-binary.tar.gz", "..",
                        {"test_batch.bin": cifar_records(1, [[1]], count=1)})
    with pytest.raises(UnsafeArchiveError, match="outside"):
        gdata.vision.CIFAR10(root=str(root), train=False)
    assert not (tmp_path / "test_batch.bin").exists()


def small_png_folder(root):
    from PIL import Image
    rng = np.random.default_rng(2)
    pixels = {}
    for label, name in enumerate(["bus", "car"]):
        os.makedirs(os.path.join(root, name))
        for i in range(2):
            array = rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)
            path = os.path.join(root, name, f"{i}.png")
            Image.fromarray(array).save(path)
            pixels[path] = (array, label)
    with open(os.path.join(root, "car", "notes.txt"), "w") as handle:
        handle.write("not an image")
    return pixels


def test_image_folder_dataset(tmp_path):
    pixels = small_png_folder(str(tmp_path))
    with pytest.warns(UserWarning, match="Ignoring"):
        data = gdata.vision.ImageFolderDataset(str(tmp_path))
    assert data.synsets == ["bus", "car"] and len(data) == 4
    for index, (path, label) in enumerate(data.items):
        image, got_label = data[index]
        np.testing.assert_array_equal(image.asnumpy(), pixels[path][0])
        assert got_label == label == pixels[path][1]
    loader = gdata.DataLoader(data.transform_first(T.ToTensor()), 2)
    x, y = next(iter(loader))
    assert x.shape == (2, 3, 5, 4) and y.asnumpy().tolist() == [0, 0]


def test_image_record_dataset(tmp_path):
    rng = np.random.default_rng(3)
    arrays = [rng.integers(0, 256, (4, 6, 3), dtype=np.uint8) for _ in range(2)]
    payloads = [recordio.pack_img(recordio.IRHeader(0, float(i + 1), i, 0), a, img_fmt=".png")
                for i, a in enumerate(arrays)]
    data = gdata.vision.ImageRecordDataset(write_records(tmp_path, payloads))
    image, label = data[1]
    assert label == 2.0
    # pack_img takes OpenCV's BGR order; decoding gives RGB, as in MXNet
    np.testing.assert_array_equal(image.asnumpy(), arrays[1][:, :, ::-1])



@pytest.mark.parametrize("workers", [dict(num_workers=2), dict(num_workers=4, thread_pool=True)])
def test_record_dataset_under_dataloader_workers(tmp_path, workers):
    # forked workers share the parent's file offset unless the reader reopens the file, and
    # threads share one reader: each record must still come back whole with its own label
    rng = np.random.default_rng(5)
    arrays = [rng.integers(0, 256, (4, 6, 3), dtype=np.uint8) for _ in range(24)]
    payloads = [recordio.pack_img(recordio.IRHeader(0, float(i), i, 0), a, img_fmt=".png")
                for i, a in enumerate(arrays)]
    data = gdata.vision.ImageRecordDataset(write_records(tmp_path, payloads))
    data[0]                                   # the parent reads before the workers start
    for _ in range(2):
        images, labels = [], []
        for x, y in gdata.DataLoader(data, 2, **workers):
            images.extend(x.asnumpy())
            labels.extend(y.asnumpy().tolist())
        assert labels == list(range(24))
        for image, array in zip(images, arrays):
            np.testing.assert_array_equal(image, array[:, :, ::-1])


def test_record_writer_refuses_another_process(tmp_path):
    writer = recordio.MXRecordIO(str(tmp_path / "w.rec"), "w")
    writer.pid = -1                           # as if the file had been opened before a fork
    with pytest.raises(RuntimeError, match="process"):
        writer.write(b"x")
    writer.close()

# -- transforms ----------------------------------------------------------------------------------
def test_random_transforms_keep_shape_dtype_and_identity_at_zero():
    rng = np.random.default_rng(4)
    img = nd.array(rng.integers(0, 256, (5, 6, 3)), dtype="uint8")
    for transform in (T.RandomBrightness(0), T.RandomContrast(0), T.RandomSaturation(0),
                      T.RandomHue(0), T.RandomLighting(0), T.RandomColorJitter()):
        np.testing.assert_array_equal(transform(img).asnumpy(), img.asnumpy())
    for transform in (T.RandomBrightness(0.5), T.RandomColorJitter(0.3, 0.3, 0.3, 0.1),
                      T.RandomLighting(0.5)):
        out = transform(img)
        assert out.shape == img.shape and out.dtype == np.uint8


def test_random_flips_are_flips():
    img = nd.array(np.arange(2 * 3 * 1).reshape(2, 3, 1))
    seen = set()
    for _ in range(30):
        out = T.RandomFlipLeftRight()(img).asnumpy()
        assert out.tolist() in (img.asnumpy().tolist(), img.asnumpy()[:, ::-1].tolist())
        seen.add(str(out.tolist()))
        top = T.RandomFlipTopBottom()(img).asnumpy()
        assert top.tolist() in (img.asnumpy().tolist(), img.asnumpy()[::-1].tolist())
    assert len(seen) == 2


def test_random_resized_crop_shape():
    img = nd.array(np.random.randint(0, 255, (20, 16, 3)), dtype="uint8")
    assert T.RandomResizedCrop((8, 6))(img).shape == (6, 8, 3)
    assert T.RandomResizedCrop(5)(img).shape == (5, 5, 3)


def test_compose_hybridizes_runs_of_hybrid_blocks():
    # CenterCrop is a plain Block; Resize is a HybridBlock, as MXNet 1.9.1's (there, too,
    # Compose([Resize, ToTensor, Normalize, Cast]) is one hybridized run)
    t = T.Compose([T.CenterCrop(4), T.ToTensor(), T.Normalize(0.5, 0.5), T.Cast("float16")])
    assert len(t._children) == 2
    out = t(nd.array(np.random.randint(0, 255, (6, 8, 3)), dtype="uint8"))
    assert out.shape == (3, 4, 4) and out.dtype == np.float16
    assert len(T.Compose([T.Resize(4), T.ToTensor(), T.Normalize(0.5, 0.5)])._children) == 1


MXNET_TRANSFORMS = textwrap.dedent("""
    import json, numpy as np, mxnet as mx
    from mxnet.gluon.data.vision import transforms as T
    img8 = np.array(json.load(open(__import__("sys").argv[1])), dtype=np.uint8)
    x8, xf = mx.nd.array(img8, dtype="uint8"), mx.nd.array(img8.astype(np.float32))
    out = {
        "to_tensor": T.ToTensor()(x8).asnumpy().tolist(),
        "to_tensor4": T.ToTensor()(mx.nd.stack(x8, x8)).asnumpy().tolist(),
        "normalize": T.Normalize((0.5, 0.4, 0.3), (0.2, 0.25, 0.3))(
            T.ToTensor()(x8)).asnumpy().tolist(),
        "resize": T.Resize((4, 3))(x8).asnumpy().tolist(),
        "resize_keep": T.Resize(3, keep_ratio=True)(x8).asnumpy().tolist(),
        "center_crop": T.CenterCrop((4, 3))(x8).asnumpy().tolist(),
        "cast": str(T.Cast("float16")(x8).dtype),
    }
    mx.random.seed(1)
    for name, t in [("brightness", T.RandomBrightness(0.5)), ("contrast", T.RandomContrast(0.5)),
                    ("saturation", T.RandomSaturation(0.5)), ("hue", T.RandomHue(0.3)),
                    ("lighting", T.RandomLighting(0.5))]:
        out[name] = t(xf).asnumpy().tolist()
    print(json.dumps(out))
""")


@pytest.mark.mxnet
def test_transforms_match_mxnet(mxnet_python, tmp_path):
    rng = np.random.default_rng(5)
    img8 = rng.integers(0, 256, (5, 6, 3)).astype(np.uint8)
    (tmp_path / "img.json").write_text(json.dumps(img8.tolist()))
    (tmp_path / "run.py").write_text(MXNET_TRANSFORMS)
    done = subprocess.run([mxnet_python, str(tmp_path / "run.py"), str(tmp_path / "img.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    ref = {key: np.array(value) if key != "cast" else value
           for key, value in json.loads(done.stdout.strip().splitlines()[-1]).items()}
    x8 = nd.array(img8, dtype="uint8")
    np.testing.assert_allclose(T.ToTensor()(x8).asnumpy(), ref["to_tensor"], rtol=1e-6)
    np.testing.assert_allclose(T.ToTensor()(nd.stack(x8, x8)).asnumpy(), ref["to_tensor4"],
                               rtol=1e-6)
    normalize = T.Normalize((0.5, 0.4, 0.3), (0.2, 0.25, 0.3))
    np.testing.assert_allclose(normalize(T.ToTensor()(x8)).asnumpy(), ref["normalize"],
                               rtol=1e-5, atol=1e-6)
    # bilinear resizing matches OpenCV's to within one grey level (rounding)
    np.testing.assert_allclose(T.Resize((4, 3))(x8).asnumpy(), ref["resize"], atol=1)
    np.testing.assert_allclose(T.Resize(3, keep_ratio=True)(x8).asnumpy(), ref["resize_keep"],
                               atol=1)
    np.testing.assert_array_equal(T.CenterCrop((4, 3))(x8).asnumpy(), ref["center_crop"])
    assert str(T.Cast("float16")(x8).dtype) == ref["cast"]
    # Random transforms: MXNet's output must be minimx's formula for some factor in range.
    pixels = img8.astype(np.float64)
    ratio = ref["brightness"][pixels > 0] / pixels[pixels > 0]
    assert np.ptp(ratio) < 1e-5 and 0.5 <= ratio.mean() <= 1.5
    for name, fn in (("contrast", _contrast), ("saturation", _saturation)):
        alpha = _best_factor(fn, pixels, ref[name], np.linspace(0.5, 1.5, 2001))
        np.testing.assert_allclose(fn(pixels, alpha), ref[name], atol=0.05)
    alpha = _best_factor(_hue, pixels, ref["hue"], np.linspace(-0.3, 0.3, 1201))
    np.testing.assert_allclose(_hue(pixels, alpha), ref["hue"], atol=0.5)
    shift = ref["lighting"] - pixels
    assert np.ptp(shift.reshape(-1, 3), axis=0).max() < 1e-3


def _best_factor(fn, pixels, target, grid):
    errors = [np.abs(fn(pixels, alpha) - target).max() for alpha in grid]
    return grid[int(np.argmin(errors))]


@pytest.mark.timeout(60)
def test_dropping_a_loader_with_large_batches_in_flight_does_not_hang():
    """Batches bigger than a pipe's buffer are still being sent when the loader is dropped;
    the pool is ended only after they arrive (``terminate`` needs the pipe's lock)."""
    values = np.random.rand(400, 2000)            # each batch of 8 rows is 128 kB
    for _ in range(3):
        loader = gdata.DataLoader(values, batch_size=8, num_workers=4)
        batches = iter(loader)
        first = next(batches)
        np.testing.assert_allclose(first.asnumpy(), values[:8])
        del batches, loader
