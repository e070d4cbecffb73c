"""The engine's thread budget, measured: which BLAS policy, on an idle and on a busy machine.

    .venv/bin/python bench/thread_budget.py

Three policies of ``mx.engine.set_num_threads(blas=...)``, each with the default two
workers: ``numpy`` (every operation may use every core, what numpy does by itself: the
budget off), ``1`` (one BLAS thread per operation) and ``auto`` (minimx's default: one
for small products, the free cores for large ones).  Workloads: one 2000x2000 product,
two independent ones pushed together, a chain of LSTM-step-sized products
(16x128 @ 128x512), and a training step of an MLP (batch 128).  Each runs idle and with
one core kept busy by another process (``_load.py``), policies interleaved, best of 5.
"""
import time

from _load import background_load
from _util import print_table

import minimx as mx
from minimx import autograd, gluon, nd

ROUNDS = 5


def best(function):
    function()                                   # warm-up (workers, plans)
    results = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        function()
        results.append(time.perf_counter() - start)
    return min(results)


def workloads():
    big = nd.random.uniform(shape=(2000, 2000))
    other = nd.random.uniform(shape=(2000, 2000))
    small_a, small_b = nd.random.uniform(shape=(16, 128)), nd.random.uniform(shape=(128, 512))
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(512, activation="relu"), gluon.nn.Dense(256, activation="relu"),
            gluon.nn.Dense(10))
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = nd.random.uniform(shape=(128, 784)), nd.random.randint(0, 10, shape=(128,))
    nd.waitall()

    def one_product():
        nd.dot(big, big).wait_to_read()

    def two_products():
        p, q = nd.dot(big, big), nd.dot(other, other)   # noqa: F841 - independent
        nd.waitall()

    def small_chain():
        for _ in range(500):
            nd.dot(small_a, small_b)
        nd.waitall()

    def mlp_steps():
        for _ in range(10):
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(128)
        nd.waitall()

    return {"one 2000^2 dot": one_product, "two 2000^2 dots together": two_products,
            "500 dots 16x128x512": small_chain, "10 MLP steps b128": mlp_steps}


POLICIES = {"numpy (budget off)": None, "1 BLAS thread": 1, "auto (default)": "auto"}


def measure():
    cores = mx.engine.num_threads()["cores"]
    work = workloads()
    figures = {}
    for _ in range(1):
        for name, function in work.items():
            for policy, blas in POLICIES.items():
                mx.engine.set_num_threads(blas=cores if blas is None else blas)
                figures[name, policy] = best(function)
    mx.engine.set_num_threads(blas="auto")
    return figures


def main():
    results = {"idle": measure()}
    with background_load():
        results["busy"] = measure()
    rows = []
    for machine, figures in results.items():
        for name in workloads():
            times = [figures[name, policy] for policy in POLICIES]
            rows.append((machine, name, *[f"{t * 1e3:.1f} ms" for t in times],
                         f"{times[0] / times[2]:.2f}x"))
    print_table(f"Thread budget ({mx.engine.num_threads()['cores']} cores, 2 workers; best of "
                f"{ROUNDS})", ("machine", "workload", *POLICIES, "auto vs numpy"), rows)
    one = {m: f[("one 2000^2 dot", "auto (default)")] for m, f in results.items()}
    two = {m: f[("two 2000^2 dots together", "auto (default)")] for m, f in results.items()}
    for machine in results:
        print(f"{machine}: two independent dots take {two[machine] / one[machine]:.2f}x one "
              f"dot's time (2.0x = no overlap); speedup of pushing them together "
              f"{2 * one[machine] / two[machine]:.2f}x")
    return results


if __name__ == "__main__":
    main()
