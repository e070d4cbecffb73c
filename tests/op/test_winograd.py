"""Winograd's F(2x2, 3x3) kernel (minimx/op/winograd.py) against the plain im2col kernels.

The plain kernels of ``conv_kernels.py`` stay the reference: Winograd's forward pass and
weight gradient must agree with them to float64 rounding on any shape and padding, in one
chunk or a sample at a time, and Convolution must take the Winograd path exactly where
``winograd.suits`` says (and still give the plain path's numbers, to float32 rounding).
"""
from functools import partial
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx.op.conv_kernels as kernels
import minimx.op.winograd as winograd
import minimx as mx
from minimx import autograd, nd
from minimx.op.conv import Geometry, _pad
from conv_vs_mxnet import assert_layers_agree, run_layers
from same_program import on_minimx, on_mxnet


def _plain(data, weight, pad):
    geometry = Geometry((3, 3), (1, 1), (1, 1), pad)
    out_size = winograd.out_size_of(data.shape, pad)
    return kernels.convolve(np, _pad(np, data, pad), weight, geometry, 1, out_size)


def _plain_weight_grad(out_grad, data, pad):
    geometry = Geometry((3, 3), (1, 1), (1, 1), pad)
    return kernels.convolve_weight_grad(np, out_grad, _pad(np, data, pad), geometry, 1)


@st.composite
def cases(draw):
    pad = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    size = tuple(max(1, 3 - 2 * p) + draw(st.integers(0, 6)) for p in pad)
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 5))) + size
    return shape, draw(st.integers(1, 5)), pad, draw(st.sampled_from([1, 2 ** 21]))


@settings(max_examples=60, deadline=None)
@given(cases(), st.integers(0, 2 ** 31 - 1))
def test_forward_and_weight_gradient_equal_the_plain_kernels(case, seed):
    shape, filters, pad, chunk_bytes = case
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape)
    weight = rng.standard_normal((filters, shape[1], 3, 3))
    with mock.patch.object(winograd, "_CHUNK_BYTES", chunk_bytes):
        output = winograd.convolve(np, data, weight, pad)
        expected = _plain(data, weight, pad)
        assert output.shape == expected.shape
        np.testing.assert_allclose(output, expected, rtol=1e-10, atol=1e-10)
        out_grad = rng.standard_normal(expected.shape)
        grad = winograd.weight_grad(np, out_grad, data, pad)
    np.testing.assert_allclose(grad, _plain_weight_grad(out_grad, data, pad), rtol=1e-10,
                               atol=1e-10)


@mock.patch.object(winograd, "_CHUNK_BYTES", 1)
def test_chunks_split_a_batch_and_keep_their_zero_border():
    """Several chunks, the last one short: 7 samples of 25 tiles, a chunk of 3 (at least
    as many tiles as the 64 filters)."""
    rng = np.random.default_rng(0)
    data = rng.standard_normal((7, 64, 9, 10))
    weight = rng.standard_normal((64, 64, 3, 3))
    assert winograd._chunk(7, winograd._tiles((9, 10)), 64, 64) == 3
    output = winograd.convolve(np, data, weight, (1, 1))
    np.testing.assert_allclose(output, _plain(data, weight, (1, 1)), rtol=1e-10, atol=1e-9)
    out_grad = rng.standard_normal(output.shape)
    np.testing.assert_allclose(winograd.weight_grad(np, out_grad, data, (1, 1)),
                               _plain_weight_grad(out_grad, data, (1, 1)), rtol=1e-10,
                               atol=1e-9)


def test_float32_rounding_is_that_of_im2col():
    """Against a float64 truth, Winograd's float32 error is of the plain kernel's size."""
    rng = np.random.default_rng(1)
    data = rng.standard_normal((8, 128, 12, 12)).astype(np.float32)
    weight = (rng.standard_normal((128, 128, 3, 3)) * 0.1).astype(np.float32)
    truth = _plain(data.astype(np.float64), weight.astype(np.float64), (1, 1))
    scale = np.abs(truth).max()
    plain_error = np.abs(_plain(data, weight, (1, 1)) - truth).max() / scale
    winograd_error = np.abs(winograd.convolve(np, data, weight, (1, 1)) - truth).max() / scale
    assert winograd_error < max(3 * plain_error, 2e-6)


SHAPES = [  # (data shape, filters, stride, groups, dtype) -> takes Winograd's path
    (((64, 64, 24, 24), 64, 1, 1, "float32"), True),
    (((64, 64, 32, 32), 64, 1, 1, "float32"), False),     # 64 channels on a large plane
    (((64, 128, 32, 32), 128, 1, 1, "float32"), True),
    (((64, 32, 16, 16), 32, 1, 1, "float32"), False),     # too few channels
    (((64, 64, 16, 16), 32, 1, 1, "float32"), False),     # too few filters
    (((64, 128, 12, 12), 128, 2, 1, "float32"), False),   # stride 2
    (((64, 128, 12, 12), 128, 1, 2, "float32"), False),   # channel groups
    (((64, 512, 3, 3), 512, 1, 1, "float32"), False),     # a 3x3 output wastes its tiles
    (((1, 512, 7, 7), 512, 1, 1, "float32"), False),      # too few tiles for the filters
    (((16, 512, 6, 6), 512, 1, 1, "float32"), True),
    (((64, 128, 12, 12), 128, 1, 1, "float64"), True),
    (((64, 128, 12, 12), 128, 1, 1, "float16"), False),
]


@pytest.mark.parametrize("case, expected", SHAPES)
def test_which_convolutions_take_the_path(case, expected):
    shape, filters, stride, groups, dtype = case
    geometry = Geometry((3, 3), (stride,) * 2, (1, 1), (1, 1))
    out_size = tuple((n + 2 - 3) // stride + 1 for n in shape[2:])
    assert winograd.suits(np, shape, np.dtype(dtype), filters, geometry, groups,
                          out_size) is expected


def test_convolution_operator_takes_the_path_and_keeps_its_numbers():
    """nd.Convolution forward and backward through Winograd, against the same operator with
    the path switched off.  On the CPU: the path is numpy's (a GPU keeps im2col)."""
    rng = np.random.RandomState(2)
    x = rng.randn(8, 64, 8, 8).astype(np.float32)
    w = (rng.randn(64, 64, 3, 3) * 0.1).astype(np.float32)
    head = rng.randn(8, 64, 8, 8).astype(np.float32)

    def run():
        data, weight = nd.array(x, ctx=mx.cpu()), nd.array(w, ctx=mx.cpu())
        data.attach_grad()
        weight.attach_grad()
        with autograd.record():
            out = nd.Convolution(data, weight, kernel=(3, 3), pad=(1, 1), num_filter=64,
                                 no_bias=True)
        out.backward(nd.array(head, ctx=mx.cpu()))
        return out.asnumpy(), data.grad.asnumpy(), weight.grad.asnumpy()

    with mock.patch.object(winograd, "convolve", wraps=winograd.convolve) as forward, \
            mock.patch.object(winograd, "weight_grad", wraps=winograd.weight_grad) as wgrad:
        fast = run()
    assert forward.call_count == 2         # the forward pass and the data gradient
    assert wgrad.call_count == 1
    with mock.patch.object(winograd, "suits", return_value=False):
        plain = run()
    for got, expected in zip(fast, plain):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


# Convolution and Deconvolution shapes that take Winograd's path, forward and every gradient,
# on the same numbers in both frameworks (MXNet 1.9.1: oneDNN's direct convolution).
AGAINST_MXNET = [
    ("Convolution", (8, 64, 10, 9), (96, 64, 3, 3), dict(pad=(1, 1), num_filter=96)),
    ("Convolution", (8, 128, 9, 9), (128, 128, 3, 3), dict(pad=(0, 0), num_filter=128,
                                                           no_bias=False)),
    ("Deconvolution", (8, 64, 8, 8), (64, 128, 3, 3), dict(pad=(1, 1), num_filter=128)),
]


@pytest.mark.mxnet
def test_winograd_layers_match_mxnet(mxnet_python):
    with mock.patch.object(winograd, "convolve", wraps=winograd.convolve) as forward:
        ours = run_layers(on_minimx, AGAINST_MXNET)
    # each case's forward pass and data gradient, but the unpadded one's data gradient (392
    # output positions in the batch: col2im, see conv._FEW_POSITIONS)
    assert forward.call_count == 5
    assert_layers_agree(ours, run_layers(partial(on_mxnet, mxnet_python), AGAINST_MXNET))
