"""A loss layer leaves its label's gradient array as it was, as MXNet 1.9.1.

MXNet's backward of ``SoftmaxOutput``, the regression outputs and ``SVMOutput`` never
writes the label's gradient: a bound gradient array (or an attached ``.grad``) keeps its
value under ``grad_req`` 'write' and 'add' alike.  ``BlockGrad`` writes zeros.  Asked of
MXNet in a subprocess and compared with minimx.
"""
import numpy as np

from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
import numpy as np

heads = {"SoftmaxOutput": (3,), "LinearRegressionOutput": (3, 4),
         "LogisticRegressionOutput": (3, 4), "MAERegressionOutput": (3, 4), "SVMOutput": (3,)}
rng = np.random.RandomState(0)
data = rng.rand(3, 4).astype("float32")
found = {}
for name, label_shape in heads.items():
    layer = getattr(mx.sym, name)(data=mx.sym.Variable("data"), label=mx.sym.Variable("label"))
    for req in ("write", "add"):
        ex = layer.simple_bind(mx.cpu(), data=(3, 4), label=label_shape, grad_req=req)
        ex.arg_dict["data"][:] = data
        ex.arg_dict["label"][:] = 1
        for grad in ex.grad_arrays:
            grad[:] = 5
        ex.forward(is_train=True)
        ex.backward()
        found[name + " executor " + req] = ex.grad_dict["label"].asnumpy().tolist()
        if req == "write":
            found[name + " executor data"] = ex.grad_dict["data"].asnumpy().tolist()
        x = mx.nd.array(data)
        label = mx.nd.ones(label_shape)
        x.attach_grad()
        label.attach_grad(grad_req=req)
        label.grad[:] = 5
        with mx.autograd.record():
            out = getattr(mx.nd, name)(x, label)
        out.backward()
        found[name + " autograd " + req] = label.grad.asnumpy().tolist()
        if req == "write":
            found[name + " autograd data"] = x.grad.asnumpy().tolist()
blocked = mx.sym.BlockGrad(mx.sym.Variable("data"))
ex = blocked.simple_bind(mx.cpu(), data=(3, 4))
ex.grad_dict["data"][:] = 5
ex.forward(is_train=True)
ex.backward(mx.nd.ones((3, 4)))
found["BlockGrad executor write"] = ex.grad_dict["data"].asnumpy().tolist()
print(json.dumps(found))
"""


def test_loss_layers_leave_label_gradient_as_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, PROGRAM)
    got = on_minimx(PROGRAM)
    assert sorted(got) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6, err_msg=key)
    # the evidence itself: the label keeps its 5s, BlockGrad's input gets zeros
    assert got["SoftmaxOutput executor write"] == [5.0] * 3
    assert got["LinearRegressionOutput autograd write"] == [[5.0] * 4] * 3
    assert got["BlockGrad executor write"] == [[0.0] * 4] * 3
