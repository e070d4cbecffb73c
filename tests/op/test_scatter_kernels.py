"""``add_rows`` (the backward of Embedding and take) equals NumPy's ``add.at`` bit for bit,
on both of its paths, and the operators that use it keep their gradients."""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd
from minimx.op import scatter_kernels
from minimx.op.scatter_kernels import add_rows


def add_at(count, rows, values):
    out = np.zeros((count,) + values.shape[1:], dtype=values.dtype)
    np.add.at(out, rows, values)
    return out


@pytest.mark.parametrize("n, count, tail, dtype", [
    (30000, 700, (100,), np.float32), (5000, 7, (3, 4), np.float64), (100, 10, (4,), np.float32),
    (6000, 50, (), np.float32), (9000, 40, (8,), np.float16), (0, 5, (16,), np.float32),
    (5000, 5000, (2,), np.float32)])
@pytest.mark.parametrize("sparse_from", [0, scatter_kernels.SPARSE_FROM])
def test_add_rows_is_add_at_bit_for_bit(n, count, tail, dtype, sparse_from, monkeypatch):
    monkeypatch.setattr(scatter_kernels, "SPARSE_FROM", sparse_from)   # 0: every size by
    rng = np.random.default_rng(n)                                      # the product
    rows = rng.integers(0, count, n)
    values = (rng.standard_normal((n,) + tail) * 100).astype(dtype)
    got = add_rows(np, count, rows, values)
    assert got.dtype == dtype and got.shape == (count,) + tail
    assert got.tobytes() == add_at(count, rows, values).tobytes()


def test_both_paths_agree(monkeypatch):
    rng = np.random.default_rng(1)
    rows, values = rng.integers(0, 30, 2000), rng.standard_normal((2000, 5)).astype(np.float32)
    monkeypatch.setattr(scatter_kernels, "SPARSE_FROM", 0)
    sparse = add_rows(np, 30, rows, values)
    monkeypatch.setattr(scatter_kernels, "SPARSE_FROM", 10 ** 12)
    assert add_rows(np, 30, rows, values).tobytes() == sparse.tobytes()


@pytest.mark.parametrize("sparse_grad", [False, True])
def test_embedding_and_take_gradients(sparse_grad):
    rng = np.random.default_rng(2)
    ids = rng.integers(0, 50, (64, 20))
    cpu = mx.cpu()          # (row_sparse storage is the host's, also in the stand-in GPU pass)
    weight = nd.array(rng.standard_normal((50, 16)).astype(np.float32), ctx=cpu)
    weight.attach_grad(stype="row_sparse" if sparse_grad else "default")
    head = rng.standard_normal((64, 20, 16)).astype(np.float32)
    with autograd.record():
        out = nd.Embedding(nd.array(ids, ctx=cpu), weight, input_dim=50, output_dim=16,
                           sparse_grad=sparse_grad)
    out.backward(nd.array(head, ctx=cpu))
    expected = add_at(50, ids.ravel(), head.reshape(-1, 16))
    np.testing.assert_array_equal(weight.grad.asnumpy(), expected)
    a = nd.array(rng.standard_normal((6, 50, 3)).astype(np.float32), ctx=cpu)
    a.attach_grad()
    with autograd.record():
        taken = nd.take(a, nd.array(ids[:4], ctx=cpu), axis=1)                 # (6, 4, 20, 3)
    taken_head = rng.standard_normal(taken.shape).astype(np.float32)
    taken.backward(nd.array(taken_head, ctx=cpu))
    want = np.zeros((6, 50, 3), np.float32)
    np.add.at(np.moveaxis(want, 1, 0), ids[:4].ravel(),
              np.moveaxis(taken_head.reshape(6, 80, 3), 1, 0))
    np.testing.assert_array_equal(a.grad.asnumpy(), want)
