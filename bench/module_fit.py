"""Module.fit throughput: the 784-512-256-10 MLP, batch 128, synthetic data, minimx vs MXNet.

    python bench/module_fit.py [--blas-threads N]

The same script text trains with ``minimx`` and with MXNet 1.9.1 (when its interpreter is
found), each in a fresh process: one warm-up epoch, then the best of three 2-epoch ``fit``
calls (SGD, Accuracy), in samples per second; the two take turns three times.  Then,
for minimx only, the same batches through growing parts of the loop (forward+backward,
+ update, + metric), so the difference between two rows is the cost of one part of ``fit``.

``--blas-threads N`` sets ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``MKL_NUM_THREADS`` for both frameworks.  On a machine busy with other work, a
multi-threaded BLAS that spins while waiting for its other threads can run many
times slower than one thread (numpy's OpenBLAS suffers more than MXNet's OpenMP
kernels), so ``--blas-threads 1`` gives the comparison that load disturbs least.
"""
import argparse
import os
import subprocess
import sys

from _util import MLP_SYMBOL, REPO, fmt, print_table, ratio, run_mxnet

BATCHES = 20           # per epoch
WORKLOAD = """
import time, warnings
import numpy as np
import {lib} as mx
warnings.simplefilter("ignore")
rng = np.random.RandomState(0)
n = 128 * {batches}
x = rng.rand(n, 784).astype("float32")
y = rng.randint(0, 10, n).astype("float32")
train = mx.io.NDArrayIter(x, y, batch_size=128)
""" + MLP_SYMBOL + """mod = mx.mod.Module(net)
fit = dict(optimizer="sgd", optimizer_params={{"learning_rate": 0.01}}, **{fit_extra})
mod.fit(train, num_epoch=1, **fit)
best = 0.0
for _ in range(3):
    start = time.perf_counter()
    mod.fit(train, num_epoch=2, **fit)
    best = max(best, 2 * n / (time.perf_counter() - start))
{phases}
print(best)
"""

# minimx only: the parts of fit's loop, timed on the same module
PHASES = """
def loop(update, metric):
    acc = mx.metric.Accuracy()
    train.reset()
    start = time.perf_counter()
    for batch in train:
        mod.forward_backward(batch)
        if update:
            mod.update()
        if metric:
            mod.update_metric(acc, batch.label)
    mx.nd.waitall()
    return n / (time.perf_counter() - start)
for label, flags in (("forward+backward", (False, False)), ("+ update", (True, False)),
                     ("+ metric", (True, True))):
    print(label, max(loop(*flags) for _ in range(3)))
"""


def minimx_run():
    """(fit samples/s, {phase: samples/s}) in a fresh minimx process."""
    code = WORKLOAD.format(lib="minimx", batches=BATCHES, fit_extra='{"progress": False}',
                           phases=PHASES)
    env = dict(os.environ, PYTHONPATH=REPO)
    output = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True).stdout.strip().splitlines()
    phases = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in output[:-1]}
    return float(output[-1]), phases


def mxnet_run():
    output = run_mxnet(WORKLOAD.format(lib="mxnet", batches=BATCHES, fit_extra="{}",
                                       phases=""))
    return None if output is None else float(output)


def main(rounds=3):
    """Print the tables; return {'minimx': samples/s, 'MXNet 1.9.1': samples/s or None}.

    The two frameworks take turns ``rounds`` times and each keeps its best result, so a
    burst of load on the machine does not favour one of them.
    """
    ours, theirs, phases = 0.0, None, {}
    for _ in range(rounds):
        result, round_phases = minimx_run()
        if result > ours:
            ours, phases = result, round_phases
        other = mxnet_run()
        if other is None:
            continue
        theirs = max(theirs or 0.0, other)
    print_table("Module.fit, MLP 784-512-256-10, batch 128 (samples/s, higher is better)",
                ("framework", "samples/s", "vs MXNet"),
                [("minimx", fmt(ours), ratio(ours, theirs)),
                 ("MXNet 1.9.1", fmt(theirs), "1.00x" if theirs else "-")])
    print_table("minimx: parts of the training loop (samples/s)", ("loop", "samples/s"),
                [(label, fmt(value)) for label, value in phases.items()] +
                [("fit (callbacks, iterator, logging)", fmt(ours))])
    return {"minimx": ours, "MXNet 1.9.1": theirs}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="BLAS/OpenMP threads of both frameworks (default: theirs)")
    parser.add_argument("--rounds", type=int, default=3, help="turns each framework takes")
    options = parser.parse_args()
    if options.blas_threads:
        threads = str(options.blas_threads)
        os.environ.update(OMP_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads,
                          MKL_NUM_THREADS=threads)
    main(options.rounds)
