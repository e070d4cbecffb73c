"""nd.contrib.foreach, while_loop and cond beside MXNet 1.9.1: values and gradients.

Each program runs on both (``same_program``); skipped without the reference MXNet.
"""
import numpy as np
import pytest

import minimx as mx
from same_program import on_minimx, on_mxnet

IMPERATIVE = """
import json
import numpy as np
nd, autograd = mx.nd, mx.autograd
rng = np.random.RandomState(0)
out = {}

# foreach over one array and over a list, nested states, gradients through every step
x = nd.array(rng.uniform(size=(4, 3)))
y = nd.array(rng.uniform(size=(4, 3)))
s0 = nd.array(rng.uniform(size=(3,)))
for v in (x, y, s0):
    v.attach_grad()
def body(data, states):
    a, b = data
    h, (c,) = states
    h2 = nd.tanh(a * h + b)
    return [h2, h2 * c], [h2, [c + a]]
with autograd.record():
    outs, states = nd.contrib.foreach(body, [x, y], [s0, [s0 * 2]])
    loss = outs[0].sum() + (outs[1] * outs[1]).sum() + states[1][0].sum()
loss.backward()
out["foreach"] = [o.asnumpy().tolist() for o in outs] + [states[0].asnumpy().tolist(),
                  states[1][0].asnumpy().tolist()]
out["foreach_grad"] = [v.grad.asnumpy().tolist() for v in (x, y, s0)]
single, last = nd.contrib.foreach(lambda d, s: (d + s, d * s), x, s0)
out["foreach_single"] = [single.asnumpy().tolist(), last.asnumpy().tolist()]

# while_loop: stacked outputs padded to max_iterations (compare the defined rows)
i0, t0 = nd.array([1], dtype="int64"), nd.array([0], dtype="int64")
outs, (i, t) = nd.contrib.while_loop(lambda i, t: i <= 5, lambda i, t: (i, (i + 1, t + i)),
                                     (i0, t0), max_iterations=10)
out["while"] = [outs.shape, outs[:5].asnumpy().tolist(), i.asnumpy().tolist(),
                t.asnumpy().tolist(), str(outs.dtype)]
outs, state = nd.contrib.while_loop(lambda s: s < 0, lambda s: ([s, s], s + 1), i0,
                                    max_iterations=3)
out["while_never"] = [outs, state.asnumpy().tolist()]
a = nd.array([2.0]); a.attach_grad()
with autograd.record():
    outs, (p, n) = nd.contrib.while_loop(lambda p, n: n < 3,
                                         lambda p, n: ([p * 2], [p * a, n + 1]),
                                         [a * 1, nd.zeros(1)], max_iterations=4)
    (p + outs[0][:3].sum()).backward()
out["while_grad"] = [p.asnumpy().tolist(), outs[0][:3].asnumpy().tolist(),
                     a.grad.asnumpy().tolist()]

# cond: one branch runs, recorded
b = nd.array([3.0]); b.attach_grad()
with autograd.record():
    r = nd.contrib.cond(b > 2, lambda: b * b, lambda: b - 1)
r.backward()
out["cond"] = [r.asnumpy().tolist(), b.grad.asnumpy().tolist(),
               nd.contrib.cond(nd.array([0]), lambda: [b, b], lambda: [b - 1, b + 1])[1]
               .asnumpy().tolist()]
print(json.dumps(out))
"""


def test_imperative_control_flow_matches_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, IMPERATIVE)
    got = on_minimx(IMPERATIVE)
    assert got.keys() == expected.keys()
    for key in expected:
        _assert_same(got[key], expected[key], key)


def _assert_same(got, expected, where):
    """Equal structure, equal strings, numbers within float32 rounding."""
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), (where, got, expected)
        for position, (g, e) in enumerate(zip(got, expected)):
            _assert_same(g, e, f"{where}[{position}]")
    elif isinstance(expected, str):
        assert got == expected, where
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=where)


ERRORS = """
import json
nd = mx.nd
out = {}
def kind(fn):
    try:
        fn()
    except Exception as error:
        return type(error).__name__
    return None
x = nd.ones((2, 3))
out["no_max"] = kind(lambda: nd.contrib.while_loop(lambda s: s < 1, lambda s: (s, s), [x]))
out["no_vars"] = kind(lambda: nd.contrib.while_loop(lambda: 1, lambda: (1, 1), [],
                                                    max_iterations=2))
out["var_count"] = kind(lambda: nd.contrib.while_loop(
    lambda s: (s < 1).sum(), lambda s: (s, [s, s]), [x], max_iterations=2))
out["data_type"] = kind(lambda: nd.contrib.foreach(lambda d, s: (d, s), [1, 2], [x]))
out["pred"] = kind(lambda: nd.contrib.cond("yes", lambda: x, lambda: x))
print(json.dumps(out))
"""


def test_control_flow_refusals_match_mxnet(mxnet_python):
    assert on_minimx(ERRORS) == on_mxnet(mxnet_python, ERRORS)


def test_while_loop_error_names_the_counts():
    x = mx.nd.ones((2,))
    with pytest.raises(ValueError, match="returned 2 loop variables, expected 1"):
        mx.nd.contrib.while_loop(lambda s: s.sum() < 3, lambda s: (s, [s, s]), [x],
                                 max_iterations=2)
