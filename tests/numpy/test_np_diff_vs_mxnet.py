"""``np.diff`` bit for bit against MXNet 1.9.1, values and gradients (found at stop 46).

MXNet's kernel sums the shifted copies from 0, ``a[k:]`` for ``k = n .. 0``, each times
``(-1)**(n-k) * C(n, k)``; minimx differenced ``n`` times as NumPy does, which for ``n >= 2``
rounds differently (``(a2 - a1) - (a1 - a0)`` against ``(0 + a2 - 2 a1) + a0``).
"""
import numpy as onp

from minimx import np as mnp
from same_program import on_minimx_np_mode, on_mxnet

PROGRAM = """
import json
import numpy as onp
mx.npx.set_np()
rng = onp.random.RandomState(0)
x = rng.randn(6, 9).astype("float32")
results = {}
for n in (1, 2, 3, 4):
    for axis in (0, -1):
        a = mx.np.array(x)
        a.attach_grad()
        with mx.autograd.record():
            y = mx.np.diff(a, n=n, axis=axis)
        y.backward(mx.np.ones(y.shape) * 1.5)
        results[f"{n} {axis}"] = [y.asnumpy().view("uint32").tolist(),
                                  a.grad.asnumpy().view("uint32").tolist()]
whole = mx.np.array(rng.randint(-50, 50, (4, 7)).astype("int32"), dtype="int32")
results["int32"] = [mx.np.diff(whole, n=3).asnumpy().tolist(), str(mx.np.diff(whole).dtype)]
print(json.dumps(results))
"""


def test_diff_matches_mxnet_bit_for_bit(mxnet_python):
    assert on_minimx_np_mode(PROGRAM) == on_mxnet(mxnet_python, PROGRAM)


def test_diff_sums_the_binomial_terms_in_mxnets_order():
    values = onp.array([0.1, 0.7, 0.3, 1e-3, 2.5], "float32")
    expected = []
    for i in range(3):
        total = onp.float32(0) + values[i + 2]
        total = total + values[i + 1] * onp.float32(-2)
        expected.append(total + values[i])
    got = mnp.diff(mnp.array(values), n=2).asnumpy()
    assert got.view("uint32").tolist() == onp.array(expected, "float32").view("uint32").tolist()
