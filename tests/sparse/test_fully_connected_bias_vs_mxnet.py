"""FullyConnected's bias of shape (num_hidden, 1), which MXNet 1.9.1's shape rule accepts
beside (num_hidden,) (its ``test_sparse_fc`` passes a row_sparse bias of that shape), and
the shapes it refuses: the same program on both (tests/same_program.py).  The values are
compared with a row_sparse bias, which MXNet computes with its generic kernel; its MKLDNN
kernel, which the CPU build uses for all-dense inputs, refuses a dense (n, 1) bias when it
runs (a limit of that kernel: the operator's shape rule takes it)."""
import numpy as np
import pytest

from same_program import on_minimx, on_mxnet

pytestmark = [pytest.mark.mxnet, pytest.mark.usefixtures("on_cpu")]

PROGRAM = """
import json
import numpy as np
x = mx.nd.array(np.arange(10, dtype=np.float32).reshape(2, 5) / 10)
w = mx.nd.array(np.arange(15, dtype=np.float32).reshape(3, 5) / 7 - 1)
results = {}
for name, bias_shape in [("flat", (3,)), ("column", (3, 1))]:
    b = mx.nd.array(np.arange(1, 4, dtype=np.float32).reshape(bias_shape))
    results[name] = mx.nd.FullyConnected(x, w, b.tostype("row_sparse"), num_hidden=3
                                         ).asnumpy().tolist()
    results[name + " sparse"] = mx.nd.sparse.FullyConnected(
        x.tostype("csr"), w.tostype("row_sparse"), b.tostype("row_sparse"), num_hidden=3
    ).asnumpy().tolist()
sym = mx.sym.FullyConnected(mx.sym.var("x"), mx.sym.var("w"), mx.sym.var("b"), num_hidden=3)
for name, bias_shape in [("column", (3, 1)), ("row", (1, 3)), ("wrong", (4,))]:
    try:
        results["inferred " + name] = sym.infer_shape(x=(2, 5), b=bias_shape)[0]
    except mx.base.MXNetError:
        results["inferred " + name] = "MXNetError"
print(json.dumps(results))
"""


def test_bias_of_shape_n_by_1(mxnet_python):
    theirs = on_mxnet(mxnet_python, PROGRAM)
    ours = on_minimx(PROGRAM)
    assert theirs["inferred column"] == [[2, 5], [3, 5], [3, 1]]
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        if key.startswith("inferred"):
            assert ours[key] == value, key
        else:
            np.testing.assert_allclose(ours[key], value, rtol=1e-6, err_msg=key)


def test_gradients_with_a_bias_of_shape_n_by_1():
    """The (n, 1) bias's gradient, numerically (no registry case: MXNet's CPU kernel refuses a
    dense (n, 1) bias when it runs, and every registry case is also asked of MXNet)."""
    import minimx as mx
    from minimx.test_utils import check_numeric_gradient
    rng = np.random.RandomState(0)
    sym = mx.sym.FullyConnected(mx.sym.var("x"), mx.sym.var("w"), mx.sym.var("b"),
                                num_hidden=4)
    check_numeric_gradient(sym, {"x": rng.uniform(-1, 1, (2, 6)),
                                 "w": rng.uniform(-1, 1, (4, 6)),
                                 "b": rng.uniform(-1, 1, (4, 1))},
                           numeric_eps=1e-3, rtol=1e-2, atol=1e-3)
