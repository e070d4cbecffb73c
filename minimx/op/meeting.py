"""Meetings: calls pushed one by one that exchange values before any of them goes on.

Lesson: 08-executors (BatchNorm).  Mirrors the barrier and shared tensors of
``src/operator/contrib/sync_batch_norm-inl.h``.  SyncBatchNorm over ``ndev`` devices is
called once per device; each call hands its per-channel sums to the meeting named by the
layer's key, and every call goes on with the sums of all of them.

A call that arrives before the others waits inside its engine operation, on a worker: the
engine's worker threads offer ``stand_in()``, which lets another worker serve the queue
meanwhile (an operator knows no engine; this is all it asks of the thread running it).
The last arrival combines the values and wakes the others.  A call that would wait in the thread
that pushes the others (``NaiveEngine``, which runs each operation inside its push, or an
operation run inline) fails at once: MXNet's NaiveEngine hangs there.  A meeting that
never fills (an output read before the other devices' calls were made, which hangs in
MXNet too) fails after ``TIMEOUT`` seconds (``MINIMX_MEETING_TIMEOUT``, default 60).
"""
import os
import threading

__all__ = ["meet", "TIMEOUT"]

TIMEOUT = float(os.environ.get("MINIMX_MEETING_TIMEOUT", "60"))

_lock = threading.Condition()
_gathering = {}          # meeting key -> the round collecting arrivals now


class _Round:
    """One filling of a meeting: the values handed in so far, then the result or error."""

    __slots__ = ("values", "closed", "result", "error")

    def __init__(self):
        self.values = []
        self.closed = False
        self.result = self.error = None


def meet(key, count, value, combine, what):
    """Hand ``value`` to meeting ``key`` of ``count`` calls; return ``combine(values)``
    once all ``count`` have arrived (the values in arrival order).  ``what`` names the
    caller in errors.  Call it inside an engine operation."""
    if count == 1:
        return combine([value])
    with _lock:
        if _last_arrival(key, count):
            return _close(key, value, combine)
    stand_in = getattr(threading.current_thread(), "stand_in", None)
    if stand_in is None:
        raise RuntimeError(
            f"{what}: this call must wait for the other {count - 1} of {count} calls, "
            f"which the thread running it has yet to make: the engine runs operations "
            f"inside their calls here (NaiveEngine or run_inline); use the "
            f"ThreadedEngine (MXNet's NaiveEngine waits forever)")
    with stand_in():
        with _lock:
            if _last_arrival(key, count):
                return _close(key, value, combine)
            round_ = _gathering.setdefault(key, _Round())
            round_.values.append(value)
            if not _lock.wait_for(lambda: round_.closed, TIMEOUT):
                _fail(key, round_, TimeoutError(
                    f"{what}: only {len(round_.values)} of {count} calls arrived within "
                    f"{TIMEOUT:g} s (MINIMX_MEETING_TIMEOUT); was an output read before "
                    f"every device's call was made?"))
    if round_.error is not None:
        raise round_.error
    return round_.result


def _last_arrival(key, count):
    round_ = _gathering.get(key)
    return round_ is not None and len(round_.values) == count - 1


def _close(key, value, combine):
    """The last arrival: combine every value, hand the result to the waiting calls."""
    round_ = _gathering.pop(key)
    round_.values.append(value)
    try:
        round_.result = combine(round_.values)
    except Exception as error:
        _fail(key, round_, error)
        raise
    round_.closed = True
    _lock.notify_all()
    return round_.result


def _fail(key, round_, error):
    if _gathering.get(key) is round_:
        del _gathering[key]
    round_.error, round_.closed = error, True
    _lock.notify_all()
