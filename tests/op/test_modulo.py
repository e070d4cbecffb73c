"""``%`` (broadcast_mod, _mod, _mod_scalar, _rmod_scalar in minimx/op/arithmetic.py) against
MXNet 1.9.1: the remainder takes the sign of the divisor (as Python's ``%``), a divisor of 0
gives 0, and the gradients are 1 and ``-floor(lhs / rhs)``.

One program runs on both sides (``same_program``); their JSON results must agree.
"""
import json

import numpy as np
import pytest
from same_program import on_minimx, on_mxnet

import minimx

SIGNED_INTS = ["int8", "int32", "int64"]      # MXNet 1.9.1's signed integer dtypes
FLOATS = ["float16", "float32", "float64"]

# every sign pair, an exact multiple, a zero dividend and a zero divisor
INT_LHS = [-7, 7, -7, 7, 0, 5, -6, 6, -1, 3]
INT_RHS = [3, -3, -3, 3, 3, 0, 3, -4, 5, 3]
FLOAT_LHS = [-7.5, 7.5, -7.5, 7.5, 0.0, 2.0, -0.25, 6.0, -1.0, 3.75]
FLOAT_RHS = [2.0, -2.0, -2.0, 2.0, 2.0, 0.0, 0.5, -4.0, 5.0, 1.25]

PROGRAM = r"""
import json
nd, autograd, sym = mx.nd, mx.autograd, mx.sym
dtype, lhs, rhs, floats = json.loads(INPUT)
result = {}
def out(name, array):
    result[name] = array.asnumpy().astype('float64').tolist()
a, b = nd.array(lhs, dtype=dtype), nd.array(rhs, dtype=dtype)
out('nd %', a % b)
out('broadcast_mod', nd.broadcast_mod(a.reshape((1, -1)), b.reshape((-1, 1))))
out('broadcast row', a.reshape((2, -1)) % nd.array(rhs[:5], dtype=dtype).reshape((1, -1)))
for scalar in (2.5, -3, 10.7, -0.75):
    out(f'nd % {scalar}', a % scalar)
    out(f'{scalar} % nd', scalar % a)
    out(f'_mod_scalar {scalar}', nd._internal._mod_scalar(a, scalar=scalar))
    out(f'_rmod_scalar {scalar}', nd._internal._rmod_scalar(a, scalar=scalar))
c = a.copy()
c %= b
out('%=', c)
x, y = sym.var('x'), sym.var('y')
out('sym %', (x % y).eval(x=a, y=b)[0])
out('sym broadcast_mod', sym.broadcast_mod(x, y).eval(x=a.reshape((2, -1)),
                                                    y=b[:5].reshape((1, -1)))[0])
out('sym % scalar', (x % -3).eval(x=a)[0])
out('scalar % sym', (7 % x).eval(x=a)[0])
if floats:
    head = nd.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], dtype=dtype)
    for name, fn in [('grad %', lambda p, q: p % q),
                     ('grad broadcast_mod',
                      lambda p, q: nd.broadcast_mod(p.reshape((2, -1)), q[:5].reshape((1, -1)))),
                     ('grad % scalar', lambda p, q: p % 1.5 + q % -1.5),
                     ('grad scalar %', lambda p, q: 1.5 % p + -2.5 % q)]:
        p, q = a.copy(), b.copy()
        p.attach_grad(); q.attach_grad()
        with autograd.record():
            z = fn(p, q)
        z.backward(head.reshape(z.shape))
        out(name + ' lhs', p.grad)
        out(name + ' rhs', q.grad)
    ex = (x % y).simple_bind(mx.cpu(), x=(10,), y=(10,), type_dict={'x': dtype, 'y': dtype})
    ex.forward(is_train=True, x=a, y=b)
    ex.backward(head)
    out('executor grad x', ex.grad_dict['x'])
    out('executor grad y', ex.grad_dict['y'])
# an integer modulo inside a float graph passes a gradient of 0 back (test_bmod_int)
cast = sym.cast(x, dtype=dtype) % sym.cast(y, dtype=dtype)
ex = cast.simple_bind(mx.cpu(), x=(10,), y=(10,))
ex.forward(is_train=True, x=a.astype('float32'), y=b.astype('float32'))
ex.backward(nd.array([2.5] * 10))        # a float32 head, as the suite gives
out('cast executor', ex.outputs[0])
out('cast grad x', ex.grad_dict['x'])
out('cast grad y', ex.grad_dict['y'])
print(json.dumps(result))
"""


@pytest.mark.mxnet
@pytest.mark.filterwarnings("ignore:divide by zero")     # the gradient at a divisor of 0 is inf
@pytest.mark.parametrize("dtype", SIGNED_INTS + FLOATS)
def test_modulo_values_and_gradients_match_mxnet(dtype, mxnet_python):
    lhs, rhs = (FLOAT_LHS, FLOAT_RHS) if dtype in FLOATS else (INT_LHS, INT_RHS)
    given = json.dumps([dtype, lhs, rhs, dtype in FLOATS])
    expected = on_mxnet(mxnet_python, PROGRAM, given)
    got = on_minimx(PROGRAM, given)
    assert sorted(got) == sorted(expected)
    for name, values in expected.items():
        np.testing.assert_array_equal(np.array(got[name]), np.array(values),
                                      err_msg=f"{dtype}: {name}")


def test_the_sign_follows_the_divisor_as_in_python():
    lhs, rhs = [-7, 7, -7, 7], [3, -3, -3, 3]
    for dtype in SIGNED_INTS + FLOATS:
        got = (minimx.nd.array(lhs, dtype=dtype) % minimx.nd.array(rhs, dtype=dtype)).asnumpy()
        assert got.tolist() == [a % b for a, b in zip(lhs, rhs)], dtype
    halves = minimx.nd.array([-7.5, 7.5]) % minimx.nd.array([2, -2])
    assert halves.asnumpy().tolist() == [0.5, -0.5]
