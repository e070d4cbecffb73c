"""Sparse storage on a device context: refused where the array would be made, naming the
operator, the storage type and the context (minimx keeps sparse values in scipy.sparse, on
the CPU); the dense copy the message suggests computes on the device what the sparse
kernels compute on the CPU.

Runs on ``MINIMX_TEST_CTX``'s GPU when there is one (the strict stand-in in scripts/test.sh),
else on one stand-in GPU of its own.
"""
import re

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, backend, nd
from minimx.base import ContextMismatchError, MXNetError


@pytest.fixture
def gpu(test_context):
    if test_context.device_type == "gpu":
        yield test_context
        return
    with backend.stand_in_gpus(1):
        try:
            yield mx.gpu(0)
        finally:
            nd.waitall()


def _csr(ctx=None):
    return nd.sparse.csr_matrix(([1., 2, 3], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4),
                                ctx=ctx or mx.cpu())


def _embedding_grad(ctx):
    weight = nd.ones((7, 2), ctx=ctx)
    weight.attach_grad()
    with autograd.record():
        out = nd.Embedding(nd.array([[1, 3]], ctx=ctx), weight, input_dim=7, output_dim=2,
                           sparse_grad=True)
    out.backward()


def _gluon_embedding(ctx):
    mx.gluon.nn.Embedding(7, 2, sparse_grad=True).initialize(ctx=ctx)


def _row_sparse_parameter(ctx):
    mx.gluon.Parameter("w", shape=(4, 2), stype="row_sparse").initialize(ctx=ctx)


MAKERS = [
    ("csr_matrix", "csr", lambda ctx: _csr(ctx)),
    ("csr_matrix", "csr", lambda ctx: nd.sparse.csr_matrix(np.eye(2), ctx=ctx)),
    ("row_sparse_array", "row_sparse",
     lambda ctx: nd.sparse.row_sparse_array(([[1., 2]], [1]), shape=(3, 2), ctx=ctx)),
    ("zeros", "row_sparse", lambda ctx: nd.sparse.zeros("row_sparse", (3, 2), ctx=ctx)),
    ("cast_storage", "csr", lambda ctx: nd.ones((3, 2), ctx=ctx).tostype("csr")),
    ("cast_storage", "row_sparse",
     lambda ctx: nd.cast_storage(nd.ones((3, 2), ctx=ctx), "row_sparse")),
    ("copyto", "csr", lambda ctx: _csr().copyto(ctx)),
    ("copyto", "row_sparse",
     lambda ctx: nd.sparse.zeros("row_sparse", (3, 2), ctx=mx.cpu()).as_in_context(ctx)),
    ("attach_grad", "row_sparse",
     lambda ctx: nd.ones((3, 2), ctx=ctx).attach_grad(stype="row_sparse")),
    (r"Embedding \(its row_sparse gradient\)", "row_sparse", _embedding_grad),
    (r"Parameter 'embedding\d+_weight' \(grad_stype\)", "row_sparse", _gluon_embedding),
    ("cast_storage", "row_sparse", _row_sparse_parameter),
]


@pytest.mark.parametrize("operator, stype, make", MAKERS,
                         ids=[f"{i}-{m[0].split()[0]}" for i, m in enumerate(MAKERS)])
def test_a_sparse_array_on_a_device_is_refused(gpu, operator, stype, make):
    device = re.escape(str(gpu))
    with pytest.raises(MXNetError, match=rf"^{operator}: cannot put a '{stype}' array on "
                       rf"{device}: minimx keeps sparse storage on the CPU \(scipy\.sparse\)"):
        make(gpu)


def test_made_without_ctx_under_a_device_context_is_refused(gpu):
    device = re.escape(str(gpu))
    with gpu, pytest.raises(MXNetError, match=rf"^zeros: cannot put a 'csr' array on {device}"):
        nd.sparse.zeros("csr", (2, 2))


def test_a_cpu_sparse_array_and_a_device_array_do_not_mix(gpu):
    device = re.escape(str(gpu))
    with pytest.raises(ContextMismatchError, match=rf"cpu\(0\).*{device}|{device}.*cpu\(0\)"):
        nd.sparse.dot(_csr(), nd.ones((4, 2), ctx=gpu))


def test_the_dense_copy_computes_on_the_device_what_sparse_computes_on_the_cpu(gpu):
    a = _csr()
    w = np.arange(8, dtype=np.float32).reshape(4, 2)
    g = np.arange(6, dtype=np.float32).reshape(3, 2) - 2
    on_device = a.tostype("default").copyto(gpu)
    product = nd.dot(on_device, nd.array(w, ctx=gpu))
    transposed = nd.dot(on_device, nd.array(g, ctx=gpu), transpose_a=True)
    assert product.context == gpu and transposed.context == gpu
    cpu_product = nd.sparse.dot(a, nd.array(w, ctx=mx.cpu()))
    cpu_transposed = nd.sparse.dot(a, nd.array(g, ctx=mx.cpu()), transpose_a=True)
    assert cpu_transposed.stype == "row_sparse"
    np.testing.assert_allclose(product.asnumpy(), cpu_product.asnumpy())
    np.testing.assert_allclose(transposed.asnumpy(), cpu_transposed.asnumpy())


def test_a_dense_embedding_gradient_on_the_device_equals_the_sparse_one_on_the_cpu(gpu):
    ids = [[1, 3, 1], [5, 3, 0]]
    grads = {}
    for ctx, sparse in [(mx.cpu(), True), (gpu, False)]:
        weight = nd.array(np.arange(14, dtype=np.float32).reshape(7, 2), ctx=ctx)
        weight.attach_grad(stype="row_sparse" if sparse else None)
        with autograd.record():
            y = nd.Embedding(nd.array(ids, ctx=ctx), weight, input_dim=7, output_dim=2,
                             sparse_grad=sparse)
            (y * y).sum().backward()
        grads[sparse] = weight.grad
    assert grads[True].stype == "row_sparse" and grads[False].context == gpu
    np.testing.assert_allclose(grads[False].asnumpy(), grads[True].asnumpy())


def test_row_sparse_pull_copies_device_row_ids_to_the_cpu(gpu):
    kv = mx.kv.create("local")
    weight = nd.array(np.arange(12, dtype=np.float32).reshape(6, 2), ctx=mx.cpu())
    kv.init("w", weight.tostype("row_sparse"))
    out = nd.sparse.zeros("row_sparse", (6, 2), ctx=mx.cpu())
    kv.row_sparse_pull("w", out=out, row_ids=nd.array([4, 1, 4], ctx=gpu, dtype="int64"))
    assert out.indices.asnumpy().tolist() == [1, 4]
    np.testing.assert_array_equal(out.data.asnumpy(), [[2, 3], [8, 9]])


def test_libsvm_batches_are_on_the_cpu_under_a_device_context(gpu, tmp_path):
    path = tmp_path / "small.libsvm"
    path.write_text("1 0:0.5 3:1.5\n0 2:2\n")
    with gpu:
        batch = next(iter(mx.io.LibSVMIter(data_libsvm=str(path), data_shape=(4,),
                                           batch_size=2)))
    assert batch.data[0].context == mx.cpu() and batch.label[0].context == mx.cpu()
    np.testing.assert_array_equal(batch.data[0].asnumpy(), [[0.5, 0, 0, 1.5], [0, 0, 2, 0]])
