"""CSVIter and MNISTIter: batches from a CSV file, and from MNIST's idx files.

Lesson: 10-data. Both load the whole file into memory and cut batches from it. CSVIter
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
from ..base import FileFormatError, MXNetError
from .image_record_iter import epoch_schedule
from .io import CurrentBatchIter, DataBatch, DataDesc

__all__ = ["CSVIter", "MNISTIter"]


def load_csv(path, shape, what):
    if not path or not os.path.exists(path):
        raise MXNetError(f"CSVIter: {what} file {path!r} does not exist")
    rows = np.loadtxt(path, delimiter=",", dtype=np.float32, ndmin=2)
    size = int(np.prod(shape))
    if rows.shape[1] != size:
        raise MXNetError(f"CSVIter: {path!r} has {rows.shape[1]} values per row, but "
                         f"{what}_shape {tuple(shape)} needs {size}")
    return rows.reshape((rows.shape[0],) + tuple(shape))


class ArrayBatcher(CurrentBatchIter):
    """Batches of in-memory arrays, following an epoch schedule of positions."""

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
        return [DataDesc(self.names[0], (self.batch_size,) + self.arrays.shape[1:])]

    @property
    def provide_label(self):
        shape = self.label_array.shape[1:]
        shape = () if shape == (1,) else shape
        return [DataDesc(self.names[1], (self.batch_size,) + shape)]

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
        data = np.zeros((self.batch_size,) + self.arrays.shape[1:], np.float32)
        label = np.zeros((self.batch_size,) + self.label_array.shape[1:], np.float32)
        data[:len(positions)] = self.arrays[positions]
        label[:len(positions)] = self.label_array[positions]
        if self.label_array.shape[1:] == (1,):
            label = label[:, 0]
        self.current_batch = DataBatch([nd.array(data)], [nd.array(label)], pad=pad)
        return True


class CSVIter(ArrayBatcher):
    """Batches from ``data_csv`` (rows reshaped to ``data_shape``) and ``label_csv``.

    Parameters
    ----------
    data_csv, data_shape, batch_size : required
    label_csv : str, optional (labels are 0 without it)
    label_shape : tuple, default (1,)
    round_batch : bool, default True
    """

    def __init__(self, data_csv, data_shape, batch_size, label_csv=None, label_shape=(1,),
                 round_batch=True, dtype=None, prefetch_buffer=4, ctx="cpu",
                 data_name="data", label_name="softmax_label"):
        data = load_csv(data_csv, data_shape, "data")
        if label_csv and label_csv != "NULL":
            label = load_csv(label_csv, label_shape, "label")
        else:
            label = np.zeros((len(data),) + tuple(label_shape), np.float32)
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


class MNISTIter(ArrayBatcher):
    """Batches from MNIST idx files (``image``: idx3 ubyte, ``label``: idx1 ubyte, optionally
    gzipped); pixels scaled by 1/256, data (batch, 1, H, W) or flat (batch, H*W)."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte",
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, prefetch_buffer=4, ctx="cpu", dtype=None, input_shape=None):
        images = read_idx(image, 2051, "images").astype(np.float32) / 256.0
        labels = read_idx(label, 2049, "labels").astype(np.float32)
        if len(images) != len(labels):
            raise MXNetError(f"MNISTIter: {len(images)} images but {len(labels)} labels")
        images = images.reshape(len(images), -1) if flat else images[:, None]
        if shuffle:
            order = np.random.default_rng(seed).permutation(len(images))
            images, labels = images[order], labels[order]
        step = len(images) // num_parts
        part = slice(step * part_index, step * (part_index + 1))
        super().__init__(images[part], labels[part][:, None], batch_size,
                         ("data", "softmax_label"), round_batch=False, keep_last=False)
