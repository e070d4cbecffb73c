"""``nd.reset_arrays``: floating point arrays of any shapes set to 0 in place, in one operation
with no output, as MXNet's; and Gluon's ``zero_grad``, which calls it for the dense
gradients of each device (MXNet's test_gluon::test_zero_grad calls it directly)."""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, gluon, nd
from minimx.base import MXNetError
from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
arrays = [mx.nd.ones((2, 3)), mx.nd.full((4,), 7, dtype="float16"),
          mx.nd.ones((1, 2, 2), dtype="float64")]
returned = mx.nd.reset_arrays(*arrays, num_arrays=len(arrays))
print(json.dumps([repr(returned)] + [[a.asnumpy().tolist(), str(a.dtype)] for a in arrays]))
"""


def test_reset_arrays_matches_mxnet(mxnet_python):
    assert on_minimx(PROGRAM) == on_mxnet(mxnet_python, PROGRAM)


def test_reset_arrays_zeroes_in_place_and_returns_nothing():
    arrays = [nd.ones((2, 3)), nd.full((4,), 7, dtype="float16"), nd.ones(5, dtype="float64")]
    buffers = [a._chunk for a in arrays]
    assert nd.reset_arrays(*arrays, num_arrays=3) == []
    for array, chunk in zip(arrays, buffers):
        assert array._chunk is chunk
        assert not array.asnumpy().any()
    assert [a.dtype for a in arrays] == [np.float32, np.float16, np.float64]


def test_reset_arrays_is_ordered_after_readers_and_before_later_use():
    a = nd.full((3,), 5.0)
    doubled = a * 2                        # reads a before the reset
    nd.reset_arrays(a, num_arrays=1)
    after = a + 1                          # reads it after
    assert doubled.asnumpy().tolist() == [10.0] * 3
    assert after.asnumpy().tolist() == [1.0] * 3


def test_reset_arrays_checks_its_count():
    a, b = nd.ones(2), nd.ones(3)
    with pytest.raises(MXNetError, match="num_arrays is 3, but 2 arrays"):
        nd.reset_arrays(a, b, num_arrays=3)
    with pytest.raises(MXNetError, match="num_arrays must be at least 1"):
        nd.reset_arrays(a, num_arrays=0)
    # MXNet's kernel refuses integers (at the sync point; minimx at the call, with the types)
    with pytest.raises(MXNetError, match="only floating point arrays .* array 1 is int32"):
        nd.reset_arrays(a, nd.arange(3, dtype="int32"), num_arrays=2)


@pytest.mark.parametrize("np_mode", [False, True])
def test_zero_grad_clears_accumulated_gradients(np_mode):
    if np_mode:
        mx.npx.set_np()
    try:
        net = gluon.nn.Dense(3, in_units=4)
        net.initialize()
        for param in net.collect_params().values():
            param.grad_req = "add"
        x = (mx.np if np_mode else nd).ones((2, 4))
        for _ in range(2):
            with autograd.record():
                y = net(x)
            y.backward()
        grads = [p.grad() for p in net.collect_params().values()]
        assert all(g.asnumpy().any() for g in grads)
        net.zero_grad()
        assert not any(g.asnumpy().any() for g in grads)
    finally:
        mx.npx.reset_np()


def test_zero_grad_clears_a_row_sparse_gradient_too():
    # on the CPU whatever the run's default context: sparse storage lives there
    embedding = gluon.nn.Embedding(10, 3, sparse_grad=True)
    dense = gluon.nn.Dense(2, in_units=3)
    for block in (embedding, dense):
        block.initialize(ctx=mx.cpu())
    with autograd.record():
        out = dense(embedding(nd.array([1, 4], ctx=mx.cpu())))
    out.backward()
    sparse = embedding.weight.grad()
    assert sparse.stype == "row_sparse" and sparse.asnumpy().any()
    params = embedding.collect_params()
    params.update(dense.collect_params())
    params.zero_grad()
    assert not sparse.asnumpy().any()
    assert not dense.weight.grad().asnumpy().any()
