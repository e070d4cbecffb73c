"""NaiveEngine: runs every operation inside ``push``, in the caller's thread.

Lesson: 04-lazy-evaluation.  Mirrors ``src/engine/naive_engine.cc``.  It is the
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
        error = self.execute(op, pending=1)
        op.done = True
        if error is not None:
            if error in self.unreported_errors:
                self.unreported_errors.remove(error)
            raise error

    def wait_for_var(self, var):
        self.raise_var_error(var)

    def wait_all(self):
        self.raise_unreported()

    def pending_count(self):
        return 0
