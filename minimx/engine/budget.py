"""The engine's CPU budget: how many workers run operations, how many BLAS threads each uses.

Lesson: 06-automatic-parallelism.  Mirrors MXNet's ``MXNET_CPU_WORKER_NTHREADS`` and its
OpenMP threads per operator, and PyTorch's ``torch.set_num_threads``.

numpy's BLAS (OpenBLAS) runs its own pool of threads inside every matrix product, one per
core, and they spin while they wait.  With two engine workers each calling BLAS, that is
more threads than cores before anything else runs, and when another program is busy the
pool waits for a core it cannot get: a (16,128)x(128,512) product takes 20 us on one
thread and 40-300 us on two.  So the engine owns the budget: it runs ``workers`` threads
(2 by default, at most one per core) and, before each operation, sets how many BLAS
threads that operation may use:

* nothing changes for an operation that calls no BLAS (``work == 0``: element-wise
  maths, copies, reductions).  Its numpy loop is one thread anyway, and the BLAS count
  is one setting for the whole process: a copy that set it to 1 would also take the
  second core from the product a convolution running beside it calls next;
* 1 when the operation's BLAS work is small (``OpDef.blas_work``, multiply-adds of its
  largest product, below ``PARALLEL_WORK``): threads cost more than they give there;
* else the *free* cores divided among the BLAS operations running or ready at that
  moment (at most one per worker), so that one big product on an idle machine uses
  every core, two independent ones use one each, side by side, and none waits for a
  core another program holds.  Free cores are the cores minus what other processes used
  lately (``LoadMonitor``: the machine's busy time in ``/proc/stat`` minus this process's
  own, in tenths of a second over the last half second).  The short element-wise
  operations around them do not count: a convolution's backward queued beside two
  gradient copies got one thread for its whole length while the copies were done in
  microseconds (a ResNet-18 step at 96x96, batch 256, on two cores: 6.3 s against 5.6 s
  with two threads throughout).

What the user fixed is respected: ``MINIMX_CPU_WORKER_NTHREADS`` (or MXNet's
``MXNET_CPU_WORKER_NTHREADS``) sets the workers; ``OPENBLAS_NUM_THREADS``,
``MKL_NUM_THREADS`` or ``OMP_NUM_THREADS`` (or ``MINIMX_BLAS_NTHREADS``) fix the BLAS
threads of every operation.  At run time, ``mx.engine.set_num_threads(workers=...,
blas=...)`` changes either and ``mx.engine.num_threads()`` reads the budget back.
The BLAS library is driven through ``threadpoolctl``.
"""
import collections
import math
import os
import threading
import time

__all__ = ["ThreadBudget", "BUDGET", "available_cores", "PARALLEL_WORK"]

WORKER_VARIABLES = ("MINIMX_CPU_WORKER_NTHREADS", "MXNET_CPU_WORKER_NTHREADS")
BLAS_VARIABLES = ("MINIMX_BLAS_NTHREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                  "OMP_NUM_THREADS")
DEFAULT_WORKERS = 2
# Multiply-adds of one product above which a second BLAS thread pays off on an idle
# machine (bench/thread_budget.py: 1.0x at 16x128x512 = 1.0M, 1.4x at 64x256x256 = 4.2M).
PARALLEL_WORK = 2_000_000


def available_cores():
    """The cores this process may use: its CPU affinity, capped by a cgroup CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as file:
            quota, period = file.read().split()
        if quota != "max":
            cores = min(cores, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)


class LoadMonitor:
    """How many of ``cores`` other processes leave free, sampled at most every ``period``
    seconds: machine busy time (``/proc/stat``, our CPUs only) minus this process's own
    CPU time (``time.process_time``).  Without ``/proc/stat`` every core counts as free.

    The first sample is taken at import, and until a period has passed one core counts as
    free: guessing "idle" beside a busy core costs far more (two BLAS threads waiting for a
    core they cannot get) than guessing "busy" on an idle machine (one BLAS thread for a
    tenth of a second).  ``/proc/stat`` counts in 10 ms ticks, so over 0.1 s the estimate
    is within about 0.2 of a core.  (With a period of 0.25 s and every core counted free
    until then, the course's MLP ``Module.fit``, 0.45 s in all, ran its first 0.2 s on two
    BLAS threads beside a busy core.)

    What others *use* understates what they *want* once this process competes with them:
    a busy loop sharing two cores with this process's three running threads gets about
    half a core.  Rounded, that looked like a free core now and then, the next operation
    took two BLAS threads, the busy loop got even less, and the char LSTM of the course
    ran 1.23-1.55 s instead of 1.21 s.  So a core counts as taken from ``TAKEN_FROM`` of
    its time used by others, and stays taken for the next ``HOLD`` periods."""

    TAKEN_FROM = 0.3
    HOLD = 5

    def __init__(self, cores, period=0.1):
        self.cores, self.period = cores, period
        self.free = 1
        self._taken = collections.deque(maxlen=self.HOLD)   # cores taken, per period
        self._sampling = threading.Lock()
        self._cpus = self._our_cpus()
        self._last = self._sample()

    @staticmethod
    def _our_cpus():
        try:
            return {f"cpu{index}" for index in os.sched_getaffinity(0)}
        except (AttributeError, OSError):
            return None

    def _sample(self):
        """(wall time, busy seconds of our CPUs, this process's CPU seconds) or None."""
        try:
            with open("/proc/stat") as file:
                lines = [line.split() for line in file if line.startswith("cpu")]
        except OSError:
            return None
        busy = 0
        for fields in lines:
            if fields[0] == "cpu" or (self._cpus is not None and fields[0] not in self._cpus):
                continue
            values = [int(v) for v in fields[1:9]]
            busy += sum(values) - values[3] - values[4]          # not idle, not iowait
        return time.monotonic(), busy / os.sysconf("SC_CLK_TCK"), time.process_time()

    def free_cores(self):
        if self._last is None:
            return self.cores
        if time.monotonic() - self._last[0] < self.period:
            return self.free
        # Workers ask at once; one samples.  A window shorter than a period (two workers
        # through the check above together) is not used: a 10 ms tick over a microsecond
        # would read as thousands of busy cores, held for HOLD periods.
        if not self._sampling.acquire(blocking=False):
            return self.free
        try:
            sample = self._sample()
            elapsed = sample[0] - self._last[0]
            if elapsed < self.period:
                return self.free
            others = ((sample[1] - self._last[1]) - (sample[2] - self._last[2])) / elapsed
            self._last = sample
            self._taken.append(max(0, math.ceil(others - self.TAKEN_FROM)))
            self.free = max(1, min(self.cores, self.cores - max(self._taken)))
            return self.free
        finally:
            self._sampling.release()


def _env_int(names):
    """(value, variable name) of the first of ``names`` set to a positive integer."""
    for name in names:
        text = os.environ.get(name, "").strip()
        if text:
            try:
                value = int(text)
            except ValueError:
                raise ValueError(f"{name}={text!r}: expected a positive integer") from None
            if value < 1:
                raise ValueError(f"{name}={text!r}: expected a positive integer")
            return value, name
    return None, None


class ThreadBudget:
    """Workers and BLAS threads within ``cores``; ``before(op, queued)`` and ``after(op)``
    bracket every operation an engine runs."""

    def __init__(self, cores=None):
        self.cores = cores or available_cores()
        workers, self.workers_from = _env_int(WORKER_VARIABLES)
        self.workers = workers or min(DEFAULT_WORKERS, self.cores)
        self.fixed_blas, self.blas_from = _env_int(BLAS_VARIABLES)
        self._running = []            # one token per BLAS operation running (append/pop: atomic)
        self._applied = None          # the BLAS thread count last set
        self._libraries = None
        self._lock = threading.Lock()
        self.load = LoadMonitor(self.cores)

    # -- per operation --------------------------------------------------------------------
    def blas_threads_for(self, work, busy):
        """BLAS threads for an operation of ``work`` multiply-adds while ``busy``
        operations (itself included) run or wait."""
        if self.fixed_blas is not None:
            return self.fixed_blas
        if work < PARALLEL_WORK:
            return 1
        return max(1, self.load.free_cores() // max(1, busy))

    def before(self, op, queued=0):
        """``queued``: BLAS operations ready and waiting for a worker."""
        if not op.work:
            return
        self._running.append(None)
        running = len(self._running)
        # the queued ones start only as workers free up: at most one per idle worker
        busy = running + min(queued, max(0, self.workers - running))
        wanted = self.blas_threads_for(op.work, busy)
        if wanted != self._applied:
            self.set_blas_threads(wanted)

    def after(self, op):
        if op.work:
            self._running.pop()

    # -- the BLAS library -----------------------------------------------------------------
    def set_blas_threads(self, count):
        """Set the process's BLAS thread count (OpenBLAS has one for the whole process).

        threadpoolctl lets only one Python thread change OpenBLAS's count, so that
        threads do not fight over it; here every engine thread decides under one lock,
        so the budget takes control (``clear_controlling_thread``) before each change.
        """
        with self._lock:
            if count == self._applied:
                return
            for library in self.blas_libraries():
                release = getattr(library, "clear_controlling_thread", None)
                if release is not None:
                    release(force=True)
                library.set_num_threads(count)
            self._applied = count

    def blas_libraries(self):
        """threadpoolctl's controllers of the BLAS libraries loaded in this process."""
        if self._libraries is None:
            try:
                from threadpoolctl import ThreadpoolController
            except ImportError:       # without it BLAS keeps its own setting
                self._libraries = []
            else:
                self._libraries = ThreadpoolController().select(user_api="blas").lib_controllers
        return self._libraries

    def blas_threads_now(self):
        """The BLAS thread count in force (as the libraries report it)."""
        counts = {library.num_threads for library in self.blas_libraries()}
        return counts.pop() if len(counts) == 1 else (sorted(counts) or None)

    def summary(self):
        return {"cores": self.cores, "free_cores": self.load.free, "workers": self.workers,
                "blas": self.fixed_blas if self.fixed_blas is not None else "auto",
                "blas_now": self.blas_threads_now(),
                "workers_from": self.workers_from or "default",
                "blas_from": self.blas_from or "auto"}

    def fix_blas(self, count):
        """Every operation uses ``count`` BLAS threads, from now on (None: decide per
        operation again)."""
        self.fixed_blas, self.blas_from = (count, "set_num_threads") if count else (None, None)
        self._applied = None
        if count:
            self.set_blas_threads(count)


BUDGET = ThreadBudget()      # the process's budget: every engine consults it
