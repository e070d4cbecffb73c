"""IntervalSampler: every ``interval``-th index, then (``rollover``) the skipped ones.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/contrib/data/sampler.py``.  Language
models read a long text as ``interval`` parallel streams: with ``length=10, interval=3``
the order is 0 3 6 9, 1 4 7, 2 5 8.
"""
from ...data.sampler import Sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(Sampler):
    """Indices ``0, interval, 2 * interval, ...`` below ``length``; with ``rollover``
    (default) the passes that start at 1, 2, ..., ``interval - 1`` follow."""

    def __init__(self, length, interval, rollover=True):
        if not 0 < interval <= length:
            raise ValueError(f"IntervalSampler: interval must be in (0, length={length}], "
                             f"got {interval}")
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        starts = range(self._interval) if self._rollover else range(1)
        for start in starts:
            yield from range(start, self._length, self._interval)

    def __len__(self):
        if self._rollover:
            return self._length
        return len(range(0, self._length, self._interval))
