"""ImageIter: a Python image iterator over a ``.rec`` file or an image list, with augmenters.

Lesson: 11-data. Unlike ImageRecordIter it runs in the calling thread and its augmentation
is a plain list of ``Augmenter`` objects, so students can write and insert their own.
For the list ``CreateAugmenter`` builds for classification, ``fill_batch`` runs the same
augmentation on the whole batch at once (batch_augment.py): the same pixels, faster.
Mirrors python/mxnet/image/image.py (ImageIter).
"""
import os
import random

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..io import DataBatch, DataDesc, DataIter
from ..recordio import MXIndexedRecordIO, MXRecordIO, unpack
from .augmenters import CreateAugmenter
from .batch_augment import batch_augmenter, decode_runs
from .image import as_numpy, imdecode

__all__ = ["ImageIter"]


def read_imglist(path):
    """{index: (labels, path)} from a .lst file, in file order."""
    entries = {}
    with open(path) as handle:
        for line in handle:
            fields = [f.strip() for f in line.strip().split("\t")]
            if len(fields) >= 3:
                entries[int(fields[0])] = (np.array(fields[1:-1], np.float32), fields[-1])
    return entries


class ImageIter(DataIter):
    """Iterate over images from ``path_imgrec`` (optionally indexed), ``path_imglist`` or
    ``imglist`` (``[[label(s), path], ...]`` relative to ``path_root``).

    Parameters
    ----------
    batch_size : int
    data_shape : tuple (C, H, W)
    label_width : int
    shuffle : bool
    part_index, num_parts : int
    aug_list : list of Augmenter, optional (else built by CreateAugmenter from kwargs)
    last_batch_handle : {'pad', 'discard', 'roll_over'}
        What the last, short batch of an epoch does, as in MXNet: ``pad`` fills it up with
        images from the start again (``batch.pad`` says how many) and ends the epoch;
        ``discard`` drops it; ``roll_over`` keeps it and completes it at the start of the
        next epoch.
    """

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=None, path_imgidx=None, shuffle=False,
                 part_index=0, num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="softmax_label", dtype="float32", last_batch_handle="pad",
                 **kwargs):
        super().__init__(batch_size)
        if not (path_imgrec or path_imglist or imglist is not None):
            raise MXNetError("ImageIter: give path_imgrec, path_imglist or imglist")
        if len(data_shape) != 3 or data_shape[0] not in (1, 3):
            raise MXNetError(f"ImageIter: data_shape must be (1 or 3, H, W), got {data_shape}")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise MXNetError(f"ImageIter: last_batch_handle must be 'pad', 'discard' or "
                             f"'roll_over', got {last_batch_handle!r}")
        self.data_shape, self.label_width = tuple(data_shape), label_width
        self.path_root = path_root or ""
        self.shuffle, self.dtype = shuffle, dtype
        self.last_batch_handle = last_batch_handle
        self.data_name, self.label_name = data_name, label_name
        self.imgrec, self.imglist = self.open_source(path_imgrec, path_imgidx, path_imglist,
                                                     imglist)
        self.seq = self.sequence(part_index, num_parts)
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self.allow_read = True       # False once a padded last batch ended the epoch
        self.cached = None           # roll_over: (data, label, count) of a short last batch
        self.reset()

    def open_source(self, path_imgrec, path_imgidx, path_imglist, imglist):
        if path_imgrec:
            if path_imgidx:
                return MXIndexedRecordIO(path_imgidx, path_imgrec, "r"), None
            return MXRecordIO(path_imgrec, "r"), None
        if path_imglist:
            return None, read_imglist(path_imglist)
        entries = {}
        for index, (label, path) in enumerate(imglist, 1):
            entries[index] = (np.array(label, np.float32).reshape(-1), path)
        return None, entries

    def sequence(self, part_index, num_parts):
        if self.imglist is not None:
            keys = list(self.imglist)
        elif isinstance(self.imgrec, MXIndexedRecordIO):
            keys = list(self.imgrec.keys)
        else:
            return None
        step = len(keys) // num_parts
        return keys[step * part_index:step * (part_index + 1)]

    @property
    def provide_data(self):
        return [DataDesc(self.data_name, (self.batch_size,) + self.data_shape)]

    @property
    def provide_label(self):
        shape = (self.batch_size,) if self.label_width == 1 else (self.batch_size,
                                                                   self.label_width)
        return [DataDesc(self.label_name, shape)]

    def reset(self):
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self.cached is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self.allow_read = True

    def next_sample(self):
        """(label, encoded image bytes) of the next image; StopIteration at the end (after
        which, unless discarding, reading starts again from the first image)."""
        if not self.allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = unpack(record)
            return header.label, img
        if self.cur >= len(self.seq):
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        key = self.seq[self.cur]
        self.cur += 1
        return self.read_key(key)

    def read_key(self, key):
        """(label, encoded image bytes) of the sample ``key`` of the index or image list
        (safe to call from several threads)."""
        if self.imgrec is not None:
            header, img = unpack(self.imgrec.read_idx(key))
            return header.label, img
        label, path = self.imglist[key]
        with open(os.path.join(self.path_root, path), "rb") as handle:
            return label, handle.read()

    def augmentation_transform(self, data):
        for aug in self.auglist:
            data = aug(data)
        return data

    # -- batches -------------------------------------------------------------------------
    def empty_batch(self):
        """Zeroed (data, label) arrays for one batch."""
        c, h, w = self.data_shape
        return (np.zeros((self.batch_size, c, h, w), self.dtype),
                np.zeros((self.batch_size, self.label_width), np.float32))

    def load_sample(self, raw_label, buf):
        """One sample as (HWC numpy image of data_shape, label row)."""
        img = as_numpy(self.augmentation_transform(imdecode(buf, flag=self.decode_flag())))
        self.check_image(img)
        return img, self.label_row(raw_label)

    def decode_flag(self):
        return 1 if self.data_shape[0] == 3 else 0

    def label_row(self, raw_label):
        label = np.asarray(raw_label, np.float32).reshape(-1)
        if label.size != self.label_width:
            raise MXNetError(f"{type(self).__name__}: an image's label has {label.size} "
                             f"value(s) but label_width is {self.label_width}")
        return label

    def check_image(self, img):
        h, w = self.data_shape[1:]
        if img.shape[:2] != (h, w):
            raise MXNetError(f"{type(self).__name__}: augmented image is {img.shape[:2]}, "
                             f"expected {(h, w)}; add a crop or resize augmenter")

    def store(self, data, label, position, img, row):
        c, h, w = self.data_shape
        data[position] = img.reshape(h, w, c).transpose(2, 0, 1)
        label[position] = row

    def fill(self, data, label, start):
        """Read samples into the batch from ``start``; returns how many it now holds."""
        fast = self.batch_augmenter()
        if fast is not None:
            return self.fill_batch(fast, data, label, start)
        count = start
        while count < self.batch_size:
            try:
                raw_label, buf = self.next_sample()
            except StopIteration:
                break
            self.store(data, label, count, *self.load_sample(raw_label, buf))
            count += 1
        return count

    def batch_augmenter(self):
        """The batch fast path for this iterator's augmenters (see batch_augment.py), or
        None: for other augmenter lists, and for subclasses that change how a sample loads."""
        for name in ("load_sample", "augmentation_transform", "check_image", "store"):
            if getattr(type(self), name) is not getattr(ImageIter, name):
                return None
        # built once for this list of augmenters (and their mean and std): a list or an
        # attribute replaced between batches builds it anew
        key = tuple((aug, getattr(aug, "mean", None), getattr(aug, "std", None))
                    for aug in self.auglist)
        cached = getattr(self, "_batch_augmenter", None)
        if cached is None or len(cached[0]) != len(key) or any(
                a is not b for old, new in zip(cached[0], key) for a, b in zip(old, new)):
            cached = self._batch_augmenter = (key, batch_augmenter(self.auglist,
                                                                   self.data_shape))
        return cached[1]

    def fill_batch(self, fast, data, label, start):
        """``fill`` with the augmenters run on runs of images at once: the samples read,
        decoded by a few threads, each image's random choices drawn in turn (as ``fill``
        would: a file that does not decode raises after the draws of those before it,
        though the samples after it have been read), each run augmented as one."""
        samples = []
        while start + len(samples) < self.batch_size:
            try:
                samples.append(self.next_sample())
            except StopIteration:
                break
        runs = decode_runs([buf for _, buf in samples], self.decode_flag())
        labels = iter([raw_label for raw_label, _ in samples])
        row = start
        for images in runs:
            draws = []
            for img in images:
                draws.append(fast.draw(img))
                label[row + len(draws) - 1] = self.label_row(next(labels))
            if draws:
                data[row:row + len(draws)] = fast.apply(draws)
            row += len(draws)
        return row

    def make_batch(self, data, label, pad):
        if self.label_width == 1 and label.ndim == 2:
            label = label[:, 0]
        return DataBatch([nd.array(data, dtype=self.dtype)], [nd.array(label)], pad=pad)

    def next(self):
        if self.cached is not None:
            data, label, count = self.cached
        else:
            data, label = self.empty_batch()
            count = self.fill(data, label, 0)
            if count == 0:
                raise StopIteration
        pad = self.batch_size - count
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self.cached is None:
                self.cached = (data, label, count)
                raise StopIteration
            self.fill(data, label, count)          # from the first images again
            if self.last_batch_handle == "pad":
                self.allow_read = False
            self.cached = None
        return self.make_batch(data, label, pad)
