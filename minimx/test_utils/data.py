"""Test data: random samples and arrays, datasets already on disk, devices.

Lesson: 11-data.  Mirrors the data helpers of ``python/mxnet/test_utils.py``.  minimx
never downloads: ``download`` and the dataset getters return files that are present and
otherwise raise an error naming the file and where it belongs.
"""
import gzip
import os
import platform
import struct
import zipfile

import numpy as np

from .. import ndarray as nd
from ..base import InvalidParameterError, MXNetError
from ..context import num_gpus
from ..io import DataIter

__all__ = ["random_sample", "random_uniform_arrays", "create_vector", "create_2d_tensor",
           "rand_coord_2d", "get_identity_mat", "get_identity_mat_batch", "DummyIter",
           "download", "download_model", "get_mnist", "get_mnist_ubyte", "get_mnist_pkl",
           "get_mnist_iterator", "get_cifar10", "get_zip_data", "get_bz2_data",
           "get_im2rec_path", "list_gpus", "get_cuda_compute_capability", "is_op_runnable",
           "is_aarch64_run", "is_cd_run", "has_tvm_ops", "locationError"]


def random_sample(population, k):
    """``k`` distinct items of the list ``population``, in random order (numpy's RNG)."""
    shuffled = list(population)
    np.random.shuffle(shuffled)
    return shuffled[:k]


def random_uniform_arrays(*shapes, **kwargs):
    """A list of uniform arrays in [low, high) (defaults 0 and 1), one per shape, in
    ``dtype`` (a list also for one shape, unlike ``random_arrays``: MXNet's behaviour)."""
    low, high = kwargs.pop("low", 0.0), kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", np.float32)
    if kwargs:
        raise TypeError(f"random_uniform_arrays: unexpected arguments {sorted(kwargs)}")
    return [np.random.uniform(low, high, size=shape).astype(dtype) for shape in shapes]


def create_vector(size, dtype=np.int64):
    """``nd.arange(size)`` in ``dtype`` (large-tensor tests use it)."""
    return nd.arange(0, size, dtype=dtype)


def create_2d_tensor(rows, columns, dtype=np.int64):
    """A (rows, columns) NDArray whose row i holds i."""
    values = np.broadcast_to(np.arange(rows).reshape(rows, 1), (rows, columns))
    return nd.array(values, dtype=dtype)


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random integer point (x, y) with x in [x_low, x_high), y in [y_low, y_high)."""
    return (int(np.random.randint(x_low, x_high, dtype=np.int64)),
            int(np.random.randint(y_low, y_high, dtype=np.int64)))


def get_identity_mat(size):
    return np.identity(size)


def get_identity_mat_batch(batch, size):
    return np.stack([np.identity(size)] * batch)


class DummyIter(DataIter):
    """Hands out the first batch of ``real_iter`` for ever (to time a model without I/O)."""

    def __init__(self, real_iter):
        super().__init__(real_iter.batch_size)
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.the_batch = next(iter(real_iter))

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch


class locationError(MXNetError):  # noqa: N801 (MXNet's name)
    """A location given in a form the checks cannot use."""


def _local(path, what, source):
    if os.path.exists(path):
        return path
    raise MXNetError(f"{what}: {path} does not exist, and minimx does not download files; "
                     f"fetch it from {source} and put it at {os.path.abspath(path)}")


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """The path ``url`` would be saved to (``dirname/fname``, default the URL's file name in
    the current folder), when that file is present: minimx never downloads.  Like MXNet's,
    it creates ``dirname`` when missing."""
    if retries < 0:
        raise InvalidParameterError(f"download: retries={retries}, expected at least 0")
    fname = fname or url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if overwrite:
        raise MXNetError(f"download: minimx does not download ({url}); overwrite=True "
                         f"cannot be honoured")
    return _local(fname, "download", url)


def download_model(model_name, dst_dir="./", meta_info=None):
    """(symbol file, params file) of a model already in ``dst_dir``."""
    prefix = os.path.join(dst_dir, model_name)
    return (_local(f"{prefix}-symbol.json", "download_model", "MXNet's model store"),
            _local(f"{prefix}-0000.params", "download_model", "MXNet's model store"))


MNIST_URL = "http://data.mxnet.io/data/mnist/"
MNIST_UBYTE = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
               "t10k-labels-idx1-ubyte")


def _unzip_when_missing(what, folder, needed, zip_url):
    """Make sure ``folder`` holds ``needed``: when one is missing, unpack the zip file of
    ``zip_url`` found in ``data/`` (MXNet would download it; minimx asks for it)."""
    os.makedirs("data", exist_ok=True)
    missing = [name for name in needed if not os.path.exists(os.path.join(folder, name))]
    if not missing:
        return
    archive = os.path.join("data", zip_url.split("/")[-1])
    if not os.path.exists(archive):
        raise MXNetError(f"{what}: {os.path.join(folder, missing[0])} does not exist, and "
                         f"minimx does not download files; put {', '.join(needed)} in "
                         f"{os.path.abspath(folder)}, or {zip_url} at "
                         f"{os.path.abspath(archive)}")
    with zipfile.ZipFile(archive) as archive_file:
        archive_file.extractall("data")


def get_mnist_ubyte():
    """Make sure ``data/`` in the current folder holds MNIST's four idx files (from
    ``data/mnist.zip`` when they are not there yet)."""
    _unzip_when_missing("get_mnist_ubyte", "data", MNIST_UBYTE,
                        "http://data.mxnet.io/mxnet/data/mnist.zip")


def get_cifar10():
    """Make sure ``data/cifar/`` holds CIFAR-10's train/test .rec and .lst files (from
    ``data/cifar10.zip`` when they are not there yet)."""
    _unzip_when_missing("get_cifar10", os.path.join("data", "cifar"),
                        ("train.rec", "test.rec", "train.lst", "test.lst"),
                        "http://data.mxnet.io/mxnet/data/cifar10.zip")


def _read_mnist_gz(label_name, image_name):
    """(int8 labels, float32 images (N, 1, 28, 28) in [0, 1]) from two gzipped idx files in
    the current folder, as MXNet's get_mnist reads them."""
    with gzip.open(download(MNIST_URL + label_name)) as labels_file:
        labels_file.read(8)
        labels = np.frombuffer(labels_file.read(), dtype=np.int8)
    with gzip.open(download(MNIST_URL + image_name)) as images_file:
        _, _, rows, cols = struct.unpack(">IIII", images_file.read(16))
        images = np.frombuffer(images_file.read(), dtype=np.uint8)
    images = images.reshape(len(labels), rows, cols).reshape(len(labels), 1, 28, 28)
    return labels, images.astype(np.float32) / 255


def get_mnist():
    """MNIST as numpy arrays {'train_data', 'train_label', 'test_data', 'test_label'}, read
    from the four ``*-ubyte.gz`` files in the current folder: images (N, 1, 28, 28) float32
    in [0, 1], labels int8 (MXNet's types)."""
    train_label, train_data = _read_mnist_gz("train-labels-idx1-ubyte.gz",
                                             "train-images-idx3-ubyte.gz")
    test_label, test_data = _read_mnist_gz("t10k-labels-idx1-ubyte.gz",
                                           "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_data, "train_label": train_label,
            "test_data": test_data, "test_label": test_label}


def get_mnist_pkl():
    """Make sure ``data/mnist.pkl.gz`` is there (it is not read here; minimx never
    downloads it)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists(os.path.join("data", "mnist.pkl.gz")):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, val) MNISTIters over the idx files in ``data/``: flat unless ``input_shape``
    has three dimensions; the training one shuffled."""
    from ..io import MNISTIter
    get_mnist_ubyte()
    common = {"input_shape": input_shape, "batch_size": batch_size,
              "flat": len(input_shape) != 3, "num_parts": num_parts, "part_index": part_index}
    train = MNISTIter(image="data/train-images-idx3-ubyte",
                      label="data/train-labels-idx1-ubyte", shuffle=True, **common)
    val = MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte",
                    **common)
    return train, val


def get_zip_data(data_dir, url, data_origin_name):
    """``data_dir``, when ``data_origin_name`` (the zip) or its contents are there."""
    return _local(os.path.join(data_dir, data_origin_name), "get_zip_data", url)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """``data_dir/data_name`` when present (no download, no unpacking of a fetch)."""
    return _local(os.path.join(data_dir, data_name), "get_bz2_data", url)


def get_im2rec_path(home_env="MXNET_HOME"):
    """The im2rec tool: minimx's is ``python -m minimx.tools.im2rec``."""
    from ..tools import im2rec
    return im2rec.__file__


def list_gpus():
    """The GPU ids present (through CuPy); empty without one."""
    return list(range(num_gpus()))


def get_cuda_compute_capability(ctx):
    import cupy
    with cupy.cuda.Device(ctx.device_id) as device:
        major, minor = device.compute_capability[:-1], device.compute_capability[-1]
    return int(major) * 10 + int(minor)


def is_op_runnable():
    """Whether operators run here (always, on minimx's CPU path)."""
    return True


def is_aarch64_run():
    return platform.machine() == "aarch64"


def is_cd_run():
    return os.environ.get("CD_JOB", "0") == "1"


def has_tvm_ops():
    """minimx has no TVM-generated operators."""
    return False
