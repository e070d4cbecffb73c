"""Pooling through stride phases (``pool_kernels._Phases``) against the plain tap path.

Overlapping 2-D windows on planes as they lie (3x3/2: ResNet's stem, AlexNet, NiN,
GoogLeNet) read each kernel tap as a contiguous stretch of one stride phase of the padded
planes instead of a strided slice.  The same taps are taken in the same order -- maxima
compared, sums and gradient shares added -- so the results must be the plain tap path's
to the bit: zeros of both signs, ties, NaN, padding, odd sizes, every float type.
"""
import os
import sys
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from _nn_helpers import requires_mxnet, run_mxnet, run_minimx  # noqa: E402

import minimx.op.pool_kernels as pool_kernels  # noqa: E402
from minimx.op import get_op  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None)


# a module constant (a path-choosing threshold) changed for a with block
_setting = mock.patch.object


def _plain_and_phased(op, x, head, chunk_bytes=None, rows_first=True):
    """(output, gradient) by the plain tap path and by the phases, planes as they lie;
    ``rows_first``: phased max pooling takes each kernel row's maximum first."""
    results = []
    for phased in (False, True):
        with _setting(pool_kernels, "PLANES_LAST_BELOW", 0), \
                _setting(pool_kernels, "ROWS_FIRST", rows_first), \
                _setting(pool_kernels, "PHASED_CHUNK_BYTES",
                         chunk_bytes or pool_kernels.PHASED_CHUNK_BYTES), \
                _setting(pool_kernels, "_phased",
                         pool_kernels._phased if phased else lambda *args: False):
            out = op.forward(np, x)
            results.append((out, op.backward(np, head, x, out)))
    return results


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def _data(rng, shape, kind, dtype):
    if kind == "normal":
        return rng.standard_normal(shape).astype(dtype)
    x = rng.integers(-1, 2, shape).astype(dtype)          # many ties
    if kind == "zeros":
        x[rng.random(shape) < 0.4] = -0.0                 # ties of zeros of both signs
    elif kind == "nan":
        x[rng.random(shape) < 0.05] = np.nan
    return x


@st.composite
def phased_cases(draw):
    """2-D pooling whose windows overlap along at least one axis."""
    kernel = [draw(st.integers(1, 4)) for _ in range(2)]
    stride = [draw(st.integers(1, 3)) for _ in range(2)]
    axis = draw(st.integers(0, 1))
    kernel[axis] = max(2, kernel[axis])
    stride[axis] = draw(st.integers(1, kernel[axis] - 1))
    pad = tuple(draw(st.integers(0, k - 1)) for k in kernel)
    size = tuple(max(1, k - 2 * p) + draw(st.integers(0, 9)) for k, p in zip(kernel, pad))
    params = dict(kernel=tuple(kernel), stride=tuple(stride), pad=pad,
                  pool_type=draw(st.sampled_from(["max", "max", "sum", "avg"])),
                  pooling_convention=draw(st.sampled_from(["valid", "full"])))
    return params, (draw(st.integers(1, 3)), draw(st.integers(1, 4))) + size


@SETTINGS
@given(phased_cases(), st.integers(0, 2 ** 16), st.sampled_from(["normal", "ties", "zeros",
                                                                  "nan"]),
       st.sampled_from([np.float32, np.float64, np.float16]), st.sampled_from([None, 1, 300]),
       st.booleans())
def test_phases_give_the_plain_tap_path_bit_for_bit(case, seed, kind, dtype, chunk_bytes,
                                                    rows_first):
    """``chunk_bytes``: one plane a chunk, a few (the last chunk smaller), or all at once;
    ``rows_first``: max pooling by rows' maxima, or tap by tap."""
    params, shape = case
    op = get_op("Pooling")(**params)
    out_shape = op.infer_shape(shape)
    assume(all(n > 0 for n in out_shape))
    assert pool_kernels._phased(op._tap_layout(shape)[0], np.zeros((1,) + shape[2:]), False)
    rng = np.random.default_rng(seed)
    x = _data(rng, shape, kind, dtype)
    head = rng.standard_normal(out_shape).astype(dtype)
    head[rng.random(out_shape) < 0.2] = -0.0
    (plain_out, plain_grad), (out, grad) = _plain_and_phased(op, x, head, chunk_bytes,
                                                             rows_first)
    _same_bits(out, plain_out)
    _same_bits(grad, plain_grad)


@pytest.mark.parametrize("kernel, stride, pad, size", [
    ((3, 3), (2, 2), (1, 1), (48, 48)),     # ResNet-18's stem, GoogLeNet
    ((3, 3), (2, 2), (0, 0), (54, 54)),     # AlexNet, NiN
    ((3, 3), (2, 2), (0, 0), (13, 13)),     # odd sizes
    ((3, 3), (2, 2), (1, 1), (11, 8)),
    ((3, 3), (1, 1), (1, 1), (24, 24)),     # GoogLeNet's 3x3/1 pad 1
    ((3, 3), (1, 1), (0, 0), (7, 9)),
    ((2, 2), (1, 1), (0, 0), (5, 6)),
    ((4, 4), (2, 2), (1, 1), (10, 9)),
    ((3, 2), (2, 1), (1, 0), (9, 7)),
])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_overlapping_max_pooling_shapes(kernel, stride, pad, size, dtype):
    """The d2l pooling layers (batch scaled down) on ties and signed zeros: the phases are
    taken (planes as they lie), give the plain path's bits, and each window's gradient goes
    whole to one element: with small integer gradients the sums are exact."""
    rng = np.random.default_rng(sum(size))
    shape = (3, 5) + size
    op = get_op("Pooling")(kernel=kernel, stride=stride, pad=pad, pool_type="max")
    geometry, out_size, after = op._tap_layout(shape)
    planes = pool_kernels._as_planes(np.zeros(shape, dtype))
    assert pool_kernels._phased(geometry, planes, False)
    x = _data(rng, shape, "zeros", dtype)
    head = rng.integers(-3, 4, op.infer_shape(shape)).astype(dtype)
    (plain_out, plain_grad), (out, grad) = _plain_and_phased(op, x, head, chunk_bytes=700)
    _same_bits(out, plain_out)
    _same_bits(grad, plain_grad)
    assert grad.sum(dtype=np.float64) == head.sum(dtype=np.float64)
    assert not np.isnan(grad).any()


def test_padding_never_wins_and_no_window_past_the_edge_leaks():
    """All-negative data next to the padding (filled with the lowest value): the output and
    gradient are the reference's; the windows of the phases that run past the planes' edges
    (their gradient 0) add nothing anywhere."""
    rng = np.random.default_rng(4)
    shape = (2, 3, 9, 9)
    x = -1e30 * (1 + rng.random(shape)).astype(np.float32)
    op = get_op("Pooling")(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    head = np.ones(op.infer_shape(shape), np.float32)
    (plain_out, plain_grad), (out, grad) = _plain_and_phased(op, x, head)
    _same_bits(out, plain_out)
    _same_bits(grad, plain_grad)
    assert np.isfinite(out).all() and (out < -1e29).all()
    assert grad.sum() == head.size


@pytest.mark.parametrize("kernel, stride, pad, size, last", [
    ((2, 2), (2, 2), (0, 0), (24, 24), False),   # LeNet: windows apart, no phases
    ((3, 3), (3, 3), (0, 0), (27, 27), False),
    ((3, 3), (2, 2), (1, 1), (6, 6), True),      # small planes: planes-last, no phases
])
def test_phases_are_for_overlapping_windows_on_planes_as_they_lie(kernel, stride, pad, size,
                                                                  last):
    op = get_op("Pooling")(kernel=kernel, stride=stride, pad=pad)
    shape = (2, 3) + size
    geometry, out_size, after = op._tap_layout(shape)
    planes = pool_kernels._as_planes(np.zeros(shape, np.float32))
    assert pool_kernels._planes_last(geometry, out_size, after, planes) is last
    assert not pool_kernels._phased(geometry, planes, last)


def test_phases_of_a_dilated_or_3d_window_are_not_taken():
    op = get_op("Pooling")(kernel=(3, 3, 3), stride=(2, 2, 2), pad=(1, 1, 1))
    geometry = op._tap_layout((1, 1, 30, 30, 30))[0]
    assert not pool_kernels._phased(geometry, np.zeros((1, 30, 30, 30)), False)


@pytest.mark.parametrize("kernel, stride, size", [((2, 2), (1, 3), (2, 4)),
                                                  ((3, 2), (2, 3), (8, 10))])
def test_elements_no_window_reads_get_a_zero_gradient(kernel, stride, size):
    """A stride past the last window's reach leaves the last columns out of every phase:
    their gradient is 0, as on the plain path."""
    rng = np.random.default_rng(2)
    shape = (2, 3) + size
    x = rng.standard_normal(shape).astype(np.float32)
    op = get_op("Pooling")(kernel=kernel, stride=stride, pool_type="max")
    head = rng.standard_normal(op.infer_shape(shape)).astype(np.float32)
    (plain_out, plain_grad), (out, grad) = _plain_and_phased(op, x, head)
    _same_bits(out, plain_out)
    _same_bits(grad, plain_grad)
    assert not grad[..., -1].any()


@requires_mxnet
@pytest.mark.parametrize("params, shape", [
    (dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)), (2, 3, 12, 12)),
    (dict(kernel=(3, 3), stride=(2, 2)), (2, 3, 13, 13)),
    (dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1)), (2, 3, 16, 16)),
    (dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pooling_convention="full"), (1, 2, 14, 11)),
])
def test_phased_max_pooling_matches_mxnet(tmp_path, params, shape):
    """Through nd and autograd on ties (small integers) with integer gradients, so every
    sum is exact: MXNet's output and gradient, equal (its first maximal tap, row-major)."""
    rng = np.random.default_rng(9)
    params = dict(params, pool_type="max")
    op = get_op("Pooling")(**params)
    geometry, out_size, after = op._tap_layout(shape)
    planes = pool_kernels._as_planes(np.zeros(shape, np.float32))
    assert not pool_kernels._planes_last(geometry, out_size, after, planes)
    x = rng.integers(0, 3, shape).astype(np.float32)
    head = rng.integers(-4, 5, op.infer_shape(shape)).astype(np.float32)
    expected, expected_grads, _ = run_mxnet(tmp_path, "Pooling", [x], params, [head], (0,))
    got, grads, _ = run_minimx("Pooling", [x], params, [head], (0,))
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(grads[0], expected_grads[0])
