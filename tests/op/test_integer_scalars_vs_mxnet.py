"""A scalar beside an integer array, as MXNet 1.9.1's kernels take it: the C cast of the
double parameter to the array's dtype (``common.scalar_in``), so ``uint8 + 300`` adds 44,
``uint8 * -1`` multiplies by 255 and ``uint8 > -1`` compares with 255; ``clip`` compares
with its bounds as given.  Under NumPy 2 each of these raised OverflowError ("Python
integer 300 out of bounds for uint8"), on both frontends."""
import json

import numpy as np
import pytest

from minimx.op.common import scalar_in
from same_program import on_minimx, on_minimx_np_mode, on_mxnet

ND = ["nd.array([1, 2], dtype='uint8') + 300", "nd.array([1, 2], dtype='uint8') - 3",
      "nd.array([1, 2], dtype='uint8') * -1", "nd.array([1, 2], dtype='int8') + 200",
      "nd.full((2,), -1, dtype='uint8')", "nd.full((2,), 300, dtype='uint8')",
      "nd.full((2,), 2.7, dtype='int32')", "nd.array([1, 2], dtype='uint8') > -1",
      "nd.array([1, 2], dtype='uint8') == 257", "nd.array([1, 200], dtype='uint8') < 300",
      "nd.clip(nd.array([1, 200], dtype='uint8'), -5, 100)",
      "nd.maximum(nd.array([1, 2], dtype='uint8'), -1)",
      "nd.maximum(nd.array([1, 2], dtype='int8'), 300)",
      "nd.minimum(nd.array([1, 2], dtype='uint8'), -1)",
      "300 - nd.array([1, 2], dtype='uint8')", "nd.array([1, 2], dtype='int32') + 2**40",
      "nd.array([1, 2], dtype='int64') + 2**40", "nd.array([1, 2], dtype='uint8') + 2**40",
      "nd.array([1, 2], dtype='uint8') + 256.7", "nd.array([1, 2], dtype='uint8') - 1.5",
      "nd.array([1, 2], dtype='int8') * 130", "nd.array([5, 2], dtype='uint8') % 3",
      "nd.SequenceMask(nd.ones((3, 2), dtype='int32'), nd.array([1, 2]), "
      "use_sequence_length=True, value=-2**40)"]
NP = ["np.array([1, 2], dtype='uint8') + 300", "np.array([1, 2], dtype='uint8') * -1",
      "np.array([1, 2], dtype='int8') + 200", "np.array([1, 2], dtype='uint8') > -1",
      "np.array([1, 2], dtype='uint8') == 257",
      "np.clip(np.array([1, 200], dtype='uint8'), -5, 100)",
      "np.maximum(np.array([1, 2], dtype='uint8'), -1)", "300 - np.array([1, 2], dtype='uint8')",
      "np.full((2,), 300, dtype='uint8')", "np.array([1, 2], dtype='int32') + 2**40",
      "np.array([1, 2], dtype='uint8') - 1.5", "np.array([1, 2], dtype='uint8') + 2.5"]

PROGRAM = """
import json
nd, np = mx.nd, mx.np
if json.loads(INPUT)[0]:
    mx.npx.set_np()
out = {}
for expression in json.loads(INPUT)[1]:
    try:
        value = eval(expression)
        out[expression] = [str(value.dtype), value.asnumpy().tolist()]
    except Exception as error:
        out[expression] = "raised " + type(error).__name__
print(json.dumps(out))
"""


@pytest.mark.parametrize("np_mode, expressions", [(False, ND), (True, NP)],
                         ids=["nd", "np"])
def test_integer_arrays_with_scalars_match_mxnet(mxnet_python, np_mode, expressions):
    given = json.dumps([np_mode, expressions])
    ours = (on_minimx_np_mode if np_mode else on_minimx)(PROGRAM, given)
    theirs = on_mxnet(mxnet_python, PROGRAM, given)
    assert {key: (ours[key], theirs[key]) for key in theirs if ours[key] != theirs[key]} == {}


@pytest.mark.parametrize("dtype, value, expected", [
    ("uint8", 300, 44), ("uint8", -1, 255), ("uint8", 256.7, 0), ("uint8", -1.5, 255),
    ("int8", 130, -126), ("int8", 200, -56), ("int32", 2 ** 40, -2 ** 31),
    ("int32", 2 ** 31, -2 ** 31), ("int32", float("nan"), -2 ** 31),
    ("int64", 2 ** 40, 2 ** 40), ("int64", 2 ** 70, -2 ** 63), ("uint16", -2, 65534),
    ("int32", 7.9, 7), ("int32", -7.9, -7), ("float16", 300, 300.0), ("bool", 2, True)])
def test_scalar_in_is_the_c_cast(dtype, value, expected):
    got = scalar_in(np.dtype(dtype), value)
    assert got.dtype == np.dtype(dtype)
    assert got == expected
