"""Vision datasets: MNIST, FashionMNIST, CIFAR10, CIFAR100 from local files, image folders, .rec files.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/data/vision/datasets.py``.
minimx never downloads: MNIST-style datasets read the standard idx files
(gzipped or not) and CIFAR10/100 their binary batches (or the ``cifar-10-binary.tar.gz``
/ ``cifar-100-binary.tar.gz`` archive, unpacked safely by ``minimx.archive``) from ``root``; a missing file raises an error naming the file, where
it belongs and where it can be fetched.  Each sample is ``(image, label)`` with
the image an HWC uint8 NDArray.
"""
import gzip
import os
import struct
import warnings

import numpy as np

from .... import image, recordio
from ....archive import extract_tar
from .... import ndarray as nd
from ....numpy.mode import in_mode
from ....util import is_np_array
from ..dataset import Dataset, RecordFileDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset", "ImageFolderDataset"]


def _data_dir():
    """MXNet's data folder: ``$MXNET_HOME`` or ``~/.mxnet``."""
    return os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet"))


class _LocalDataset(Dataset):
    """Data and labels read once from files under ``root``, with an optional transform."""

    source = ""         # where the files can be fetched, for the error message

    def __init__(self, root, transform):
        self._root = os.path.expanduser(root)
        self._transform = transform
        self._data = None
        self._label = None
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _find(self, *names):
        """The first of ``names`` present under ``root``, or a clear error."""
        for name in names:
            path = os.path.join(self._root, name)
            if os.path.exists(path):
                return path
        raise FileNotFoundError(
            f"{type(self).__name__}: {names[0]} was not found in {os.path.abspath(self._root)}. "
            f"minimx does not download datasets; fetch the file (from {self.source}) and put "
            f"it in that folder, or pass root= the folder that holds it.")


def _open_maybe_gzip(path):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


class MNIST(_LocalDataset):
    """MNIST handwritten digits: 28x28x1 uint8 images, int32 labels.

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/mnist``
        Holds ``train-images-idx3-ubyte(.gz)``, ``train-labels-idx1-ubyte(.gz)``,
        ``t10k-images-idx3-ubyte(.gz)`` and ``t10k-labels-idx1-ubyte(.gz)``.
    train : bool, default True
        The training set, or else the test set.
    transform : callable, optional
        ``transform(data, label)`` returns the sample.
    """

    source = "http://yann.lecun.com/exdb/mnist/"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "mnist"), train=True,
                 transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        prefix = "train" if self._train else "t10k"
        label_file = self._find(f"{prefix}-labels-idx1-ubyte.gz", f"{prefix}-labels-idx1-ubyte")
        data_file = self._find(f"{prefix}-images-idx3-ubyte.gz", f"{prefix}-images-idx3-ubyte")
        with _open_maybe_gzip(label_file) as handle:
            struct.unpack(">II", handle.read(8))
            label = np.frombuffer(handle.read(), dtype=np.uint8).astype(np.int32)
        with _open_maybe_gzip(data_file) as handle:
            struct.unpack(">IIII", handle.read(16))
            data = np.frombuffer(handle.read(), dtype=np.uint8).reshape(len(label), 28, 28, 1)
        self._data, self._label = _arrays_of_mode(data, label)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST, a drop-in replacement of MNIST (same files and layout)."""

    source = "https://github.com/zalandoresearch/fashion-mnist"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "fashion-mnist"), train=True,
                 transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_LocalDataset):
    """CIFAR-10: 32x32x3 uint8 images in 10 classes, int32 labels.

    ``root`` holds ``data_batch_1.bin`` ... ``data_batch_5.bin`` and
    ``test_batch.bin`` (directly or in ``cifar-10-batches-bin/``), or the archive
    ``cifar-10-binary.tar.gz``, which is then unpacked there.
    """

    source = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
    _train_files = [f"data_batch_{i}.bin" for i in range(1, 6)]
    _test_files = ["test_batch.bin"]
    _archive = "cifar-10-binary.tar.gz"
    _folder = "cifar-10-batches-bin"

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar10"), train=True,
                 transform=None):
        self._train = train
        super().__init__(root, transform)

    _label_bytes = 1     # each record: its label byte(s), then 3x32x32 pixels (CHW)
    _label_column = 0

    def _read_batch(self, filename):
        width = self._label_bytes
        with open(filename, "rb") as handle:
            data = np.frombuffer(handle.read(), dtype=np.uint8).reshape(-1, 3072 + width)
        return (data[:, width:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1),
                data[:, self._label_column].astype(np.int32))

    def _batch_path(self, name):
        for folder in (self._root, os.path.join(self._root, self._folder)):
            if os.path.exists(os.path.join(folder, name)):
                return os.path.join(folder, name)
        return None

    def _get_data(self):
        names = self._train_files if self._train else self._test_files
        if any(self._batch_path(name) is None for name in names):
            self._unpack_archive(names[0])
        data, label = zip(*(self._read_batch(self._batch_path(name)) for name in names))
        data, label = np.concatenate(data), np.concatenate(label)
        self._data, self._label = _arrays_of_mode(data, label)

    def _unpack_archive(self, first_missing):
        archive = os.path.join(self._root, self._archive)
        if not os.path.exists(archive):
            self._find(first_missing, self._archive)
        extract_tar(archive, self._root)


class CIFAR100(CIFAR10):
    """CIFAR-100: 32x32x3 uint8 images, int32 labels of 20 coarse or 100 fine classes.

    ``root`` holds ``train.bin`` and ``test.bin`` (directly or in ``cifar-100-binary/``), or
    the archive ``cifar-100-binary.tar.gz``, which is then unpacked there.  Each record has
    two label bytes (coarse, fine); ``fine_label=True`` picks the fine one.
    """

    source = "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz"
    _train_files = ["train.bin"]
    _test_files = ["test.bin"]
    _archive = "cifar-100-binary.tar.gz"
    _folder = "cifar-100-binary"
    _label_bytes = 2

    def __init__(self, root=os.path.join(_data_dir(), "datasets", "cifar100"), fine_label=False,
                 train=True, transform=None):
        self._label_column = int(bool(fine_label))
        super().__init__(root, train, transform)


class ImageRecordDataset(RecordFileDataset):
    """The images of a RecordIO file (as made by im2rec): samples ``(image, label)``.

    Parameters
    ----------
    filename : str
        The ``.rec`` file (its ``.idx`` beside it).
    flag : {0, 1}, default 1
        0: decode to grey (1 channel); 1: to RGB (3 channels).
    transform : callable, optional
        ``transform(data, label)`` returns the sample.
    """

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, img = recordio.unpack(super().__getitem__(idx))
        data = image.imdecode(img, self._flag)
        if self._transform is not None:
            return self._transform(data, header.label)
        return data, header.label


class ImageFolderDataset(Dataset):
    """Images stored one folder per class: ``root/car/0001.jpg``, ``root/bus/023.png``.

    Labels number the class folders in sorted order; ``synsets[i]`` is the name
    of label ``i`` and ``items`` lists ``(filename, label)``.

    Parameters
    ----------
    root : str
    flag : {0, 1}, default 1
        0: load grey (1 channel); 1: RGB (3 channels).
    transform : callable, optional
        ``transform(data, label)`` returns the sample.
    """

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        if not os.path.isdir(self._root):
            raise FileNotFoundError(f"ImageFolderDataset: {self._root} is not a folder")
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(f"Ignoring {filename} of type {ext}. Only support "
                                  f"{', '.join(self._exts)}", stacklevel=3)
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)


def _arrays_of_mode(data, label):
    """The images as an NDArray and the labels as numpy, or both as ``np.ndarray`` in
    NumPy mode (``npx.set_np()``), as MXNet's datasets keep them."""
    if is_np_array():
        return in_mode(nd.array(data, dtype=data.dtype)), in_mode(nd.array(label,
                                                                            dtype=label.dtype))
    return nd.array(data, dtype=data.dtype), label
