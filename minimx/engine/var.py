"""Engine variables and operations: the vocabulary of MXNet's engine design note.

Lesson: 04-lazy-evaluation.  Mirrors ``src/engine/threaded_engine.h``
(``ThreadedVar``, ``OprBlock``).
"""
import itertools

__all__ = ["Var", "Operation"]

_var_ids = itertools.count()
_op_ids = itertools.count()


class Var:
    """The engine's handle on one buffer (one per NDArray chunk).

    Invariant kept by the engine: an operation that *writes* a var runs after
    every earlier read and write of it; an operation that *reads* a var runs
    after every earlier write of it.  Reads of one var may run together.

    ``last_write`` is the newest operation pushed that writes the var;
    ``reads`` the operations pushed after it that read the var;
    ``exception`` the error of the operation that last failed to write it.
    """

    __slots__ = ("id", "last_write", "reads", "exception", "__weakref__")

    def __init__(self):
        self.id = next(_var_ids)
        self.last_write = None
        self.reads = []
        self.exception = None

    def __repr__(self):
        return f"Var({self.id})"


class Operation:
    """One pushed function with the vars it reads and writes.

    ``waiting`` counts the unfinished operations it depends on; when it reaches
    zero the operation is ready and goes to a worker.  ``dependents`` are the
    operations waiting on this one.
    """

    __slots__ = ("id", "fn", "reads", "writes", "ctx", "name", "waiting", "dependents",
                 "done", "push_time")

    def __init__(self, fn, reads, writes, ctx, name):
        self.id = next(_op_ids)
        self.fn = fn
        self.reads = reads
        self.writes = writes
        self.ctx = ctx
        self.name = name
        self.waiting = 0
        self.dependents = []
        self.done = False
        self.push_time = 0.0

    def __repr__(self):
        return f"Operation({self.id}, {self.name!r})"
