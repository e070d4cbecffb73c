"""CSVIter and MNISTIter: batches from a CSV file, and from MNIST's idx files.

Lesson: 11-data. Both load the whole file into memory and cut batches from it. CSVIter
completes its last batch from the start of the data (``round_batch``) and, like MXNet,
begins the next epoch after the examples it borrowed; MNISTIter drops an incomplete last
batch and scales pixels by 1/256, as MXNet's does.
Mirrors src/io/iter_csv.cc and src/io/iter_mnist.cc.
"""
import gzip
import os
import struct

import numpy as np

from .. import ndarray as nd
from ..base import FileFormatError, InvalidParameterError, MXNetError
from .cxx_shuffle import mt19937_shuffle_order
from .image_record_iter import epoch_schedule
from .io import CurrentBatchIter, DataBatch, DataDesc

__all__ = ["CSVIter", "MNISTIter"]


CSV_DTYPES = ("float32", "int32", "int64")


def load_csv(path, shape, what, dtype="float32"):
    """The rows of ``path`` parsed as ``dtype`` (integers are parsed exactly, not through
    float32), each reshaped to ``shape``."""
    if not path or not os.path.exists(path):
        raise MXNetError(f"CSVIter: {what} file {path!r} does not exist")
    rows = np.loadtxt(path, delimiter=",", dtype=np.dtype(dtype), ndmin=2)
    size = int(np.prod(shape))
    if rows.shape[1] != size:
        raise MXNetError(f"CSVIter: {path!r} has {rows.shape[1]} values per row, but "
                         f"{what}_shape {tuple(shape)} needs {size}")
    return rows.reshape((rows.shape[0],) + tuple(shape))


class ArrayBatcher(CurrentBatchIter):
    """Batches of in-memory arrays, following an epoch schedule of positions.

    ``getindex()`` is the examples' positions in the file (CSVIter) or zeros (MNISTIter's
    ``index_is_position = False``), as MXNet's."""

    index_is_position = True

    def __init__(self, data, label, batch_size, names, round_batch=True, keep_last=True):
        super().__init__(batch_size)
        self.arrays, self.label_array = data, label
        self.names = names
        self.round_batch, self.keep_last = round_batch, keep_last
        self.start = 0
        self.current_batch = None
        self.batches = []
        self.reset_epoch(0)

    @property
    def provide_data(self):
        return [DataDesc(self.names[0], (self.batch_size,) + self.arrays.shape[1:],
                         self.arrays.dtype)]

    @property
    def provide_label(self):
        shape = self.label_array.shape[1:]
        shape = () if shape == (1,) else shape
        return [DataDesc(self.names[1], (self.batch_size,) + shape, self.label_array.dtype)]

    def order(self):
        return np.arange(len(self.arrays))

    def reset_epoch(self, start):
        batches, pads = epoch_schedule(self.order(), start, self.batch_size, self.round_batch)
        if not self.keep_last and pads and pads[-1]:
            batches, pads = batches[:-1], pads[:-1]
        self.batches = list(zip(batches, pads))
        self.cursor = 0

    def reset(self):
        carry = self.round_batch and self.cursor == len(self.batches) and self.batches
        self.reset_epoch(self.batches[-1][1] if carry else 0)

    def iter_next(self):
        if self.cursor == len(self.batches):
            return False
        positions, pad = self.batches[self.cursor]
        self.cursor += 1
        data = np.zeros((self.batch_size,) + self.arrays.shape[1:], self.arrays.dtype)
        label = np.zeros((self.batch_size,) + self.label_array.shape[1:],
                         self.label_array.dtype)
        data[:len(positions)] = self.arrays[positions]
        label[:len(positions)] = self.label_array[positions]
        if self.label_array.shape[1:] == (1,):
            label = label[:, 0]
        index = np.zeros(self.batch_size, np.uint64)
        if self.index_is_position:
            index[:] = positions
        self.current_batch = DataBatch([nd.array(data, dtype=data.dtype)], [nd.array(label, dtype=label.dtype)],
                                       pad=pad, index=index)
        return True

    # MXNet's C++ iterators hand out one data and one label array: the getters return them
    # themselves, not lists (DataBatch.data/label stay lists).
    def getdata(self):
        return self.current_batch.data[0]

    def getlabel(self):
        return self.current_batch.label[0]


class CSVIter(ArrayBatcher):
    """Batches from ``data_csv`` (rows reshaped to ``data_shape``) and ``label_csv``.

    Parameters
    ----------
    data_csv, data_shape, batch_size : required
    label_csv : str, optional (labels are 0 without it)
    label_shape : tuple, default (1,)
    round_batch : bool, default True
    dtype : 'float32' (default), 'int32' or 'int64', of data and labels alike
    """

    def __init__(self, data_csv, data_shape, batch_size, label_csv=None, label_shape=(1,),
                 round_batch=True, dtype=None, prefetch_buffer=4, ctx="cpu",
                 data_name="data", label_name="softmax_label"):
        dtype = "float32" if dtype is None else str(np.dtype(dtype))
        if dtype not in CSV_DTYPES:
            raise InvalidParameterError(f"CSVIter: dtype {dtype} is not supported; expected "
                                        f"one of {CSV_DTYPES}")
        data = load_csv(data_csv, data_shape, "data", dtype)
        if label_csv and label_csv != "NULL":
            label = load_csv(label_csv, label_shape, "label", dtype)
        else:
            label = np.zeros((len(data),) + tuple(label_shape), dtype)
        if len(label) != len(data):
            raise MXNetError(f"CSVIter: {len(data)} data rows but {len(label)} label rows")
        super().__init__(data, label, batch_size, (data_name, label_name), round_batch)


def read_idx(path, magic, what):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            raw = handle.read()
    except OSError as err:
        raise MXNetError(f"MNISTIter: cannot read {what} file {path!r}: {err}") from err
    dims = magic - 2048
    if len(raw) < 4 + 4 * dims or struct.unpack(">I", raw[:4])[0] != magic:
        raise FileFormatError(f"MNISTIter: {path!r} is not an idx file of {what} "
                              f"(expected magic {magic})")
    shape = struct.unpack(f">{dims}I", raw[4:4 + 4 * dims])
    body = np.frombuffer(raw, np.uint8, offset=4 + 4 * dims)
    if body.size != int(np.prod(shape)):
        raise FileFormatError(f"MNISTIter: {path!r} announces shape {shape} but holds "
                              f"{body.size} bytes")
    return body.reshape(shape)


OUTPUT_DTYPES = (None, "bfloat16", "float16", "float32", "float64", "int32", "int64", "int8",
                 "uint8")


def check_choice(name, value, choices):
    if value not in choices:
        raise InvalidParameterError(f"MNISTIter: {name}={value!r} is not one of {choices}")


def part_bounds(count, num_parts, part_index):
    """[start, end) of part ``part_index`` of ``num_parts`` over ``count`` examples, rounded
    down as MXNet's C++ does (so parts may differ in size by one)."""
    if part_index < 0 or num_parts <= 0 or part_index >= num_parts:
        raise InvalidParameterError(f"MNISTIter: part_index={part_index} must be in "
                                    f"[0, num_parts={num_parts}) and num_parts > 0")
    return (int(count / num_parts * part_index), int(count / num_parts * (part_index + 1)))


class MNISTIter(ArrayBatcher):
    """Batches from MNIST idx files (``image``: idx3 ubyte, ``label``: idx1 ubyte, optionally
    gzipped); pixels scaled by 1/256, data (batch, 1, H, W) or flat (batch, H*W).

    As MXNet's: the file is cut into ``num_parts`` parts first and only part ``part_index``
    is kept; that part is then shuffled once (``shuffle``, ``seed``: the order C++'s
    std::shuffle with std::mt19937(seed) gives, see cxx_shuffle.py) and keeps that order in
    every epoch; an incomplete last batch is dropped.  ``data_name``/``label_name`` name the
    outputs; ``silent``, ``prefetch_buffer``, ``round_batch`` and any other keyword (MXNet's
    own ``data_shape``, ``input_shape``, ...) are accepted and ignored, as MXNet's C++
    iterator ignores unknown parameters.  ``dtype`` casts the data (MXNet 1.9.1 then yields no
    batch at all; minimx yields the cast batches).
    """

    index_is_position = False

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte",
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, prefetch_buffer=4, ctx="gpu", dtype=None, data_name="data",
                 label_name="softmax_label", **ignored):
        if int(batch_size) < 1:
            raise InvalidParameterError(f"MNISTIter: batch_size={batch_size}, expected >= 1")
        check_choice("ctx", ctx, ("cpu", "gpu"))
        check_choice("dtype", dtype, OUTPUT_DTYPES)
        images = read_idx(image, 2051, "images")
        labels = read_idx(label, 2049, "labels")
        if len(images) != len(labels):
            raise MXNetError(f"MNISTIter: {len(images)} images but {len(labels)} labels")
        begin, end = part_bounds(len(images), int(num_parts), int(part_index))
        images, labels = images[begin:end], labels[begin:end]
        if shuffle:
            order = mt19937_shuffle_order(len(images), int(seed))
            images, labels = images[order], labels[order]
        images = images.astype(np.float32) / 256.0
        images = images.reshape(len(images), -1) if flat else images[:, None]
        if dtype is not None:
            images = images.astype(np.dtype("float32" if dtype == "bfloat16" else dtype))
        super().__init__(images, labels.astype(np.float32)[:, None], int(batch_size),
                         (data_name, label_name), round_batch=False, keep_last=False)
