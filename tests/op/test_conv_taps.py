"""One product per kernel tap (minimx/op/conv_taps.py) against the plain im2col kernels.

The plain kernels of ``conv_kernels.py`` stay the reference: the tap-by-tap forward pass,
data gradient and weight gradient must agree with them to float64 rounding on any rank,
stride, dilation and padding (windows that read nothing but padding included), and
Convolution and Deconvolution must take the path exactly where ``conv_taps.suits`` says,
with the plain path's numbers and MXNet's.
"""
from functools import partial
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
import minimx.op.conv_kernels as kernels
import minimx.op.conv_taps as conv_taps
from minimx import autograd, nd
from minimx.op.conv import Geometry, _conv_size, _crop, _pad
from conv_vs_mxnet import assert_layers_agree, run_layers
from same_program import on_minimx, on_mxnet


@st.composite
def cases(draw):
    """A convolution of 1 to 3 spatial axes with a non-empty output."""
    rank = draw(st.integers(1, 3))
    geometry = Geometry(*(tuple(draw(st.integers(low, high)) for _ in range(rank))
                          for low, high in ((1, 3), (1, 3), (1, 2), (0, 3))))
    size = tuple(draw(st.integers(1, 6)) for _ in range(rank))
    out_size = _conv_size(size, geometry)
    if min(out_size) <= 0:
        size = tuple(n + max(0, 1 - o) * s for n, o, s in zip(size, out_size,
                                                              geometry.stride))
        size = tuple(max(n, d * (k - 1) + 1) for n, k, d in zip(size, geometry.kernel,
                                                              geometry.dilate))
        out_size = _conv_size(size, geometry)
    batch, channels, filters = (draw(st.integers(1, 3)) for _ in range(3))
    return (batch, channels) + size, filters, geometry, out_size


@settings(max_examples=80, deadline=None)
@given(cases(), st.integers(0, 2 ** 31 - 1))
def test_forward_and_gradients_equal_the_plain_kernels(case, seed):
    shape, filters, geometry, out_size = case
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape)
    weight = rng.standard_normal((filters, shape[1]) + tuple(geometry.kernel))
    padded = _pad(np, data, geometry.pad)
    expected = kernels.convolve(np, padded, weight, geometry, 1, out_size)
    output = conv_taps.convolve(np, data, weight, geometry, out_size)
    assert output.shape == expected.shape
    np.testing.assert_allclose(output, expected, rtol=1e-10, atol=1e-10)
    out_grad = rng.standard_normal(expected.shape)
    plain_grad = _crop(kernels.convolve_transpose(np, out_grad, weight, padded.shape, geometry,
                                                  1), geometry.pad, shape[2:])
    np.testing.assert_allclose(conv_taps.convolve_transpose(np, out_grad, weight, shape,
                                                            geometry),
                               plain_grad, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(conv_taps.weight_grad(np, out_grad, data, geometry),
                               kernels.convolve_weight_grad(np, out_grad, padded, geometry, 1),
                               rtol=1e-10, atol=1e-10)


def test_spans_skip_the_padding():
    """3 taps, pad 1 over a plane of 3: the first tap reads nothing for output 0, the last
    nothing for output 2; at stride 2 over 6 the first tap reads inputs 1 and 3."""
    assert conv_taps.spans(3, 3, 1, 1, 1, 3) == [
        (slice(1, 3), slice(0, 2, 1)), (slice(0, 3), slice(0, 3, 1)),
        (slice(0, 2), slice(1, 3, 1))]
    assert conv_taps.spans(6, 3, 2, 1, 1, 3)[0] == (slice(1, 3), slice(1, 4, 2))
    # pad 3 over a plane of 2: outputs 0-2 and 5 read nothing but padding at the first tap
    assert conv_taps.spans(2, 3, 1, 1, 3, 6)[0] == (slice(3, 5), slice(0, 2, 1))
    # a tap past the plane's end reads nothing at all
    assert conv_taps.spans(2, 3, 1, 2, 0, 1) == [(slice(0, 1), slice(0, 1, 1)), None, None]


def test_padding_share():
    geometry = Geometry((3, 3), (1, 1), (1, 1), (1, 1))
    assert conv_taps.padding_share((3, 3), geometry, (3, 3)) == pytest.approx(32 / 81)
    assert conv_taps.padding_share((24, 24), geometry, (24, 24)) == pytest.approx(
        1 - (70 / 72) ** 2)


SHAPES = [  # (data shape, filters, stride, groups, dtype) -> takes the tap-by-tap path
    (((64, 512, 3, 3), 512, 1, 1, "float32"), True),       # ResNet-18's last stage at 96 px
    (((64, 256, 6, 6), 512, 2, 1, "float32"), True),       # and its entry
    (((64, 128, 5, 5), 128, 1, 1, "float64"), True),
    (((16, 256, 3, 3), 256, 1, 1, "float32"), True),
    (((64, 128, 12, 12), 256, 2, 1, "float32"), False),    # 11 % padding
    (((32, 512, 7, 7), 512, 1, 1, "float32"), False),      # 18 %
    (((64, 64, 3, 3), 64, 1, 1, "float32"), False),        # too few channels
    (((64, 512, 3, 3), 64, 1, 1, "float32"), False),       # too few filters
    (((1, 512, 3, 3), 512, 1, 1, "float32"), False),       # too few output rows
    (((64, 512, 3, 3), 512, 1, 2, "float32"), False),      # channel groups
    (((64, 512, 3, 3), 512, 1, 1, "float16"), False),      # no BLAS for float16
]


@pytest.mark.parametrize("case, expected", SHAPES)
def test_which_convolutions_take_the_path(case, expected):
    shape, filters, stride, groups, dtype = case
    geometry = Geometry((3, 3), (stride,) * 2, (1, 1), (1, 1))
    out_size = _conv_size(shape[2:], geometry)
    assert conv_taps.suits(np, shape, np.dtype(dtype), filters, geometry, groups,
                           out_size) is expected


def _convolution_run(x, w, head, op, **params):
    data, weight = nd.array(x, ctx=mx.cpu()), nd.array(w, ctx=mx.cpu())
    data.attach_grad()
    weight.attach_grad()
    with autograd.record():
        out = getattr(nd, op)(data, weight, kernel=(3, 3), no_bias=True, **params)
    out.backward(nd.array(head, ctx=mx.cpu()))
    return out.asnumpy(), data.grad.asnumpy(), weight.grad.asnumpy()


@pytest.mark.parametrize("op, out_shape, params", [
    ("Convolution", (8, 128, 3, 3), dict(pad=(1, 1), num_filter=128)),
    ("Deconvolution", (8, 128, 5, 5), dict(pad=(1, 1), num_filter=128, stride=(2, 2))),
])
def test_operators_take_the_path_and_keep_their_numbers(op, out_shape, params):
    """nd.Convolution (forward, data and weight gradients) and nd.Deconvolution (its forward
    is the data gradient) through the taps, against the same operators with the path off."""
    rng = np.random.RandomState(2)
    x = rng.randn(8, 128, 3, 3).astype(np.float32)
    w = (rng.randn(128, 128, 3, 3) * 0.1).astype(np.float32)
    head = rng.randn(*out_shape).astype(np.float32)
    names = ("convolve", "convolve_transpose", "weight_grad")
    patches = [mock.patch.object(conv_taps, name, wraps=getattr(conv_taps, name))
               for name in names]
    spies = [patch.start() for patch in patches]
    try:
        fast = _convolution_run(x, w, head, op, **params)
    finally:
        for patch in patches:
            patch.stop()
    assert [spy.call_count for spy in spies] == [1, 1, 1]
    with mock.patch.object(conv_taps, "suits", return_value=False):
        plain = _convolution_run(x, w, head, op, **params)
    for got, expected in zip(fast, plain):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


# Layers that take the tap-by-tap path, forward and every gradient, on the same numbers in
# both frameworks (MXNet 1.9.1: oneDNN's direct convolution).
AGAINST_MXNET = [
    ("Convolution", (8, 128, 3, 3), (128, 128, 3, 3), dict(pad=(1, 1), num_filter=128)),
    ("Convolution", (8, 128, 6, 6), (160, 128, 3, 3), dict(pad=(1, 1), num_filter=160,
                                                            stride=(2, 2), no_bias=False)),
    ("Deconvolution", (8, 128, 3, 3), (128, 128, 3, 3), dict(pad=(1, 1), num_filter=128)),
]


@pytest.mark.mxnet
def test_tap_layers_match_mxnet(mxnet_python):
    with mock.patch.object(conv_taps, "weight_grad", wraps=conv_taps.weight_grad) as spy:
        ours = run_layers(on_minimx, AGAINST_MXNET)
    assert spy.call_count == 3
    assert_layers_agree(ours, run_layers(partial(on_mxnet, mxnet_python), AGAINST_MXNET))


# Five SGD steps of a small Gluon network whose three convolutions all take the tap-by-tap
# path (3x3 planes of 128 channels, then a stride-2 layer to 2x2 and one over 2x2), from the
# same parameters on the same batches, imperative and hybridized: the loss curves agree.
SAME_START = """
import json
import numpy as np
nn, gluon, nd, autograd = mx.gluon.nn, mx.gluon, mx.nd, mx.autograd
cpu = mx.cpu()          # the path is numpy's: on the CPU whatever the run's default context
rng = np.random.RandomState(0)
curves = []
for hybrid in (False, True):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(128, 3, padding=1, in_channels=128, use_bias=False),
            nn.BatchNorm(in_channels=128), nn.Activation("relu"),
            nn.Conv2D(160, 3, strides=2, padding=1, in_channels=128), nn.Activation("relu"),
            nn.Conv2D(128, 3, padding=1, in_channels=160), nn.Dense(10, in_units=128 * 2 * 2))
    net.initialize(ctx=cpu)
    params = net.collect_params()
    for name, param in sorted(params.items()):
        ones = name.endswith(("running_var", "gamma"))
        param.set_data(nd.ones(param.shape, ctx=cpu) if ones else
                       nd.array((rng.randn(*param.shape) * 0.05).astype("float32"), ctx=cpu))
    if hybrid:
        net.hybridize()
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.05})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for step in range(5):
        x = nd.array(rng.randn(16, 128, 3, 3).astype("float32"), ctx=cpu)
        y = nd.array(rng.randint(0, 10, 16).astype("float32"), ctx=cpu)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(16)
        losses.append(float(loss.mean().asscalar()))
    curves.append(losses)
print(json.dumps(curves))
"""


@pytest.mark.mxnet
def test_same_start_same_curve_through_the_taps(mxnet_python):
    with mock.patch.object(conv_taps, "convolve", wraps=conv_taps.convolve) as spy:
        ours = on_minimx(SAME_START)
    assert spy.call_count >= 3 * 5
    theirs = on_mxnet(mxnet_python, SAME_START)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
