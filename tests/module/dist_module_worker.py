"""One worker of the Module data-parallel test (run under mpirun, or alone).

    python dist_module_worker.py KVTYPE OUT_DIR

Every worker sees the same 64 examples; in each global batch of 16, worker r trains on
rows r::num_workers (batch_size 16 / num_workers) with ``Module.fit(kvstore=KVTYPE)``.
Workers initialise with different seeds: the store's ``init`` gives them rank 0's values.
Each writes ``OUT_DIR/rank<r>.json`` with its final parameters.
"""
import json
import os
import sys

import numpy as np

import minimx as mx

GLOBAL_BATCH, SAMPLES = 16, 64


def main(kvtype, out_dir):
    kv = mx.kv.create(kvtype)
    rank, workers = kv.rank, kv.num_workers
    rng = np.random.RandomState(3)
    x = rng.normal(size=(SAMPLES, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.float32)
    rows = np.arange(SAMPLES).reshape(-1, GLOBAL_BATCH)[:, rank::workers].ravel()
    train = mx.io.NDArrayIter(x[rows], y[rows], batch_size=GLOBAL_BATCH // workers)
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=8, name="fc1")
    net = mx.sym.Activation(net, act_type="tanh")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=2, name="fc2"),
                               name="softmax")
    mx.random.seed(100 + rank)            # differs per worker on purpose
    mod = mx.mod.Module(net)
    mod.fit(train, num_epoch=3, kvstore=kv, initializer=mx.init.Xavier(), progress=False,
            optimizer_params={"learning_rate": 0.5, "momentum": 0.5})
    params = {k: v.asnumpy().tolist() for k, v in mod.get_params()[0].items()}
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as stream:
        json.dump({"rank": rank, "num_workers": workers, "params": params}, stream)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
