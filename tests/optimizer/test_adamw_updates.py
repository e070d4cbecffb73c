"""``nd.contrib.adamw_update``, ``mp_adamw_update`` and their ``multi_`` forms
(minimx/op/adamw_updates.py) against MXNet 1.9.1: one program on both sides
(``same_program``).  It checks the new weights *and* the moments updated in place, the
skipped update when ``rescale_grad`` is NaN, an infinity or 0 (as a number or an array),
clipping, float16 weights with float32 master copies, a float32 weight given to the
``multi_mp_`` form (updated directly, its master copy untouched), and weights of mixed
dtypes in one call refused.  (MXNet 1.9.1 cannot
compose these operators into a Symbol: "Not enough argument"; they are imperative only.)
"""
import numpy as np

import minimx
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
import numpy as np
nd, sym = mx.nd, mx.sym
result = {}
def out(name, arrays):
    result[name] = [a.asnumpy().astype('float64').tolist() for a in arrays]
rng = np.random.RandomState(5)
def state(shape, low=0.0, high=1.0):
    return nd.array(rng.uniform(low, high, size=shape))
shapes = [(3, 4), (5,), (2, 2, 2)]
for rescale in (1.5, float('nan'), float('inf'), 0.0, nd.array([0.7]), nd.array([np.nan])):
    for clip in (-1.0, 0.3):
        w, g, m, v = state((3, 4)), state((3, 4), -2, 2), state((3, 4)), state((3, 4))
        kw = dict(lr=0.05, eta=0.8, wd=0.02, clip_gradient=clip, beta1=0.8, epsilon=1e-6)
        nd.contrib.adamw_update(w, g, m, v, rescale, out=w, **kw)
        out(f'adamw {rescale} {clip}', [w, m, v])
        w16, g16 = state((3, 4)).astype('float16'), state((3, 4), -2, 2).astype('float16')
        w32, m, v = w16.astype('float32'), state((3, 4)), state((3, 4))
        nd.contrib.mp_adamw_update(w16, g16, m, v, w32, rescale, out=w16, **kw)
        out(f'mp {rescale} {clip}', [w16, m, v, w32])
ws = [state(s) for s in shapes]
gs = [state(s, -1, 1) for s in shapes]
ms = [state(s) for s in shapes]
vs = [state(s) for s in shapes]
kw = dict(lrs=[0.1, 0.05, 0.2], wds=[0.0, 0.1, 0.01], etas=[1.0, 0.5, 0.9], beta2=0.99,
          clip_gradient=0.8)
nd.contrib.multi_adamw_update(ws, gs, ms, vs, 2.0, out=ws, **kw)
out('multi', ws + ms + vs)
for dtype in ('float16', 'float32'):
    w16 = [state(s).astype(dtype) for s in shapes]
    w32 = [w.astype('float32') + 0.25 for w in w16]    # unread for float32 weights
    g16 = [g.astype(dtype) for g in gs]
    nd.contrib.multi_mp_adamw_update(w16, g16, ms, vs, w32, nd.array([1.25]), out=w16, **kw)
    out(f'multi mp {dtype}', w16 + ms + vs + w32)
try:
    nd.contrib.multi_adamw_update([ws[0], ws[1].astype('float16')], gs[:2], ms[:2], vs[:2],
                                  1.0, out=ws[:2], **dict(kw, lrs=[.1, .1], wds=[0, 0],
                                                          etas=[1, 1]))[0].asnumpy()
    result['mixed dtypes'] = 'accepted'
except mx.base.MXNetError:
    result['mixed dtypes'] = 'refused'
nd.contrib.multi_adamw_update(ws, gs, ms, vs, float('nan'), out=ws, **kw)
out('multi skipped', ws + ms + vs)
print(json.dumps(result))
"""


def test_adamw_updates_match_mxnet(mxnet_python):
    with minimx.cpu():              # the printed arrays name their context, MXNet's cpu(0)
        ours = on_minimx(PROGRAM)
    theirs = on_mxnet(mxnet_python, PROGRAM)
    assert ours.keys() == theirs.keys()
    assert ours.pop("mixed dtypes") == theirs.pop("mixed dtypes") == "refused"
    for key, expected in theirs.items():
        assert len(ours[key]) == len(expected), key
        for position, (mine, reference) in enumerate(zip(ours[key], expected)):
            np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{key} [{position}]")
