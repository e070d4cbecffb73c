"""Keywords an operator does not know, against MXNet 1.9.1 (``same_program``).

MXNet's operators without a parameter struct accept any keyword and ignore it
(``nd.broadcast_add(a, b, axis=0)`` is a plain sum; the Symbol keeps it as an attribute);
operators with parameters refuse an unknown one.  A Symbol given by keyword to an
operator without inputs (``sym.random.randn(2, 3, data=x)``) is ignored too.  Each case
records ``accepted`` with the values, or the refusal.
"""
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
nd, sym = mx.nd, mx.sym
a = nd.array([[1., -2., 3.], [4., 5., -6.]])
b = nd.array([[0.5, 2., -1.], [3., -4., 2.]])
x, y = sym.var('x'), sym.var('y')
cases = {
    # no parameter struct: accepted, ignored
    'broadcast_add axis': lambda: nd.broadcast_add(a, b, axis=0),
    'broadcast_maximum axis': lambda: nd.broadcast_maximum(a, b, axis=1),
    'broadcast_mul': lambda: nd.broadcast_mul(a, b, bar='x'),
    'elemwise_add': lambda: nd.elemwise_add(a, b, foo=1),
    'elemwise_mul': lambda: nd.elemwise_mul(a, b, foo=1),
    'broadcast_equal': lambda: nd.broadcast_equal(a, b, foo=1),
    'relu': lambda: nd.relu(a, foo=1),
    'exp': lambda: nd.exp(a, foo=1),
    'negative': lambda: nd.negative(a, foo=1),
    'abs': lambda: nd.abs(a, foo=1),
    'zeros_like': lambda: nd.zeros_like(a, foo=1),
    'ones_like': lambda: nd.ones_like(a, foo=1),
    'BlockGrad': lambda: nd.BlockGrad(a, foo=1),
    'identity': lambda: nd.identity(a, foo=1),
    'Flatten': lambda: nd.Flatten(a, foo=1),
    'where': lambda: nd.where(a > 0, a, b, foo=1),
    'fill_element_0index': lambda: nd.fill_element_0index(a, nd.array([7., 8.]),
                                                          nd.array([0., 2.]), foo=1),
    'sym broadcast_add axis': lambda: sym.broadcast_add(x, y, axis=0).eval(x=a, y=b)[0],
    'sym exp foo': lambda: sym.exp(x, foo=1).eval(x=a)[0],
    'sym randn data': lambda: sym.random.randn(2, 3, data=x).eval(x=a)[0].shape,
    # a parameter struct: refused
    'sum foo': lambda: nd.sum(a, foo=1),
    'dot foo': lambda: nd.dot(a, b.T, foo=1),
    'Activation foo': lambda: nd.Activation(a, act_type='relu', foo=1),
    'transpose foo': lambda: nd.transpose(a, foo=1),
    'add_n foo': lambda: nd.add_n(a, b, foo=1),
    'Concat foo': lambda: nd.Concat(a, b, foo=1),
    'sgd_update foo': lambda: nd.sgd_update(a, b, lr=0.1, foo=1),
    '_plus_scalar foo': lambda: nd._internal._plus_scalar(a, scalar=1, foo=1),
    'choose_element_0index foo': lambda: nd.choose_element_0index(a, nd.array([0., 2.]),
                                                                  foo=1),
    'random.uniform foo': lambda: nd.random.uniform(shape=(2,), foo=1),
    'random.randn data': lambda: nd.random.randn(2, data=a),
    'sym sum foo': lambda: sym.sum(x, foo=1).eval(x=a)[0],
    'sym exp with a Symbol foo': lambda: sym.exp(x, foo=y),
}
result = {}
for name, case in cases.items():
    try:
        value = case()
        if hasattr(value, 'asnumpy'):
            value = value.asnumpy().round(5).tolist()
        elif hasattr(value, 'list_arguments'):
            value = value.list_arguments()
        result[name] = ['accepted', value]
    except mx.base.MXNetError:
        result[name] = ['refused']
result['sym attrs'] = sym.broadcast_add(x, y, axis=0, name='s').attr_dict()
result['randn arguments'] = sym.random.randn(2, 3, data=x).list_arguments()
print(json.dumps(result))
"""


def test_unknown_keywords_as_mxnet(mxnet_python):
    ours, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key] == theirs[key], key
    outcomes = [value[0] for value in theirs.values() if isinstance(value, list) and value]
    accepted, refused = outcomes.count('accepted'), outcomes.count('refused')
    assert accepted >= 19 and refused >= 13      # both behaviours are exercised
