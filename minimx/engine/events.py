"""Engine events for observers: the profiler and the widgets subscribe here.

Lesson: 05-lazy-evaluation.  Every operation produces ``push`` (the frontend
handed it over), ``ready`` (its inputs are done), ``start`` and ``end`` (a
worker ran it).  The core never formats events; it only hands them out.

``region(name)`` marks a stretch of Python on the calling thread (a custom operator's
body): region observers (the profiler) get ``(name, 'begin' | 'end', thread, time)``, so
the operations run inline inside it can be told apart from the others.
"""
import contextlib
import threading
import time
from typing import NamedTuple

__all__ = ["EngineEvent", "subscribe", "unsubscribe", "subscribers", "region",
           "region_subscribers"]

subscribers = []        # callables taking one EngineEvent; read on the hot path
region_subscribers = []   # callables taking (name, 'begin' or 'end', thread, time)


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


def subscribe(callback):
    """Call ``callback(event)`` for every engine event from now on; returns ``callback``."""
    if callback not in subscribers:
        subscribers.append(callback)
    return callback


def unsubscribe(callback):
    """Stop sending events to ``callback``."""
    if callback in subscribers:
        subscribers.remove(callback)


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
