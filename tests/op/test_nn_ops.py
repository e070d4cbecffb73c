"""nn operators: dense, activations, softmax, dropout and normalisation layers."""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from _nn_helpers import check_grads, compare_with_mxnet, requires_mxnet, run_minimx  # noqa

from minimx import autograd, nd  # noqa: E402
from minimx.op import get_op  # noqa: E402


def _random(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


def test_fully_connected_values_and_shape_inference():
    x, w, b = _random(0, (2, 3, 2), (4, 6), (4,))
    out = nd.FullyConnected(nd.array(x), nd.array(w), nd.array(b), num_hidden=4)
    np.testing.assert_allclose(out.asnumpy(), x.reshape(2, 6) @ w.T + b, rtol=1e-5, atol=1e-6)
    op = get_op("FullyConnected")(num_hidden=4)
    assert op.infer_input_shapes((2, 3, 2), None, None) == [(2, 3, 2), (4, 6), (4,)]
    flat = get_op("FullyConnected")(num_hidden=4, flatten=False, no_bias=True)
    assert flat.list_inputs() == ("data", "weight")
    assert flat.infer_input_shapes((2, 3, 2), None) == [(2, 3, 2), (4, 2)]
    assert flat.output_shapes([(2, 3, 2), (4, 2)]) == [(2, 3, 4)]


def test_fully_connected_without_bias_takes_two_inputs():
    x, w = _random(1, (2, 5), (3, 5))
    out = nd.FullyConnected(nd.array(x), nd.array(w), num_hidden=3, no_bias=True)
    np.testing.assert_allclose(out.asnumpy(), x @ w.T, rtol=1e-5, atol=1e-6)


def test_dropout_training_inference_and_always():
    x = nd.ones((200, 50))
    np.testing.assert_array_equal(nd.Dropout(x, p=0.5).asnumpy(), 1)   # not training
    with autograd.record():
        y = nd.Dropout(x, p=0.5).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert abs((y == 0).mean() - 0.5) < 0.03
    shared = nd.Dropout(x, p=0.5, mode="always", axes=(0,)).asnumpy()
    assert (shared == shared[:1]).all()


def test_dropout_gradient_uses_the_same_mask():
    x = nd.array(np.random.default_rng(2).standard_normal((30, 20)))
    x.attach_grad()
    with autograd.record():
        y = nd.Dropout(x, p=0.3)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), (y.asnumpy() != 0) / 0.7, rtol=1e-6)
    assert 0.2 < (y.asnumpy() == 0).mean() < 0.4


def test_batchnorm_updates_moving_statistics_only_in_a_training_backward():
    """As MXNet 1.9.1's CPU operator: not in a forward, recorded or not (MXNet leaves them
    at 0 and 1 there too); the backward through a training-mode call moves them."""
    x, gamma, beta = _random(3, (4, 3, 2), (3,), (3,))
    arrays = [nd.array(x), nd.array(gamma), nd.array(beta), nd.zeros((3,)), nd.ones((3,))]
    arrays[0].attach_grad()
    nd.BatchNorm(*arrays)
    np.testing.assert_array_equal(arrays[3].asnumpy(), 0)
    with autograd.record():
        out = nd.BatchNorm(*arrays, fix_gamma=False, momentum=0.8)
    np.testing.assert_array_equal(arrays[3].asnumpy(), 0)
    np.testing.assert_array_equal(arrays[4].asnumpy(), 1)
    out.backward()
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    np.testing.assert_allclose(arrays[3].asnumpy(), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(arrays[4].asnumpy(), 0.8 + 0.2 * var, rtol=1e-5)
    expected = ((x - mean[:, None]) / np.sqrt(var[:, None] + 1e-3) * gamma[:, None]
                + beta[:, None])
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-5)


def test_batchnorm_hidden_outputs():
    op = get_op("BatchNorm")()
    assert op.num_visible() == 1 and op.list_outputs() == ("output", "mean", "var")
    assert op.infer_input_shapes((2, 5, 3), None, None, None, None)[1:] == [(5,)] * 4
    out = nd.BatchNorm(nd.ones((2, 5)), nd.ones(5), nd.zeros(5), nd.zeros(5), nd.ones(5),
                       output_mean_var=True)
    assert len(out) == 3 and out[1].shape == (5,)


def test_layer_norm_values():
    x, gamma, beta = _random(4, (2, 3, 4), (4,), (4,))
    out = nd.LayerNorm(nd.array(x), nd.array(gamma), nd.array(beta)).asnumpy()
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5) * gamma + beta,
                               rtol=1e-4, atol=1e-5)


def test_gelu_matches_the_error_function():
    x = np.linspace(-4, 4, 41)
    out = nd.LeakyReLU(nd.array(x, dtype="float64"), act_type="gelu").asnumpy()
    expected = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x]
    np.testing.assert_allclose(out, expected, atol=1e-6)


def test_rrelu_uses_the_mean_slope_outside_training():
    out = nd.LeakyReLU(nd.array([-1.0, 2.0]), act_type="rrelu", lower_bound=0.1,
                       upper_bound=0.3)
    np.testing.assert_allclose(out.asnumpy(), [-0.2, 2.0], rtol=1e-6)


def test_softmax_with_length_masks_the_tail():
    x, = _random(5, (2, 4))
    out = nd.softmax(nd.array(x), nd.array([2, 4]), use_length=True).asnumpy()
    head = np.exp(x[0, :2]) / np.exp(x[0, :2]).sum()
    np.testing.assert_allclose(out[0], np.r_[head, 0, 0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out[1].sum(), 1, rtol=1e-6)


GRAD_CASES = [
    ("FullyConnected", ((2, 3, 2), (4, 6), (4,)), dict(num_hidden=4)),
    ("FullyConnected", ((2, 3, 2), (4, 2), (4,)), dict(num_hidden=4, flatten=False)),
    ("Activation", ((2, 3),), dict(act_type="softrelu")),
    ("Activation", ((2, 3),), dict(act_type="softsign")),
    ("Activation", ((2, 3),), dict(act_type="sigmoid")),
    ("LeakyReLU", ((2, 3, 2), (3,)), dict(act_type="prelu")),
    ("LeakyReLU", ((2, 3),), dict(act_type="elu", slope=0.5)),
    ("LeakyReLU", ((2, 3),), dict(act_type="selu")),
    ("LeakyReLU", ((2, 3),), dict(act_type="gelu")),
    ("softmax", ((2, 3, 4),), dict(axis=1, temperature=2.0)),
    ("log_softmax", ((2, 3),), dict(temperature=0.5)),
    ("softmin", ((2, 3),), {}),
    ("BatchNorm", ((3, 2, 2), (2,), (2,), (2,), (2,)), dict(fix_gamma=False)),
    ("BatchNorm", ((3, 2), (2,), (2,), (2,), (2,)), dict(axis=-1, fix_gamma=False)),
    ("LayerNorm", ((2, 3, 4), (4,), (4,)), {}),
    ("LayerNorm", ((2, 3), (2,), (2,)), dict(axis=0)),
    ("InstanceNorm", ((2, 3, 4), (3,), (3,)), {}),
    ("L2Normalization", ((2, 3, 2),), dict(mode="instance")),
    ("L2Normalization", ((2, 3, 2),), dict(mode="channel")),
    ("L2Normalization", ((2, 3, 2),), dict(mode="spatial")),
    ("LRN", ((2, 5, 2, 1),), dict(nsize=3, alpha=0.5)),
]


@pytest.mark.parametrize("name, shapes, params", GRAD_CASES)
def test_gradients_numerically(name, shapes, params):
    inputs = _random(6, *shapes)
    count = 3 if name == "BatchNorm" else len(inputs)     # moving statistics get none
    if name == "BatchNorm":
        inputs[4] = np.abs(inputs[4]) + 0.5
    # prelu's float64 product is a float32 one, as MXNet's xelu kernel: steps of 1e-6
    # would measure its rounding; it is linear on each side of 0, so longer ones are exact
    eps = 1e-2 if params.get("act_type") == "prelu" else 1e-6
    check_grads(name, inputs, params, tuple(range(count)), eps=eps)


def test_batchnorm_gradient_with_global_statistics():
    inputs = _random(7, (3, 2, 2), (2,), (2,), (2,), (2,))
    inputs[4] = np.abs(inputs[4]) + 0.5
    check_grads("BatchNorm", inputs, dict(use_global_stats=True, fix_gamma=False), (0, 1, 2))
    _, grads, _ = run_minimx("BatchNorm", inputs, {}, [np.ones((3, 2, 2))], (1,))
    np.testing.assert_array_equal(grads[1], 0)          # fix_gamma: no gamma gradient


MXNET_CASES = [case for case in GRAD_CASES if case[2].get("act_type") != "selu"] + [
    ("BatchNorm", ((3, 2, 2), (2,), (2,), (2,), (2,)), dict(output_mean_var=True)),
    ("Activation", ((2, 3),), dict(act_type="relu")),
    ("LeakyReLU", ((2, 3),), dict(act_type="leaky", slope=0.1)),
]


@requires_mxnet
@pytest.mark.parametrize("name, shapes, params", MXNET_CASES)
def test_matches_mxnet(tmp_path, name, shapes, params):
    inputs = _random(8, *shapes)
    count = 3 if name == "BatchNorm" else len(inputs)
    if name == "BatchNorm":
        inputs[4] = np.abs(inputs[4]) + 0.5
        # MXNet also overwrites gamma with 1 when fix_gamma; minimx leaves it alone
        inputs[1] = np.ones(shapes[1]) if params.get("fix_gamma", True) else inputs[1]
    compare_with_mxnet(tmp_path, name, inputs, params, tuple(range(count)))


@requires_mxnet
def test_batchnorm_inference_matches_mxnet(tmp_path):
    # forward only: MXNet's backward after a predict-mode record mixes batch and moving stats
    inputs = _random(9, (3, 2, 2), (2,), (2,), (2,), (2,))
    inputs[4] = np.abs(inputs[4]) + 0.5
    compare_with_mxnet(tmp_path, "BatchNorm", inputs, dict(fix_gamma=False, output_mean_var=True),
                       (), train=False)


@requires_mxnet
def test_selu_forward_matches_mxnet(tmp_path):
    # gradients differ on purpose: see LeakyReLU's docstring
    x, = _random(10, (3, 4))
    compare_with_mxnet(tmp_path, "LeakyReLU", [x], dict(act_type="selu"), ())


def test_batchnorm_per_channel_plane_multiplies_as_the_channel_view():
    """BatchNorm's per-channel planes (a speed layout) give bit-identical products to the
    plain ``(1, channels, 1)`` broadcast, on short rows (4x4) and long ones."""
    from minimx.op.normalization import _as_channels, _per_channel
    rng = np.random.default_rng(0)
    for shape in ((3, 5, 4, 4), (2, 3, 17), (4, 6)):
        x3 = _as_channels(rng.standard_normal(shape).astype(np.float32), 1)
        vector = rng.standard_normal(shape[1]).astype(np.float32)
        plane = _per_channel(np, vector, x3)
        assert plane.shape == (1, shape[1], x3.shape[2])
        np.testing.assert_array_equal(x3 * plane, x3 * vector.reshape(1, -1, 1))
        np.testing.assert_array_equal(x3 - plane, x3 - vector.reshape(1, -1, 1))


@pytest.mark.parametrize("slope", [0.0, 0.2, 1.0, 1.5, -0.3])
def test_leaky_relu_branch_free_form_equals_the_choice(slope):
    """``leaky`` with a slope in (0, 1] runs as ``max(x, slope * x)`` and ``g * max(x > 0,
    slope)`` (a speed form); the values, signed zeros and nans are those of choosing with
    ``where``; other slopes take ``where`` itself.  (A slope of 0 in float32 is oneDNN's
    relu in MXNet 1.9.1, ``x > 0 ? x : +0``: a nan and -inf give +0 there.)"""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(200).astype(np.float32)
    x[:5] = [np.nan, -0.0, 0.0, np.inf, -np.inf]
    g = rng.standard_normal(200).astype(np.float32)
    g[5:8] = [-0.0, np.inf, np.nan]
    op = get_op("LeakyReLU")(act_type="leaky", slope=slope)
    assert op._leaky_by_maximum() == (0 < slope <= 1)
    forward = np.where(x > 0, x, np.float32(0) if slope == 0 else slope * x)
    for got, want in ((op.forward(np, x), forward),
                      (op.backward(np, g, x), np.where(x > 0, g, g * slope))):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
