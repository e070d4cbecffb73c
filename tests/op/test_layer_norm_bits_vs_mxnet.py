"""LayerNorm's values and gradients, bit for bit as MXNet 1.9.1's.

MXNet's CPU LayerNorm has two kernels.  Over the last axis ``LayerNormCPUKernel`` adds each
row one value after the other in the dtype and computes ``(x - mean) * gamma / sigma +
beta``; over another axis ``LayerNormComputeGeneral`` sums with MXNet's reducer (Kahan, in
double) and computes ``(x - mean) / sigma * gamma + beta``.  Its ``eps`` is a float
parameter (float64 gets float32's 1e-5).  The gradient (``LayerNormGradComputeGeneral``)
is ``g = ograd * gamma / std``, then ``g - sum(g) / C + xhat * (sum(g * xhat) / -C)``,
sums again MXNet's reducer.  minimx follows all of it but the float32 sums of the last-axis
kernel: numpy adds rows pairwise, so rows longer than 8 may differ in the last bit (a
one-by-one float32 sum would cost more than the layer); the cases below keep to rows of
at most 7 values there.
"""
import json

import numpy as np
import pytest
from same_program import on_minimx, on_mxnet

from minimx import autograd, nd


def _run(x, gamma, beta, head, axis, dtype):
    arrays = [nd.array(np.asarray(a), dtype=dtype) for a in (x, gamma, beta)]
    for array in arrays:
        array.attach_grad()
    with autograd.record():
        y = nd.LayerNorm(*arrays, axis=axis)
    y.backward(nd.array(np.asarray(head), dtype=dtype))
    _, mean, std = nd.LayerNorm(*arrays, axis=axis, output_mean_var=True)
    return [v.asnumpy() for v in (y, mean, std)] + [a.grad.asnumpy() for a in arrays]


def _kahan(values, axes):
    """MXNet's sum reducer, one output at a time (the reference, in plain Python)."""
    kept = [a for a in range(values.ndim) if a not in axes]
    terms = np.transpose(values, kept + list(axes)).reshape(
        [values.shape[a] for a in kept] + [-1])
    out = np.empty(terms.shape[:-1])
    for index in np.ndindex(*terms.shape[:-1]):
        total = residual = 0.0
        for value in terms[index]:
            term = float(value) - residual
            added = total + term
            residual = (added - total) - term
            total = added
        out[index] = total
    return out.reshape([1 if a in axes else n for a, n in enumerate(values.shape)])


def test_float64_follows_mxnets_order_and_eps():
    rng = np.random.default_rng(3)
    x, gamma, head = rng.standard_normal((3, 5, 4)), rng.standard_normal(5), \
        rng.standard_normal((3, 5, 4))
    beta = np.linspace(-1, 1, 5)
    y, mean, std, gx, gg, gb = _run(x, gamma, beta, head, 1, "float64")
    eps, count, view = float(np.float32(1e-5)), 5, (1, 5, 1)
    want_mean = _kahan(x, (1,)) / count
    centered = x - want_mean
    want_std = np.sqrt(_kahan(centered * centered, (1,)) / count + eps)
    assert np.array_equal(mean, want_mean) and np.array_equal(std, want_std)
    assert np.array_equal(y, centered / want_std * gamma.reshape(view) + beta.reshape(view))
    xhat = centered / want_std
    scaled = head * gamma.reshape(view) / want_std
    want = scaled - _kahan(scaled, (1,)) / count
    want += xhat * (_kahan(scaled * xhat, (1,)) / -count)
    assert np.array_equal(gx, want)
    assert np.array_equal(gg, _kahan(xhat * head, (0, 2)).reshape(-1))
    assert np.array_equal(gb, _kahan(head, (0, 2)).reshape(-1))


def test_last_axis_kernel_order():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 7)).astype(np.float32)
    gamma, beta = rng.standard_normal(7).astype(np.float32), np.ones(7, np.float32)
    y, mean, std = _run(x, gamma, beta, np.ones_like(x), -1, "float32")[:3]
    assert np.array_equal(y, (x - mean) * gamma / std + beta)
    assert not np.array_equal(y, (x - mean) / std * gamma + beta)      # (the order counts)


PROGRAM = """
import json
import numpy as np
cases = json.loads(INPUT)
out = {}
for key, (x, gamma, head, axis, dtype) in sorted(cases.items()):
    arrays = [mx.nd.array(np.array(a), dtype=dtype) for a in (x, gamma, np.linspace(-1, 1, len(gamma)))]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.LayerNorm(*arrays, axis=axis)
    y.backward(mx.nd.array(np.array(head), dtype=dtype))
    _, mean, std = mx.nd.LayerNorm(*arrays, axis=axis, output_mean_var=True)
    values = [v.asnumpy() for v in (y, mean, std)] + [a.grad.asnumpy() for a in arrays]
    out[key] = [v.view("u%d" % v.itemsize).ravel().tolist() for v in values]
print(json.dumps(out))
"""


def _cases():
    rng = np.random.default_rng(5)
    cases = {}
    for dtype in ("float32", "float64"):
        for name, shape, axis in (("rows", (4, 7), -1), ("ints", (3, 4), -1),
                                  ("axis0", (40, 6), 0), ("axis1", (3, 30, 5), 1),
                                  ("wide", (5, 96), -1), ("cube", (2, 3, 6), -1)):
            if dtype == "float32" and name == "wide":
                continue                # numpy's pairwise float32 sum: see the docstring
            x = rng.standard_normal(shape) * 2 + 0.5
            if name == "ints":
                x = np.round(x * 2) / 2
            head = rng.standard_normal(shape)
            cases[f"{name} {dtype}"] = [x.tolist(), rng.standard_normal(shape[axis]).tolist(),
                                        head.tolist(), axis, dtype]
    return cases


def test_layer_norm_values_and_gradients_match_mxnet(mxnet_python):
    given = json.dumps(_cases())
    ours, theirs = on_minimx(PROGRAM, given), on_mxnet(mxnet_python, PROGRAM, given)
    names = ("output", "mean", "std", "grad data", "grad gamma", "grad beta")
    differ = [(key, names[i]) for key in theirs for i in range(6)
              if ours[key][i] != theirs[key][i]]
    assert not differ
