"""Engine events for observers: the profiler and the widgets subscribe here.

Lesson: 05-lazy-evaluation.  Every operation produces ``push`` (the frontend
handed it over), ``ready`` (its inputs are done), ``start`` and ``end`` (a
worker ran it).  The core never formats events; it only hands them out.

``region(name)`` marks a stretch of Python on the calling thread (a custom operator's
body): region observers (the profiler) get ``(name, 'begin' | 'end', thread, time)``, so
the operations run inline inside it can be told apart from the others.

A *sync point* is a frontend thread waiting for the engine (``wait_for_var``, ``wait_all``).
Sync observers (``subscribe_sync``) get one ``SyncEvent`` per sync point, when it is over,
with its reason: ``'wait_for_var'`` or ``'wait_all'`` unless the caller declared one with
``sync_reason``.  ``VALUE_DEPENDENT`` is the reason of a function whose result's *shape*
depends on its input's *values* (``np.nonzero``, ``np.unique``, a boolean mask): it cannot
return before its input is computed.
"""
import contextlib
import threading
import time
from typing import NamedTuple

__all__ = ["EngineEvent", "subscribe", "unsubscribe", "subscribers", "region",
           "region_subscribers", "SyncEvent", "subscribe_sync", "unsubscribe_sync",
           "sync_subscribers", "sync_reason", "VALUE_DEPENDENT", "HOST_FALLBACK"]

subscribers = []        # callables taking one EngineEvent; read on the hot path
region_subscribers = []   # callables taking (name, 'begin' or 'end', thread, time)
sync_subscribers = []   # callables taking one SyncEvent
VALUE_DEPENDENT = "value-dependent shape"
HOST_FALLBACK = "host fallback"   # a NumPy function minimx computes on the host
_declared = threading.local()   # .reason: the sync reason the calling thread declared


class EngineEvent(NamedTuple):
    """What happened to one operation, and when (``time.perf_counter()`` seconds).

    A NamedTuple rather than a frozen dataclass: it is built four times per
    operation while someone observes, and a tuple is about five times cheaper.
    """

    kind: str            # 'push', 'ready', 'start' or 'end'
    op_id: int
    name: str
    ctx: str
    thread: str
    reads: tuple         # ids of the vars the operation reads
    writes: tuple        # ids of the vars it writes
    time: float
    pending: int         # operations pushed and not yet finished, at this moment
    error: str = ""      # for 'end': the error message if the operation failed


def _add(observers, callback):
    if callback not in observers:
        observers.append(callback)
    return callback


def _remove(observers, callback):
    if callback in observers:
        observers.remove(callback)


def subscribe(callback):
    """Call ``callback(event)`` for every engine event from now on; returns ``callback``."""
    return _add(subscribers, callback)


def unsubscribe(callback):
    """Stop sending events to ``callback``."""
    _remove(subscribers, callback)


class SyncEvent(NamedTuple):
    """A frontend thread stopped at a sync point from ``begin`` to ``end``.

    ``var`` is the id of the var it waited for (None for ``wait_all``), ``waited_for`` the
    id of the operation writing it that had not finished when the wait began (None if the
    value was ready, or for ``wait_all``).
    """

    reason: str
    thread: str
    var: object
    waited_for: object
    begin: float
    end: float


def subscribe_sync(callback):
    """Call ``callback(sync_event)`` after every sync point from now on; returns it."""
    return _add(sync_subscribers, callback)


def unsubscribe_sync(callback):
    """Stop sending sync events to ``callback``."""
    _remove(sync_subscribers, callback)


@contextlib.contextmanager
def sync_reason(reason):
    """Declare why the sync points inside the body happen (the outermost declaration wins:
    ``np.nonzero`` waiting through ``asnumpy`` is still a value-dependent shape)."""
    outer = getattr(_declared, "reason", None)
    if outer is None:
        _declared.reason = reason
    try:
        yield
    finally:
        _declared.reason = outer


def emit_sync(default_reason, var, waited_for, begin):
    """Tell the sync observers that the calling thread waited from ``begin`` until now."""
    event = SyncEvent(getattr(_declared, "reason", None) or default_reason,
                      threading.current_thread().name, var, waited_for, begin,
                      time.perf_counter())
    for callback in list(sync_subscribers):
        callback(event)


def emit(kind, op, pending, error=None):
    event = EngineEvent(
        kind, op.id, op.name, str(op.ctx), threading.current_thread().name,
        tuple(v.id for v in op.reads), tuple(v.id for v in op.writes),
        time.perf_counter(), pending, "" if error is None else str(error))
    for callback in list(subscribers):
        callback(event)


@contextlib.contextmanager
def region(name):
    """Mark the body as region ``name`` of the calling thread (for region observers)."""
    if not region_subscribers:
        yield
        return
    thread = threading.current_thread().name
    for callback in list(region_subscribers):
        callback(name, "begin", thread, time.perf_counter())
    try:
        yield
    finally:
        for callback in list(region_subscribers):
            callback(name, "end", thread, time.perf_counter())
