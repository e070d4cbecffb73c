"""An in-place change between ``forward`` and ``backward`` is seen by backward, as MXNet's
backward reads the bound arrays and outputs themselves (``executor._as_now``): an output
rewritten (``outputs[0] += 5`` before a relu's gradient, which reads its output), a bound
input written in place (``arg_dict['x'][:] = ...``), and neither (a SoftmaxOutput whose
value forward copied into its output array).  One program runs on both sides."""
import numpy as np
import pytest
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
import numpy as np

x = mx.sym.Variable('x')
result = {}
relu = mx.sym.relu(x)
for change in ('none', 'output', 'input', 'both'):
    exe = relu.simple_bind(mx.cpu(), x=(4,))
    exe.arg_dict['x'][:] = mx.nd.array([-1, -2, 1, 2])
    exe.forward(is_train=True)
    if change in ('output', 'both'):
        exe.outputs[0] += 5
    if change in ('input', 'both'):
        exe.arg_dict['x'][:] = mx.nd.array([3, -3, -4, 4])
    exe.backward(mx.nd.ones((4,)))
    result['relu ' + change] = exe.grad_dict['x'].asnumpy().tolist()
fc = mx.sym.FullyConnected(x, num_hidden=3, name='fc')
net = mx.sym.SoftmaxOutput(mx.sym.sigmoid(fc), name='sm')
exe = net.simple_bind(mx.cpu(), x=(2, 4))
rng = np.random.RandomState(0)
for name, array in exe.arg_dict.items():
    array[:] = rng.randint(0, 3, array.shape) if name == 'sm_label' else rng.rand(*array.shape)
for step in range(3):
    exe.forward(is_train=True)
    exe.backward()
    if step == 1:
        exe.arg_dict['x'][:] = rng.rand(2, 4)   # the next step reads the new batch
result['softmax'] = [exe.grad_dict[n].asnumpy().tolist() for n in ('x', 'fc_weight')]
print(json.dumps(result))
"""


@pytest.mark.mxnet
def test_backward_sees_changes_made_after_forward_as_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, PROGRAM)
    got = on_minimx(PROGRAM)
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        for ours, theirs in zip(got[name], value) if name == "softmax" else [(got[name], value)]:
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=name)
