"""What the engine queue view draws, as plain data computed from engine events.

Lesson: 05-lazy-evaluation.  Input: the ``EngineEvent`` list a subscriber of
``minimx.engine`` collects (``push``/``ready``/``start``/``end`` per operation), or
a Chrome trace written by ``minimx.profiler.dump`` (see trace.py).  Output: one
record per operation, the lanes of the timeline (frontend threads that push,
worker threads that run), the dependency edges through vars, the queue depth
over time, and time bins that summarise long runs.  The sync points (``SyncEvent``s of
``minimx.engine.subscribe_sync``: a frontend thread waiting for the engine) are kept beside
the operations; those of a value-dependent shape (``np.nonzero``, ``np.unique``, a boolean
mask) are told apart.  Nothing here draws.
"""
import collections
from dataclasses import dataclass, field

from minimx.engine import VALUE_DEPENDENT, SyncEvent

__all__ = ["OpRecord", "SyncRecord", "Lane", "Edge", "Bin", "EngineRecording", "add_events"]

STATES = ("pushed", "ready", "running", "done")


@dataclass
class OpRecord:
    """One engine operation and when each step of its life happened (seconds).

    ``queued`` is push to start (time spent in the engine before a worker took
    it); ``waiting`` is the part of it spent waiting for input vars (push to
    ready); ``running`` is start to end.  A time not observed is None.
    """

    op_id: int
    name: str
    ctx: str = ""
    reads: tuple = ()
    writes: tuple = ()
    frontend: str = None      # thread that pushed it
    worker: str = None        # thread that ran it
    push: float = None
    ready: float = None
    start: float = None
    end: float = None
    error: str = ""

    @property
    def queued(self):
        return _span(self.push, self.start)

    @property
    def waiting(self):
        return _span(self.push, self.ready)

    @property
    def running(self):
        return _span(self.start, self.end)

    def state_at(self, time):
        """'unpushed', 'pushed' (waiting for inputs), 'ready', 'running' or 'done' at ``time``."""
        for state, moment in (("done", self.end), ("running", self.start),
                              ("ready", self.ready)):
            if moment is not None and moment <= time:
                return state
        first = self.push if self.push is not None else self.start
        return "pushed" if first is not None and first <= time else "unpushed"


class SyncRecord(SyncEvent):
    """A frontend thread waiting for the engine from ``begin`` to ``end``: the engine's
    ``SyncEvent`` (``var`` None for ``wait_all``; ``waited_for`` the operation writing the
    var that was unfinished when the wait began, None if none was), with what the view
    asks of it."""

    __slots__ = ()

    @property
    def value_dependent(self):
        """A result whose shape depends on its input's values had to wait for it."""
        return self.reason == VALUE_DEPENDENT

    @property
    def waited(self):
        return self.end - self.begin


def _span(begin, end):
    return None if begin is None or end is None else end - begin


@dataclass(frozen=True)
class Lane:
    """One row of the timeline: a thread that pushes ('frontend') or runs ('worker')."""

    name: str
    kind: str


@dataclass(frozen=True)
class Edge:
    """``dst`` depends on ``src`` through var ``var``.

    ``kind`` is 'read after write', 'write after write' or 'write after read'.
    ``blocking``: ``src`` had not finished when ``dst`` was pushed, so the engine
    made ``dst`` wait for it.
    """

    src: int
    dst: int
    var: int
    kind: str
    blocking: bool


@dataclass
class Bin:
    """Activity in the time interval [start, end) of a long run."""

    start: float
    end: float
    pushes: dict = field(default_factory=dict)    # frontend lane -> operations pushed
    busy: dict = field(default_factory=dict)      # worker lane -> seconds spent running
    started: dict = field(default_factory=dict)   # worker lane -> operations started
    names: collections.Counter = field(default_factory=collections.Counter)
    max_depth: int = 0                            # most operations pending at once


class EngineRecording:
    """The operations seen during a recording, with the views derived from them.

    ``origin`` is time zero (the moment the recording began); ``now`` the moment of
    the snapshot (operations not finished by then are still in flight);
    ``var_labels`` maps var ids to readable labels (``"y (2000, 2000) float32"``);
    ``syncs`` are the ``SyncRecord``s (or ``SyncEvent``s) of the same stretch of time.
    """

    def __init__(self, ops, origin=None, now=None, var_labels=None, syncs=()):
        self.ops = sorted(ops, key=_push_order)
        self.by_id = {op.op_id: op for op in self.ops}
        self.syncs = sorted((SyncRecord(*sync) for sync in syncs), key=lambda s: s.begin)
        times = [t for op in self.ops for t in (op.push, op.ready, op.start, op.end)
                 if t is not None] + [t for s in self.syncs for t in (s.begin, s.end)]
        self.origin = origin if origin is not None else min(times, default=0.0)
        self.now = now if now is not None else max(times, default=self.origin)
        self.var_labels = dict(var_labels or {})

    # -- building ---------------------------------------------------------------------
    @classmethod
    def from_events(cls, events, origin=None, now=None, var_labels=None, syncs=()):
        """Records from ``EngineEvent``s (any order; an operation may lack some of them)."""
        return cls(add_events({}, events).values(), origin, now, var_labels, syncs)

    # -- derived views ----------------------------------------------------------------
    def lanes(self):
        """Frontend lanes in order of first push (or sync point), then worker lanes by name."""
        frontends = list(dict.fromkeys([op.frontend for op in self.ops if op.frontend] +
                                       [sync.thread for sync in self.syncs]))
        workers = sorted({op.worker for op in self.ops if op.worker})
        return [Lane(name, "frontend") for name in frontends] + \
               [Lane(name, "worker") for name in workers]

    def edges(self):
        """Dependencies through vars, in push order: the engine's ordering rule.

        A read depends on the last earlier write of the var; a write depends on
        the last earlier write and on every read since it.
        """
        last_write, readers, edges = {}, collections.defaultdict(list), []
        for op in self.ops:
            for var in dict.fromkeys(op.reads):
                if var in op.writes:
                    continue
                if var in last_write:
                    edges.append(self._edge(last_write[var], op, var, "read after write"))
                readers[var].append(op)
            for var in dict.fromkeys(op.writes):
                if var in last_write:
                    edges.append(self._edge(last_write[var], op, var, "write after write"))
                for reader in readers.pop(var, ()):
                    if reader is not op:
                        edges.append(self._edge(reader, op, var, "write after read"))
                last_write[var] = op
        return edges

    @staticmethod
    def _edge(src, dst, var, kind):
        pushed = dst.push if dst.push is not None else dst.start
        blocking = pushed is not None and (src.end is None or src.end > pushed)
        return Edge(src.op_id, dst.op_id, var, kind, blocking)

    def queue_depth(self):
        """Steps ``(time, pending, running)``: operations pushed and not finished, and
        those running, just after ``time``."""
        changes = []
        for op in self.ops:
            entered = op.push if op.push is not None else op.start
            if entered is None:
                continue
            changes.append((entered, 1, 0))
            if op.start is not None:
                changes.append((op.start, 0, 1))
            if op.end is not None:
                changes.append((op.end, -1, -1 if op.start is not None else 0))
        changes.sort(key=lambda change: (change[0], -change[1]))
        steps, pending, running = [(self.origin, 0, 0)], 0, 0
        for time, d_pending, d_running in changes:
            pending += d_pending
            running += d_running
            if steps[-1][0] == time:
                steps[-1] = (time, pending, running)
            else:
                steps.append((time, pending, running))
        return steps

    def max_depth(self):
        """The most operations pending (pushed, not finished) at any moment."""
        return max(pending for _, pending, _ in self.queue_depth())

    def bins(self, count):
        """``count`` equal time bins from origin to the last moment seen, each summarising
        pushes, busy time per worker, names run, and the deepest queue."""
        end = max(self.now, self.origin + 1e-9)
        width = (end - self.origin) / count
        bins = [Bin(self.origin + i * width, self.origin + (i + 1) * width) for i in range(count)]

        def index(time):
            return min(count - 1, max(0, int((time - self.origin) / width)))
        for op in self.ops:
            if op.push is not None and op.frontend:
                counts = bins[index(op.push)].pushes
                counts[op.frontend] = counts.get(op.frontend, 0) + 1
            if op.start is not None and op.worker:
                _add_busy(bins, index, op, op.end if op.end is not None else end)
        for time, pending, _ in self.queue_depth():
            target = bins[index(time)]
            target.max_depth = max(target.max_depth, pending)
        _carry_depth(bins, self.queue_depth())
        return bins

    def summary(self):
        """Headline figures: operations, frontend time, finish time, worker use, queue depth."""
        pushes = [op.push for op in self.ops if op.push is not None]
        ends = [op.end for op in self.ops if op.end is not None]
        workers = {}
        for op in self.ops:
            if op.worker and op.running is not None:
                workers[op.worker] = workers.get(op.worker, 0.0) + op.running
        last_push = max(pushes, default=self.origin) - self.origin
        finished = max(ends, default=self.origin) - self.origin
        busy = sum(workers.values())
        return {"operations": len(self.ops), "finished_ops": len(ends),
                "errors": sum(1 for op in self.ops if op.error),
                "last_push_s": last_push, "finished_s": finished,
                "worker_busy_s": workers, "busy_s": busy,
                "parallelism": busy / finished if finished > 0 else 0.0,
                "max_depth": self.max_depth(), "syncs": len(self.syncs),
                "value_dependent_syncs": sum(s.value_dependent for s in self.syncs)}


def add_events(records, events):
    """Fold ``events`` into ``records`` (op id -> OpRecord), creating records as needed.

    Lets a live view fold in only the events that arrived since its last refresh.
    """
    for event in events:
        record = records.get(event.op_id)
        if record is None:
            record = records[event.op_id] = OpRecord(
                event.op_id, event.name, event.ctx, tuple(event.reads), tuple(event.writes))
        setattr(record, event.kind, event.time)
        if event.kind == "push":
            record.frontend = event.thread
        elif event.kind == "start":
            record.worker = event.thread
        elif event.kind == "end" and event.error:
            record.error = event.error
    return records


def _push_order(op):
    first = op.push if op.push is not None else op.start
    return (first if first is not None else float("inf"), op.op_id)


def _add_busy(bins, index, op, stop):
    """Spread ``op``'s run time over the bins it overlaps."""
    lane = op.worker
    bins[index(op.start)].started[lane] = bins[index(op.start)].started.get(lane, 0) + 1
    bins[index(op.start)].names[op.name] += 1
    for position in range(index(op.start), index(stop) + 1):
        target = bins[position]
        overlap = min(stop, target.end) - max(op.start, target.start)
        if position == len(bins) - 1:
            overlap = stop - max(op.start, target.start)     # the last bin is closed
        if overlap > 0:
            target.busy[lane] = target.busy.get(lane, 0.0) + overlap


def _carry_depth(bins, steps):
    """A bin with no change of depth inside still has the depth carried in from before."""
    position, depth = 0, 0
    for target in bins:
        while position < len(steps) and steps[position][0] < target.start:
            depth = steps[position][1]
            position += 1
        target.max_depth = max(target.max_depth, depth)
