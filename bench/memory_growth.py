"""Why sync once per batch: without it the frontend queues every batch and memory grows.

The seed's demo: 60 batches of ``nd.ones((1024, 1024))`` through a 3-layer MLP
(FullyConnected 1024 -> relu -> 1024 -> relu -> 1) and an L2 loss.  With
``loss.wait_to_read()`` per batch only one batch is alive at a time.  Without it the
loop returns at once and the workers create the inputs of all 60 batches before the
layers consume them.  ``mx.engine.max_pending(k)`` bounds the queue instead.
Growth is the peak resident memory during the run minus the memory before it (after a
warm-up, so the memory one batch needs is already counted in "before").
"""
import time

from _util import PeakMemory, fmt, print_table, ratio

import minimx as mx
from minimx import nd

BATCHES = 60
BATCH_SIZE = 1024


def make_net():
    shapes = [(1024, 1024), (1024, 1024), (1, 1024)]
    weights = [nd.random.normal(0, 0.01, shape=shape) for shape in shapes]
    biases = [nd.zeros((shape[0],)) for shape in shapes]
    nd.waitall()

    def net(x):
        for index, (weight, bias) in enumerate(zip(weights, biases)):
            x = nd.FullyConnected(x, weight, bias, num_hidden=weight.shape[0])
            if index < 2:
                x = nd.relu(x)
        return x
    return net


def get_data():
    for _ in range(BATCHES):
        yield nd.ones((BATCH_SIZE, 1024)), nd.ones((BATCH_SIZE,))


def l2_loss(label, output):
    return nd.square(output.reshape((-1,)) - label) / 2


def run(net, sync, max_pending=None):
    """Peak memory growth (MB) and seconds for one pass over the batches."""
    with mx.engine.max_pending(max_pending), PeakMemory() as peak:
        start = time.perf_counter()
        for x, y in get_data():
            loss = l2_loss(y, net(x))
            if sync:
                loss.wait_to_read()
        queued = time.perf_counter() - start
        nd.waitall()
    return peak.growth, queued, time.perf_counter() - start


def main():
    net = make_net()
    for _, (x, y) in zip(range(10), get_data()):    # warm-up, as in the seed: the memory
        l2_loss(y, net(x)).wait_to_read()           # a batch needs is in use already
    cases = {"sync every batch": run(net, sync=True),
             "no sync": run(net, sync=False),
             "no sync, max_pending(8)": run(net, sync=False, max_pending=8)}
    with_sync = cases["sync every batch"][0]
    rows = [(name, fmt(growth, " MB"), ratio(growth, with_sync), f"{queued:.3f} s",
             f"{total:.2f} s") for name, (growth, queued, total) in cases.items()]
    print_table(f"{BATCHES} batches of {BATCH_SIZE}x1024 through a 3-layer MLP",
                ("case", "memory growth", "vs sync", "loop returned", "finished"), rows)
    return cases


if __name__ == "__main__":
    main()
