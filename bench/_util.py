"""Helpers shared by the benchmark scripts: timing, resident memory, MXNet in a subprocess."""
import os
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)          # run from anywhere without installing minimx


def best_of(repeats, function):
    """The smallest of ``repeats`` results of ``function()``: the least disturbed run."""
    return min(function() for _ in range(repeats))


# The MLP 784-512-256-10 of the Module benchmarks, as program text (``mx`` is the framework):
# bench/module_fit.py and the course workloads both train it with Module.fit.
MLP_SYMBOL = """
net = mx.sym.Variable("data")
for i, width in enumerate((512, 256)):
    net = mx.sym.FullyConnected(net, num_hidden=width, name="fc%d" % (i + 1))
    net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=10, name="fc3"),
                           name="softmax")
"""


def mxnet_python():
    """The interpreter that has MXNet 1.9.1: $MINIMX_MXNET_PYTHON, else /opt/mxref/bin/python."""
    path = os.environ.get("MINIMX_MXNET_PYTHON", "/opt/mxref/bin/python")
    return path if os.path.exists(path) else None


def torch_python():
    """This interpreter when it imports torch, else $MINIMX_TORCH_PYTHON, else None."""
    try:
        import torch                       # noqa: F401
        return sys.executable
    except ImportError:
        path = os.environ.get("MINIMX_TORCH_PYTHON")
        return path if path and os.path.exists(path) else None


def run_mxnet(code, timeout=600):
    """Run ``code`` with MXNet's interpreter; return its last output line, or None without it."""
    python = mxnet_python()
    if python is None:
        return None
    result = subprocess.run([python, "-c", code], capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        print("MXNet run failed:", result.stderr.strip().splitlines()[-1:], file=sys.stderr)
        return None
    return result.stdout.strip().splitlines()[-1]


def run_minimx(code, engine_name):
    """Run ``code`` in a fresh Python with minimx on ``engine_name``; return its stdout."""
    env = dict(os.environ, MINIMX_ENGINE_TYPE=engine_name, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=REPO).stdout


# Source of a forward/backward timer (``time``, ``nd`` and ``autograd`` imported): the best
# milliseconds of ``forward()`` under ``autograd.record`` and of its backward (a head of
# ones) over 3 repeats after a warm-up; ``clock`` is ``time.process_time`` (CPU of every
# thread) or ``time.perf_counter``; ``grads`` the arrays whose gradients backward waits for.
FORWARD_BACKWARD_MS = """
def forward_backward_ms(forward, grads, clock):
    head = None
    best = [float("inf"), float("inf")]
    for repeat in range(4):                           # the first is a warm-up
        start = clock()
        with autograd.record():
            y = forward()
        y.wait_to_read()
        middle = clock()
        if head is None:
            head = nd.ones(y.shape)
        y.backward(head)
        for array in grads:
            array.grad.wait_to_read()
        end = clock()
        if repeat:
            best = [min(best[0], middle - start), min(best[1], end - middle)]
    return [t * 1e3 for t in best]
"""


# Source of the per-op timing loop (``time`` and ``nd`` imported, ``{n}`` to format in):
# ``per_op()`` pushes ``y = x + 1`` on a shape-(1,) array {n} times, waits, returns us per op;
# ``per_op(np.ones)`` does so on an ``mx.np`` array.
ADD_ONE_PER_OP = """
def per_op(ones=None):
    x = (ones or nd.ones)((1,))
    nd.waitall()
    start = time.perf_counter()
    for _ in range({n}):
        y = x + 1
    nd.waitall()
    return (time.perf_counter() - start) / {n} * 1e6
"""


def rss_mb():
    """Resident memory of this process in MB."""
    from minimx.profiler import resident_memory_mb
    return resident_memory_mb()


class PeakMemory:
    """``with PeakMemory() as peak:`` samples RSS every millisecond; ``peak.growth`` in MB."""

    def __enter__(self):
        self.start = self.peak = rss_mb()
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self):
        while self.running:
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.001)

    def __exit__(self, *exc_info):
        self.running = False
        self.thread.join()
        self.peak = max(self.peak, rss_mb())
        self.growth = self.peak - self.start


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def fmt(value, unit=""):
    return "-" if value is None else f"{value:.3g}{unit}"


def print_table(title, header, rows):
    """Print rows (tuples of strings) under ``header`` as aligned columns."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    print(f"\n{title}")
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))


def best_of_rounds(workload, rounds):
    """Run ``workload`` (program text with ``{lib}`` for the framework's module, printing one
    JSON object of timings last) on minimx and on MXNet, alternating, ``rounds`` times; the
    smallest figure per key on each side: ``(minimx's, MXNet's)``, MXNet's empty without it."""
    import json
    sides = ({}, {})
    for _ in range(rounds):
        outputs = (run_minimx(workload.format(lib="minimx"), "ThreadedEngine"),
                   run_mxnet(workload.format(lib="mxnet")))
        for best, output in zip(sides, outputs):
            figures = json.loads(output.strip().splitlines()[-1]) if output else {}
            for key, value in figures.items():
                best[key] = min(best.get(key, float("inf")), value)
    return sides
