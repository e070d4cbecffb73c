"""Engine variables and operations: the vocabulary of MXNet's engine design note.

Lesson: 05-lazy-evaluation.  Mirrors ``src/engine/threaded_engine.h``
(``ThreadedVar``, ``OprBlock``) and the exception handling of
``src/engine/threaded_engine.cc``.
"""
import itertools

__all__ = ["Var", "Operation", "Failure"]

_var_ids = itertools.count()
_op_ids = itertools.count()


class Var:
    """The engine's handle on one buffer (one per NDArray chunk).

    Invariant kept by the engine: an operation that *writes* a var runs after
    every earlier read and write of it; an operation that *reads* a var runs
    after every earlier write of it.  Reads of one var may run together.

    ``last_write`` is the newest operation pushed that writes the var;
    ``reads`` the unfinished operations pushed after it that read the var (a
    dict used as an ordered set, so a finished reader removes itself in O(1));
    ``failure`` the ``Failure`` of the operation that last wrote it, if any.
    """

    __slots__ = ("id", "last_write", "reads", "failure", "__weakref__")

    def __init__(self):
        self.id = next(_var_ids)
        self.last_write = None
        self.reads = {}
        self.failure = None

    def __repr__(self):
        return f"Var({self.id})"


class Failure:
    """An operator error waiting for a sync point, shared by every var it poisoned.

    The failing operation's outputs, and the outputs of every operation computed
    from them, hold the *same* Failure.  The first sync point that meets it
    raises ``error`` and sets it to None, so the error is raised once, as in
    MXNet (its vars share one ``exception_ptr``).
    """

    __slots__ = ("error", "message")

    def __init__(self, error):
        self.error = error
        self.message = str(error)     # kept after the error is raised, for later reads

    def take(self):
        """The error, cleared here so that no other sync point raises it again."""
        error, self.error = self.error, None
        return error


class Operation:
    """One pushed function with the vars it reads and writes.

    ``waiting`` counts the unfinished operations it depends on; when it reaches
    zero the operation is ready and goes to a worker.  ``dependents`` are the
    operations waiting on this one; ``watched`` says a thread sleeps until it ends.
    ``work`` is the multiply-adds of its largest matrix product (0: none), from which
    the thread budget (``budget.py``) decides how many BLAS threads it may use.
    """

    __slots__ = ("id", "fn", "reads", "writes", "ctx", "name", "waiting", "dependents",
                 "done", "watched", "work", "small")

    def __init__(self, fn, reads, writes, ctx, name, work=0, small=False):
        self.id = next(_op_ids)
        self.fn = fn
        self.reads = reads
        self.writes = writes
        self.ctx = ctx
        self.name = name
        self.waiting = 0
        self.dependents = []
        self.work = work
        self.small = small          # cheaper to run than to hand to a worker (threaded.py)
        self.done = False
        self.watched = False        # a thread waits for this operation to end

    def __repr__(self):
        return f"Operation({self.id}, {self.name!r})"
