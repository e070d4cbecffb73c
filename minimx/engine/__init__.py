"""The dependency engine: every computation in minimx is pushed here.

Lesson: 05-lazy-evaluation.  Mirrors ``include/mxnet/engine.h`` and
``python/mxnet/engine.py``.

``push(fn, read_vars, write_vars, ctx, name)`` hands ``fn`` to the current
engine; ``wait_for_var`` and ``wait_all`` are the sync points.  The engine is
chosen by ``MINIMX_ENGINE_TYPE``, or else by MXNet's own ``MXNET_ENGINE_TYPE`` (as programs
written for MXNet set it to debug with ``NaiveEngine``; ``ThreadedEngine`` by default), and
can be switched at run time with ``set_engine`` or ``with engine_type('NaiveEngine'):``.
"""
import atexit
import contextlib
import math
import os
import threading
import time

from .base import wrap_error
from ..base import MXNetError, OperatorFailedError
from . import events
from .events import (HOST_FALLBACK, VALUE_DEPENDENT, EngineEvent, SyncEvent, subscribe, subscribe_sync,
                     sync_reason, unsubscribe, unsubscribe_sync)
from .naive import NaiveEngine
from .threaded import ThreadedEngine
from .budget import BUDGET
from .var import Operation, Var

__all__ = [
    "Var", "Operation", "EngineEvent", "push", "wait_for_var", "wait_all", "new_var",
    "set_engine", "get_engine", "engine_type", "bulk", "set_bulk_size", "set_max_pending",
    "max_pending", "pending_count", "subscribe", "unsubscribe", "NaiveEngine", "ThreadedEngine",
    "raise_if_no_value", "forget_failures", "run_inline", "set_num_threads", "num_threads",
    "threads", "SyncEvent", "subscribe_sync", "unsubscribe_sync", "sync_reason",
    "VALUE_DEPENDENT", "HOST_FALLBACK",
]

ENGINES = {"NaiveEngine": NaiveEngine, "ThreadedEngine": ThreadedEngine,
           "ThreadedEnginePerDevice": ThreadedEngine}


def _make(name, max_pending=None):
    if name not in ENGINES:
        raise ValueError(f"unknown engine type {name!r}; expected one of {sorted(ENGINES)}")
    return ENGINES[name](max_pending) if ENGINES[name] is ThreadedEngine else ENGINES[name]()


def _env_max_pending():
    value = os.environ.get("MINIMX_ENGINE_MAX_PENDING")
    return int(value) if value else None


def _env_engine_type():
    """The engine the environment asks for: ``MINIMX_ENGINE_TYPE``, then MXNet's variable;
    an unknown name is an MXNetError, as MXNet's."""
    for variable in ("MINIMX_ENGINE_TYPE", "MXNET_ENGINE_TYPE"):
        name = os.environ.get(variable)
        if name:
            if name not in ENGINES:
                raise MXNetError(f"Cannot find Engine {name} ({variable}); expected one of "
                                 f"{sorted(ENGINES)}")
            return name
    return "ThreadedEngine"


_current = _make(_env_engine_type(), _env_max_pending())


class _BulkState(threading.local):
    """Per thread: how many operations to group, the group being built, and, inside
    ``run_inline``, the NaiveEngine that runs this thread's pushes."""

    size = 1
    ops = None
    inline = None


_bulk = _BulkState()


def new_var():
    """A fresh engine variable (one per NDArray buffer)."""
    return Var()


# An operation on at most this many elements (outputs, or gradients for a backward step),
# with at most this much BLAS work, costs less to run than to hand to a worker thread: the
# handover (a queue, a wake-up, the GIL passed back and forth) is about 6 us, as long as
# numpy takes to add 65,536 numbers.  ``MINIMX_ENGINE_INLINE_ELEMENTS=0`` sends every
# operation to a worker (threaded.py says why the rule exists).
SMALL_ELEMENTS = int(os.environ.get("MINIMX_ENGINE_INLINE_ELEMENTS", "65536"))
SMALL_WORK = 1_000_000


def is_small(shapes, work=0):
    """Whether an operation writing arrays of ``shapes`` is ``small`` (see ``push``)."""
    if SMALL_ELEMENTS <= 0 or work > SMALL_WORK:
        return False
    total = 0
    for shape in shapes:            # a plain loop: on every push, and a generator costs 2x
        total += math.prod(shape)
    return total <= SMALL_ELEMENTS


def push(fn, read_vars, write_vars, ctx, name="op", work=0, small=False):
    """Schedule ``fn()`` to run after the operations it depends on.

    ``read_vars`` are the vars whose buffers ``fn`` reads, ``write_vars`` those
    it writes; ``work`` the multiply-adds of its largest matrix product (how many
    BLAS threads it deserves, see ``budget.py``); ``small`` that it is cheaper to run
    than to hand over (``is_small``): the ThreadedEngine then runs it in the calling
    thread if it is ready.  Returns at once on the ThreadedEngine.
    """
    if type(read_vars) is not list:
        read_vars = list(read_vars)       # walked twice: when linked and when finished
    if type(write_vars) is not list:
        write_vars = list(write_vars)
    # A var both read and written counts as written only: the write already waits
    # for everything a read would, and a var listed twice would link twice.
    # (Most operations write one var; ``in`` on a list is the cheap test for it.)
    if len(write_vars) > 1:
        write_vars = list(dict.fromkeys(write_vars))
        read_vars = [var for var in read_vars if var not in write_vars]
    elif write_vars and write_vars[0] in read_vars:
        read_vars = [var for var in read_vars if var is not write_vars[0]]
    state = _bulk
    if state.inline is not None:
        state.inline.push(Operation(fn, read_vars, write_vars, ctx, name, work))
        return
    if state.size > 1:
        _add_to_bulk(fn, read_vars, write_vars, ctx, name, work)
        return
    _current.push(Operation(fn, read_vars, write_vars, ctx, name, work, small))


def wait_for_var(var):
    """Block until every write pushed so far to ``var`` is done; raise its error if any.
    A sync point: sync observers hear of it (``subscribe_sync``)."""
    _flush_bulk()
    if not events.sync_subscribers:
        _current.wait_for_var(var)
        return
    writer = var.last_write
    waited_for = writer.id if writer is not None and not writer.done else None
    begin = time.perf_counter()
    try:
        _current.wait_for_var(var)
    finally:
        events.emit_sync("wait_for_var", var.id, waited_for, begin)


def raise_if_no_value(var):
    """After a sync point: fail clearly if ``var``'s buffer was never computed.

    The operator's error itself is raised once (MXNet's rule); reading the
    array again must not hand out garbage, so it raises this reminder.
    """
    failure = var.failure
    if failure is not None:
        raise OperatorFailedError(f"this array has no value: {failure.message} (the error "
                                  f"was raised at an earlier sync point)")


def forget_failures():
    """Finish pending work and drop the failures nobody has raised yet.

    A clean slate between independent runs (the test suite calls it after
    each test), so one test's unread failure never surfaces in another.
    """
    _flush_bulk()
    _current.drain()
    _current.failures = []


def wait_all():
    """Block until every pushed operation is done; raise the first error since last time."""
    if _bulk.inline is not None:
        _bulk.inline.wait_all()       # the worker running us would otherwise wait for itself
        return
    _flush_bulk()
    if not events.sync_subscribers:
        _current.wait_all()
        return
    begin = time.perf_counter()
    try:
        _current.wait_all()
    finally:
        events.emit_sync("wait_all", None, None, begin)


def pending_count():
    """Operations pushed and not yet finished."""
    return _current.pending_count()


def get_engine():
    """The engine object in use (``NaiveEngine`` or ``ThreadedEngine``)."""
    return _current


def set_engine(name):
    """Switch to engine ``name`` after finishing all pending work; returns the old name.

    Errors of the finished work are not raised here: they move to the new engine
    and surface at their sync points as usual.
    """
    global _current
    _flush_bulk()
    previous = _current
    previous.drain()
    _current = _make(name, getattr(previous, "max_pending", None))
    _current.failures = previous.failures
    previous.stop()
    return previous.name


@contextlib.contextmanager
def engine_type(name):
    """Run the body with engine ``name``, then switch back.

    Examples
    --------
    >>> with mx.engine.engine_type('NaiveEngine'):
    ...     y = nd.ones((2,)) + 1       # runs inside the call
    """
    previous = set_engine(name)
    try:
        yield get_engine()
    finally:
        set_engine(previous)


@contextlib.contextmanager
def run_inline():
    """Within the body, this thread's pushes run at once, in this thread.

    For operator code that calls nd functions itself (``mx.operator.CustomOp``):
    it runs inside an engine worker, and waiting there for work queued behind
    it could block that worker forever.  Sync points on arrays made inside work
    as usual; ``wait_all`` covers only the work pushed inside.
    """
    previous = _bulk.inline
    _bulk.inline = previous or NaiveEngine()
    try:
        yield
    finally:
        _bulk.inline = previous


def set_num_threads(workers=None, blas=None):
    """Change the thread budget (``budget.py``); returns the previous ``num_threads()``.

    ``workers``: CPU worker threads of the ThreadedEngine (pending work finishes first,
    then the workers restart).  ``blas``: BLAS threads for every operation, or ``'auto'``
    to let the engine decide per operation again (1 for small products, the cores shared
    among the running operations for large ones).
    """
    previous = num_threads()
    if workers is not None:
        if int(workers) < 1:
            raise ValueError(f"set_num_threads: workers must be at least 1, got {workers}")
        _flush_bulk()
        _current.drain()
        BUDGET.workers, BUDGET.workers_from = int(workers), "set_num_threads"
        if isinstance(_current, ThreadedEngine):
            _current.stop()              # the next push starts the new number of workers
    if blas is not None:
        if blas == "auto":
            BUDGET.fix_blas(None)
        elif int(blas) < 1:
            raise ValueError(f"set_num_threads: blas must be 'auto' or at least 1, got {blas}")
        else:
            BUDGET.fix_blas(int(blas))
    return previous


def num_threads():
    """The thread budget: ``{'cores', 'workers', 'blas' ('auto' or a number), 'blas_now'
    (the BLAS threads set for the last operation), 'workers_from', 'blas_from'}``."""
    return BUDGET.summary()


@contextlib.contextmanager
def threads(workers=None, blas=None):
    """``set_num_threads`` for the body of a ``with`` statement, then back."""
    previous = set_num_threads(workers, blas)
    try:
        yield num_threads()
    finally:
        set_num_threads(previous["workers"], previous["blas"])


def set_max_pending(limit):
    """Bound the operations in flight: ``push`` blocks while ``limit`` are pending.

    ``None`` (the default) removes the bound.  Returns the previous bound.
    """
    previous = getattr(_current, "max_pending", None)
    if isinstance(_current, ThreadedEngine):
        _current.max_pending = limit
    return previous


@contextlib.contextmanager
def max_pending(limit):
    """``set_max_pending(limit)`` for the body of a ``with`` statement."""
    previous = set_max_pending(limit)
    try:
        yield
    finally:
        set_max_pending(previous)


# -- bulk execution: consecutive small operations scheduled as one ----------------------
def set_bulk_size(size):
    """Group up to ``size`` consecutive operations of this thread into one.

    Returns the previous size.
    """
    _flush_bulk()
    previous = _bulk.size
    _bulk.size = max(1, int(size))
    _bulk.ops = [] if _bulk.size > 1 else None
    return previous


@contextlib.contextmanager
def bulk(size):
    """Within the body, push operations in groups of ``size`` (MXNet's ``engine.bulk``)."""
    previous = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(previous)


def _add_to_bulk(fn, reads, writes, ctx, name, work):
    group = _bulk.ops
    if group and group[0][3] != ctx:
        _flush_bulk()
        group = _bulk.ops
    group.append((fn, reads, writes, ctx, name, work))
    if len(group) >= _bulk.size:
        _flush_bulk()


def _flush_bulk():
    group = _bulk.ops
    if not group:
        return
    _bulk.ops = []
    steps = [(item[0], item[4]) for item in group]
    writes = list(dict.fromkeys(var for item in group for var in item[2]))
    reads = list(dict.fromkeys(var for item in group for var in item[1] if var not in writes))

    def run_group():
        for function, name in steps:
            try:
                function()
            except Exception as error:
                raise wrap_error(error, name)     # name the step, not the group

    names = [name for _, name in steps]
    _current.push(Operation(run_group, reads, writes, group[0][3],
                            f"bulk[{len(names)}]({', '.join(dict.fromkeys(names))})",
                            max(item[5] for item in group)))


def _finish_at_exit():
    _current.drain()        # errors nobody waited for are dropped at exit


atexit.register(_finish_at_exit)
