"""One worker of the distributed KVStore tests (run under mpirun, or alone).

    python dist_worker.py train KVTYPE OUT_DIR [update_on_kvstore|local_update]
    python dist_worker.py api KVTYPE OUT_DIR

``train``: data-parallel linear regression.  The data set (64 samples) is the
same on every worker; worker r trains on rows r::num_workers of each global
batch of 16, pushes the gradient of sum(squared error) / 16, and either lets
the store apply SGD (``update_on_kvstore``) or pulls the summed gradient and
updates locally.  One process on all rows must get the same weights.
Every worker starts from a different random weight: init must broadcast rank 0's.
``api``: init/push/pull/pushpull/broadcast/barrier across workers.
Each worker writes ``OUT_DIR/rank<r>.json``.
"""
import json
import os
import sys

import numpy as np

import minimx as mx
from minimx import autograd, nd

GLOBAL_BATCH, SAMPLES, STEPS, LR = 16, 64, 6, 0.1


def make_data():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(SAMPLES, 3)).astype(np.float32)
    y = (x @ np.array([1.5, -2.0, 0.5], dtype=np.float32) + 0.3).astype(np.float32)
    return x, y.reshape(-1, 1)


def full_loss(x, y, weight, bias):
    return float(((nd.dot(nd.array(x), weight) + bias - nd.array(y)) ** 2).mean().asscalar())


def train(kv, mode):
    x, y = make_data()
    rank, workers = kv.rank, kv.num_workers
    rng = np.random.default_rng(100 + rank)             # differs per worker on purpose
    weight = nd.array(rng.normal(size=(3, 1)))
    bias = nd.zeros((1,))
    kv.init("weight", weight)
    kv.init("bias", bias)
    kv.pull("weight", out=weight)
    kv.pull("bias", out=bias)
    initial = full_loss(x, y, weight, bias)
    if mode == "update_on_kvstore":
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=LR, momentum=0.5))
    for step in range(STEPS):
        start = (step * GLOBAL_BATCH) % SAMPLES
        rows = np.arange(start, start + GLOBAL_BATCH)[rank::workers]
        data, label = nd.array(x[rows]), nd.array(y[rows])
        for param in (weight, bias):
            param.attach_grad()
        with autograd.record():
            loss = ((nd.dot(data, weight) + bias - label) ** 2).sum() / GLOBAL_BATCH
        loss.backward()
        for name, param in (("weight", weight), ("bias", bias)):
            if mode == "update_on_kvstore":
                kv.push(name, param.grad)
                kv.pull(name, out=param)
            else:
                kv.pushpull(name, param.grad)
                param -= LR * param.grad
    kv.barrier()
    if mode == "update_on_kvstore":     # dist_async: everyone's last push is applied now
        kv.pull("weight", out=weight)
        kv.pull("bias", out=bias)
    return {"initial_loss": initial, "loss": full_loss(x, y, weight, bias),
            "weight": weight.asnumpy().ravel().tolist(), "bias": bias.asnumpy().tolist()}


def api(kv):
    rank, workers = kv.rank, kv.num_workers
    result = {}
    kv.init(3, nd.ones((2,)) * (rank + 5))               # rank 0's value wins
    out = nd.zeros((2,))
    kv.pull(3, out=out)
    result["init"] = out.asnumpy().tolist()
    kv.barrier()             # dist_async: nobody pushes before everyone has read the init value
    kv.push(3, [nd.ones((2,)) * (rank + 1), nd.ones((2,))])  # local sum, then over workers
    kv.pull(3, out=out)
    result["push"] = out.asnumpy().tolist()
    kv.init([4, 5], [nd.zeros((3,)), nd.zeros((1,))])
    outs = [nd.zeros((3,)), nd.zeros((1,))]
    kv.pushpull([4, 5], [nd.ones((3,)) * rank, nd.ones((1,))], out=outs)
    result["pushpull"] = [array.asnumpy().tolist() for array in outs]
    try:
        kv.pull(99, out=out)
    except mx.base.MXNetError as error:
        result["missing"] = str(error)
    kv.barrier()
    result["rank"], result["num_workers"] = rank, workers
    return result


def main():
    task, kvtype, out_dir = sys.argv[1:4]
    kv = mx.kv.create(kvtype)
    if task == "train":
        result = train(kv, sys.argv[4] if len(sys.argv) > 4 else "update_on_kvstore")
    else:
        result = api(kv)
    result.update(rank=kv.rank, num_workers=kv.num_workers, type=kv.type)
    with open(os.path.join(out_dir, f"rank{kv.rank}.json"), "w") as file:
        json.dump(result, file)


if __name__ == "__main__":
    main()
