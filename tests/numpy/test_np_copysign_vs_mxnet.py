"""``np.copysign`` against MXNet 1.9.1, values and gradients (found at stop 46).

MXNet decides the sign by comparison, ``(a >= 0 && b >= 0) || (a < 0 && b < 0) ? a : -a``:
a -0 counts as positive and a NaN agrees with nothing.  NumPy's ``copysign`` (which minimx
called) reads the sign bit: ``copysign(-0, 1)`` was +0 (MXNet: -0), ``copysign(1, -0)``
-1 (MXNet: 1), ``copysign(inf, nan)`` inf (MXNet: -inf).
"""
import json

import numpy as onp

from same_program import on_minimx_np_mode, on_mxnet

PROGRAM = """
import json
import numpy as onp
mx.npx.set_np()
values = onp.array([onp.nan, -onp.inf, onp.inf, 0.0, -0.0, -1.5, 1.0, 2.0], "float32")
lhs, rhs = onp.meshgrid(values, values, indexing="ij")
a, b = mx.np.array(lhs), mx.np.array(rhs)
a.attach_grad()
with mx.autograd.record():
    out = mx.np.copysign(a, b)
out.backward()
whole = mx.np.array(onp.array([-2, 0, 3], "int32"), dtype="int32")
results = {
    "value": out.asnumpy().view("u4").tolist(), "grad": a.grad.asnumpy().tolist(),
    "scalar": mx.np.copysign(a, -1.0).asnumpy().view("u4").tolist(),
    "rscalar": mx.np.copysign(2.0, b).asnumpy().view("u4").tolist(),
    "int": [str(mx.np.copysign(whole, whole).dtype),
            mx.np.copysign(whole, -whole).asnumpy().tolist()],
}
print(json.dumps(results))
"""


def test_copysign_matches_mxnet(mxnet_python):
    assert on_minimx_np_mode(PROGRAM) == on_mxnet(mxnet_python, PROGRAM)
