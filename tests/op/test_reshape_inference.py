"""Reshape's codes (0, -1, -2, -3, -4, ``reverse``) in shape inference, against MXNet 1.9.1:
full shapes, partly known input shapes (0: unknown) and the input completed back from a
known output (MXNet's ``test_operator.py::test_reshape`` holds each input size out in turn).

One program runs on both sides (``same_program``); their JSON results must agree.
"""
import json

import pytest
from same_program import on_minimx, on_mxnet

import minimx
from minimx.base import InvalidShapeError

# (input shape, codes, reverse, output shape); None: no known output to combine with
CASES = [
    [(2, 3, 5, 5), (0, -1), False, (2, 75)],
    [(5, 3, 4, 5), (0, -1, 0), False, (5, 15, 4)],
    [(2, 3, 5, 4), (-1, 0, 0), False, (8, 3, 5)],
    [(2, 4, 5, 3), (-1, 2, 2, 1), False, (30, 2, 2, 1)],
    [(2, 3, 5, 6), (6, 1, -2), False, (6, 1, 5, 6)],
    [(2, 3, 5, 6), (-3, -1), False, (6, 30)],
    [(64,), (-4, 16, -1), False, (16, 4)],
    [(64, 1, 2, 3), (-4, 16, -1, -2), False, (16, 4, 1, 2, 3)],
    [(2, 3, 5, 5), (0, 0, -1), True, (3, 5, 10)],
    [(2, 3, 4, 5), (3, -1, 0), True, (3, 8, 5)],
    [(2, 3, 5, 5), (5, 3, 0, -1), True, (5, 3, 5, 2)],
    [(2, 3, 5, 6), (-2, 1, 30), True, (2, 3, 1, 30)],
    [(2, 3, 5, 6), (-3, -3), True, (6, 30)],
    [(64,), (16, 4, -4), True, (16, 4)],
    [(64,), (16, -1, -4), True, (16, 4)],
    [(1, 2, 3, 64), (-2, -1, 16, -4), True, (1, 2, 3, 4, 16)],
    [(0, 6), (-4, 2, -1, 0), False, None],
    [(3, 0), (-1, 2, 0), True, None],
    [(6, 0), (-4, 2, 3, -2), False, None],
]

PROGRAM = r"""
import json
results = []
for src, codes, reverse, dst in json.loads(INPUT):
    src = tuple(src)
    held_out = [src] + [src[:i] + (0,) + src[i + 1:] for i in range(len(src))]
    for shape in held_out:
        net = mx.sym.Variable('data').reshape(codes, reverse=reverse)
        args, outs, _ = net.infer_shape_partial(data=shape)
        results.append(['partial', shape, args[0], outs[0]])
        if dst is not None:
            net = mx.sym.elemwise_add(net, mx.sym.ones(shape=tuple(dst)))
            args, outs, _ = net.infer_shape(data=shape)
            results.append(['with a known output', shape, args[0], outs[0]])
    if dst is not None:
        data = mx.nd.arange(1, 1 + int(__import__('math').prod(src))).reshape(src)
        results.append(['ndarray', src, data.reshape(codes, reverse=reverse).shape, None])
print(json.dumps(results))
"""


@pytest.mark.mxnet
def test_reshape_shape_inference_matches_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, PROGRAM, json.dumps(CASES))
    got = on_minimx(PROGRAM, json.dumps(CASES))
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected):
        assert mine == theirs


def test_an_unknown_size_stays_unknown_where_the_codes_copy_it():
    net = minimx.sym.Variable("data").reshape((0, -1))
    assert net.infer_shape_partial(data=(0, 3, 5, 5))[1] == [(0, 0)]
    net = minimx.sym.Variable("data").reshape((-4, 16, -1))
    assert net.infer_shape_partial(data=(0,))[1] == [(16, 0)]
    net = minimx.sym.elemwise_add(net, minimx.sym.ones(shape=(16, 4)))
    assert net.infer_shape(data=(0,))[0] == [(64,)]


def test_reverse_reads_a_split_after_its_two_sizes():
    assert minimx.nd.ones((1, 2, 3, 64)).reshape((-2, -1, 16, -4), reverse=True).shape == \
        (1, 2, 3, 4, 16)
    with pytest.raises(InvalidShapeError, match="-4"):
        minimx.nd.ones((6,)).reshape((-4, 2, 2))
