"""``box_encode``, ``box_decode``, ``bipartite_matching`` (minimx/op/box_coding.py) and
``gradientmultiplier`` against MXNet 1.9.1: one program on both sides (``same_program``),
covering the cases of MXNet's test_contrib_operator.py and a few more (clipping, both
formats, ascending matching with ``topk``, float16/float64, gradients through a graph).
"""
import numpy as np
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
import numpy as np
nd, sym, autograd = mx.nd, mx.sym, mx.autograd
result = {}
def out(name, value):
    values = value if isinstance(value, (list, tuple)) else [value]
    result[name] = [v.asnumpy().astype('float64').round(5).tolist() for v in values]
rng = np.random.RandomState(3)
corner = rng.uniform(0, 0.6, size=(2, 6, 2))
anchors = nd.array(np.concatenate([corner, corner + rng.uniform(0.1, 0.4, (2, 6, 2))], -1))
corner = rng.uniform(0, 0.6, size=(2, 3, 2))
refs = nd.array(np.concatenate([corner, corner + rng.uniform(0.1, 0.4, (2, 3, 2))], -1))
samples = nd.array([[1, -1, 0, 1, 1, 0], [0, 1, 1, -1, 1, 1]])
matches = nd.array([[0, 1, 2, 2, 1, 0], [2, 2, 0, 1, 0, 1]])
means, stds = nd.array([0.01, -0.02, 0.0, 0.05]), nd.array([0.1, 0.1, 0.2, 0.2])
out('encode', nd.contrib.box_encode(samples, matches, anchors, refs, means, stds))
f64 = [a.astype('float64') for a in (samples, matches, anchors, refs, means, stds)]
out('encode f64', nd.contrib.box_encode(*f64))
for name, call in (('encode', lambda: nd.contrib.box_encode(samples, matches, f64[2], refs,
                                                            means, stds)),
                   ('decode', lambda: nd.contrib.box_decode(f64[2], anchors[:1]))):
    try:
        call().wait_to_read()
        result[name + ' mixed dtypes'] = 'accepted'
    except mx.base.MXNetError:
        result[name + ' mixed dtypes'] = 'refused'

data = nd.array(rng.uniform(-1, 1, size=(2, 6, 4)))
for kwargs in ({}, {'std0': .1, 'std1': .1, 'std2': .2, 'std3': .2},
               {'format': 'corner', 'clip': 0.3}, {'format': 'center', 'clip': 0.5, 'std2': 2.}):
    out('decode ' + json.dumps(kwargs, sort_keys=True),
        nd.contrib.box_decode(data, anchors[:1], **kwargs))
s = sym.contrib.box_decode(sym.var('d'), sym.var('a'), 0.1, 0.1, 0.2, 0.2, format='corner')
out('decode sym', s.eval(d=data, a=anchors[:1])[0])
scores = nd.array(rng.uniform(0, 1, size=(2, 5, 4)))
scores[0, 1, 2] = scores[0, 3, 0]       # a tie: the earlier pair wins
for kwargs in ({'threshold': 0.2}, {'threshold': 0.9, 'is_ascend': True},
               {'threshold': 0.1, 'topk': 2}, {'threshold': 0.95}):
    for dtype in ('float16', 'float32', 'float64'):
        out(f'match {dtype} ' + json.dumps(kwargs, sort_keys=True),
            nd.contrib.bipartite_matching(scores.astype(dtype), **kwargs))
out('match 2d', nd.contrib.bipartite_matching(scores[0], threshold=0.3))
x = nd.array(rng.uniform(-1, 1, size=(3, 4)))
for m in (-0.7, 2.5, 0.0):
    x.attach_grad()
    with autograd.record():
        y = nd.contrib.gradientmultiplier(nd.contrib.quadratic(x, a=0.5, b=1.5, c=0.1),
                                          scalar=m)
    y.backward(nd.ones_like(y) * 2)
    out(f'gm {m}', [y, x.grad])
g = sym.contrib.gradientmultiplier(sym.contrib.quadratic(sym.var('data'), a=1., b=2.),
                                   scalar=-0.3)
ex = g.simple_bind(mx.cpu(), data=(3, 4))
ex.forward(is_train=True, data=x)
ex.backward(nd.ones((3, 4)))
out('gm sym', [ex.outputs[0], ex.grad_dict['data']])
print(json.dumps(result))
"""


def test_box_coding_and_gradient_multiplier_match_mxnet(mxnet_python):
    ours = on_minimx(PROGRAM)
    theirs = on_mxnet(mxnet_python, PROGRAM)
    assert ours.keys() == theirs.keys()
    for key, expected in theirs.items():
        if isinstance(expected, str):
            assert ours[key] == expected, key
            continue
        assert len(ours[key]) == len(expected), key
        for mine, reference in zip(ours[key], expected):
            np.testing.assert_allclose(mine, reference, atol=2e-5, err_msg=key)
