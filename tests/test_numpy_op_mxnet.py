"""``mx.operator.NumpyOp`` (minimx/operator/numpy_op.py) against MXNet 1.9.1: one program
(``same_program``) defines a one-input and a two-input, two-output NumpyOp, binds their
Symbols and compares names, outputs and gradients."""
import warnings

from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
import warnings
warnings.simplefilter('ignore')
import numpy as np
class Square(mx.operator.NumpyOp):
    def __init__(self):
        super(Square, self).__init__(True)
    def list_arguments(self): return ['data']
    def list_outputs(self): return ['output']
    def infer_shape(self, in_shape): return in_shape, [in_shape[0]]
    def forward(self, in_data, out_data): out_data[0][:] = in_data[0] ** 2
    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 2 * in_data[0] * out_grad[0]
class SumDiff(mx.operator.NumpyOp):
    def __init__(self):
        super(SumDiff, self).__init__(True)
    def list_arguments(self): return ['a', 'b']
    def list_outputs(self): return ['sum', 'diff']
    def infer_shape(self, in_shape): return in_shape, [in_shape[0], in_shape[0]]
    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0] + in_data[1]
        out_data[1][:] = in_data[0] - in_data[1]
    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = out_grad[0] + out_grad[1]
        in_grad[1][:] = out_grad[0] - 3 * out_grad[1]
result = {}
x, y = mx.sym.var('x'), mx.sym.var('y')
s = SumDiff().get_symbol(Square().get_symbol(x, name='sq'), y, name='sd')
result['names'] = [s.list_arguments(), s.list_outputs()]
ex = s.simple_bind(mx.cpu(), x=(2, 3), y=(2, 3))
outs = ex.forward(is_train=True, x=mx.nd.array([[1, 2, 3], [4, 5, 6]]),
                  y=mx.nd.array([[0.5, -1, 2], [3, 0, -2]]))
ex.backward([mx.nd.ones((2, 3)), mx.nd.array([[1, 2, 3], [0, 1, 0]])])
result['outputs'] = [o.asnumpy().tolist() for o in outs]
result['grads'] = [ex.grad_dict[n].asnumpy().tolist() for n in ('x', 'y')]
print(json.dumps(result))
"""


def test_numpy_op_matches_mxnet(mxnet_python):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = on_minimx(PROGRAM)
    assert ours == on_mxnet(mxnet_python, PROGRAM)
