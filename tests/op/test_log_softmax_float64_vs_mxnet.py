"""float64 ``log_softmax`` as MXNet 1.9.1 computes it, bit for bit (found at stop 47).

MXNet's own softmax kernel (float64 does not go to oneDNN) adds the exponentials of a row one
after another in double, then takes ``(x - max) - log(sum)``; numpy's pairwise sum of the same
values rounded 85 of 640 of them a last bit apart.  (Its gradient, ``g - exp(y) * sum(g)``,
still differs: numpy's ``exp`` of the output against the C library's.)  ``softmax`` itself also divides by that
sequential sum now; its remaining float64 differences are numpy's ``exp`` against the C
library's (a last bit in a few per cent of the values).
"""
import numpy as np
import pytest

import minimx as mx
from minimx import nd
from same_program import on_minimx, on_mxnet

ROWS = np.random.RandomState(0).randn(64, 10)


def _sequential_log_softmax(x):
    shifted = x - x.max(axis=1, keepdims=True)
    exps = np.exp(shifted)
    total = np.zeros((x.shape[0], 1))
    for column in range(x.shape[1]):
        total = total + exps[:, column:column + 1]
    return shifted - np.log(total)


def test_float64_log_softmax_sums_each_row_in_order():
    got = nd.log_softmax(nd.array(ROWS, dtype="float64"), axis=-1).asnumpy()
    assert got.tobytes() == _sequential_log_softmax(ROWS).tobytes()


def test_a_row_of_one_and_an_empty_axis():
    assert nd.log_softmax(nd.array([[3.0]], dtype="float64")).asnumpy().tolist() == [[0.0]]
    with mx.np_shape(True):
        assert nd.softmax(nd.zeros((2, 0), dtype="float64")).shape == (2, 0)


PROGRAM = """
import json
import numpy as onp
x = onp.random.RandomState(0).randn(64, 10)
y = mx.nd.log_softmax(mx.nd.array(x, dtype="float64"), axis=-1)
print(json.dumps(y.asnumpy().view("uint64").ravel().tolist()))
"""


@pytest.mark.mxnet
def test_float64_log_softmax_matches_mxnet(mxnet_python):
    assert on_minimx(PROGRAM) == on_mxnet(mxnet_python, PROGRAM)
