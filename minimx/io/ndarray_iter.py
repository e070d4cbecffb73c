"""NDArrayIter: batches cut from arrays held in memory.

Lesson: 11-data. The iterator keeps a cursor into the examples; ``last_batch_handle``
decides what happens to an incomplete last batch: ``'pad'`` fills it from the start of
the data (``batch.pad`` says how many), ``'discard'`` drops it, and ``'roll_over'`` keeps
it and completes it with the first examples of the next epoch.
Mirrors python/mxnet/io/io.py (NDArrayIter) and python/mxnet/io/utils.py.
"""
from collections import OrderedDict

import numpy as np

from .. import ndarray as nd
from ..base import InvalidParameterError, MXNetError
from ..ndarray import NDArray
from .io import DataBatch, DataDesc, DataIter

__all__ = ["NDArrayIter"]

LAST_BATCH_HANDLES = ("pad", "discard", "roll_over")


def init_data(data, allow_empty, default_name):
    """Canonical form of data/label: a list of ``(name, NDArray)`` sorted by name."""
    if data is None:
        if not allow_empty:
            raise InvalidParameterError("NDArrayIter: data must not be None")
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not data and not allow_empty:
            raise InvalidParameterError("NDArrayIter: data must not be an empty list")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict((f"_{i}_{default_name}", d) for i, d in enumerate(data))
    if not isinstance(data, dict):
        raise TypeError("NDArrayIter: input must be an NDArray, a numpy.ndarray, a list of "
                        f"them or a dict of them, got {type(data).__name__}")
    converted = {}
    for name, value in data.items():
        if hasattr(value, "tocsr") and not isinstance(value, NDArray):      # scipy.sparse
            value = nd.sparse.csr_matrix(value)
        if not isinstance(value, NDArray):
            try:
                value = nd.array(value)
            except Exception as err:
                raise TypeError(f"NDArrayIter: invalid type {type(value).__name__} for "
                                f"{name!r}; expected an NDArray or numpy.ndarray") from err
        converted[name] = value
    return sorted(converted.items())


def take_by_index(data, idx):
    """The ``(name, array)`` list with every array reordered by ``idx``."""
    return [(name, nd.sparse.csr_matrix(value.asscipy()[idx], ctx=value.context)
             if value.stype == "csr" else nd.array(value.asnumpy()[idx], value.context))
            for name, value in data]


class NDArrayIter(DataIter):
    """Iterate over NDArrays or numpy arrays in batches.

    Parameters
    ----------
    data : array, list of arrays or dict of name -> array
    label : array, list of arrays or dict of name -> array, optional
    batch_size : int
    shuffle : bool
        Shuffle the examples (with numpy's global generator) at every reset.
    last_batch_handle : {'pad', 'discard', 'roll_over'}
    data_name, label_name : str
        Names used when data/label are not dicts.
    layout : str
        Where the batch axis ``N`` is.

    Examples
    --------
    >>> it = NDArrayIter(np.arange(10).reshape(5, 2), np.arange(5), batch_size=2)
    >>> [batch.pad for batch in it]
    [0, 0, 1]
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW"):
        super().__init__(batch_size)
        if last_batch_handle not in LAST_BATCH_HANDLES:
            raise InvalidParameterError(f"NDArrayIter: last_batch_handle must be one of "
                                        f"{LAST_BATCH_HANDLES}, got {last_batch_handle!r}")
        self.data = init_data(data, allow_empty=False, default_name=data_name)
        self.label = init_data(label, allow_empty=True, default_name=label_name)
        if last_batch_handle != "discard" and any(value.stype == "csr" for _, value in
                                                  self.data + self.label):
            raise NotImplementedError("NDArrayIter: CSR data needs last_batch_handle="
                                      "'discard' (a padded CSR batch is not supported), as "
                                      "MXNet's")
        self.layout = layout
        self.idx = np.arange(self.data[0][1].shape[0])
        self.num_data = self.idx.shape[0]
        for name, value in self.data + self.label:
            if value.shape[self.batch_axis] < self.num_data:
                raise InvalidParameterError(
                    f"NDArrayIter: {name!r} has {value.shape[self.batch_axis]} examples, "
                    f"fewer than the {self.num_data} of {self.data[0][0]!r}")
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.cursor = -batch_size
        self._cache_data = None
        self._cache_label = None
        self.reset()
        self.data_list = [v for _, v in self.data] + [v for _, v in self.label]
        self.num_source = len(self.data_list)

    @property
    def batch_axis(self):
        return self.layout.find("N")

    def _describe(self, sources):
        axis = self.batch_axis
        return [DataDesc(name, value.shape[:axis] + (self.batch_size,) + value.shape[axis + 1:],
                         value.dtype, layout=self.layout) for name, value in sources]

    @property
    def provide_data(self):
        """DataDesc of each data array, with the batch axis set to batch_size."""
        return self._describe(self.data)

    @property
    def provide_label(self):
        """DataDesc of each label array, with the batch axis set to batch_size."""
        return self._describe(self.label)

    def hard_reset(self):
        """Start over, forgetting any examples kept for roll_over."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        if self.shuffle:
            self._shuffle_data()
        rolled = self.num_data - self.batch_size < self.cursor < self.num_data
        if self.last_batch_handle == "roll_over" and rolled:
            # the examples left over from the last epoch start the first batch of this one
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self.batch_axis] != self.batch_size:
            # an incomplete last batch (roll_over / discard): keep it for the next epoch
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _slice(self, sources, start=0, end=None):
        end = self.num_data if end is None else end
        return [value.slice_axis(axis=self.batch_axis, begin=start, end=end)
                for _, value in sources]

    def _concat(self, first, second):
        if not first or not second:
            return first if first else second
        return [nd.concat(a, b, dim=self.batch_axis) for a, b in zip(first, second)]

    def _padding(self, sources, pad):
        """``pad`` examples taken from the start, cycling through the data if needed."""
        if pad <= self.num_data:
            return self._slice(sources, end=pad)
        whole = self._slice(sources)
        reps = [[pad // self.num_data] + [1] * (len(x.shape) - 1) for x in whole]
        tiled = [nd.tile(x, reps=tuple(r)) for x, r in zip(whole, reps)]
        if pad % self.num_data:
            tiled = self._concat(tiled, self._slice(sources, end=pad % self.num_data))
        return tiled

    def _batchify(self, sources):
        if self.cursor >= self.num_data:
            raise MXNetError("NDArrayIter: the epoch is over; call reset() first")
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            cache = self._cache_data if self._cache_data is not None else self._cache_label
            rest = self._slice(sources, end=self.cursor + self.batch_size)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cache, rest)
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            return self._concat(self._slice(sources, start=self.cursor),
                                self._padding(sources, pad))
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._slice(sources, self.cursor, end)

    def getdata(self):
        return self._batchify(self.data)

    def getlabel(self):
        return self._batchify(self.label)

    def getpad(self):
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        self.data = take_by_index(self.data, self.idx)
        self.label = take_by_index(self.label, self.idx)
