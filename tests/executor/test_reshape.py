"""``Executor.reshape`` (minimx/executor/reshape.py) against MXNet 1.9.1: the new executor's
arrays share the old one's memory (a write through one shows in the other), a larger
shape is refused without ``allow_up_sizing``, and an argument not named may change shape
only with ``partial_shaping``.

One program runs on both sides (``same_program``); their JSON results must agree.
"""
import numpy as np
import pytest
from same_program import on_minimx, on_mxnet

import minimx
from minimx.base import MXNetError

PROGRAM = r"""
import json
result = {}
def show(name, array):
    result[name] = array.asnumpy().tolist()
def attempt(name, **kwargs):
    try:
        exe.reshape(**kwargs)
        result[name] = 'ok'
    except mx.base.MXNetError as error:
        text = str(error)
        result[name] = ['refused', 'allow_up_sizing=True' in text,
                        'partial_shaping=True' in text]

x = mx.sym.Variable('x')
net = mx.sym.FullyConnected(x, num_hidden=4, name='fc')
bn = mx.sym.BatchNorm(net, name='bn')
exe = bn.simple_bind(mx.cpu(), x=(5, 4))
exe.arg_dict['x'][:] = 1
exe.arg_dict['fc_weight'][:] = 1
exe.arg_dict['fc_bias'][:] = 0
exe.arg_dict['bn_gamma'][:] = 1
small = exe.reshape(x=(3, 4))
small.arg_dict['x'][:] = 2                          # shows in the big executor's data
show('big x after small write', exe.arg_dict['x'])
small.forward(is_train=True)
small.backward(mx.nd.ones((3, 4)))
show('small output', small.outputs[0])
show('big output front', exe.outputs[0][:3])        # the small forward wrote it
show('big weight grad', exe.grad_dict['fc_weight'])
show('big x grad front', exe.grad_dict['x'][:3])
show('big moving mean', exe.aux_dict['bn_moving_mean'])
exe.forward(is_train=False)
show('big output', exe.outputs[0])
attempt('larger', x=(6, 4))
attempt('weight changes', x=(3, 5))
attempt('weight changes, partial', x=(3, 5), partial_shaping=True)
attempt('smaller and unknown name', x=(2, 4), nonsense=(7,))
bigger = exe.reshape(allow_up_sizing=True, x=(6, 4))
bigger.arg_dict['x'][:] = 0
show('big x after bigger write', exe.arg_dict['x'])
bigger.arg_dict['fc_weight'][:] = 3                 # the same shape: shared
show('big weight after bigger write', exe.arg_dict['fc_weight'])
result['bigger shapes'] = str([a.shape for a in bigger.arg_arrays])
print(json.dumps(result))
"""


@pytest.mark.mxnet
def test_reshape_shares_memory_and_refuses_as_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, PROGRAM)
    got = on_minimx(PROGRAM)
    assert sorted(got) == sorted(expected)
    for name, value in expected.items():
        if isinstance(value, list) and value and not isinstance(value[0], (str, bool)):
            np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
        else:
            assert got[name] == value, name


def test_a_smaller_executor_writes_into_the_bigger_ones_buffers():
    x = minimx.sym.Variable("x")
    exe = minimx.sym.FullyConnected(x, num_hidden=2, name="fc").simple_bind(
        minimx.cpu(), x=(4, 3), grad_req="null")
    exe.arg_dict["fc_weight"][:] = 1
    small = exe.reshape(x=(2, 3))
    small.forward(x=minimx.nd.ones((2, 3)))
    assert exe.outputs[0].asnumpy()[:2].tolist() == [[3, 3], [3, 3]]
    with pytest.raises(MXNetError, match="allow_up_sizing=True"):
        exe.reshape(x=(5, 3))
