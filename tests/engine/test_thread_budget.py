"""The engine's thread budget: read back, user settings respected, no oversubscription."""
import json
import os
import subprocess
import sys
import threading

import pytest

import minimx as mx
from minimx import engine, nd
from minimx.engine import budget as budget_module
from minimx.engine.budget import PARALLEL_WORK, ThreadBudget

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_budget_reads_back_and_set_num_threads_changes_it():
    before = engine.num_threads()
    assert before["cores"] >= 1 and 1 <= before["workers"] <= max(2, before["cores"])
    with engine.threads(workers=1, blas=1) as inside:
        assert inside["workers"] == 1 and inside["blas"] == 1
        assert inside["blas_from"] == inside["workers_from"] == "set_num_threads"
        (nd.ones((300, 300)) + 1).wait_to_read()      # a worker computes it
        workers = [t.name for t in threading.enumerate() if t.name.startswith("engine-cpu")]
        assert len(workers) == 1
        assert engine.num_threads()["blas_now"] == 1
    after = engine.num_threads()
    assert (after["workers"], after["blas"]) == (before["workers"], before["blas"])


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="workers must be at least 1"):
        engine.set_num_threads(workers=0)
    with pytest.raises(ValueError, match="blas must be 'auto' or at least 1"):
        engine.set_num_threads(blas=0)


def read_budget(env):
    code = ("import json, minimx as mx; from minimx import nd; (nd.ones((2,)) + 1).asnumpy();"
            "print(json.dumps(mx.engine.num_threads()))")
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")
             and "WORKER_NTHREADS" not in k}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**clean, "PYTHONPATH": ROOT, **env})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("env, key, value, source", [
    ({"OPENBLAS_NUM_THREADS": "1"}, "blas", 1, "OPENBLAS_NUM_THREADS"),
    ({"OMP_NUM_THREADS": "2"}, "blas", 2, "OMP_NUM_THREADS"),
    ({"MXNET_CPU_WORKER_NTHREADS": "1"}, "workers", 1, "MXNET_CPU_WORKER_NTHREADS"),
    ({"MINIMX_CPU_WORKER_NTHREADS": "3", "MXNET_CPU_WORKER_NTHREADS": "1"}, "workers", 3,
     "MINIMX_CPU_WORKER_NTHREADS"),
])
def test_what_the_user_set_is_respected(env, key, value, source):
    budget = read_budget(env)
    assert budget[key] == value
    assert budget[f"{key}_from"] == source


def test_defaults_without_settings():
    budget = read_budget({})
    assert budget["blas"] == "auto" and budget["workers_from"] == "default"
    assert budget["workers"] == min(2, budget["cores"])


def test_a_bad_variable_names_itself():
    done = subprocess.run([sys.executable, "-c", "import minimx"], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT, "MINIMX_BLAS_NTHREADS": "two"})
    assert done.returncode != 0 and "MINIMX_BLAS_NTHREADS='two'" in done.stderr


class FakeLibrary:
    def __init__(self):
        self.num_threads, self.history = 4, []

    def set_num_threads(self, count):
        self.num_threads = count
        self.history.append(count)


def fake_budget(cores):
    budget = ThreadBudget(cores=cores)
    budget.fixed_blas = None
    budget._libraries = [FakeLibrary()]
    budget.load.free_cores = lambda: cores          # an idle machine
    return budget


class Op:
    def __init__(self, work):
        self.work = work


def test_small_products_get_one_thread_and_large_ones_share_the_free_cores():
    budget = fake_budget(cores=4)
    assert budget.blas_threads_for(PARALLEL_WORK - 1, busy=1) == 1
    assert budget.blas_threads_for(PARALLEL_WORK, busy=1) == 4
    assert budget.blas_threads_for(PARALLEL_WORK, busy=2) == 2
    assert budget.blas_threads_for(PARALLEL_WORK, busy=8) == 1
    budget.load.free_cores = lambda: 1              # another program holds three cores
    assert budget.blas_threads_for(PARALLEL_WORK, busy=1) == 1


def test_concurrent_large_operations_never_oversubscribe():
    budget = fake_budget(cores=4)
    library = budget._libraries[0]
    big = Op(10 ** 9)
    budget.before(big)                  # alone: every core
    assert library.num_threads == 4
    budget.before(big)                  # a second one starts beside it
    assert library.num_threads == 2
    budget.before(big, queued=2)        # four at once
    assert library.num_threads == 1
    for _ in range(3):
        budget.after(big)
    budget.before(Op(PARALLEL_WORK - 1))    # a small product: always one thread
    assert library.num_threads == 1
    budget.after(Op(PARALLEL_WORK - 1))
    assert library.history == [4, 2, 1]


def test_operations_without_blas_leave_the_setting_and_do_not_count():
    budget = fake_budget(cores=2)
    library = budget._libraries[0]
    big, copy = Op(10 ** 9), Op(0)
    budget.before(big)                  # a convolution: both cores
    budget.before(copy)                 # a copy starts beside it: no BLAS, no change
    assert library.num_threads == 2
    budget.after(copy)
    budget.after(big)
    budget.before(big, queued=1)        # another BLAS operation is ready: one core each
    assert library.num_threads == 1
    budget.after(big)
    assert library.history == [2, 1]


def test_queued_operations_count_only_up_to_the_workers():
    budget = fake_budget(cores=4)
    budget.workers = 2
    library = budget._libraries[0]
    budget.before(Op(10 ** 9), queued=5)    # at most two run at once
    assert library.num_threads == 2


def test_the_load_monitor_counts_other_processes():
    monitor = budget_module.LoadMonitor(cores=2, period=0.0)
    free = monitor.free_cores()
    assert 1 <= free <= 2


class ScriptedMonitor(budget_module.LoadMonitor):
    """A LoadMonitor whose samples are scripted: each sample comes ``step`` seconds after the
    last (1 unless ``steps`` says), and over it other processes used ``others`` cores' time
    (the machine's busy time minus this process's own)."""

    def __init__(self, cores, others, steps=None, period=0.0):
        self.script = iter(others)
        self.steps = iter(steps) if steps is not None else None
        self.clock = self.used = 0.0
        super().__init__(cores, period=period)       # takes the first sample, at clock 0

    def _sample(self):
        if self.clock:
            step = next(self.steps) if self.steps is not None else 1.0
            self.used += next(self.script) * step
        else:
            step = 1.0
        self.clock += step
        return self.clock, self.used, 0.0


def test_a_core_counts_as_taken_from_a_share_of_its_time():
    # 0.5 core: a busy loop that this process's own threads crowd out still takes a core
    monitor = ScriptedMonitor(cores=2, others=[0.0, 0.2, 0.5, 1.0, 1.4])
    assert [monitor.free_cores() for _ in range(5)] == [2, 2, 1, 1, 1]
    monitor = ScriptedMonitor(cores=4, others=[1.4])
    assert monitor.free_cores() == 2


def test_a_taken_core_stays_taken_for_the_hold():
    hold = budget_module.LoadMonitor.HOLD
    monitor = ScriptedMonitor(cores=2, others=[1.0] + [0.0] * (hold + 1))
    free = [monitor.free_cores() for _ in range(hold + 2)]
    assert free == [1] * hold + [2, 2]


def test_a_window_shorter_than_the_period_is_not_used():
    # two workers sampling together: the second sample comes a microsecond after the first,
    # where one 10 ms tick would read as 10,000 busy cores
    monitor = ScriptedMonitor(cores=2, others=[0.0, 10_000.0, 0.0], steps=[0.2, 1e-6, 0.2],
                              period=0.1)
    assert [monitor.free_cores() for _ in range(3)] == [2, 2, 2]


def test_one_core_counts_as_free_until_the_monitor_has_measured():
    monitor = ScriptedMonitor(cores=4, others=[], period=1e9)
    assert monitor.free_cores() == 1
