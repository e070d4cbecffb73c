"""DataLoader: turn a Dataset into a stream of batches, optionally with workers.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/data/dataloader.py``.  A
BatchSampler lists the indices of each batch; ``batchify_fn`` stacks the
samples into NDArrays.  With ``num_workers > 0`` batches are made ahead of time
(``prefetch`` of them) by a pool of worker threads (``thread_pool=True``) or
forked worker processes.  A worker process runs its NDArray operations in its
own thread at once (``engine.run_inline``), since the engine's worker threads
are not copied by ``fork``, and sends back plain numpy arrays, which the main
process wraps as NDArrays again.  Batches always arrive in sampler order.
"""
import collections
import multiprocessing
import multiprocessing.util
import random
import signal
import time
import weakref

import numpy as np

from ... import engine
from ... import ndarray as nd
from ...base import InvalidParameterError, MXNetError
from ...context import cpu_pinned
from ...ndarray import NDArray
from ...numpy.mode import in_mode
from . import sampler as _sampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def default_batchify_fn(data):
    """Stack a list of samples into a batch: NDArrays with ``nd.stack``, tuples element by
    element (giving a list), anything else through ``numpy.asarray``; ``np.ndarray`` batches
    in NumPy mode (``npx.set_np()``).

    Examples
    --------
    >>> batchify = mx.gluon.data.default_batchify_fn
    >>> x, y = batchify([(nd.ones((2,)), 0), (nd.zeros((2,)), 1)])
    >>> x.shape, y.asnumpy()
    ((2, 2), array([0, 1]))
    """
    if isinstance(data[0], NDArray):
        return in_mode(nd.stack(*data))
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    data = np.asarray(data)
    return in_mode(nd.array(data, dtype=data.dtype))


# MXNet stacks into shared memory for worker processes; minimx sends numpy arrays instead.
default_mp_batchify_fn = default_batchify_fn


def _as_in_context(data, ctx):
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(item, ctx) for item in data]
    return data


# -- what crosses the process boundary --------------------------------------------------------
class _ArrayPayload:
    """An NDArray's values on their way from a worker process to the main process."""

    def __init__(self, array):
        self.values = array.asnumpy()


def _pack(data):
    if isinstance(data, NDArray):
        return _ArrayPayload(data)
    if isinstance(data, (list, tuple)):
        return type(data)(_pack(item) for item in data)
    return data


def _unpack(data):
    if isinstance(data, _ArrayPayload):
        return nd.array(data.values, dtype=data.values.dtype)
    if isinstance(data, (list, tuple)):
        return type(data)(_unpack(item) for item in data)
    return data


# -- worker processes and threads ---------------------------------------------------------------
_worker_dataset = None
_worker_batchify_fn = None


def _worker_initializer(dataset, batchify_fn, base_seed):
    """Runs once in each forked worker: remember the job, give it its own random streams."""
    global _worker_dataset, _worker_batchify_fn
    _worker_dataset, _worker_batchify_fn = dataset, batchify_fn
    seed = (base_seed + multiprocessing.current_process().pid) % (2 ** 32)
    np.random.seed(seed)
    random.seed(seed)


def _worker_fn(indices):
    """One batch, made in a worker process, packed for the trip back."""
    with engine.run_inline():
        batch = _worker_batchify_fn([_worker_dataset[index] for index in indices])
        return _pack(batch)


def _thread_worker_fn(indices, batchify_fn, dataset):
    """One batch, made in a worker thread of this process."""
    return batchify_fn([dataset[index] for index in indices])


def _make_process_pool(num_workers, dataset, batchify_fn):
    nd.waitall()        # nothing may be in flight in the engine when the process forks
    context = multiprocessing.get_context("fork")
    base_seed = int(np.random.randint(0, 2 ** 31))
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C reaches the parent only
    try:
        return context.Pool(num_workers, initializer=_worker_initializer,
                            initargs=(dataset, batchify_fn, base_seed))
    finally:
        signal.signal(signal.SIGINT, previous)


def _close_pool(pool, in_flight, timeout):
    """Stop a loader's workers.  A worker still sending a batch holds the lock of the pipe
    back to this process, and ``terminate`` needs that lock: let the batches in flight arrive
    first (else a program that leaves an epoch early hangs at exit)."""
    deadline = time.monotonic() + timeout
    for result in list(in_flight):
        result.wait(max(0.0, deadline - time.monotonic()))
    pool.terminate()


class DataLoader:
    """Load a Dataset in mini-batches.

    Parameters
    ----------
    dataset : Dataset
    batch_size : int, optional
        Needed unless ``batch_sampler`` is given.
    shuffle : bool, default False
        Visit the samples in a new random order each epoch.
    sampler : Sampler, optional
        The order of the samples (not together with ``shuffle``).
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        What to do with a last batch shorter than ``batch_size``.
    batch_sampler : Sampler, optional
        Yields the index lists of whole batches (then leave the four above unset).
    batchify_fn : callable, optional
        Turns a list of samples into a batch; default ``default_batchify_fn``.
    num_workers : int, default 0
        Worker processes (or threads) making batches ahead; 0 makes them in the loop.
    pin_memory : bool, default False
        Return the batches in ``cpu_pinned`` memory.
    pin_device_id : int, default 0
    prefetch : int, optional
        Batches made ahead of time with workers; default ``2 * num_workers``.
    thread_pool : bool, default False
        Use threads instead of processes as workers.
    timeout : int, default 120
        Seconds to wait for a worker's batch before failing.
    auto_reload : bool, default False
        Start making the next epoch's first batches as soon as an epoch ends.

    Examples
    --------
    >>> data = mx.gluon.data.ArrayDataset(nd.arange(10).reshape((5, 2)), nd.arange(5))
    >>> [x.shape for x, y in mx.gluon.data.DataLoader(data, batch_size=2)]
    [(2, 2), (2, 2), (1, 2)]
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120,
                 auto_reload=False):
        if timeout <= 0:
            raise InvalidParameterError(f"timeout must be positive, given {timeout}")
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        self._batch_sampler = _make_batch_sampler(len(dataset), batch_size, shuffle, sampler,
                                                  last_batch, batch_sampler)
        self._num_workers = max(num_workers, 0)
        self._prefetch = max(0, int(prefetch) if prefetch is not None
                             else 2 * self._num_workers)
        self._batchify_fn = batchify_fn if batchify_fn is not None else default_batchify_fn
        self._worker_pool = None
        # batches asked of the workers, held weakly: the exit finaliser below must not keep
        # this loader alive through a failed batch's exception (its traceback holds our frames)
        self._in_flight = weakref.WeakSet()
        if self._num_workers > 0:
            if thread_pool:
                from multiprocessing.pool import ThreadPool      # (not needed at import)
                self._worker_pool = ThreadPool(self._num_workers)
            else:
                self._worker_pool = _make_process_pool(self._num_workers, dataset,
                                                       self._batchify_fn)
            # when this loader is collected, or at exit before the pool's own finaliser
            # (priority 15) runs -- a loop left by ``break`` keeps the loader alive till then
            multiprocessing.util.Finalize(self, _close_pool, exitpriority=20, args=(
                self._worker_pool, self._in_flight, self._timeout))
        self.auto_reload = auto_reload
        self._iter = self._prefetch_iter() if auto_reload else None

    def __iter__(self):
        batches = self._iter if self._iter is not None else self._prefetch_iter()
        self._iter = None
        yield from batches
        if self.auto_reload and self._iter is None:
            self._iter = self._prefetch_iter()

    def refresh(self):
        """Start a fresh epoch now (its first batches are made ahead with workers)."""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Drop the prepared epoch; the next ``iter()`` starts one."""
        self._iter = None

    def __len__(self):
        return len(self._batch_sampler)

    # -- making batches ------------------------------------------------------------------------
    def _prefetch_iter(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        iterator = _WorkerIter(self._submit, iter(self._batch_sampler), self._prefetch,
                               self._timeout, self._finish)
        return iter(iterator)

    def _same_process_iter(self):
        for indices in self._batch_sampler:
            yield self._finish(self._batchify_fn([self._dataset[i] for i in indices]))

    def _submit(self, indices):
        if self._thread_pool:
            result = self._worker_pool.apply_async(
                _thread_worker_fn, (indices, self._batchify_fn, self._dataset))
        else:
            result = self._worker_pool.apply_async(_worker_fn, (indices,))
        self._in_flight.add(result)
        return result

    def _finish(self, batch):
        """The batch as the caller gets it (here, in the caller's thread, whose mode counts:
        a worker thread or process does not share this thread's ``npx.set_np()``)."""
        if not self._thread_pool and self._num_workers > 0:
            batch = _unpack(batch)
        if self._pin_memory:
            batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
        return in_mode(batch)


class _WorkerIter:
    """The batches of one epoch, in order, with up to ``prefetch`` more being made."""

    def __init__(self, submit, index_lists, prefetch, timeout, finish):
        self._submit = submit
        self._index_lists = index_lists
        self._timeout = timeout
        self._finish = finish
        self._pending = collections.deque()
        for _ in range(prefetch):
            self._push_next()

    def _push_next(self):
        indices = next(self._index_lists, None)
        if indices is not None:
            self._pending.append(self._submit(indices))

    def __iter__(self):
        while True:
            self._push_next()
            if not self._pending:
                return
            try:
                batch = self._pending.popleft().get(self._timeout)
            except multiprocessing.TimeoutError:
                raise MXNetError(f"DataLoader: a worker gave no batch within {self._timeout} "
                                 f"seconds; raise `timeout` if loading is slow") from None
            yield self._finish(batch)


def _make_batch_sampler(length, batch_size, shuffle, sampler, last_batch, batch_sampler):
    """The BatchSampler MXNet's DataLoader builds from its arguments, checking them."""
    if batch_sampler is not None:
        if batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise InvalidParameterError("batch_size, shuffle, sampler and last_batch must not "
                                        "be specified if batch_sampler is specified.")
        return batch_sampler
    if batch_size is None:
        raise InvalidParameterError("batch_size must be specified unless batch_sampler is "
                                    "specified")
    if sampler is None:
        sampler = (_sampler.RandomSampler(length) if shuffle
                   else _sampler.SequentialSampler(length))
    elif shuffle:
        raise InvalidParameterError("shuffle must not be specified if sampler is specified")
    return _sampler.BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
