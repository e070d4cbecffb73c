"""Samplers: the order in which a DataLoader visits a dataset, and how it batches.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/data/sampler.py``.  A
Sampler yields indices; ``BatchSampler`` groups them into lists of
``batch_size`` and decides what happens to a short last batch: ``'keep'`` it,
``'discard'`` it, or ``'rollover'`` its indices into the next epoch.
"""
import numpy as np

from ...base import InvalidParameterError

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler"]

_LAST_BATCH = ("keep", "discard", "rollover")


class Sampler:
    """Base class: ``iter()`` yields indices, ``len()`` says how many."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class SequentialSampler(Sampler):
    """The indices ``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A new random permutation of ``0 .. length - 1`` each epoch (numpy's global RNG)."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices.tolist())

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true."""

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size``.

    Parameters
    ----------
    sampler : Sampler
    batch_size : int
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        A last batch shorter than ``batch_size`` is yielded ('keep'), dropped
        ('discard'), or put in front of the next epoch's indices ('rollover').

    Examples
    --------
    >>> sampler = mx.gluon.data.SequentialSampler(10)
    >>> list(mx.gluon.data.BatchSampler(sampler, 3, 'keep'))
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    """

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in _LAST_BATCH:
            raise InvalidParameterError(f"last_batch must be one of 'keep', 'discard', or "
                                        f"'rollover', but got {last_batch}")
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for index in self._sampler:
            batch.append(index)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
