"""The fast convolution and pooling kernels (minimx/op/conv_kernels.py) against slow truths.

Convolution and Deconvolution forward passes are compared with the direct loops of
``references.py``.  Both operators are linear in each input, so a gradient ``G`` of
``<op(x, w), head>`` must satisfy ``<G, probe> == <op(probe, w), head>`` for any probe:
random probes check the whole gradient against the reference forward.  Pooling's
tap-by-tap path is compared with its general window-view path (argmax gradient).
"""
import os
import sys
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
import references  # noqa: E402

import minimx.op.conv as conv  # noqa: E402
import minimx.op.conv_kernels as kernels  # noqa: E402
import minimx.op.pool_kernels as pool_kernels  # noqa: E402
from minimx import autograd, nd  # noqa: E402
from minimx.op import get_op  # noqa: E402
from minimx.op.conv import Geometry  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None)


# a module constant (a path-choosing threshold) changed for a with block
_setting = mock.patch.object


@st.composite
def conv_cases(draw, transpose=False):
    """Geometry, groups and input shapes with at least one output position per axis."""
    rank = draw(st.integers(1, 3))
    axis = st.integers(1, 3)
    kernel = tuple(draw(axis) for _ in range(rank))
    stride = tuple(draw(axis) for _ in range(rank))
    dilate = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    pad = tuple(draw(st.integers(0, 1)) for _ in range(rank))
    groups = draw(st.integers(1, 2))
    channels, filters = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    batch = draw(st.integers(1, 2))
    if transpose:      # input sizes of the deconvolution; adj < stride
        size = tuple(draw(st.integers(1, 3)) for _ in range(rank))
        adj = tuple(draw(st.integers(0, s - 1)) for s in stride)
        assume(all((n - 1) * s - 2 * p + d * (k - 1) + 1 + a >= 1 for n, s, p, d, k, a in
                   zip(size, stride, pad, dilate, kernel, adj)))
        params = dict(adj=adj)
    else:
        size = tuple(max(1, d * (k - 1) + 1 - 2 * p) + draw(st.integers(0, 3))
                     for k, d, p in zip(kernel, dilate, pad))
        params = {}
    params.update(kernel=kernel, stride=stride, dilate=dilate, pad=pad, num_group=groups,
                  num_filter=filters, no_bias=True)
    return params, (batch, channels) + size


def _probe_check(forward, grad, which, inputs, head, seed):
    """``<grad, probe> == <forward with probe in slot which, head>`` for two probes."""
    rng = np.random.default_rng(seed)
    for _ in range(2):
        probe = rng.standard_normal(inputs[which].shape)
        swapped = list(inputs)
        swapped[which] = probe
        expected = (forward(*swapped) * head).sum()
        np.testing.assert_allclose((grad * probe).sum(), expected, rtol=1e-9, atol=1e-9)


def _reference_kwargs(params):
    skip = ("num_filter", "no_bias")
    return {key: value for key, value in params.items() if key not in skip}


def _last_channels(channels_last):
    """The channel count from which the weight gradient runs channels-last: every case
    (``channels_last``) or the real rule (the small cases then run channel-first)."""
    return 1 if channels_last else kernels._LAST_MIN_CHANNELS


def _last_rows(channels_last):
    """The output rows from which the data gradient runs channels-last, likewise."""
    return 1 if channels_last else kernels._LAST_MIN_ROWS


@SETTINGS
@given(conv_cases(), st.integers(0, 2 ** 16), st.booleans(), st.booleans(), st.booleans(),
       st.booleans(), st.booleans())
def test_convolution_forward_and_gradients_match_direct_loops(case, seed, long_rows, thin,
                                                              full, channels_last, wide):
    """``long_rows``: every output row counts as long, so col2im runs batch-first;
    ``thin``: the small cases, and weight gradients with more filters than output
    positions, take the one-product path (else the per-sample products);
    ``full``: a stride-1 data gradient runs the full convolution (else col2im, as a batch
    with few output positions does), or with ``wide`` the wide-grid rows of taps
    (``wide_transpose``) whatever the shape; ``channels_last``: the weight gradient copies
    its windows channels-last (ungrouped kernels of several taps), and col2im adds its taps
    channels-last."""
    limits = (kernels._THIN_FORWARD, kernels._THIN_WEIGHT_GRAD) if thin else (0, 0)
    with _setting(kernels, "_LAST_MIN_CHANNELS", _last_channels(channels_last)), \
            _setting(kernels, "_LAST_MIN_ROWS", _last_rows(channels_last)), \
            _setting(conv, "_WIDE_GAIN", 0 if wide else float("inf")), \
            _setting(kernels, "_LONG_ROW", 1 if long_rows else kernels._LONG_ROW), \
            _setting(kernels, "_THIN_FORWARD", limits[0]), \
            _setting(kernels, "_THIN_WEIGHT_GRAD", limits[1]), \
            _setting(kernels, "_FILTERS_PER_POSITION",
                     kernels._FILTERS_PER_POSITION if thin else float("inf")), \
            _setting(conv, "_FEW_POSITIONS", 0 if full else 2 ** 62):
        _check_convolution(*case, seed)


def _check_convolution(params, data_shape, seed):
    _check_against_loops("Convolution", references.convolution, params, data_shape, seed)


def _check_against_loops(op_name, loops, params, data_shape, seed):
    """Forward equals the direct loops; both gradients pass the probe check against them."""
    rng = np.random.default_rng(seed)
    op = get_op(op_name)(**params)
    x = rng.standard_normal(data_shape)
    w = rng.standard_normal(op.weight_shape(data_shape))
    out = op.forward(np, x, w)
    kwargs = _reference_kwargs(params)

    def reference(data, weight):
        return loops(np, data, weight, **kwargs)

    np.testing.assert_allclose(out, reference(x, w), rtol=1e-9, atol=1e-9)
    head = rng.standard_normal(out.shape)
    grad_x, grad_w = op.backward(np, head, x, w)
    assert grad_x.shape == x.shape and grad_w.shape == w.shape
    _probe_check(reference, grad_x, 0, (x, w), head, seed)
    _probe_check(reference, grad_w, 1, (x, w), head, seed + 1)


@SETTINGS
@given(conv_cases(transpose=True), st.integers(0, 2 ** 16), st.booleans(), st.booleans(),
       st.booleans())
def test_deconvolution_forward_and_gradients_match_direct_loops(case, seed, long_rows,
                                                                channels_last, wide):
    with _setting(kernels, "_LAST_MIN_CHANNELS", _last_channels(channels_last)), \
            _setting(kernels, "_LAST_MIN_ROWS", _last_rows(channels_last)), \
            _setting(conv, "_WIDE_GAIN", 0 if wide else float("inf")), \
            _setting(kernels, "_LONG_ROW", 1 if long_rows else kernels._LONG_ROW):
        _check_deconvolution(*case, seed)


def _check_deconvolution(params, data_shape, seed):
    _check_against_loops("Deconvolution", references.deconvolution, params, data_shape, seed)


def test_convolution_keeps_float32_and_adds_bias():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    w = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    op = get_op("Convolution")(kernel=(5, 5), num_filter=4)
    out = op.forward(np, x, w, b)
    assert out.dtype == np.float32 and out.flags.c_contiguous
    expected = references.convolution(np, x.astype(np.float64), w, b, kernel=(5, 5))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    grad_x, grad_w, grad_b = op.backward(np, np.ones_like(out), x, w)
    assert grad_x.dtype == grad_w.dtype == np.float32 and grad_x.flags.c_contiguous
    np.testing.assert_allclose(grad_b, np.full(4, 2 * 5 * 5), rtol=1e-6)


def test_strided_views_as_inputs():
    """Inputs that are views with odd strides (a transpose, a step) give the same results."""
    rng = np.random.default_rng(1)
    base = rng.standard_normal((9, 3, 2, 14))
    x = base.transpose(2, 1, 0, 3)[..., ::2]             # (2, 3, 9, 7), not contiguous
    w = rng.standard_normal((4, 3, 3, 2))
    op = get_op("Convolution")(kernel=(3, 2), num_filter=4, no_bias=True)
    np.testing.assert_allclose(op.forward(np, x, w), op.forward(np, x.copy(), w))
    head = rng.standard_normal(op.infer_shape(x.shape, w.shape))
    for got, want in zip(op.backward(np, head, x, w), op.backward(np, head, x.copy(), w)):
        np.testing.assert_allclose(got, want)
    pool = get_op("Pooling")(kernel=(2, 2), stride=(2, 2))
    out = pool.forward(np, x)
    np.testing.assert_array_equal(out, pool.forward(np, x.copy()))
    np.testing.assert_array_equal(pool.backward(np, np.ones_like(out), x, out),
                                  pool.backward(np, np.ones_like(out), x.copy(), out))


# -- pooling: tap by tap against the window view ---------------------------------------------
@st.composite
def pool_cases(draw):
    rank = draw(st.integers(1, 3))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    pad = tuple(draw(st.integers(0, k - 1)) for k in kernel)
    size = tuple(max(1, k - 2 * p) + draw(st.integers(0, 4)) for k, p in zip(kernel, pad))
    params = dict(kernel=kernel, stride=stride, pad=pad,
                  pool_type=draw(st.sampled_from(["max", "avg", "sum"])),
                  pooling_convention=draw(st.sampled_from(["valid", "full"])),
                  count_include_pad=draw(st.sampled_from([None, False])))
    return params, (draw(st.integers(1, 2)), draw(st.integers(1, 3))) + size


def _both_paths(op, x, head, chunk_bytes=None, planes_last=True):
    """(output, gradient) by the tap path and by the general path (no window is tapped);
    ``chunk_bytes`` sets the tap path's chunks of planes (default: as it is), and
    ``planes_last`` whether it lays them out planes-last or as they are."""
    planes_last_below = 2 ** 62 if planes_last else 0
    results = []
    for limit in (conv._MAX_TAPS, 0):
        with _setting(conv, "_MAX_TAPS", limit), \
                _setting(pool_kernels, "CHUNK_BYTES", chunk_bytes or pool_kernels.CHUNK_BYTES), \
                _setting(pool_kernels, "PHASED_CHUNK_BYTES",
                         chunk_bytes or pool_kernels.PHASED_CHUNK_BYTES), \
                _setting(pool_kernels, "PLANES_LAST_BELOW", planes_last_below), \
                _setting(pool_kernels, "PHASED_FROM", planes_last_below), \
                _setting(pool_kernels, "FIRST_ROWS_FROM", 2 ** 62 if planes_last else 0):
            out = op.forward(np, x)
            results.append((out, op.backward(np, head, x, out)))
    return results


@SETTINGS
@given(pool_cases(), st.integers(0, 2 ** 16), st.booleans(), st.sampled_from([None, 1, 40]),
       st.booleans())
def test_pooling_tap_path_matches_window_path(case, seed, ties, chunk_bytes, planes_last):
    """``chunk_bytes``: the planes go through the tap path in chunks of that many bytes
    (1: one plane a chunk), or as they are; ``planes_last``: the layout of a chunk."""
    params, shape = case
    rng = np.random.default_rng(seed)
    # small integers make ties common: the gradient must go to the first maximum
    x = rng.integers(0, 3, shape).astype(np.float32) if ties else rng.standard_normal(shape)
    op = get_op("Pooling")(**params)
    out_shape = op.infer_shape(shape)
    # 'full' may add a window past the end of the input; the reference has no value for it
    assume(all((o - 1) * s - p < n for o, s, p, n in
               zip(out_shape[2:], params["stride"], params["pad"], shape[2:])))
    head = rng.standard_normal(out_shape).astype(x.dtype)
    (fast_out, fast_grad), (slow_out, slow_grad) = _both_paths(op, x, head, chunk_bytes,
                                                               planes_last)
    np.testing.assert_allclose(fast_out, slow_out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fast_grad, slow_grad, rtol=1e-6, atol=1e-6)
    reference = references.pooling(np, x, **params)
    np.testing.assert_allclose(fast_out, reference, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kernel, stride, pad, size, last", [
    ((2, 2), (2, 2), (0, 0), (8, 8), False),     # apart, unpadded, rows of 4: no copy
    ((2, 2), (2, 2), (0, 0), (6, 6), True),      # rows of 3 windows
    ((2, 2), (2, 2), (1, 1), (8, 8), True),      # padded: a copy either way
    ((3, 3), (2, 2), (0, 0), (6, 6), True),      # overlapping windows, small planes
    ((3, 3), (2, 2), (0, 0), (17, 17), False),   # ... larger: in stride phases
    ((3, 3), (1, 1), (1, 1), (7, 7), False),     # ... from PHASED_FROM elements
    ((2, 2), (2, 2), (0, 0), (24, 24), False)])  # a large plane
def test_pooling_layout_choice(kernel, stride, pad, size, last):
    """Small planes go planes-last unless the windows lie apart on unpadded planes with
    rows of at least FIRST_ROWS_FROM windows, or overlap on planes of at least PHASED_FROM
    elements (then split into stride phases); then, as large planes, they stay first."""
    op = get_op("Pooling")(kernel=kernel, stride=stride, pad=pad)
    shape = (2, 3) + size
    geometry, out_size, after = op._tap_layout(shape)
    planes = np.zeros((6,) + size, np.float32)
    assert pool_kernels._planes_last(geometry, out_size, after, planes) is last


@pytest.mark.parametrize("stride", [(2, 2), (1, 1)])
def test_max_pooling_ties_and_nan_follow_argmax(stride):
    x = np.zeros((1, 2, 4, 4), np.float32)        # all ties: the first tap wins
    x[0, 1, 1, 2] = np.nan                        # a NaN window: argmax takes the first NaN
    x[0, 1, 3, 3] = np.nan
    op = get_op("Pooling")(kernel=(2, 2), stride=stride)
    head = np.arange(1, 1 + np.prod(op.infer_shape(x.shape)), dtype=np.float32)
    head = head.reshape(op.infer_shape(x.shape))
    (fast_out, fast_grad), (slow_out, slow_grad) = _both_paths(op, x, head)
    np.testing.assert_array_equal(fast_out, slow_out)
    np.testing.assert_array_equal(fast_grad, slow_grad)
    if stride == (2, 2):
        np.testing.assert_array_equal(fast_grad[0, 0, ::2, ::2], head[0, 0])
        assert fast_grad[0, 0].sum() == head[0, 0].sum()


def test_lenet_shapes_through_autograd():
    """The LeNet layers end to end: conv -> relu -> max pool, gradients by the loops."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 12, 12)).astype(np.float32)
    w = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    data, weight = nd.array(x), nd.array(w)
    data.attach_grad()
    weight.attach_grad()
    with autograd.record():
        conv_out = nd.Convolution(data, weight, kernel=(5, 5), num_filter=4, no_bias=True)
        out = nd.Pooling(nd.relu(conv_out), kernel=(2, 2), stride=(2, 2))
    out.backward()
    expected = references.convolution(np, x.astype(np.float64), w, kernel=(5, 5))
    np.testing.assert_allclose(conv_out.asnumpy(), expected, rtol=1e-4, atol=1e-4)
    pooled = np.maximum(expected, 0).reshape(2, 4, 4, 2, 4, 2).max(axis=(3, 5))
    np.testing.assert_allclose(out.asnumpy(), pooled, rtol=1e-4, atol=1e-4)
    # the gradient reaching the conv output: 1 at each window's winner if positive
    relu = np.maximum(conv_out.asnumpy(), 0)
    head = np.zeros_like(relu)
    for n, f, i, j in np.ndindex(2, 4, 4, 4):
        window = relu[n, f, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
        a, b = np.unravel_index(window.argmax(), (2, 2))
        head[n, f, 2 * i + a, 2 * j + b] = 1.0 if window[a, b] > 0 else 0.0
    op = get_op("Convolution")(kernel=(5, 5), num_filter=4, no_bias=True)
    grad_x, grad_w = op.backward(np, head.astype(np.float64), x.astype(np.float64),
                                 w.astype(np.float64))
    np.testing.assert_allclose(data.grad.asnumpy(), grad_x, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(weight.grad.asnumpy(), grad_w, rtol=1e-4, atol=1e-4)


# -- overlapping pooling windows: shared inputs, shared winners ---------------------------
@st.composite
def overlapping_pool_cases(draw):
    """Pooling cases where windows overlap along at least one axis."""
    params, shape = draw(pool_cases())
    kernel = tuple(max(2, k) for k in params["kernel"])
    axis = draw(st.integers(0, len(kernel) - 1))
    stride = list(params["stride"])
    stride[axis] = draw(st.integers(1, kernel[axis] - 1))
    size = tuple(max(n, k) for n, k in zip(shape[2:], kernel))
    params.update(kernel=kernel, stride=tuple(stride))
    return params, shape[:2] + size


def _pool_data(rng, shape, kind):
    """Float data: many ties (small integers), or normal, or ties with NaN / -inf spots."""
    if kind == "normal":
        return rng.standard_normal(shape)
    x = rng.integers(0, 3, shape).astype(np.float32)
    if kind != "ties":
        spots = rng.random(shape) < 0.15
        x[spots] = np.nan if kind == "nan" else -np.inf
    return x


@SETTINGS
@given(overlapping_pool_cases(), st.integers(0, 2 ** 16),
       st.sampled_from(["ties", "normal", "nan", "-inf"]), st.sampled_from([None, 1]),
       st.booleans())
def test_overlapping_pooling_matches_window_path(case, seed, kind, chunk_bytes, planes_last):
    params, shape = case
    op = get_op("Pooling")(**params)
    assert op._by_taps()                                # the tap path is taken
    out_shape = op.infer_shape(shape)
    rng = np.random.default_rng(seed)
    x = _pool_data(rng, shape, kind)
    head = rng.standard_normal(out_shape).astype(x.dtype)
    (fast_out, fast_grad), (slow_out, slow_grad) = _both_paths(op, x, head, chunk_bytes,
                                                               planes_last)
    np.testing.assert_allclose(fast_out, slow_out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fast_grad, slow_grad, rtol=1e-6, atol=1e-6)
    assert fast_out.flags.c_contiguous and fast_grad.shape == x.shape


def test_pooling_chunks_cover_every_plane_once():
    """The planes of a batch go through the tap path in cache-sized chunks: each plane in
    exactly one chunk, in order; on another array module (a GPU) all in one."""
    planes = np.zeros((1000, 20, 20), np.float32)            # 1600 bytes a plane
    chunks = pool_kernels._chunks(np, planes)
    per = pool_kernels.CHUNK_BYTES // 1600
    assert [c.start for c in chunks] == list(range(0, 1000, per))
    assert sum(len(range(1000)[c]) for c in chunks) == 1000
    assert pool_kernels._chunks(object(), planes) == [slice(0, 1000)]


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_overlapping_max_pooling_through_autograd(ndim):
    """3-wide windows, stride 2, pad 1 (a ResNet stem) on data full of ties, end to end:
    the gradient of each window goes to its first maximum (row-major), shared winners add."""
    rng = np.random.default_rng(ndim)
    shape = (2, 3) + (7, 6, 5)[:ndim]
    x = rng.integers(0, 2, shape).astype(np.float32)
    kernel, stride, pad = (3,) * ndim, (2,) * ndim, (1,) * ndim
    data = nd.array(x)
    data.attach_grad()
    with autograd.record():
        out = nd.Pooling(data, kernel=kernel, stride=stride, pad=pad, pool_type="max")
    head = rng.standard_normal(out.shape).astype(np.float32)
    out.backward(nd.array(head))
    np.testing.assert_array_equal(out.asnumpy(), references.pooling(
        np, x, kernel=kernel, stride=stride, pad=pad, pool_type="max"))
    expected = np.zeros((2, 3) + tuple(n + 2 for n in shape[2:]))   # padded, then cropped
    padded = np.pad(x, ((0, 0), (0, 0)) + ((1, 1),) * ndim, constant_values=-np.inf)
    for position in np.ndindex(*out.shape):
        corner = tuple(2 * i for i in position[2:])
        window = padded[position[:2] + tuple(slice(c, c + 3) for c in corner)]
        winner = np.unravel_index(window.argmax(), window.shape)
        expected[position[:2] + tuple(c + w for c, w in zip(corner, winner))] += head[position]
    inner = (slice(None), slice(None)) + (slice(1, -1),) * ndim
    np.testing.assert_allclose(data.grad.asnumpy(), expected[inner], rtol=1e-6, atol=1e-6)


def test_weight_grad_one_product_agrees_in_float32():
    """More filters than output positions (a DCGAN layer's shape, scaled down): the weight
    gradient is one product over the batch instead of per-sample products summed; in
    float32 the two orders of summation agree to float32 rounding, and both match float64."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 2, 16, 16)).astype(np.float32)
    head = rng.standard_normal((3, 72, 8, 8)).astype(np.float32)
    op = get_op("Convolution")(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=72,
                               no_bias=True)
    w = rng.standard_normal(op.weight_shape(x.shape)).astype(np.float32)
    assert kernels._whole_batch_weight_grad((8, 8), 72, 1)
    one_product = op.backward(np, head, x, w)[1]
    with _setting(kernels, "_FILTERS_PER_POSITION", float("inf")):
        assert not kernels._whole_batch_weight_grad((8, 8), 72, 1)
        per_sample = op.backward(np, head, x, w)[1]
    exact = op.backward(np, head.astype(np.float64), x.astype(np.float64), w)[1]
    assert one_product.dtype == per_sample.dtype == np.float32
    scale = np.abs(exact).max()
    np.testing.assert_allclose(one_product, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(per_sample, exact, rtol=0, atol=1e-5 * scale)


@pytest.mark.parametrize("params, shape", [
    (dict(kernel=(5, 5), num_filter=16), (64, 6, 12, 12)),          # LeNet's second layer
    (dict(kernel=(3, 4), dilate=(2, 1), pad=(1, 0), num_group=2, num_filter=4), (3, 4, 9, 10)),
    (dict(kernel=(5,), num_filter=3), (2, 4, 11)),
])
def test_wide_data_gradient_agrees_in_float32(params, shape):
    """The wide-grid data gradient (LeNet's second layer takes it) sums the same terms as
    the full convolution in another order: in float32 both agree with the float64 gradient
    to float32 rounding, and the weight gradient does not change at all."""
    rng = np.random.default_rng(7)
    op = get_op("Convolution")(no_bias=True, **params)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(op.weight_shape(shape)).astype(np.float32)
    head = rng.standard_normal(op.forward(np, x, w).shape).astype(np.float32)
    with _setting(conv, "_WIDE_GAIN", 0):
        wide, wide_w = op.backward(np, head, x, w)
    with _setting(conv, "_WIDE_GAIN", float("inf")):
        full, full_w = op.backward(np, head, x, w)
    exact = op.backward(np, head.astype(np.float64), x.astype(np.float64), w)[0]
    assert wide.dtype == full.dtype == np.float32 and wide.flags.c_contiguous
    scale = np.abs(exact).max()
    np.testing.assert_allclose(wide, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(full, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_array_equal(wide_w, full_w)


def test_lenet_data_gradient_takes_the_wide_grid():
    """The rule: 144 input positions against a wide grid of 8 x 12 = 96 per sample."""
    assert 12 * 12 > conv._WIDE_GAIN * kernels.wide_positions((64, 6, 12, 12), (8, 8))
    assert not 32 * 32 > conv._WIDE_GAIN * kernels.wide_positions((64, 6, 34, 34), (32, 32))


@pytest.mark.parametrize("op_name, params, shape", [
    ("Convolution", dict(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=40), (3, 32, 8, 8)),
    ("Convolution", dict(kernel=(3, 3), pad=(1, 1), dilate=(1, 2), num_filter=8), (2, 40, 6, 7)),
    ("Deconvolution", dict(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=32), (3, 48, 4, 4)),
    ("Convolution", dict(kernel=(3,), num_filter=5), (2, 36, 9)),
])
def test_channels_last_weight_grad_agrees_in_float32(op_name, params, shape):
    """Many channels (the DCGAN's and ResNet-18's layers, scaled down): the weight gradient
    is one product over channels-last windows; it sums the same terms as the channel-first
    paths in another order, so in float32 both agree with the float64 gradient to float32
    rounding, and the data gradient does not change at all."""
    rng = np.random.default_rng(5)
    op = get_op(op_name)(no_bias=True, **params)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(op.weight_shape(shape)).astype(np.float32)
    head = rng.standard_normal(op.forward(np, x, w).shape).astype(np.float32)
    channels = (head if op_name == "Deconvolution" else x).shape[1]
    assert kernels._channels_last_weight_grad(channels, op.geometry(), 1)
    grad_x, last = op.backward(np, head, x, w)
    with _setting(kernels, "_LAST_MIN_CHANNELS", 10 ** 9):
        first_x, first = op.backward(np, head, x, w)
    exact = op.backward(np, head.astype(np.float64), x.astype(np.float64), w)[1]
    assert last.dtype == first.dtype == np.float32 and last.flags.c_contiguous
    scale = np.abs(exact).max()
    np.testing.assert_allclose(last, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(first, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_array_equal(grad_x, first_x)


@pytest.mark.parametrize("op_name, params, shape", [
    ("Convolution", dict(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=40), (3, 32, 8, 8)),
    ("Convolution", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=8), (2, 40, 7, 6)),
    ("Deconvolution", dict(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=32), (3, 48, 4, 4)),
    ("Convolution", dict(kernel=(3,), stride=(2,), num_filter=5), (2, 36, 9)),
])
def test_channels_last_data_grad_agrees_in_float32(op_name, params, shape):
    """The data gradient (a Deconvolution's forward pass) added back channels-last: the same
    terms in another order, so in float32 it agrees with the float64 result to float32
    rounding, as the channel-first path does; the weight gradient does not change."""
    rng = np.random.default_rng(6)
    op = get_op(op_name)(no_bias=True, **params)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(op.weight_shape(shape)).astype(np.float32)
    head = rng.standard_normal(op.forward(np, x, w).shape).astype(np.float32)
    deconvolution = op_name == "Deconvolution"
    spy = mock.patch.object(kernels, "transpose_channels_last",
                            wraps=kernels.transpose_channels_last)
    with _setting(kernels, "_LAST_MIN_ROWS", 1), spy as last_path:
        last = op.forward(np, x, w) if deconvolution else op.backward(np, head, x, w)[0]
        last_w = op.backward(np, head, x, w)[1]
    assert last_path.call_count == (1 if deconvolution else 2)
    first = op.forward(np, x, w) if deconvolution else op.backward(np, head, x, w)[0]
    exact = op.forward(np, x.astype(np.float64), w) if deconvolution else \
        op.backward(np, head.astype(np.float64), x.astype(np.float64), w)[0]
    assert last.dtype == np.float32 and last.flags.c_contiguous and last.shape == exact.shape
    scale = np.abs(exact).max()
    np.testing.assert_allclose(last, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(first, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_array_equal(last_w, op.backward(np, head, x, w)[1])


def test_channels_last_data_grad_rule():
    """A DCGAN layer (64 channels over 16x16 at stride 2, batch 64) and ResNet-18's stage-2
    entry take it; three channels, a 1x1 kernel, channel groups or a batch of one do not."""
    rule = kernels._channels_last_data_grad
    four = Geometry((4, 4), (2, 2), (1, 1), (1, 1))
    three = Geometry((3, 3), (2, 2), (1, 1), (1, 1))
    assert rule(64, four, 1, 64 * 8 * 8) and rule(64, three, 1, 64 * 12 * 12)
    assert not rule(3, four, 1, 64 * 16 * 16)
    assert not rule(64, Geometry((1, 1), (2, 2), (1, 1), (0, 0)), 1, 64 * 12 * 12)
    assert not rule(64, three, 2, 64 * 12 * 12)
    assert not rule(512, three, 1, 1 * 3 * 3)


@pytest.mark.parametrize("kernel, size", [((2, 2), (8, 8)), ((2, 2), (24, 24)), ((3, 3), (6, 9)),
                                          ((2, 3), (4, 6)), ((1, 2), (3, 4)), ((3, 1), (6, 2))])
def test_max_pooling_of_tiles_is_the_tap_path_bit_for_bit(kernel, size):
    """Windows that tile the planes: rows first, then columns, gives what the taps one by
    one give, to the bit -- zeros of both signs in ties and NaNs included."""
    rng = np.random.default_rng(0)
    shape = (3, 5) + size
    x = rng.integers(-1, 2, shape).astype(np.float32)
    x[rng.random(shape) < 0.3] = -0.0
    x[rng.random(shape) < 0.02] = np.nan
    op = get_op("Pooling")(kernel=kernel, stride=kernel, pool_type="max")
    geometry, out_size, after = op._tap_layout(shape)
    assert pool_kernels._tiles(geometry, out_size, after, size)
    tiled = op.forward(np, x)
    with _setting(pool_kernels, "_tiles", lambda *args: False):
        by_taps = op.forward(np, x)
    np.testing.assert_array_equal(tiled.view(np.uint32), by_taps.view(np.uint32))
    np.testing.assert_array_equal(tiled, references.pooling(np, x, kernel=kernel, stride=kernel))



@pytest.mark.parametrize("kernel, size", [((2, 2), (8, 8)), ((2, 2), (24, 24)), ((3, 3), (6, 9)),
                                          ((2, 3), (4, 6)), ((1, 2), (3, 4))])
def test_max_pooling_gradient_of_tiles_in_one_chunk(kernel, size):
    """Windows that tile the planes as they lie, the whole batch in one chunk: the same bits
    as cache-sized chunks of planes laid out planes-last, and each window's gradient at its
    first maximal tap (row-major), as the general path's argmax puts it -- ties of zeros of
    both signs, gradients of both signs and a NaN window (the general path) included.
    (The tap paths multiply the gradient by 0 elsewhere, so a negative one leaves -0 where
    the general path leaves 0: equal values, other bits.)"""
    rng = np.random.default_rng(1)
    shape = (4, 5) + size
    x = rng.integers(-1, 2, shape).astype(np.float32)
    x[rng.random(shape) < 0.3] = -0.0
    x[0, 0, :kernel[0], :kernel[1]] = 1.0                # all equal: the top-left tap wins
    op = get_op("Pooling")(kernel=kernel, stride=kernel, pool_type="max")
    geometry, out_size, after = op._tap_layout(shape)
    assert pool_kernels._tiles(geometry, out_size, after, size)
    head = rng.standard_normal(op.infer_shape(shape)).astype(np.float32)
    head[rng.random(head.shape) < 0.2] = -0.0
    out = op.forward(np, x)
    with _setting(pool_kernels, "FIRST_ROWS_FROM", 0):          # planes as they lie
        assert not pool_kernels._planes_last(geometry, out_size, after,
                                             pool_kernels._as_planes(x))
        whole = op.backward(np, head, x, out)
    with _setting(pool_kernels, "CHUNK_BYTES", 40), \
            _setting(pool_kernels, "PLANES_LAST_BELOW", 2 ** 62), \
            _setting(pool_kernels, "FIRST_ROWS_FROM", 2 ** 62):
        chunked = op.backward(np, head, x, out)
    np.testing.assert_array_equal(whole.view(np.uint32), chunked.view(np.uint32))
    with _setting(pool_kernels, "FIRST_ROWS_FROM", 0), \
            _setting(pool_kernels, "WHOLE_TILED_BELOW", 0), \
            _setting(pool_kernels, "CHUNK_BYTES", 2 * x[0, 0].nbytes):  # large: as they lie,
        in_chunks = op.backward(np, head, x, out)                      # in chunks of planes
    np.testing.assert_array_equal(whole.view(np.uint32), in_chunks.view(np.uint32))
    assert whole[0, 0, 0, 0] == head[0, 0, 0, 0]
    assert not whole[0, 0, :kernel[0], :kernel[1]].ravel()[1:].any()
    x[1, 2, 0, 0] = np.nan
    for data in (x, np.nan_to_num(x)):
        (_, tiled), (_, general) = _both_paths(op, data, head, planes_last=False)
        np.testing.assert_array_equal(tiled, general)


@pytest.mark.parametrize("params, shape", [
    (dict(kernel=(3, 3), pad=(1, 1), num_filter=8), (16, 1, 28, 28)),   # executor_bench conv1
    (dict(kernel=(5, 5), pad=(2, 2), num_filter=6, num_group=2), (3, 2, 20, 17)),
    (dict(kernel=(3,), pad=(1,), num_filter=4), (2, 1, 40)),
])
def test_single_channel_data_gradient_adds_taps_back(params, shape):
    """A stride-1 data gradient into one channel per group, with long output rows, takes
    col2im instead of the full convolution: the same sums in another order, equal in
    float32 to the float64 gradient within rounding (the full convolution too)."""
    rng = np.random.default_rng(11)
    op = get_op("Convolution")(no_bias=True, **params)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(op.weight_shape(shape)).astype(np.float32)
    head = rng.standard_normal(op.forward(np, x, w).shape).astype(np.float32)
    taps = op.backward(np, head, x, w)[0]
    with _setting(kernels, "_LONG_ROW", 2 ** 30):       # rows never long: the full convolution
        full = op.backward(np, head, x, w)[0]
    exact = op.backward(np, head.astype(np.float64), x.astype(np.float64), w)[0]
    assert taps.dtype == np.float32 and taps.flags.c_contiguous and taps.shape == x.shape
    scale = np.abs(exact).max()
    np.testing.assert_allclose(taps, exact, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(full, exact, rtol=0, atol=1e-5 * scale)
