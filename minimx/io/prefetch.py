"""PrefetchingIter: read the next batch in a background thread while this one is used.

Lesson: 11-data. One thread per wrapped iterator calls ``next()`` ahead of time; the
consumer takes the ready batch and, in the same step, lets the thread start on the next
one. Loading then overlaps with whatever the training loop does between ``next()`` calls.
Mirrors python/mxnet/io/io.py (PrefetchingIter).
"""
import threading

from ..base import MXNetError
from .io import CurrentBatchIter, DataBatch, DataDesc

__all__ = ["PrefetchingIter"]


def rename(descs, mapping):
    if mapping is None:
        return list(descs)
    renamed = []
    for desc in descs:
        desc = desc if isinstance(desc, DataDesc) else DataDesc(*desc)
        renamed.append(DataDesc(mapping[desc.name], desc.shape, desc.dtype))
    return renamed


class PrefetchingIter(CurrentBatchIter):
    """Prefetch batches of one or more iterators in background threads.

    With several iterators, each batch holds the data (and labels) of all of them,
    in order.

    Parameters
    ----------
    iters : DataIter or list of DataIter
    rename_data, rename_label : list of dict, optional
        Per iterator, a map from its names to the names this iterator provides.
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        self.iters = iters if isinstance(iters, list) else [iters]
        if not self.iters:
            raise MXNetError("PrefetchingIter needs at least one iterator")
        self.n_iter = len(self.iters)
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for _ in self.iters]
        self.data_taken = [threading.Event() for _ in self.iters]
        for event in self.data_taken:
            event.set()
        self.started = True
        self.current_batch = None
        self.next_batch = [None] * self.n_iter
        self.errors = [None] * self.n_iter
        self.prefetch_threads = [
            threading.Thread(target=self._prefetch, args=(i,), daemon=True,
                             name=f"PrefetchingIter-{i}") for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.start()

    def _prefetch(self, i):
        """Thread body: wait until the last batch was taken, then fetch the next one."""
        while True:
            self.data_taken[i].wait()
            if not self.started:
                break
            try:
                self.next_batch[i] = self.iters[i].next()
            except StopIteration:
                self.next_batch[i] = None
            except Exception as err:  # handed to the consumer, raised at its next()
                self.next_batch[i] = None
                self.errors[i] = err
            self.data_taken[i].clear()
            self.data_ready[i].set()

    def close(self):
        """Stop the prefetching threads."""
        if not getattr(self, "started", False):
            return
        self.started = False
        for event in self.data_taken:
            event.set()
        for thread in self.prefetch_threads:
            thread.join()

    def __del__(self):
        self.close()

    @property
    def provide_data(self):
        if self.rename_data is None:
            return sum((list(it.provide_data) for it in self.iters), [])
        return sum((rename(it.provide_data, r) for r, it in zip(self.rename_data, self.iters)),
                   [])

    @property
    def provide_label(self):
        if self.rename_label is None:
            return sum((list(it.provide_label) for it in self.iters), [])
        return sum((rename(it.provide_label, r)
                    for r, it in zip(self.rename_label, self.iters)), [])

    def _wait_ready(self):
        for event in self.data_ready:
            event.wait()
        for i, err in enumerate(self.errors):
            if err is not None:
                self.errors[i] = None
                self._release()
                raise err

    def _release(self):
        """Hand the buffers back to the threads: they start fetching the next batch."""
        for event in self.data_ready:
            event.clear()
        for event in self.data_taken:
            event.set()

    def reset(self):
        self._wait_ready()
        for it in self.iters:
            it.reset()
        self._release()

    def iter_next(self):
        self._wait_ready()
        batches = self.next_batch
        if batches[0] is None:
            if any(batch is not None for batch in batches):
                raise MXNetError("PrefetchingIter: the iterators hold different numbers of "
                                 "batches")
            return False
        if any(batch is None or batch.pad != batches[0].pad for batch in batches):
            raise MXNetError("PrefetchingIter: the iterators' batches do not line up "
                             "(different numbers of examples)")
        self.current_batch = DataBatch(
            sum((list(b.data) for b in batches), []),
            sum((list(b.label or []) for b in batches), []),
            batches[0].pad, batches[0].index, bucket_key=batches[0].bucket_key,
            provide_data=self.provide_data, provide_label=self.provide_label)
        self._release()
        return True
