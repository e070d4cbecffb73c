"""``nd.arange`` in every dtype, as MXNet 1.9.1's kernel computes it: ``start + i * step``
in the output's dtype, with ``start`` and ``step`` cast as C casts them, so an integer dtype
drops the fraction and wraps around (``arange(-2, 5, 2, dtype='uint8')`` is [254, 0, 2, 4];
``arange(50, -50, -2, dtype='uint8')`` counts down).  NumPy 2 refuses such a cast of an
out-of-range number (MXNet's test_operator::test_init failed with OverflowError)."""

import numpy as np
import pytest

import minimx as mx
from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
out = {}
for dtype in ("float32", "float64", "int32", "uint8", "int8", "int64"):
    for config in [(10,), (0, 10), (5, 100, 4), (50, -50, -2), (-100, 100, 1),
                   (1.3, 456.6, 1.3), (-2, 5, 2), (200, 300, 7)]:
        for repeat in (1, 3):
            values = mx.nd.arange(*config, repeat=repeat, dtype=dtype)
            out[f"{dtype} {config} {repeat}"] = values.asnumpy().tolist()
print(json.dumps(out))
"""

def test_arange_in_every_dtype_matches_mxnet(mxnet_python):
    ours, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    assert {key: ours[key] for key in theirs if ours[key] != theirs[key]} == {}


@pytest.mark.parametrize("config, dtype, expected", [
    ((-2, 5, 2), "uint8", [254, 0, 2, 4]),
    ((50, 40, -2), "uint8", [50, 48, 46, 44, 42]),
    ((120, 130, 4), "int8", [120, 124, -128]),
    ((1.7, 5.0), "int32", [1, 2, 3, 4]),
])
def test_integer_arange_casts_as_c_does(config, dtype, expected):
    values = mx.nd.arange(*config, dtype=dtype)
    assert values.dtype == np.dtype(dtype)
    assert values.asnumpy().tolist() == expected
    assert mx.np.arange(*config, dtype=dtype).asnumpy().tolist() == expected
