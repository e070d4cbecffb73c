"""NaiveEngine: runs every operation inside ``push``, in the caller's thread.

Lesson: 05-lazy-evaluation.  Mirrors ``src/engine/naive_engine.cc``.  It is the
executable specification the ThreadedEngine must agree with, and the engine to
debug with: an operator's error surfaces at the line that called it.
"""
from . import events
from .base import Engine

__all__ = ["NaiveEngine"]


class NaiveEngine(Engine):
    """Synchronous engine: ``push`` returns when the operation has run."""

    name = "NaiveEngine"

    def push(self, op):
        if events.subscribers:
            events.emit("push", op, 1)
            events.emit("ready", op, 1)
        failure = self.execute(op, pending=1)
        op.done = True
        op.fn = None
        if failure is not None and failure.error is not None:
            if failure in self.failures:
                self.failures.remove(failure)
            raise failure.take()

    def wait_for_var(self, var):
        self.raise_var_error(var)

    def wait_all(self):
        self.raise_unreported()

    def pending_count(self):
        return 0
