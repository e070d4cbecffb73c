"""Sparse storage beside MXNet 1.9.1: one program, run on both (tests/same_program.py).

CSR products (csr x dense, csr.T x dense as row_sparse), the row-sparse gradient of an
Embedding, lazy SGD/Adam/FTRL/AdaGrad steps on a row-sparse gradient, row_sparse_pull, and
LibSVMIter's CSR batches from a small file the test writes.
"""
import numpy as np
import pytest

from same_program import on_minimx, on_mxnet

pytestmark = [pytest.mark.mxnet, pytest.mark.usefixtures("on_cpu")]   # on the CPU (conftest)

DOT = """
import json
import numpy as np
data = np.array([1., 2, 3, 4], dtype=np.float32)
a = mx.nd.sparse.csr_matrix((data, [0, 3, 1, 3], [0, 2, 2, 4]), shape=(3, 5))
w = mx.nd.array(np.arange(10, dtype=np.float32).reshape(5, 2))
g = mx.nd.array(np.arange(6, dtype=np.float32).reshape(3, 2) - 2)
y = mx.nd.sparse.dot(a, w)
t = mx.nd.sparse.dot(a, g, transpose_a=True)
rows = a[1:3]
print(json.dumps({"y": y.asnumpy().tolist(), "y_stype": y.stype,
                  "t_stype": t.stype, "t": t.asnumpy().tolist(),
                  "t_indices": t.indices.asnumpy().tolist(),
                  "rows": rows.asnumpy().tolist(), "rows_stype": rows.stype,
                  "indptr": rows.indptr.asnumpy().tolist(),
                  "scaled": (a * 2).stype, "shifted": (a + 1).stype,
                  "sqrt": mx.nd.sqrt(a).stype, "exp": mx.nd.exp(a).stype,
                  "sum": (a + a).asnumpy().tolist(), "sum_stype": (a + a).stype,
                  "dense": a.tostype("default").stype,
                  "back": w.tostype("row_sparse").indices.asnumpy().tolist()}))
"""

EMBEDDING = """
import json
import numpy as np
w = mx.nd.array(np.arange(14, dtype=np.float32).reshape(7, 2))
w.attach_grad(stype="row_sparse")
x = mx.nd.array([[1, 3, 1], [5, 3, 0]])
with mx.autograd.record():
    y = mx.nd.Embedding(x, w, input_dim=7, output_dim=2, sparse_grad=True)
    loss = (y * y).sum()
loss.backward()
net = mx.gluon.nn.Embedding(7, 2, sparse_grad=True)
net.initialize(mx.init.Constant(0.5))
with mx.autograd.record():
    out = net(x).sum()
out.backward()
grad = net.weight.grad()
print(json.dumps({"stype": w.grad.stype, "indices": w.grad.indices.asnumpy().tolist(),
                  "data": w.grad.data.asnumpy().tolist(),
                  "gluon_stype": grad.stype, "gluon": grad.asnumpy().tolist()}))
"""

LAZY = """
import json
import numpy as np
grad = mx.nd.sparse.row_sparse_array(
    (np.array([[1., -2], [0.5, 3]], dtype=np.float32), [1, 4]), shape=(6, 2))
results = {}
for name, kwargs in [("sgd", {"momentum": 0.9, "wd": 0.1, "learning_rate": 0.1}),
                     ("adam", {"wd": 0.01, "learning_rate": 0.1}),
                     ("ftrl", {"learning_rate": 0.1}),
                     ("adagrad", {"learning_rate": 0.1})]:
    weight = mx.nd.array(np.arange(12, dtype=np.float32).reshape(6, 2) - 5)
    optimizer = mx.optimizer.create(name, **kwargs)
    state = optimizer.create_state(0, weight)
    for step in range(2):
        optimizer.update(0, weight, grad, state)
    states = state if isinstance(state, (tuple, list)) else [state]
    results[name] = [weight.asnumpy().tolist()] + [s.asnumpy().tolist() for s in states]
print(json.dumps(results))
"""

PULL = """
import json
import numpy as np
kv = mx.kv.create("local")
kv.init("w", mx.nd.array(np.arange(12, dtype=np.float32).reshape(6, 2)).tostype("row_sparse"))
out = mx.nd.sparse.zeros("row_sparse", (6, 2))
kv.row_sparse_pull("w", out=out, row_ids=mx.nd.array([4, 1, 4], dtype="int64"))
print(json.dumps({"indices": out.indices.asnumpy().tolist(), "data": out.data.asnumpy().tolist()}))
"""

LIBSVM = """
import json
it = mx.io.LibSVMIter(data_libsvm=INPUT, data_shape=(6,), batch_size=3)
batches = []
for epoch in range(2):
    for batch in it:
        batches.append([batch.data[0].stype, batch.data[0].asnumpy().tolist(),
                        batch.label[0].asnumpy().tolist(), batch.pad,
                        [int(i) for i in batch.index]])
    it.reset()
print(json.dumps({"batches": batches, "data": [list(d) for d in it.provide_data],
                  "label": [list(d) for d in it.provide_label]}))
"""


def _same(mxnet_python, program, given=""):
    theirs, ours = on_mxnet(mxnet_python, program, given), on_minimx(program, given)
    assert ours.keys() == theirs.keys()
    for key in theirs:
        if isinstance(theirs[key], (list, float)):
            np.testing.assert_allclose(np.asarray(ours[key], dtype=float),
                                       np.asarray(theirs[key], dtype=float), rtol=1e-5,
                                       atol=1e-6, err_msg=key)
        else:
            assert ours[key] == theirs[key], key
    return ours


def test_csr_products_and_storage_inference(mxnet_python):
    result = _same(mxnet_python, DOT)
    assert result["t_stype"] == "row_sparse" and result["shifted"] == "default"


def test_embedding_sparse_grad(mxnet_python):
    result = _same(mxnet_python, EMBEDDING)
    assert result["stype"] == "row_sparse" and result["indices"] == [0, 1, 3, 5]


def test_lazy_updates_touch_only_the_gradient_rows(mxnet_python):
    result = _same(mxnet_python, LAZY)
    start = np.arange(12).reshape(6, 2) - 5
    sgd_weight = np.asarray(result["sgd"][0])
    assert np.array_equal(sgd_weight[[0, 2, 3, 5]], start[[0, 2, 3, 5]])


def test_row_sparse_pull(mxnet_python):
    assert _same(mxnet_python, PULL)["indices"] == [1, 4]


def test_libsvm_iter_batches(mxnet_python, tmp_path):
    path = tmp_path / "small.libsvm"
    path.write_text("1 0:0.5 3:1.5\n0 2:2\n1 1:1 5:-1\n0\n1 0:3 4:0.25\n2 5:7\n0 1:1\n")
    theirs = on_mxnet(mxnet_python, LIBSVM, str(path))
    assert on_minimx(LIBSVM, str(path)) == theirs
