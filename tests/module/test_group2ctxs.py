"""``group2ctx``/``group2ctxs`` (minimx/executor/placement.py, used by simple_bind, bind and
the Module's executor group), against MXNet 1.9.1: each ctx_group's variables, gradients and
outputs live on the context the group is mapped to (they all stayed on ``cpu(0)``), per
device for a Module on several contexts, and the values are those of an unplaced graph.

One program runs on both sides (``same_program``); their JSON results must agree.
"""
import pytest
from same_program import on_minimx, on_mxnet

import minimx

PROGRAM = r"""
import json
result = {}
with mx.AttrScope(ctx_group='dev1'):
    a = mx.symbol.Variable('a')
    a = a * 2
with mx.AttrScope(ctx_group='dev2'):
    b = mx.symbol.Variable('b')
    c = a + b
exe = c.simple_bind(mx.cpu(0), group2ctx={'dev1': mx.cpu(1), 'dev2': mx.cpu(2)}, a=(2, 5),
                    b=(2, 5))
exe.forward(is_train=True, a=mx.nd.ones((2, 5)), b=mx.nd.ones((2, 5)) * 3)
exe.backward(mx.nd.ones((2, 5)))
result['executor'] = [{k: str(v.context) for k, v in exe.arg_dict.items()},
                      {k: str(v.context) for k, v in exe.grad_dict.items()},
                      [str(o.context) for o in exe.outputs],
                      exe.outputs[0].asnumpy().tolist(), exe.grad_dict['a'].asnumpy().tolist()]
cases = [([mx.cpu(0)], {'dev1': mx.cpu(1), 'dev2': mx.cpu(2)}),
         ([mx.cpu(0), mx.cpu(1)], [{'dev1': mx.cpu(2), 'dev2': mx.cpu(3)},
                                   {'dev1': mx.cpu(4), 'dev2': mx.cpu(5)}]),
         ([mx.cpu(0), mx.cpu(1)], {'dev1': mx.cpu(2), 'dev2': [mx.cpu(3)]}),
         ([mx.cpu(0), mx.cpu(1)], {'dev1': [mx.cpu(2), mx.cpu(4)], 'dev2': [mx.cpu(3), mx.cpu(5)]})]
for number, (contexts, group2ctxs) in enumerate(cases):
    mod = mx.mod.Module(c, context=contexts, data_names=['a', 'b'], label_names=None,
                        group2ctxs=group2ctxs)
    mod.bind(data_shapes=[['a', (2, 5)], ['b', (2, 5)]], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2, 5)), mx.nd.ones((2, 5)) * 3]),
                is_train=True)
    mod.backward([mx.nd.ones((2, 5))])
    result[f'module {number}'] = [
        [str(g.context) for g in mod.get_input_grads()],
        [str(o.context) for o in mod.get_outputs()],
        [[str(g.context) for g in grads] for grads in mod.get_input_grads(False)],
        [[str(o.context) for o in outs] for outs in mod.get_outputs(False)],
        mod.get_outputs()[0].asnumpy().tolist(), mod.get_input_grads()[0].asnumpy().tolist()]
print(json.dumps(result))
"""


@pytest.mark.mxnet
def test_groups_live_on_their_contexts_as_in_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, PROGRAM)
    got = on_minimx(PROGRAM)
    for name, value in expected.items():
        assert got[name] == value, name


def test_a_group_on_another_device_type_is_refused():
    with minimx.AttrScope(ctx_group="dev1"):
        a = minimx.sym.Variable("a") * 2
    module = minimx.mod.Module(a, context=minimx.cpu(), data_names=["a"], label_names=None,
                               group2ctxs={"dev1": minimx.gpu(0)})
    with pytest.raises(minimx.base.MXNetError, match=r"gpu\(0\)"):
        module.bind(data_shapes=[["a", (2, 5)]])
