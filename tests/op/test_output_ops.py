"""Output operators: forward values and the loss gradients they start, against MXNet 1.9.1."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from _nn_helpers import check_grads, compare_with_mxnet, requires_mxnet, run_minimx  # noqa

from minimx.op import get_op  # noqa: E402


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _data_and_label(seed, shape, classes, label_shape):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), rng.integers(0, classes, label_shape).astype(float)


def test_softmax_output_gradient_ignores_the_head_gradient():
    x, label = _data_and_label(0, (3, 4), 4, (3,))
    outputs, grads, _ = run_minimx("SoftmaxOutput", [x, label], {},
                                   [np.full((3, 4), 7.0)], (0,))
    probs = _softmax(x, 1)
    np.testing.assert_allclose(outputs[0], probs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0], probs - np.eye(4)[label.astype(int)], rtol=1e-4,
                               atol=1e-6)


def test_softmax_output_ignore_label_and_valid_normalization():
    x, _ = _data_and_label(1, (3, 4), 4, (3,))
    label = np.array([1.0, -1.0, 2.0])
    _, grads, _ = run_minimx("SoftmaxOutput", [x, label],
                             dict(use_ignore=True, normalization="valid", grad_scale=2.0),
                             [np.ones((3, 4))], (0,))
    expected = (_softmax(x, 1) - np.eye(4)[[1, 0, 2]]) * 2.0 / 2
    expected[1] = 0
    np.testing.assert_allclose(grads[0], expected, rtol=1e-4, atol=1e-6)


def test_label_shapes_are_inferred():
    assert get_op("SoftmaxOutput")().infer_input_shapes((5, 3), None) == [(5, 3), (5,)]
    multi = get_op("SoftmaxOutput")(multi_output=True)
    assert multi.infer_input_shapes((5, 3, 2), None) == [(5, 3, 2), (5, 2)]
    assert get_op("Softmax") is get_op("SoftmaxOutput")
    assert get_op("LinearRegressionOutput")().infer_input_shapes((4, 2), None)[1] == (4, 2)


def test_regression_outputs():
    rng = np.random.default_rng(2)
    x, label = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    for name, forward, grad in [
            ("LinearRegressionOutput", x, x - label),
            ("LogisticRegressionOutput", 1 / (1 + np.exp(-x)), 1 / (1 + np.exp(-x)) - label),
            ("MAERegressionOutput", x, np.sign(x - label))]:
        outputs, grads, _ = run_minimx(name, [x, label], dict(grad_scale=3.0),
                                       [np.ones((4, 2))], (0,))
        np.testing.assert_allclose(outputs[0], forward, rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(grads[0], grad * 3.0 / 2, rtol=1e-4, atol=1e-6, err_msg=name)


def test_make_loss_normalizations():
    x = np.array([[0.5, -1.0], [0.2, 0.05], [2.0, 3.0]])
    expected = {"null": 1.0, "batch": 1 / 3, "valid": 1 / 5}
    for normalization, value in expected.items():
        _, grads, _ = run_minimx("MakeLoss", [x], dict(normalization=normalization),
                                 [np.ones((3, 2))], (0,))
        np.testing.assert_allclose(grads[0], np.full((3, 2), value), rtol=1e-6)


def test_softmax_cross_entropy():
    x, label = _data_and_label(3, (3, 4), 4, (3,))
    outputs, _, _ = run_minimx("softmax_cross_entropy", [x, label], {})
    picked = np.log(_softmax(x, 1))[np.arange(3), label.astype(int)]
    np.testing.assert_allclose(outputs[0], [-picked.sum()], rtol=1e-5)
    check_grads("softmax_cross_entropy", [x, label], {}, (0,))


MXNET_CASES = [
    ("SoftmaxOutput", (3, 4), (3,), {}),
    ("SoftmaxOutput", (3, 4), (3,), dict(normalization="batch", grad_scale=0.5)),
    ("SoftmaxOutput", (3, 4), (3,), dict(use_ignore=True, ignore_label=1,
                                         normalization="valid")),
    ("SoftmaxOutput", (3, 4), (3,), dict(smooth_alpha=0.2)),
    ("SoftmaxOutput", (2, 3, 2), (2, 2), dict(multi_output=True)),
    ("SoftmaxOutput", (2, 3, 2), (2, 2), dict(multi_output=True, normalization="batch")),
    ("SoftmaxOutput", (2, 2, 3), (2, 2), dict(preserve_shape=True)),
    ("LinearRegressionOutput", (3, 2), (3, 2), dict(grad_scale=2.0)),
    ("LogisticRegressionOutput", (3, 1), (3,), {}),
    ("MAERegressionOutput", (3, 2), (3, 2), {}),
    ("SVMOutput", (3, 4), (3,), {}),
    ("SVMOutput", (3, 4), (3,), dict(use_linear=True, margin=0.5)),
    ("softmax_cross_entropy", (3, 4), (3,), {}),
]


@requires_mxnet
@pytest.mark.parametrize("name, data_shape, label_shape, params", MXNET_CASES)
def test_matches_mxnet(tmp_path, name, data_shape, label_shape, params):
    x, label = _data_and_label(4, data_shape, data_shape[1], label_shape)
    if name in ("LinearRegressionOutput", "MAERegressionOutput", "LogisticRegressionOutput"):
        label = np.random.default_rng(5).random(label_shape)
    compare_with_mxnet(tmp_path, name, [x, label], params, (0,))


@requires_mxnet
@pytest.mark.parametrize("normalization", ["null", "batch", "valid"])
def test_make_loss_matches_mxnet(tmp_path, normalization):
    x = np.random.default_rng(6).standard_normal((3, 4))
    compare_with_mxnet(tmp_path, "MakeLoss", [x],
                       dict(normalization=normalization, valid_thresh=0.2, grad_scale=2.0), (0,))
