"""ThreadedEngine: dependency tracking plus a pool of worker threads per device.

Lesson: 04-lazy-evaluation, 05-auto-parallelism.  Mirrors
``src/engine/threaded_engine.cc`` and ``threaded_engine_perdevice.cc``.

``push`` only records dependencies and returns: the frontend runs ahead while
workers compute.  numpy and CuPy release the GIL inside large kernels, so
independent operations really overlap.
"""
import os
import queue
import threading
import time

from ..backend import device_scope
from . import events
from .base import Engine

__all__ = ["ThreadedEngine"]

_PRUNE_READS_AFTER = 32      # drop finished readers from a var's list past this length


def _workers_for(ctx):
    kind = "GPU" if ctx.device_type == "gpu" else "CPU"
    return max(1, int(os.environ.get(f"MINIMX_{kind}_WORKER_NTHREADS", "2")))


class ThreadedEngine(Engine):
    """Asynchronous engine: ``push`` returns at once; workers run ready operations."""

    name = "ThreadedEngine"

    def __init__(self, max_pending=None):
        super().__init__()
        self.lock = threading.Lock()
        self.finished = threading.Condition(self.lock)   # signalled when operations end
        self.waiting_threads = 0
        self.pending = 0                                 # pushed and not yet done
        self.max_pending = max_pending                   # backpressure bound, None = off
        self.queues = {}                                 # ctx -> queue of ready operations
        self.threads = []

    # -- the frontend side -------------------------------------------------------
    def push(self, op):
        op.push_time = time.perf_counter()
        with self.lock:
            if self.max_pending is not None:
                self._wait_until(lambda: self.pending < self.max_pending)
            op.waiting = self._link_dependencies(op)
            self.pending += 1
            pending, ready = self.pending, op.waiting == 0
        if events.subscribers:
            events.emit("push", op, pending)
        if ready:
            self._dispatch(op, pending)

    def _link_dependencies(self, op):
        """Make ``op`` wait for the unfinished operations the var invariant names."""
        count = 0
        for var in op.reads:
            count += self._depend_on(var.last_write, op)
            var.reads.append(op)
            if len(var.reads) > _PRUNE_READS_AFTER:
                var.reads = [reader for reader in var.reads if not reader.done]
        for var in op.writes:
            count += self._depend_on(var.last_write, op)
            for reader in var.reads:
                count += self._depend_on(reader, op)
            var.reads = []
            var.last_write = op
        return count

    @staticmethod
    def _depend_on(earlier, op):
        if earlier is None or earlier.done:
            return 0
        earlier.dependents.append(op)
        return 1

    def _dispatch(self, op, pending):
        if events.subscribers:
            events.emit("ready", op, pending)
        work = self.queues.get(op.ctx)
        if work is None:
            work = self._start_workers(op.ctx)
        work.put(op)

    def _start_workers(self, ctx):
        with self.lock:
            if ctx not in self.queues:
                work = queue.SimpleQueue()
                for index in range(_workers_for(ctx)):
                    thread = threading.Thread(
                        target=self._work, args=(work, ctx), daemon=True,
                        name=f"engine-{ctx}-worker{index}")
                    thread.start()
                    self.threads.append((thread, work))
                self.queues[ctx] = work
            return self.queues[ctx]

    # -- the worker side -----------------------------------------------------------
    def _work(self, work, ctx):
        with device_scope(ctx):
            while True:
                op = work.get()
                if op is None:
                    return
                self.execute(op, self.pending)
                self._finish(op)

    def _finish(self, op):
        ready = []
        with self.lock:
            op.done = True
            op.fn = None                     # free what the closure holds
            self.pending -= 1
            for dependent in op.dependents:
                dependent.waiting -= 1
                if dependent.waiting == 0:
                    ready.append(dependent)
            op.dependents = []
            pending = self.pending
            if self.waiting_threads:
                self.finished.notify_all()
        for dependent in ready:
            self._dispatch(dependent, pending)

    # -- sync points ---------------------------------------------------------------------
    def _wait_until(self, condition):
        """Block (holding ``self.lock`` on return) until ``condition()`` is true."""
        self.waiting_threads += 1
        try:
            while not condition():
                self.finished.wait()
        finally:
            self.waiting_threads -= 1

    def wait_for_var(self, var):
        with self.lock:
            writer = var.last_write
            if writer is not None:
                self._wait_until(lambda: writer.done)
        self.raise_var_error(var)

    def wait_all(self):
        with self.lock:
            self._wait_until(lambda: self.pending == 0)
        self.raise_unreported()

    def pending_count(self):
        return self.pending

    def stop(self):
        with self.lock:
            self._wait_until(lambda: self.pending == 0)
        for _, work in self.threads:
            work.put(None)
        for thread, _ in self.threads:
            thread.join()
        self.threads, self.queues = [], {}
