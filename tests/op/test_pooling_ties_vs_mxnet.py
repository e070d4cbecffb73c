"""Max pooling's ties, NaN and -inf, against MXNet 1.9.1 and against its rule written out.

MXNet's CPU kernel starts each window at the type's lowest finite value and takes a tap
only when it is strictly greater: ``if (v > out) out = v``, taps in row-major order.  So of
tied taps the *first* wins (the sign of a tied zero is the first zero's), a NaN is never
taken, and a window of NaN or -inf gives -3.4e38 for float32.  The gradient goes to the
first tap equal to the result; a window with none sends it nowhere, except in the oneDNN
kernel MXNet uses for float32 in channels-first layouts, which sends it to the window's
first tap (dropped when that is padding).  Stop 45 found minimx's numpy ``maximum`` keeping
the last tied zero and propagating NaN; these tests pin the fix (``minimx/op/pool_max.py``).

``_rule`` is that rule as a plain loop over windows, the reference when MXNet is absent.
"""
import itertools
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from _nn_helpers import requires_mxnet, run_mxnet, run_minimx  # noqa: E402

LAYOUTS = [dict(kernel=(2, 2), stride=(2, 2)),       # windows that tile the planes
           dict(kernel=(2, 2), stride=(1, 1)),       # overlapping windows
           dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)),          # phased, padded
           dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1)),
           dict(kernel=(3, 3), stride=(3, 3)),
           dict(kernel=(3, 3), stride=(2, 2), pooling_convention="full"),
           dict(kernel=(1, 1), global_pool=True),                    # one reduction
           dict(kernel=(2,), stride=(2,)),
           dict(kernel=(2, 2, 2), stride=(1, 1, 1))]
SPECIAL = [np.nan, -np.inf, 0.0, -0.0, -1.0, 1.0, 2.0]


def _special(shape, dtype, seed):
    """Values drawn from NaN, -inf, +0, -0 and a few small numbers: many windows tie."""
    rng = np.random.RandomState(seed)
    return rng.choice(np.array(SPECIAL, dtype), size=shape,
                      p=[.1, .1, .2, .2, .2, .1, .1]).astype(dtype)


# Windows that tile their planes (stride = window, no padding: ``pool_tiles.py``), on
# planes of 12 (a multiple of each window) and a batch of 11 (64 x 6 planes take 8 MB
# chunks: ``test_tiling_windows_in_chunks``).
TILING = [dict(kernel=(2, 2), stride=(2, 2)), dict(kernel=(3, 3), stride=(3, 3)),
          dict(kernel=(2, 3), stride=(2, 3)), dict(kernel=(2,), stride=(2,))]


def _shape(params, side=7, batch=2):
    rank = 2 if params.get("global_pool") else len(params["kernel"])
    return (batch, 3) + (side,) * rank


def _head(shape, dtype):
    """An output gradient that tells windows apart, its sums exact even in float16; of
    both signs, with some -0 (MXNet adds each window's gradient to a 0: +0 comes out)."""
    count = np.arange(int(np.prod(shape)))
    head = np.where(count % 2, -1.0, 1.0) * (count % 13 + 1)
    head[count % 11 == 5] = -0.0
    return head.reshape(shape).astype(dtype)


def _rule(x, params, empty_to_first, head=None):
    """Max pooling of channels-first ``x`` by MXNet's rule, and the gradient of ``head``
    (``_head`` unless given), one window at a time as ``pool.h`` walks them."""
    spatial = x.shape[2:]
    rank = len(spatial)
    if params.get("global_pool"):
        kernel, stride, pad = spatial, (1,) * rank, (0,) * rank
    else:
        kernel = params["kernel"]
        stride, pad = params.get("stride", (1,) * rank), params.get("pad", (0,) * rank)
    rounding = math.ceil if params.get("pooling_convention") == "full" else math.floor
    out_size = [rounding((n + 2 * p - k) / s) + 1
                for n, k, s, p in zip(spatial, kernel, stride, pad)]
    out = np.empty(x.shape[:2] + tuple(out_size), x.dtype)
    grad = np.zeros(x.shape, x.dtype)
    head = _head(out.shape, x.dtype) if head is None else head
    for plane in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for window in itertools.product(*map(range, out_size)):
            starts = [i * s - p for i, s, p in zip(window, stride, pad)]
            taps = list(itertools.product(*[range(b, b + k) for b, k in zip(starts, kernel)]))
            real = [t for t in taps if all(0 <= i < n for i, n in zip(t, spatial))]
            best = np.finfo(x.dtype).min
            for tap in real:
                if x[plane + tap] > best:
                    best = x[plane + tap]
            out[plane + window] = best
            winner = next((t for t in real if x[plane + t] == best),
                          taps[0] if empty_to_first else None)
            if winner in real:
                grad[plane + winner] += head[plane + window]
    return out, grad


def _minimx(x, params):
    params = dict(params, pool_type="max")
    out_shape = run_minimx("Pooling", [x], params)[0][0].shape
    head = _head(out_shape, x.dtype)
    got, grads, _ = run_minimx("Pooling", [x], params, [head], (0,))
    return got[0], grads[0], head


def _same_bits(got, expected):
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.view(f"u{got.dtype.itemsize}"),
                                  expected.view(f"u{expected.dtype.itemsize}"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("params", LAYOUTS)
def test_max_pooling_follows_mxnets_rule(params, dtype):
    x = _special(_shape(params), dtype, seed=len(str(params)))
    value, grad, _ = _minimx(x, params)
    expected_value, expected_grad = _rule(x, params, empty_to_first=dtype == "float32")
    _same_bits(value, expected_value)
    _same_bits(grad, expected_grad)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("params", TILING)
def test_tiling_windows_follow_mxnets_rule(params, dtype):
    x = _special(_shape(params, side=12, batch=11), dtype, seed=len(str(params)))
    value, grad, _ = _minimx(x, params)
    expected_value, expected_grad = _rule(x, params, empty_to_first=dtype == "float32")
    _same_bits(value, expected_value)
    _same_bits(grad, expected_grad)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("side", [2, 4, 6])
def test_small_planes_tiled_by_2x2_windows_follow_mxnets_rule(side, dtype):
    """Planes of a few windows a row, which the general loop would take planes-last."""
    params = TILING[0]
    x = _special(_shape(params, side=side, batch=23), dtype, seed=side)
    value, grad, _ = _minimx(x, params)
    expected_value, expected_grad = _rule(x, params, empty_to_first=dtype == "float32")
    _same_bits(value, expected_value)
    _same_bits(grad, expected_grad)


def test_tiling_windows_in_chunks(monkeypatch):
    """Large batches go through ``pool_tiles`` a cache-sized chunk of planes at a time."""
    from minimx.op import pool_kernels
    params = TILING[0]
    x = _special(_shape(params, side=12, batch=11), "float32", seed=7)
    value, grad, _ = _minimx(x, params)
    monkeypatch.setattr(pool_kernels, "WHOLE_TILED_BELOW", 0)
    monkeypatch.setattr(pool_kernels, "CHUNK_BYTES", 5 * 12 * 12 * 4)
    chunked_value, chunked_grad, _ = _minimx(x, params)
    _same_bits(chunked_value, value)
    _same_bits(chunked_grad, grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_channels_last_windows_with_nothing_above_the_start_send_no_gradient(dtype):
    params = dict(kernel=(2, 2), stride=(1, 1))
    x = _special((2, 3, 7, 7), dtype, seed=3)
    value, grad, head = _minimx(x.transpose(0, 2, 3, 1).copy(), dict(params, layout="NHWC"))
    expected_value, expected_grad = _rule(x, params, empty_to_first=False,
                                          head=head.transpose(0, 3, 1, 2))
    _same_bits(value, expected_value.transpose(0, 2, 3, 1))
    _same_bits(grad, expected_grad.transpose(0, 2, 3, 1))


@requires_mxnet
@pytest.mark.parametrize("params,dtype", [(LAYOUTS[0], "float32"), (LAYOUTS[1], "float32"),
                                          (LAYOUTS[2], "float32"), (LAYOUTS[6], "float32"),
                                          (LAYOUTS[7], "float32"), (LAYOUTS[1], "float64"),
                                          (LAYOUTS[8], "float16")])
def test_max_pooling_matches_mxnet_on_ties_nan_and_infinity(tmp_path, params, dtype):
    x = _special(_shape(params), dtype, seed=len(str(params)))
    value, grad, head = _minimx(x, params)
    expected, expected_grads, _ = run_mxnet(tmp_path, "Pooling", [x],
                                            dict(params, pool_type="max"), [head], (0,))
    _same_bits(value, expected[0])
    _same_bits(grad, expected_grads[0])


@requires_mxnet
@pytest.mark.parametrize("params,dtype", [(TILING[0], "float32"), (TILING[0], "float16"),
                                          (TILING[1], "float64")])
def test_tiling_windows_match_mxnet(tmp_path, params, dtype):
    x = _special(_shape(params, side=12, batch=11), dtype, seed=len(str(params)))
    value, grad, head = _minimx(x, params)
    expected, expected_grads, _ = run_mxnet(tmp_path, "Pooling", [x],
                                            dict(params, pool_type="max"), [head], (0,))
    _same_bits(value, expected[0])
    _same_bits(grad, expected_grads[0])
