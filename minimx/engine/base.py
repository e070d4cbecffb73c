"""What both engines share: running one operation and recording its failure.

Lesson: 05-lazy-evaluation.  Mirrors ``src/engine/engine_impl.h`` and the
exception handling of ``src/engine/threaded_engine.cc``: an error inside an
operation is stored on the vars it writes, passed on to every operation that
reads or writes them later, and raised once, at the next sync point.
"""
from ..backend import device_scope
from ..base import MXNetError, OperatorFailedError, operator_failure
from . import events
from .budget import BUDGET
from .var import Failure

__all__ = ["Engine", "wrap_error"]


def wrap_error(error, name):
    """``error`` as an MXNetError that names operator ``name``."""
    if isinstance(error, MXNetError) and name in str(error):
        return error
    wrapped = operator_failure(f"operator {name} failed: {type(error).__name__}: {error}", error)
    wrapped.__cause__ = error
    return wrapped


def inherited_failure(op):
    """The failure on a var ``op`` reads or writes, or None.

    Written vars count too, as in MXNet: ``x += 1`` on a failed ``x`` fails.
    A read var whose failure was already raised still has no value: reading it
    fails again with a new error that says so, instead of computing garbage.
    """
    for var in op.reads:
        failure = var.failure
        if failure is not None:
            if failure.error is not None:
                return failure
            return Failure(OperatorFailedError(
                f"operator {op.name}: an input has no value because an earlier operation "
                f"failed ({failure.message})"))
    for var in op.writes:
        failure = var.failure
        if failure is not None and failure.error is not None:
            return failure
    return None


class Engine:
    """Base of NaiveEngine and ThreadedEngine: running, errors, sync points."""

    def __init__(self):
        self.failures = []      # failures not yet raised at a sync point, oldest first

    def execute(self, op, pending=0, queued=0):
        """Run ``op`` now, or skip it if an input failed; store any failure on its writes.

        ``queued``: BLAS operations ready and waiting for a worker (they count against
        the BLAS threads ``op`` may use).  Returns the Failure (None if ``op`` ran cleanly).
        """
        if events.subscribers:
            events.emit("start", op, pending)
        failure = inherited_failure(op)
        if failure is None:
            BUDGET.before(op, queued)
            try:
                if op.ctx is not None and op.ctx.device_type == "gpu":
                    with device_scope(op.ctx):   # its device is current (CuPy allocates there)
                        op.fn()
                else:
                    op.fn()
            except BaseException as error:    # noqa: BLE001 - raised again at a sync point
                failure = Failure(wrap_error(error, op.name))
                self.remember(failure)
            finally:
                BUDGET.after(op)
        elif not any(known is failure for known in self.failures):
            self.remember(failure)            # a new failure made for an input without value
        for var in op.writes:
            var.failure = failure
        if events.subscribers:
            events.emit("end", op, pending, failure and failure.error)
        return failure

    def remember(self, failure):
        """Keep ``failure`` for ``wait_all``, forgetting those raised already."""
        if len(self.failures) >= 64:
            self.failures = [known for known in self.failures if known.error is not None]
        self.failures.append(failure)

    def raise_var_error(self, var):
        """Raise the failure stored on ``var``, if it has not been raised yet."""
        failure = var.failure
        if failure is not None and failure.error is not None:
            raise failure.take()

    def raise_unreported(self):
        """Raise the first failure not raised yet, and forget the others (MXNet's WaitForAll)."""
        failures, self.failures = self.failures, []
        errors = [failure.take() for failure in failures]
        for error in errors:
            if error is not None:
                raise error

    def drain(self):
        """Wait until every pushed operation is done, without raising its errors."""

    def stop(self):
        """Finish outstanding work and release threads."""
