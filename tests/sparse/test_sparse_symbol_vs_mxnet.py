"""Sparse storage in graphs beside MXNet 1.9.1: csr and row_sparse Variables, sym.sparse
operators, storage-type inference, bind/simple_bind with sparse arrays and row_sparse
gradients (tests/same_program.py runs one program on both)."""
import numpy as np
import pytest

import minimx as mx
from same_program import on_minimx, on_mxnet

pytestmark = [pytest.mark.mxnet, pytest.mark.usefixtures("on_cpu")]   # on the CPU (conftest)

# a factorization machine's pieces: dot(csr, row_sparse), _square_sum of a row_sparse
# weight, csr.square(), broadcast_add; weight rows 2 and 3 are not stored
GRAPH = """
import json
import numpy as np
x = mx.sym.Variable("data", stype="csr")
w = mx.sym.Variable("w", stype="row_sparse")
b = mx.sym.Variable("b")
y = mx.sym.broadcast_add(mx.sym.sparse.dot(x, w), b)
v_s = mx.sym._internal._square_sum(data=w, axis=1, keepdims=True)
z = mx.sym.sum(mx.sym.square(y)) + mx.sym.sum(mx.sym.dot(x.square(), v_s))
loss = mx.sym.make_loss(z)
e = loss.simple_bind(mx.cpu(), data=(4, 6), w=(6, 3), b=(3,),
                     stype_dict={"data": "csr", "w": "row_sparse", "b": "default"})
dense = np.array([[0, 1, 0, 0, 2, 0], [0, 0, 0, 0, 0, 0], [3, 0, 0, 0, 0, 1],
                  [0, 0, 0, 0, 4, 0]], dtype="float32")
mx.nd.array(dense).tostype("csr").copyto(e.arg_dict["data"])
wv = np.arange(18, dtype="float32").reshape(6, 3) / 10
mx.nd.sparse.row_sparse_array((wv[[0, 1, 4, 5]], [0, 1, 4, 5]), shape=(6, 3)).copyto(
    e.arg_dict["w"])
e.arg_dict["b"][:] = 0.5
out = e.forward(is_train=True)
e.backward()
g = e.grad_dict["w"]
print(json.dumps({"arg_stypes": [a.stype for a in e.arg_arrays],
                  "grad_stypes": [a.stype for a in e.grad_arrays],
                  "out": out[0].asnumpy().tolist(), "gw_rows": g.indices.asnumpy().tolist(),
                  "gw": g.asnumpy().tolist(), "gb": e.grad_dict["b"].asnumpy().tolist()}))
"""

# the linear classifier's graph bound by hand (bind, not simple_bind): the weight's gradient
# holds the rows of the features the batch has, zero or not
BIND = """
import json
import numpy as np
x = mx.sym.Variable("data", stype="csr")
w = mx.sym.Variable("w", stype="row_sparse")
out = mx.sym.LogisticRegressionOutput(mx.sym.sparse.dot(x, w), mx.sym.Variable("label"))
data = mx.nd.sparse.csr_matrix(([1., 0, 2], [1, 3, 4], [0, 2, 2, 3]), shape=(3, 5))
weight = mx.nd.array(np.arange(5, dtype="float32").reshape(5, 1) / 4).tostype("row_sparse")
grad = mx.nd.sparse.zeros("row_sparse", (5, 1))
label = mx.nd.array([[1], [0], [1]])
e = out.bind(mx.cpu(), {"data": data, "w": weight, "label": label}, args_grad={"w": grad},
             grad_req={"data": "null", "w": "write", "label": "null"})
e.forward(is_train=True)
e.backward()
print(json.dumps({"out": e.outputs[0].asnumpy().round(6).tolist(),
                  "rows": grad.indices.asnumpy().tolist(),
                  "grad": grad.asnumpy().round(6).tolist(), "stype": grad.stype}))
"""

# storage types of outputs: retain and _square_sum keep row_sparse, cast_storage converts
OUTPUTS = """
import json
import numpy as np
w = mx.sym.Variable("w", stype="row_sparse")
i = mx.sym.Variable("i")
group = mx.sym.Group([mx.sym.sparse.retain(w, i),
                      mx.sym._internal._square_sum(w, axis=1, keepdims=True),
                      mx.sym.cast_storage(w, stype="default"),
                      mx.sym.sparse.cast_storage(mx.sym.Variable("d"), stype="csr"),
                      mx.sym.sparse.abs(w)])
e = group.simple_bind(mx.cpu(), w=(5, 2), i=(2,), d=(2, 3),
                      stype_dict={"w": "row_sparse", "i": "default", "d": "default"},
                      grad_req="null")
mx.nd.sparse.row_sparse_array((np.array([[1., -2], [3, 4], [5, 6]], dtype="float32"),
                               [0, 2, 4]), shape=(5, 2)).copyto(e.arg_dict["w"])
e.arg_dict["i"][:] = mx.nd.array([2, 4])
e.arg_dict["d"][:] = mx.nd.array([[0, 1, 0], [2, 0, 0]])
outs = e.forward()
print(json.dumps({"stypes": [o.stype for o in outs],
                  "values": [o.asnumpy().tolist() for o in outs],
                  "retained": outs[0].indices.asnumpy().tolist(),
                  "square_rows": outs[1].indices.asnumpy().tolist()}))
"""


@pytest.mark.parametrize("program", [GRAPH, BIND, OUTPUTS], ids=["graph", "bind", "outputs"])
def test_sparse_graph_matches_mxnet(mxnet_python, program):
    expected = on_mxnet(mxnet_python, program)
    actual = on_minimx(program)
    assert actual.keys() == expected.keys()
    for key, value in expected.items():
        if key == "values":             # one array per output
            for mine, theirs in zip(actual[key], value):
                np.testing.assert_allclose(mine, theirs, rtol=1e-6, err_msg=key)
        elif key in ("out", "gw", "gb", "grad"):
            np.testing.assert_allclose(actual[key], value, rtol=1e-5, err_msg=key)
        else:
            assert actual[key] == value, key


def test_variable_stype_is_mxnets_attribute_and_survives_json():
    x = mx.sym.Variable("x", stype="csr")
    assert x.list_attr() == {"__storage_type__": "2"}
    loaded = mx.sym.load_json(mx.sym.sparse.dot(x, mx.sym.var("w", stype="row_sparse"))
                              .tojson())
    executor = loaded.simple_bind(mx.cpu(), x=(2, 3), w=(3, 4))
    assert [a.stype for a in executor.arg_arrays] == ["csr", "row_sparse"]
    assert [g.stype for g in executor.grad_arrays] == ["default", "row_sparse"]


def test_a_node_without_a_sparse_kernel_reads_its_sparse_input_densely():
    x = mx.sym.Variable("x", stype="csr")
    executor = mx.sym.exp(x).simple_bind(mx.cpu(), x=(2, 2), grad_req="null")
    mx.nd.array([[0, 1], [2, 0]]).tostype("csr").copyto(executor.arg_dict["x"])
    out = executor.forward()[0]
    assert out.stype == "default"
    np.testing.assert_allclose(out.asnumpy(), np.exp([[0, 1], [2, 0]]), rtol=1e-6)


def test_retain_of_a_dense_array_in_a_graph_is_minimx_s_dense_fallback():
    executor = mx.sym.sparse.retain(mx.sym.var("d"), mx.sym.var("i")).simple_bind(
        mx.cpu(), d=(3, 2), i=(1,), grad_req="null")
    executor.arg_dict["d"][:] = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    executor.arg_dict["i"][:] = 1
    np.testing.assert_array_equal(executor.forward()[0].asnumpy(), [[0, 0], [3, 4], [0, 0]])
