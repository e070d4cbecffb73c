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


INFER_RANGE = """
import json
out = []
for start, step, repeat, length in [(0, 1, 1, 5), (2, 0.5, 2, 6), (-1, -0.25, 1, 4),
                                    (0.1, 0.1, 1, 10)]:
    ranged = mx.sym.arange(start=start, stop=None, step=step, repeat=repeat,
                           infer_range=True)
    graph = mx.sym.elemwise_add(ranged, mx.sym.zeros(shape=[length]))
    executor = graph.bind(mx.cpu(), args={})
    executor.forward()
    out.append([graph.infer_shape()[1], executor.outputs[0].asnumpy().tolist()])
# given a stop, infer_range changes nothing; nd.arange ignores it, as MXNet's does
out.append(mx.nd.arange(3, infer_range=True).asnumpy().tolist())
print(json.dumps(out))
"""


def test_infer_range_takes_the_length_from_the_graph():
    """``sym.arange(start, stop=None, infer_range=True)``: the length is what the consumer
    needs (MXNet's test_operator::test_init; minimx made an empty range before)."""
    ours = on_minimx(INFER_RANGE)
    assert ours[0] == [[[5]], [0.0, 1.0, 2.0, 3.0, 4.0]]
    assert ours[1] == [[[6]], [2.0, 2.0, 2.5, 2.5, 3.0, 3.0]]
    assert ours[-1] == [0.0, 1.0, 2.0]


def test_infer_range_matches_mxnet(mxnet_python):
    assert on_minimx(INFER_RANGE) == on_mxnet(mxnet_python, INFER_RANGE)
