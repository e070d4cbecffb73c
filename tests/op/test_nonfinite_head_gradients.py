"""An infinite or NaN head gradient stays where MXNet puts it.

Operators whose gradient goes to *some* inputs (max pooling's window winner, ``pick``'s
picked element, ``clip`` inside its bounds) must give the others 0, as MXNet writes them.
A 0/1 mask times the gradient would give them ``0 * inf = NaN`` instead, and in
overlapping pooling windows that NaN would be added into the neighbours' gradients too (a
diverging training step then turns NaN everywhere on minimx and stays local on MXNet).
The expected gradients come from a slow loop over the windows written here, and from
MXNet 1.9.1 itself where it is installed.
"""
import itertools
import json

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd
from same_program import on_mxnet

POOLS = [  # (kernel, stride, pad, global_pool); the overlapping 3x3/2 over 8x8 planes takes
           # the stride-phase path, 2x2/2 the tiling one, 3x3/1 the plain taps
    ((2, 2), (2, 2), (0, 0), False),
    ((3, 3), (2, 2), (1, 1), False),
    ((3, 3), (1, 1), (1, 1), False),
    ((3, 3), (2, 2), (0, 0), False),
    ((2, 2), (1, 1), (0, 0), True),
]


def _data(shape, seed=0):
    """Integers (ties in most windows) as float32: the first maximum decides."""
    return np.random.RandomState(seed).randint(-3, 4, shape).astype(np.float32)


def _head(shape, seed=1):
    head = np.random.RandomState(seed).randint(1, 5, shape).astype(np.float32)
    flat = head.reshape(-1)
    flat[0], flat[len(flat) // 2], flat[-1] = np.inf, np.nan, -np.inf
    return head


def _looped_max_pool_grad(data, head, kernel, stride, pad):
    """Each window's head gradient added to its first maximal element (row-major), one
    window at a time in Python floats: what MXNet's pooling backward computes."""
    n, c, h, w = data.shape
    grad = np.zeros(data.shape, np.float64)
    for i, j, oi, oj in itertools.product(range(n), range(c), range(head.shape[2]),
                                          range(head.shape[3])):
        best = None
        for ki, kj in itertools.product(range(kernel[0]), range(kernel[1])):
            y, x = oi * stride[0] - pad[0] + ki, oj * stride[1] - pad[1] + kj
            if 0 <= y < h and 0 <= x < w and (best is None or data[i, j, y, x] > best[0]):
                best = (data[i, j, y, x], y, x)
        grad[i, j, best[1], best[2]] += float(head[i, j, oi, oj])
    return grad.astype(np.float32)


def _pool_grad(data, head, kernel, stride, pad, global_pool):
    x = nd.array(data)
    x.attach_grad()
    with autograd.record():
        y = nd.Pooling(x, kernel=kernel, stride=stride, pad=pad, global_pool=global_pool,
                       pool_type="max")
    y.backward(nd.array(head))
    return x.grad.asnumpy()


def _out_size(size, kernel, stride, pad):
    return (size + 2 * pad - kernel) // stride + 1


@pytest.mark.parametrize("kernel, stride, pad, global_pool", POOLS)
def test_max_pooling_puts_a_nonfinite_gradient_on_the_winner_alone(kernel, stride, pad,
                                                                   global_pool):
    data = _data((2, 3, 8, 8))
    if global_pool:
        kernel, stride, pad, out = (8, 8), (1, 1), (0, 0), (1, 1)
    else:
        out = tuple(_out_size(8, k, s, p) for k, s, p in zip(kernel, stride, pad))
    head = _head((2, 3) + out)
    with np.errstate(all="raise"):          # and no 0 * inf inside
        got = _pool_grad(data, head, kernel, stride, pad, global_pool)
    expected = _looped_max_pool_grad(data, head, kernel, stride, pad)
    np.testing.assert_array_equal(got, expected)
    assert np.isnan(got).sum() == np.isnan(expected).sum() >= 1


def test_max_pooling_with_finite_gradients_is_unchanged_by_the_check():
    data, head = _data((2, 3, 8, 8)), np.random.RandomState(2).rand(2, 3, 4, 4)
    head = head.astype(np.float32)
    got = _pool_grad(data, head, (3, 3), (2, 2), (1, 1), False)
    np.testing.assert_allclose(got, _looped_max_pool_grad(data, head, (3, 3), (2, 2),
                                                          (1, 1)), rtol=1e-6)


def test_pick_and_clip_leave_the_others_at_zero():
    data = np.array([[-1, 2, 3, 3], [0, -5, 4, 1]], np.float32)
    head = np.array([np.inf, np.nan], np.float32)
    x = nd.array(data)
    x.attach_grad()
    with autograd.record():
        y = nd.pick(x, nd.array([1, 2]), axis=1)
    y.backward(nd.array(head))
    expected = np.zeros_like(data)
    expected[0, 1], expected[1, 2] = np.inf, np.nan
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)

    head = np.full(data.shape, np.inf, np.float32)
    with autograd.record():
        y = nd.clip(x, 0, 3)
    y.backward(nd.array(head))
    np.testing.assert_array_equal(x.grad.asnumpy(), np.where((data >= 0) & (data <= 3),
                                                             np.inf, 0).astype(np.float32))


PROGRAM = """
import json
import numpy as np
data, head, kernel, stride, pad = json.loads(INPUT)
data = np.array(data, np.float32)
head = np.array([[float(v) for v in row] for row in head], np.float32).reshape(
    data.shape[:2] + (-1,))
x = mx.nd.array(data)
x.attach_grad()
with mx.autograd.record():
    y = mx.nd.Pooling(x, kernel=tuple(kernel), stride=tuple(stride), pad=tuple(pad),
                      pool_type="max")
y.backward(mx.nd.array(head.reshape(y.shape)))
print(json.dumps([str(v) for v in x.grad.asnumpy().ravel().tolist()]))
"""


@pytest.mark.parametrize("kernel, stride, pad", [case[:3] for case in POOLS[:3]])
def test_max_pooling_nonfinite_gradients_match_mxnet(mxnet_python, kernel, stride, pad):
    data = _data((1, 2, 8, 8), seed=3)
    out = tuple(_out_size(8, k, s, p) for k, s, p in zip(kernel, stride, pad))
    head = _head((1, 2) + out, seed=4)
    given = json.dumps([data.tolist(), [[str(v) for v in row]
                                        for row in head.reshape(2, -1).tolist()],
                        kernel, stride, pad])
    theirs = np.array([float(v) for v in on_mxnet(mxnet_python, PROGRAM, given)],
                      np.float32).reshape(data.shape)
    np.testing.assert_array_equal(_pool_grad(data, head, kernel, stride, pad, False), theirs)
