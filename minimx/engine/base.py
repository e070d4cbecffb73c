"""What both engines share: running one operation and recording its failure.

Lesson: 04-lazy-evaluation.  Mirrors ``src/engine/engine_impl.h``.
"""
from ..base import MXNetError, OperatorFailedError
from . import events

__all__ = ["Engine"]


def _wrap_error(error, op):
    if isinstance(error, MXNetError) and op.name in str(error):
        return error
    wrapped = OperatorFailedError(f"operator {op.name} failed: {type(error).__name__}: {error}")
    wrapped.__cause__ = error
    return wrapped


class Engine:
    """Base of NaiveEngine and ThreadedEngine: running, errors, sync points."""

    def __init__(self):
        self.unreported_errors = []     # failures not yet raised at a sync point

    def execute(self, op, pending=0):
        """Run ``op`` now: skip it if an input carries an error, and record any failure.

        Returns the error (already stored on the vars ``op`` writes), or None.
        """
        if events.subscribers:
            events.emit("start", op, pending)
        error = None
        for var in op.reads:
            if var.exception is not None:
                error = var.exception        # a failed input poisons what is computed from it
                break
        if error is None:
            try:
                op.fn()
            except BaseException as exc:    # noqa: BLE001 - re-raised at the sync point
                error = _wrap_error(exc, op)
                self.unreported_errors.append(error)
        for var in op.writes:
            var.exception = error
        if events.subscribers:
            events.emit("end", op, pending, error)
        return error

    def raise_var_error(self, var):
        """Raise the error stored on ``var``, if any (it stays there for later reads)."""
        error = var.exception
        if error is not None:
            if error in self.unreported_errors:
                self.unreported_errors.remove(error)
            raise error

    def raise_unreported(self):
        """Raise the first failure since the last sync point, and forget the rest."""
        errors, self.unreported_errors = self.unreported_errors, []
        if errors:
            raise errors[0]

    def stop(self):
        """Finish outstanding work and release threads."""
