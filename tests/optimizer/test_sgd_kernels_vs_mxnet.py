"""The SGD family's kernels bit for bit against MXNet 1.9.1 (found at stop 46).

Each update follows its MXNet kernel's expression term for term in the weight's dtype:
``sgd_update`` is ``(1 - lr*wd)*w - (lr*rescale)*g``, ``multi_sgd_update`` (what MXNet's
SGD optimizer calls for every dense weight, even alone) is ``w + (0 - lr*wd*w -
lr*rescale*g)``, ``sgd_mom_update`` subtracts the decay before the gradient, NAG writes
the weight before its momentum reads it, and the sign kernels count a NaN as 0.  minimx
had the same arithmetic in other orders: with weight decay about a third of the weights
came out a last bit apart from MXNet's after every ``Trainer`` step, NAG's even without,
and a run compounds that into a different curve.
"""
import json

from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
import numpy as onp
nd = mx.nd
rng = onp.random.RandomState(1)
W, G, M = (rng.randn(300).astype("float32") for _ in range(3))
G[::7] = onp.nan
G[::11] = 0
results = {}
def bits(*arrays):
    return [a.asnumpy().astype("float64").tobytes().hex() for a in arrays]
for clip in (-1.0, 0.3):
    for dtype in ("float32", "float64", "float16"):
        kw = dict(lr=0.1, wd=3e-4, rescale_grad=1 / 32, clip_gradient=clip)
        w, g, m = (nd.array(a, dtype=dtype) for a in (W, G, M))
        key = f"{clip} {dtype}"
        results["sgd " + key] = bits(nd.sgd_update(w, g, **kw))
        mom = m.copy()
        results["sgd_mom " + key] = bits(nd.sgd_mom_update(w, g, mom, momentum=0.9, **kw), mom)
        weight, mom = w.copy(), m.copy()
        nd.nag_mom_update(weight, g, mom, momentum=0.9, out=weight, **kw)
        results["nag " + key] = bits(weight, mom)
        out = [w.copy(), w + 1]
        nd.multi_sgd_update(out[0], g, out[1], g, num_weights=2, lrs=(0.1, 0.2),
                            wds=(3e-4, 1e-4), rescale_grad=1 / 32, clip_gradient=clip, out=out)
        results["multi_sgd " + key] = bits(*out)
        results["signsgd " + key] = bits(nd.signsgd_update(w, g, **kw))
        mom = m.copy()
        results["signum " + key] = bits(
            nd.signum_update(w, g, mom, momentum=0.9, wd_lh=1e-3, **kw), mom)
    w16, g16 = nd.array(W, dtype="float16"), nd.array(G, dtype="float16")
    master, mom = nd.array(W), nd.array(M)
    results[f"mp_nag {clip}"] = bits(nd.mp_nag_mom_update(w16, g16, mom, master, lr=0.1,
                                     wd=3e-4, momentum=0.9, clip_gradient=clip), mom, master)
    out, master = [w16.copy()], nd.array(W)
    nd.multi_mp_sgd_update(out[0], g16, master, num_weights=1, lrs=(0.1,), wds=(3e-4,),
                           clip_gradient=clip, out=out)
    results[f"multi_mp_sgd {clip}"] = bits(out[0], master)
for name, extra in (("sgd", {}), ("sgd", {"momentum": 0.9}), ("nag", {"momentum": 0.9})):
    updater = mx.optimizer.get_updater(mx.optimizer.create(
        name, learning_rate=0.1, wd=5e-4, rescale_grad=1 / 64, **extra))
    weights = [nd.array(W), nd.array(M)]
    for step in range(4):
        grads = [nd.array(rng.randn(300).astype("float32")) for _ in weights]
        updater([0, 1], grads, weights) if step % 2 else updater(0, grads[0], weights[0])
    results[f"updater {name} {extra}"] = bits(*weights)
print(json.dumps(results))
"""


def test_sgd_family_kernels_match_mxnet_bit_for_bit(mxnet_python):
    mine, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    assert mine.keys() == theirs.keys()
    differing = [key for key in theirs if mine[key] != theirs[key]]
    assert not differing, differing
