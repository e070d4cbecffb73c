"""Test data: random samples and arrays, datasets already on disk, devices.

Lesson: 10-data.  Mirrors the data helpers of ``python/mxnet/test_utils.py``.  minimx
never downloads: ``download`` and the dataset getters return files that are present and
otherwise raise an error naming the file and where it belongs.
"""
import os
import platform

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
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
                     f"fetch it from {source} and put it there")


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """The path ``url`` would be saved to, when that file is present (no download)."""
    fname = fname or url.split("/")[-1]
    path = os.path.join(dirname, fname) if dirname else fname
    if overwrite:
        raise MXNetError(f"download: minimx does not download ({url}); overwrite=True "
                         f"cannot be honoured")
    return _local(path, "download", url)


def download_model(model_name, dst_dir="./", meta_info=None):
    """(symbol file, params file) of a model already in ``dst_dir``."""
    prefix = os.path.join(dst_dir, model_name)
    return (_local(f"{prefix}-symbol.json", "download_model", "MXNet's model store"),
            _local(f"{prefix}-0000.params", "download_model", "MXNet's model store"))


def get_mnist_ubyte(path="data"):
    """The folder holding MNIST's four idx files."""
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        _local(os.path.join(path, name), "get_mnist_ubyte", "http://yann.lecun.com/exdb/mnist/")
    return path


def get_mnist(path="data"):
    """MNIST as numpy arrays: {'train_data', 'train_label', 'test_data', 'test_label'},
    images (N, 1, 28, 28) float32 in [0, 1], read from the idx files in ``path``."""
    folder = get_mnist_ubyte(path)

    def read(name, offset):
        with open(os.path.join(folder, name), "rb") as file:
            return np.frombuffer(file.read(), dtype=np.uint8, offset=offset)

    train = read("train-images-idx3-ubyte", 16).reshape(-1, 1, 28, 28) / 255.0
    test = read("t10k-images-idx3-ubyte", 16).reshape(-1, 1, 28, 28) / 255.0
    return {"train_data": train.astype(np.float32),
            "train_label": read("train-labels-idx1-ubyte", 8).astype(np.float32),
            "test_data": test.astype(np.float32),
            "test_label": read("t10k-labels-idx1-ubyte", 8).astype(np.float32)}


def get_mnist_pkl(path="data"):
    raise MXNetError("get_mnist_pkl: minimx never unpickles files; use get_mnist (idx files)")


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0, path="data"):
    """(train, val) NDArrayIters over MNIST in ``path``, images of ``input_shape``."""
    from ..io import NDArrayIter
    data = get_mnist(path)
    shape = (-1,) + tuple(input_shape)
    train = NDArrayIter(data["train_data"].reshape(shape), data["train_label"], batch_size,
                        shuffle=True)
    val = NDArrayIter(data["test_data"].reshape(shape), data["test_label"], batch_size)
    return train, val


def get_cifar10(path="data"):
    """The folder holding CIFAR-10's ``cifar/train.rec`` and ``cifar/test.rec``."""
    for name in ("train.rec", "test.rec"):
        _local(os.path.join(path, "cifar", name), "get_cifar10",
               "http://data.mxnet.io/mxnet/data/cifar10.zip")
    return path


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
