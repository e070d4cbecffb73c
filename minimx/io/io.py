"""Data iterators: the batch record (DataBatch), its description (DataDesc), the DataIter base.

Lesson: 11-data. Every training loop reads a ``DataIter``: each ``next()`` returns one
``DataBatch``, and ``StopIteration`` marks the end of an epoch (``reset()`` starts the next).
``ResizeIter`` stretches or cuts an epoch to a fixed number of batches.
Mirrors python/mxnet/io/io.py (DataDesc, DataBatch, DataIter, ResizeIter).
"""
from collections import namedtuple

import numpy as np

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name, shape, dtype and layout of one input (data or label) of a batch.

    A ``DataDesc`` is a ``(name, shape)`` tuple, so code written for plain tuples keeps
    working; ``dtype`` and ``layout`` ride along as attributes.

    Examples
    --------
    >>> DataDesc("data", (2, 3)).layout
    'NCHW'
    """

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        desc = super().__new__(cls, name, shape)
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self):
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout):
        """The axis of the batch (``N``) in ``layout``; 0 when layout is None, -1 if absent."""
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDesc list from ``[(name, shape)]`` and optionally ``[(name, dtype)]``."""
        if types is None:
            return [DataDesc(name, shape) for name, shape in shapes]
        type_of = dict(types)
        return [DataDesc(name, shape, type_of[name]) for name, shape in shapes]


class DataBatch:
    """One batch: lists of data and label arrays, plus padding, indices and a bucket key.

    Parameters
    ----------
    data, label : list of NDArray
    pad : int, optional
        How many examples at the end of the batch are padding (ignored by predict).
    index : numpy.ndarray, optional
        Indices of the examples in the batch.
    bucket_key : optional
        The bucket this batch belongs to (BucketingModule).
    provide_data, provide_label : list of DataDesc, optional
    """

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise TypeError(f"DataBatch: data must be a list of NDArrays, got {type(data)}")
        if label is not None and not isinstance(label, (list, tuple)):
            raise TypeError(f"DataBatch: label must be a list of NDArrays, got {type(label)}")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [d.shape for d in self.label] if self.label else None
        return f"{type(self).__name__}: data shapes: {data_shapes} label shapes: {label_shapes}"


class DataIter:
    """Base class of every data iterator.

    A subclass either overrides ``next()`` (and ``reset()``) directly, or implements
    ``iter_next()`` plus ``getdata``/``getlabel``/``getpad``/``getindex`` and inherits
    ``next()``, which assembles a ``DataBatch`` from them.

    Parameters
    ----------
    batch_size : int, optional
    """

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def reset(self):
        """Go back to the first batch."""

    def next(self):
        """The next DataBatch; raises ``StopIteration`` at the end of the epoch."""
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                         index=self.getindex())

    def iter_next(self):
        """Move to the next batch; return whether there was one."""

    def getdata(self):
        """The data arrays of the current batch."""

    def getlabel(self):
        """The label arrays of the current batch."""

    def getindex(self):
        """The example indices of the current batch (None when unknown)."""
        return None

    def getpad(self):
        """How many padding examples end the current batch."""


class CurrentBatchIter(DataIter):
    """A DataIter whose ``iter_next()`` stores the whole DataBatch in ``current_batch``.

    ``next()`` returns that batch as built (keeping its ``bucket_key`` and ``provide_*``),
    and the getters read their fields from it.
    """

    current_batch = None

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(CurrentBatchIter):
    """Make an epoch of ``data_iter`` exactly ``size`` batches long.

    When the inner iterator runs out early it is reset and continues; when it has more,
    the rest waits for the next epoch (unless ``reset_internal``).

    Parameters
    ----------
    data_iter : DataIter
    size : int
        Batches per epoch.
    reset_internal : bool
        Whether ``reset()`` also resets ``data_iter``.
    """

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True

    # like MXNet's ResizeIter, assemble a fresh DataBatch from the getters
    next = DataIter.next
