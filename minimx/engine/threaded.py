"""ThreadedEngine: dependency tracking plus a pool of worker threads per device.

Lesson: 05-lazy-evaluation, 06-automatic-parallelism.  Mirrors
``src/engine/threaded_engine.cc`` and ``threaded_engine_perdevice.cc``.

``push`` only records dependencies and returns: the frontend runs ahead while
workers compute.  numpy and CuPy release the GIL inside large kernels, so
independent operations really overlap.  For tiny operations the Python work
per push is the whole cost, so ``push`` and the worker loop take the lock
once each and allocate nothing beyond the Operation itself.

Small operations (``push(..., small=True)``: at most ``SMALL_ELEMENTS`` elements, see
``engine.is_small``) that are ready when pushed run at once in the pushing thread, as MXNet runs its asynchronous-property
operations in the pusher thread.  In MXNet a worker is C++ and overlaps the Python
frontend; here a worker is Python too, so handing a two-element add to one only adds
a wake-up and two GIL hand-overs, about 6 us (the machine-translation chapter of the
course, 373,000 operations on batches of two sentences: 16.4 s sent to workers, 14.2 s
run here).  An operation that must wait for another still goes to the queue, and
errors are kept for the next sync point either way.

When a worker's operation ends, the operations it readied go to the queue, except one
(on the worker's device, when the queue is empty: first come, first served) that the
worker runs next itself: a put wakes another worker,
which then fights this one and the frontend for the GIL, so a chain of dependent
operations (a network's forward, then its backward) would change threads at every step
(LeNet's Gluon training step: 44 operations queued and 70 thread switches per step
before, 9 and 15 after).

An operation may have to wait for operations pushed after it: the calls of a meeting
(``op/meeting.py``: SyncBatchNorm's devices share their sums).  It runs on a worker,
never inline, and while it waits a stand-in worker serves its queue (``_stand_in``), so
the calls it waits for can run even on a one-worker queue.
"""
import contextlib
import itertools
import os
import queue
import threading
from functools import partial

from ..backend import device_scope
from . import events
from .base import Engine
from .budget import BUDGET

__all__ = ["ThreadedEngine"]


def _workers_for(ctx):
    """CPU workers come from the thread budget (``budget.py``); GPU workers from
    ``MINIMX_GPU_WORKER_NTHREADS`` (default 2)."""
    if ctx.device_type != "gpu":
        return BUDGET.workers
    return max(1, int(os.environ.get("MINIMX_GPU_WORKER_NTHREADS", "2")))


class ThreadedEngine(Engine):
    """Asynchronous engine: ``push`` returns at once; workers run ready operations.

    One lock guards the dependency graph (every Var's ``last_write`` and
    ``reads``, every Operation's ``waiting`` and ``dependents``) and ``pending``.
    """

    name = "ThreadedEngine"

    def __init__(self, max_pending=None):
        super().__init__()
        self.lock = threading.Lock()
        self.finished = threading.Condition(self.lock)   # notified when operations end
        self.waiting_threads = 0     # threads asleep in _wait_until (most ends have none)
        self.pending = 0             # pushed and not yet done
        self.max_pending = max_pending                   # backpressure bound, None = off
        self.queues = {}             # ctx -> queue of ready operations
        self.threads = []
        self.worker_ids = set()      # worker threads never block on backpressure
        self.queued_blas = []        # one token per BLAS operation ready, not yet started
        self.stand_ins = itertools.count(1)    # numbers the stand-in workers' threads

    # -- the frontend side -------------------------------------------------------
    def push(self, op):
        if events.subscribers:
            # Emitted before linking: once linked, a worker may start ``op`` at any time.
            events.emit("push", op, self.pending + 1)
        with self.lock:
            if self.max_pending is not None and self.pending >= self.max_pending:
                self._wait_for_room()
            op.waiting = waiting = self._link_dependencies(op)
            self.pending += 1
            pending = self.pending
        if waiting == 0:
            if op.small:
                self._run_here(op, pending)
            else:
                self._dispatch(op, pending)

    def _run_here(self, op, pending):
        if events.subscribers:
            events.emit("ready", op, pending)
        self.execute(op, pending)
        self._finish(op)

    def _link_dependencies(self, op):
        """Make ``op`` wait for the unfinished operations the Var invariant names.

        Returns how many it waits for.  Finished readers have already left
        ``var.reads``; a finished writer is still ``last_write`` but is skipped.
        """
        waiting = 0
        for var in op.reads:
            writer = var.last_write
            if writer is not None and not writer.done:
                writer.dependents.append(op)
                waiting += 1
            var.reads[op] = None
        for var in op.writes:
            writer = var.last_write
            if writer is not None and not writer.done:
                writer.dependents.append(op)
                waiting += 1
            for reader in var.reads:
                reader.dependents.append(op)
                waiting += 1
            var.reads = {}
            var.last_write = op
        return waiting

    def _dispatch(self, op, pending):
        if events.subscribers:
            events.emit("ready", op, pending)
        work = self.queues.get(op.ctx)
        if work is None:
            work = self._start_workers(op.ctx)
        if op.work:
            self.queued_blas.append(None)        # append/pop: atomic, no lock needed
        work.put(op)

    def _start_workers(self, ctx):
        with self.lock:
            if ctx not in self.queues:
                work = queue.SimpleQueue()
                for index in range(_workers_for(ctx)):
                    self._start_worker(work, ctx, f"worker{index}")
                self.queues[ctx] = work
            return self.queues[ctx]

    def _start_worker(self, work, ctx, name):
        thread = threading.Thread(target=self._work, args=(work, ctx), daemon=True,
                                  name=f"engine-{ctx}-{name}")
        thread.stand_in = partial(self._stand_in, work, ctx)    # see _stand_in
        thread.start()
        self.threads.append((thread, work))

    @contextlib.contextmanager
    def _stand_in(self, work, ctx):
        """``with threading.current_thread().stand_in():`` in a worker about to wait for
        operations pushed after its own (``op/meeting.py``): a new worker serves its queue
        meanwhile, and one of the queue's workers retires after.  (Only workers have
        ``stand_in``: any other thread pushes the operations it would wait for.)"""
        with self.lock:
            self.threads = [(thread, queue_) for thread, queue_ in self.threads
                            if thread.is_alive()]
            self._start_worker(work, ctx, f"stand-in{next(self.stand_ins)}")
        try:
            yield
        finally:
            work.put(None)           # whichever worker takes it retires

    # -- the worker side -----------------------------------------------------------
    def _work(self, work, ctx):
        self.worker_ids.add(threading.get_ident())      # before it runs anything
        with device_scope(ctx):
            while True:
                op = work.get()
                if op is None:
                    self.worker_ids.discard(threading.get_ident())
                    return
                if op.work:
                    self.queued_blas.pop()
                while op is not None:         # then the operations it readied, see _finish
                    self.execute(op, self.pending, len(self.queued_blas))
                    op = self._finish(op, ctx)

    def _finish(self, op, keep_ctx=None):
        """Mark ``op`` done and hand the operations it readied to the workers.

        A worker (``keep_ctx``: its queue's device) keeps one of them, on its own device,
        and runs it next instead of queueing it: a put wakes another worker, which then
        takes the GIL from this one, and a chain of dependent operations (a network's
        forward, then its backward) would cross threads at every step.  Only when its queue
        is empty: the queue is first come, first served, as MXNet's, and an operation ready
        earlier goes first (the seed's demo: without a sync, all 60 batches' inputs are made
        before the layers consume them, and memory grows).  Returns the operation kept, or
        None.
        """
        ready = []
        with self.lock:
            op.done = True
            self.pending -= 1
            for var in op.reads:
                var.reads.pop(op, None)
            for dependent in op.dependents:
                dependent.waiting -= 1
                if dependent.waiting == 0:
                    ready.append(dependent)
            pending = self.pending
            # Wake sleeping threads only when what they wait for may have come true: a
            # thread woken for nothing costs a GIL hand-over per operation.
            if self.waiting_threads and (op.watched or pending == 0
                                         or self.max_pending is not None):
                self.finished.notify_all()
        op.fn = None                 # free the arrays the closure holds
        op.dependents = []
        # A finished writer stays its vars' ``last_write`` (read for ``done``): dropping its
        # own references to them breaks the var <-> operation cycle, so both are freed at
        # once by reference counting instead of piling up for the garbage collector.
        op.reads = op.writes = ()
        kept = None
        for dependent in ready:
            if (kept is None and keep_ctx is not None
                    and (dependent.ctx is keep_ctx or dependent.ctx == keep_ctx)
                    and self.queues[keep_ctx].empty()):
                kept = dependent
                if events.subscribers:
                    events.emit("ready", dependent, pending)
            else:
                self._dispatch(dependent, pending)
        return kept

    # -- sync points ---------------------------------------------------------------------
    def _wait_until(self, condition):
        """Block (holding ``self.lock`` on return) until ``condition()`` is true."""
        self.waiting_threads += 1
        try:
            while not condition():
                self.finished.wait()
        finally:
            self.waiting_threads -= 1

    def _wait_for_room(self):
        # A worker that pushes (an operator calling nd functions) must not wait for
        # itself to finish.
        if threading.get_ident() not in self.worker_ids:
            self._wait_until(lambda: self.max_pending is None or self.pending < self.max_pending)

    def wait_for_var(self, var):
        writer = var.last_write
        if writer is not None and not writer.done:
            with self.lock:
                writer.watched = True          # _finish wakes us when it ends
                self._wait_until(lambda: writer.done)
        self.raise_var_error(var)

    def drain(self):
        """Wait until every pushed operation is done, without raising its errors."""
        with self.lock:
            self._wait_until(lambda: self.pending == 0)

    def wait_all(self):
        self.drain()
        self.raise_unreported()

    def pending_count(self):
        return self.pending

    def stop(self):
        self.drain()
        for _, work in self.threads:
            work.put(None)
        for thread, _ in self.threads:
            thread.join()
        self.threads, self.queues, self.worker_ids = [], {}, set()
