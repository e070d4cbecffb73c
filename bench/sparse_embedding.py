"""One training step of a large Embedding, its gradient dense or row-sparse.

    python bench/sparse_embedding.py

A 100,000 x 64 embedding looks up a batch of 512 ids (at most 512 of its rows); the step is
forward, backward and an Adam update (``lazy_update``).  With ``sparse_grad=True`` the
gradient holds only the rows looked up, and the update touches only those: its cost follows
the batch, not the vocabulary.  The same code runs on minimx and on MXNet 1.9.1, each in a
fresh process, in alternating rounds; each figure is the best of its rounds (ms per step).
"""
from _util import best_of_rounds, fmt, print_table, ratio

ROUNDS = 3
WORKLOAD = """
import json, time
import numpy as np
import {lib} as mx
ids = mx.nd.array(np.random.RandomState(0).randint(0, 100000, (512,)))
times = {{}}
for sparse in (False, True):
    net = mx.gluon.nn.Embedding(100000, 64, sparse_grad=sparse)
    net.initialize(mx.init.Uniform(0.1))
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {{"learning_rate": 0.01}},
                               kvstore=None)
    def step():
        with mx.autograd.record():
            loss = net(ids).sum()
        loss.backward()
        trainer.step(1)
        net.weight.data().wait_to_read()
    step()                                   # warm-up: states, first allocations
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(5):
            step()
        best = min(best, (time.perf_counter() - start) / 5 * 1e3)
    times["sparse" if sparse else "dense"] = best
print(json.dumps(times))
"""


def main():
    ours, theirs = best_of_rounds(WORKLOAD, ROUNDS)
    rows = [(f"Embedding 100000x64, batch 512, Adam step, {kind} gradient",
             fmt(ours.get(kind), " ms"), fmt(theirs.get(kind), " ms"),
             ratio(ours.get(kind), theirs.get(kind))) for kind in ("dense", "sparse")]
    print_table("sparse_grad, best of rounds", ("measure", "minimx", "MXNet 1.9.1", "ratio"),
                rows)
    return rows


if __name__ == "__main__":
    main()
