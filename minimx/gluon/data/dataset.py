"""Datasets: anything with ``len()`` and ``[i]``, plus lazy transforms and views.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/data/dataset.py``.  A
Dataset hands out one sample at a time; ``transform`` / ``transform_first``
wrap it so each sample is transformed when read (or all at once with
``lazy=False``), and ``filter`` / ``shard`` / ``take`` / ``sample`` return
views that pick some of its indices.  ``RecordFileDataset`` reads the raw
records of a RecordIO ``.rec`` file through its ``.idx`` index.
"""
import os

from ... import ndarray as nd
from ... import recordio
from ...base import InvalidParameterError

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """The interface of every dataset: override ``__getitem__`` and ``__len__``.

    An NDArray, a numpy array or a list can be used as a dataset directly.
    """

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]

    def filter(self, fn):
        """A view of the samples for which ``fn(sample)`` is true (decided now, once)."""
        from .sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Shard ``index`` of ``num_shards`` contiguous shards (the first ones one longer).

        Examples
        --------
        >>> list(mx.gluon.data.SimpleDataset(list(range(5))).shard(2, 1))
        [3, 4]
        """
        if num_shards <= 0:
            raise InvalidParameterError("Number of shards must be greater than 0")
        if not 0 <= index < num_shards:
            raise InvalidParameterError(f"Shard index of out bound: {index} out of {num_shards}")
        length, rest = divmod(len(self), num_shards)
        start = length * index + min(index, rest)
        end = start + length + (index < rest)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(end - start, start))

    def take(self, count):
        """A view of the first ``count`` samples (all of them when None or too many)."""
        if count is None or count > len(self):
            count = len(self)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """A view of the samples whose indices ``sampler`` gives."""
        from .sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise TypeError(f"Invalid sampler type: {type(sampler)}. Expected "
                            f"gluon.data.Sampler instead.")
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """A dataset of ``fn(sample)`` (``fn(*sample)`` when samples are tuples).

        ``lazy=False`` transforms everything now; keep it lazy for random transforms,
        or every epoch sees the same result.
        """
        transformed = _LazyTransformDataset(self, fn)
        if lazy:
            return transformed
        return SimpleDataset([sample for sample in transformed])

    def transform_first(self, fn, lazy=True):
        """Like ``transform``, applied to the first element of each sample only (the data,
        not the label).

        Examples
        --------
        >>> data = mx.gluon.data.ArrayDataset([1, 2], ['a', 'b'])
        >>> data.transform_first(lambda x: x * 10)[1]
        (20, 'b')
        """
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A Dataset over any object with ``len()`` and ``[]`` (a list, an array, ...)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    """``fn`` applied to each sample of ``data`` when it is read."""

    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure:
    """``fn`` on the first element, the rest unchanged (a class, so worker processes can
    receive it)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices ``sampler`` yields (listed once, now)."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Several equally long arrays (or lists, datasets) side by side: sample ``i`` is
    ``(x1[i], x2[i], ...)``, or ``x1[i]`` with one array.

    A 1-D NDArray is kept as numpy, so its samples are numbers, as in MXNet.

    Examples
    --------
    >>> data = mx.gluon.data.ArrayDataset(nd.ones((3, 2)), nd.array([0, 1, 2]))
    >>> x, y = data[2]
    >>> x.shape, float(y)
    ((2,), 2.0)
    """

    def __init__(self, *args):
        if not args:
            raise InvalidParameterError("Needs at least 1 arrays")
        self._length = len(args[0])
        self._data = []
        for position, data in enumerate(args):
            if len(data) != self._length:
                raise InvalidParameterError(
                    f"All arrays must have the same length; array[0] has length "
                    f"{self._length} while array[{position}] has {len(data)}.")
            if isinstance(data, nd.NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The records of a RecordIO file, each sample the raw bytes of one record.

    Parameters
    ----------
    filename : str
        The ``.rec`` file; its index ``.idx`` must sit beside it.
    """

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        for path, what in ((filename, "record file"), (self.idx_file, "index file")):
            if not os.path.exists(path):
                raise FileNotFoundError(f"RecordFileDataset: the {what} {path} does not exist "
                                        f"(make both with python -m minimx.tools.im2rec)")
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
