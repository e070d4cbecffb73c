"""``np.around`` / ``np.round`` bit for bit against MXNet 1.9.1 (found at stop 46).

MXNet scales by 10 one decimal at a time in the array's dtype, rounds with C's ``round``
and moves a half to the even neighbour, then scales back a decimal at a time; integers
divide toward zero.  NumPy's ``around`` (which minimx called) scales once by
``10 ** decimals``: from 2 decimals on about a quarter of float32 values came out a last
bit apart, ``around(-0.5)`` was -0 (MXNet: +0) and ``around(15, -1)`` 20 (MXNet: 10).
"""
import json

import numpy as onp
import pytest

from minimx import np as mnp
from same_program import on_minimx_np_mode, on_mxnet

PROGRAM = """
import json
import numpy as onp
mx.npx.set_np()
values = onp.array(json.loads(INPUT))
results = {}
for dtype in ("float32", "float64"):
    array = mx.np.array(values.astype(dtype), dtype=dtype)
    for decimals in (0, 1, 2, 3, -1, -2):
        out = mx.np.around(array, decimals).asnumpy()
        results[f"{dtype} {decimals}"] = out.view(f"u{out.itemsize}").tolist()
whole = mx.np.array(onp.array([15, -15, 25, 149, 150, -151, 5, 0], "int32"), dtype="int32")
for decimals in (-1, -2, 1):
    results[f"int32 {decimals}"] = mx.np.around(whole, decimals).asnumpy().tolist()
print(json.dumps(results))
"""


def _values():
    rng = onp.random.RandomState(3)
    specials = [-0.5, 0.5, -0.0, 0.0, 1.5, 2.5, -2.5, 0.125, -0.375, 1e30, onp.inf, -onp.inf]
    return onp.concatenate([rng.uniform(-10, 10, 400), onp.arange(-20, 20) + 0.5,
                            onp.round(rng.uniform(-100, 100, 200)) / 200, specials])


def test_around_matches_mxnet_bit_for_bit(mxnet_python):
    given = json.dumps(_values().tolist())
    assert on_minimx_np_mode(PROGRAM, given) == on_mxnet(mxnet_python, PROGRAM, given)


@pytest.mark.parametrize("value, decimals, expected", [
    (-0.5, 0, 0.0), (2.5, 0, 2.0), (-1.5, 0, -2.0), (0.25, 1, 0.2), (0.35, 1, 0.4), (15, -1, 10),
    (-151, -2, -100)])
def test_halves_go_to_the_even_neighbour_and_whole_numbers_are_cut(value, decimals, expected):
    dtype = "int32" if isinstance(value, int) else "float32"
    got = mnp.around(mnp.array(onp.array([value], dtype), dtype=dtype), decimals).asnumpy()[0]
    assert got == onp.array(expected, dtype) and onp.signbit(got) == onp.signbit(expected)


def test_float16_is_refused_as_in_mxnet():
    with pytest.raises(RuntimeError, match="float16"):
        mnp.around(mnp.array(onp.ones(2, "float16"), dtype="float16"), 1)
