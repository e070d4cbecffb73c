"""Random operators inside a control-flow body (contrib.foreach, while_loop, cond): every
step draws afresh, imperatively, in a bound graph and in a hybridized block, and a graph's
gradient goes through the numbers its forward drew (Dropout's mask), as in MXNet 1.9.1.
Random values cannot be compared across the two; what the program checks of them can:
the same program on both (tests/same_program.py)."""
import pytest

import minimx
from same_program import on_minimx, on_mxnet

pytestmark = pytest.mark.mxnet

PROGRAM = """
import json
import numpy as np
sym, nd = mx.sym, mx.nd
results = {}

def distinct_rows(array):
    return len({tuple(row) for row in np.round(array.reshape(array.shape[0], -1), 6)})

data, zero = nd.ones((6, 3)), nd.zeros((1,))
out, _ = nd.contrib.foreach(lambda d, s: (d * nd.random.uniform(shape=(3,)), s), data, [zero])
results["imperative foreach rows"] = distinct_rows(out.asnumpy())

x, s = sym.var("x"), sym.var("s")
outs, _ = sym.contrib.foreach(lambda d, st: (d * sym.random.uniform(shape=(3,)), st), x, [s])
ex = outs.bind(mx.current_context(), {"x": data, "s": zero})
first, second = ex.forward()[0].asnumpy(), ex.forward()[0].asnumpy()
results["graph foreach rows"] = distinct_rows(first)
results["graph foreach calls differ"] = bool(not np.allclose(first, second))
results["graph foreach in [0, 1)"] = bool(first.min() >= 0 and first.max() < 1)
results["graph foreach shape"] = list(first.shape)

# Dropout in the body: the gradient follows the forward's masks, which differ per step
w = sym.var("w")
drop, _ = sym.contrib.foreach(lambda d, st: (sym.Dropout(d * w, p=0.5, mode="always"), st),
                              x, [s])
values = np.random.RandomState(0).uniform(1, 2, (8, 40))
weights = np.random.RandomState(1).uniform(1, 2, (40,))
grad = nd.zeros((40,))
ex = drop.bind(mx.current_context(), {"x": nd.array(values), "s": zero, "w": nd.array(weights)},
               args_grad={"w": grad}, grad_req={"x": "null", "s": "null", "w": "write"})
dropped = ex.forward(is_train=True)[0].asnumpy()
ex.backward(nd.ones((8, 40)))
results["dropout masks"] = distinct_rows((dropped == 0).astype("float32"))
results["dropout gradient follows the forward"] = bool(np.allclose(
    grad.asnumpy(), (dropped / weights).sum(axis=0), rtol=1e-4))

# while_loop: the step outputs and the running sum agree within one forward
i, total = sym.var("i"), sym.var("total")
def func(i, total):
    draw = sym.random.normal(shape=(1,))
    return draw, [i + 1, total + draw]
steps, (_, final) = sym.contrib.while_loop(lambda i, total: i < 5, func, [i, total],
                                           max_iterations=5)
ex = sym.Group([steps, final]).bind(mx.current_context(), {"i": nd.zeros((1,)), "total": nd.zeros((1,))})
rows, summed = [a.asnumpy() for a in ex.forward()]
results["while rows"] = distinct_rows(rows)
results["while sum matches"] = bool(np.allclose(rows.sum(), summed.sum(), rtol=1e-5))

# cond: a branch that draws, chosen by a value
p, a = sym.var("p"), sym.var("a")
chosen = sym.contrib.cond(p > 0, lambda: a + sym.random.uniform(shape=(4,)), lambda: a * 0)
ex = chosen.bind(mx.current_context(), {"p": nd.ones((1,)), "a": nd.zeros((4,))})
drawn = [ex.forward()[0].asnumpy() for _ in range(2)]
results["cond draws per call"] = bool(not np.allclose(drawn[0], drawn[1]))

class Block(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x, state):
        out, _ = F.contrib.foreach(lambda d, st: (d * F.random.uniform(shape=(3,)), st),
                                   x, [state])
        return out

block = Block()
block.hybridize()
first, second = block(data, zero).asnumpy(), block(data, zero).asnumpy()
results["hybridized rows"] = distinct_rows(first)
results["hybridized calls differ"] = bool(not np.allclose(first, second))
print(json.dumps(results))
"""


def test_loop_bodies_draw_afresh_each_step(mxnet_python):
    theirs = on_mxnet(mxnet_python, PROGRAM)
    ours = on_minimx(PROGRAM)
    assert theirs["graph foreach rows"] == 6 and theirs["dropout masks"] == 8
    assert ours == theirs
