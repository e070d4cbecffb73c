"""Every optimizer's updates, four steps through an Updater, bit for bit against MXNet 1.9.1.

Found at stop 46: RMSProp took ``lr * g / sqrt(n + eps)`` as ``(lr * g) / ...`` and
``(1 - gamma1) * g * g`` in the other grouping from MXNet's kernel (about one weight in ten
a last bit apart per step), and FTML ran as separate ``nd`` operations in float64 scalars
(seven in ten); SGD and NAG: ``test_sgd_kernels_vs_mxnet.py``.  LAMB stays out: its two
norms are reductions whose summation order decides their last bit (within 2e-7 of MXNet's).
"""
from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
import numpy as onp
rng = onp.random.RandomState(0)
start = rng.randn(500).astype("float32")
grads = [rng.randn(500).astype("float32") for _ in range(4)]
results = {}
for name, extra in [("sgd", {}), ("sgd", {"momentum": 0.9}), ("nag", {"momentum": 0.9}),
                    ("adam", {"clip_gradient": 0.5}), ("rmsprop", {}),
                    ("rmsprop", {"centered": True}), ("adagrad", {}), ("adadelta", {}),
                    ("ftrl", {}), ("adamax", {}), ("nadam", {}), ("ftml", {}),
                    ("signum", {"momentum": 0.9})]:
    optimizer = mx.optimizer.create(name, learning_rate=0.01, wd=1e-4, rescale_grad=1 / 8,
                                    **extra)
    updater = mx.optimizer.get_updater(optimizer)
    weight = mx.nd.array(start)
    for grad in grads:
        updater(0, mx.nd.array(grad), weight)
    results[f"{name} {extra}"] = weight.asnumpy().view("uint32").tolist()
print(json.dumps(results))
"""


def test_optimizer_updates_match_mxnet_bit_for_bit(mxnet_python):
    mine, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    differing = [key for key in theirs if mine[key] != theirs[key]]
    assert not differing, differing
