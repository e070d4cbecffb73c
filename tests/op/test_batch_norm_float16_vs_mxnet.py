"""BatchNorm with float16 data and float32 parameters against MXNet 1.9.1 (CPU): MXNet
computes the statistics in float32, adds ``eps`` in float16, and rounds to float16 after
each step of ``((x - mean) * invstd) * gamma + beta``; its mean/var outputs are float32.
Outputs, hidden outputs, moving statistics and their dtypes, for training and inference
and each flag; gradients of data, gamma and beta computed with MXNet's float16 steps too
(bit for bit with the moving statistics; with batch statistics a channel's float16
``var + eps`` may round the other way, as MXNet's float32 sums run in another order)."""
import numpy as np
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
import numpy as np
rng = np.random.RandomState(0)
res = {}
shape = (8, 3, 7, 7)
xv = (rng.randn(*shape) * 3 + 20).astype(np.float16)
head = rng.randn(*shape).astype(np.float16)
for kw in ({'fix_gamma': False}, {'fix_gamma': True},
           {'fix_gamma': False, 'use_global_stats': True}):
    for train in (True, False):
        x = mx.nd.array(xv, dtype='float16')
        g = mx.nd.array([1., 2, 0.5], dtype='float32')
        b = mx.nd.array([0., 1, -2], dtype='float32')
        mm = mx.nd.array([19., 20, 21], dtype='float32')
        mv = mx.nd.array([8., 9, 10], dtype='float32')
        for a in (x, g, b):
            a.attach_grad()
        with mx.autograd.record(train_mode=train):
            out, mean, var = mx.nd.BatchNorm(x, g, b, mm, mv, output_mean_var=True, **kw)
        out.backward(mx.nd.array(head, dtype='float16'))
        mx.nd.waitall()
        arrays = (out, mean, var, mm, mv, x.grad, g.grad, b.grad)
        res[f'{sorted(kw.items())} train={train}'] = {
            'dtypes': [str(np.dtype(a.dtype)) for a in arrays],
            'values': [a.asnumpy().astype(np.float64).tolist() for a in arrays]}
print(json.dumps(res))
"""


def test_batch_norm_float16_matches_mxnet(mxnet_python):
    ours, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    assert ours.keys() == theirs.keys()
    for key, expected in theirs.items():
        assert ours[key]["dtypes"] == expected["dtypes"], key
        mine = [np.array(value) for value in ours[key]["values"]]
        want = [np.array(value) for value in expected["values"]]
        if "use_global_stats" in key or "train=False" in key:
            # the moving statistics: every step is MXNet's, bit for bit, gradients too
            for name, a, b in zip(("output", "data grad", "gamma grad", "beta grad"),
                                  mine[:1] + mine[5:], want[:1] + want[5:]):
                np.testing.assert_array_equal(a, b, err_msg=f"{key} {name}")
        else:
            # batch statistics: MXNet's float32 sums run in another order, so a channel's
            # float16 ``var + eps`` can round the other way (one float16 step, 2**-11)
            np.testing.assert_allclose(mine[0], want[0], rtol=0, atol=4e-3, err_msg=key)
        # (var is 1 / sqrt(var + eps): that float16 step moves it by up to 2**-10)
        for name, a, b in zip(("mean", "var", "moving_mean", "moving_var"), mine[1:5],
                              want[1:5]):
            np.testing.assert_allclose(a, b, rtol=1e-3, err_msg=f"{key} {name}")
        for name, a, b in zip(("data", "gamma", "beta"), mine[5:], want[5:]):
            np.testing.assert_allclose(a, b, rtol=2e-3, atol=1e-3, err_msg=f"{key} grad {name}")
