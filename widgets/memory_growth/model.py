"""The seed's lazy-evaluation pitfall, measured: resident memory while batches are pushed.

Lesson: 05-lazy-evaluation.  Batches of ``nd.ones((batch_size, 1024))`` go through
the seed's network (Dense(width, relu), Dense(width, relu), Dense(1)) and an
L2 loss, in three ways: with a sync (``loss.wait_to_read()``) per batch, with
none, and with none but ``mx.engine.max_pending(k)`` bounding the queue.  A
background thread samples the process's resident memory (psutil) meanwhile.
The samples are plain data (``MemoryRun``); nothing here draws.
"""
import threading
import time
from dataclasses import dataclass, field

from minimx import storage
from minimx.profiler import resident_memory_mb as resident_mb

__all__ = ["MemoryRun", "MemorySampler", "MemoryGrowthExperiment", "resident_mb", "growth_mb",
           "downsample"]


def growth_mb(samples, baseline):
    """The highest sample above ``baseline`` (MB); 0 when memory never rose."""
    return max([mb for _, mb in samples] + [baseline]) - baseline


def downsample(samples, count):
    """At most about ``count`` points: per time bucket its lowest and highest sample, in time
    order, so the peaks (and so the growth) survive."""
    if len(samples) <= count:
        return list(samples)
    first, last = samples[0][0], samples[-1][0]
    width = (last - first) / max(1, count // 2) or 1.0
    buckets = {}
    for point in samples:
        key = int((point[0] - first) / width)
        low, high = buckets.get(key, (point, point))
        buckets[key] = (point if point[1] < low[1] else low, point if point[1] > high[1] else high)
    kept = []
    for key in sorted(buckets):
        kept.extend(sorted(set(buckets[key])))
    return kept


@dataclass
class MemoryRun:
    """One case of the experiment: samples ``(seconds since start, MB)`` and its milestones."""

    label: str
    baseline_mb: float
    samples: list = field(default_factory=list)
    batches_pushed: list = field(default_factory=list)   # when each loop iteration returned
    loop_s: float = None       # when the Python loop returned (all batches pushed)
    finished_s: float = None   # when nd.waitall() returned (all batches computed)
    done: bool = False

    @property
    def growth_mb(self):
        return growth_mb(self.samples, self.baseline_mb)

    @property
    def peak_mb(self):
        return self.baseline_mb + self.growth_mb


class MemorySampler:
    """Appends ``(t - start, resident MB)`` to ``run.samples`` every ``interval`` seconds."""

    def __init__(self, run, start, interval=0.005):
        self.run, self.start, self.interval = run, start, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memory-sampler", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def _loop(self):
        while True:
            self.run.samples.append((time.perf_counter() - self.start, resident_mb()))
            if self._stop.wait(self.interval):
                return

    def __exit__(self, *exc_info):
        self._stop.set()
        self._thread.join()
        self.run.samples.append((time.perf_counter() - self.start, resident_mb()))


class MemoryGrowthExperiment:
    """The three cases on one network.  ``runs`` fills in as ``run()`` proceeds.

    Parameters
    ----------
    batches, batch_size, width : int
        Batches per case, rows per batch, hidden units per Dense layer.
    max_pending : int
        The bound used in the third case.
    interval : float
        Seconds between memory samples.
    """

    def __init__(self, batches=60, batch_size=1024, width=1024, max_pending=8, interval=0.005):
        self.batches, self.batch_size, self.width = batches, batch_size, width
        self.max_pending, self.interval = max_pending, interval
        self.cases = [("sync every batch", True, None), ("no sync", False, None),
                      (f"no sync, max_pending({max_pending})", False, max_pending)]
        self.runs = []
        self._net = self._loss = None

    def _build(self):
        from minimx import gluon, nd
        net = gluon.nn.Sequential()
        with net.name_scope():
            net.add(gluon.nn.Dense(self.width, activation="relu"),
                    gluon.nn.Dense(self.width, activation="relu"), gluon.nn.Dense(1))
        net.initialize()
        self._net, self._loss = net, gluon.loss.L2Loss()
        for x, y in self._data(3):        # warm-up: the memory one batch needs is in use
            self._loss(y, net(x)).wait_to_read()
        nd.waitall()

    def _data(self, count):
        from minimx import nd
        for _ in range(count):
            yield nd.ones((self.batch_size, 1024)), nd.ones((self.batch_size,))

    def run_case(self, label, sync, max_pending=None):
        """Run one case; returns its ``MemoryRun`` (appended to ``runs`` when it starts)."""
        import minimx as mx
        if self._net is None:
            self._build()
        mx.nd.waitall()
        run = MemoryRun(label, resident_mb())
        self.runs.append(run)
        start = time.perf_counter()
        with MemorySampler(run, start, self.interval), mx.engine.max_pending(max_pending):
            for x, y in self._data(self.batches):
                loss = self._loss(y, self._net(x))
                if sync:
                    loss.wait_to_read()
                run.batches_pushed.append(time.perf_counter() - start)
            run.loop_s = time.perf_counter() - start
            mx.nd.waitall()
            run.finished_s = time.perf_counter() - start
        run.done = True
        return run

    def run(self):
        """Every case in turn; returns the runs.  minimx's memory pool keeps freed buffers
        (``minimx/storage.py``), which would hide what is alive from the resident size;
        the experiment runs without it."""
        with storage.unpooled():
            for label, sync, max_pending in self.cases:
                self.run_case(label, sync, max_pending)
        return self.runs
