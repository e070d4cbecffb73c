"""mx.test_utils on Symbols: check_symbolic_forward/backward (MXNet's semantics) and
check_numeric_gradient / numeric_grad given a Symbol."""
import numpy as np
import pytest

import minimx as mx
from minimx import test_utils


def _affine():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    return mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=3, name="fc") * 2


def _values():
    rng = np.random.default_rng(3)
    return rng.standard_normal((2, 4)), rng.standard_normal((3, 4))


def test_forward_accepts_lists_and_dicts_and_returns_outputs():
    x, w = _values()
    outputs = test_utils.check_symbolic_forward(_affine(), [x, w], [2 * x @ w.T], atol=1e-5)
    assert outputs[0].shape == (2, 3) and outputs[0].dtype == np.float32
    symbol = _affine()
    test_utils.check_symbolic_forward(symbol, {"x": x, "w": w},
                                      {symbol.list_outputs()[0]: 2 * x @ w.T}, atol=1e-5)


def test_forward_reports_a_wrong_expectation_by_output_name():
    x, w = _values()
    with pytest.raises(AssertionError, match="EXPECTED_.*FORWARD_"):
        test_utils.check_symbolic_forward(_affine(), [x, w], [x @ w.T], atol=1e-5)


def test_forward_location_keys_must_match():
    x, w = _values()
    with pytest.raises(ValueError, match="do not match"):
        test_utils.check_symbolic_forward(_affine(), {"x": x}, [x @ w.T])


def test_forward_dtype_float64_and_asnumpy():
    x, w = _values()
    out = test_utils.check_symbolic_forward(_affine(), [x, w], [2 * x @ w.T], rtol=1e-12,
                                            atol=1e-12, dtype=np.float64)
    assert out[0].dtype == np.float64
    half = [x.astype(np.float16), w.astype(np.float16)]
    out = test_utils.check_symbolic_forward(_affine(), half, [2 * x @ w.T], rtol=1e-2,
                                            atol=5e-2, dtype="asnumpy")
    assert out[0].dtype == np.float16


def test_forward_uses_auxiliary_states_at_inference():
    data = np.random.default_rng(1).standard_normal((4, 2))
    mean, var = np.array([0.5, -1.0]), np.array([2.0, 0.5])
    gamma, beta = np.array([1.5, 0.5]), np.array([0.1, -0.2])
    bn = mx.sym.BatchNorm(mx.sym.var("x"), fix_gamma=False, eps=1e-3, name="bn")
    expected = (data - mean) / np.sqrt(var + 1e-3) * gamma + beta
    test_utils.check_symbolic_forward(bn, [data, gamma, beta], [expected],
                                      aux_states=[mean, var], atol=1e-5)
    with pytest.raises(AssertionError):
        test_utils.check_symbolic_forward(bn, [data, gamma, beta], [expected],
                                          aux_states=[mean * 0, var], atol=1e-5)


@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_backward_write_and_add(grad_req):
    x, w = _values()
    head = np.random.default_rng(2).standard_normal((2, 3))
    expected = {"x": 2 * head @ w, "w": 2 * head.T @ x}
    grads = test_utils.check_symbolic_backward(_affine(), [x, w], [head], expected, rtol=1e-4,
                                               atol=1e-5, grad_req=grad_req)
    assert set(grads) == {"x", "w"}
    with pytest.raises(AssertionError, match="EXPECTED_w.*BACKWARD_w"):
        test_utils.check_symbolic_backward(_affine(), [x, w], [head],
                                           {"x": expected["x"], "w": -expected["w"]},
                                           rtol=1e-4, atol=1e-5, grad_req=grad_req)


def test_backward_null_leaves_the_buffer_and_only_expected_get_buffers():
    x, w = _values()
    head = np.ones((2, 3))
    grads = test_utils.check_symbolic_backward(
        _affine(), {"x": x, "w": w}, [head],
        {"x": 2 * head @ w, "w": np.zeros((3, 4))}, rtol=1e-4, atol=1e-5,
        grad_req={"x": "write", "w": "null"})
    assert not np.allclose(grads["w"].asnumpy(), 0)          # untouched random start values
    grads = test_utils.check_symbolic_backward(_affine(), [x, w], [head], {"w": 2 * head.T @ x},
                                               rtol=1e-4, atol=1e-5)
    assert set(grads) == {"w"}


def test_backward_out_grads_by_output_name():
    x, w = _values()
    symbol = _affine()
    head = np.full((2, 3), 0.5)
    test_utils.check_symbolic_backward(symbol, [x, w], {symbol.list_outputs()[0]: head},
                                       {"x": 2 * head @ w}, rtol=1e-4, atol=1e-5)


def test_numeric_gradient_accepts_a_symbol():
    x, w = _values()
    test_utils.check_numeric_gradient(_affine(), [x, w])
    test_utils.check_numeric_gradient(_affine(), {"x": x, "w": w}, grad_nodes=["w"])
    numeric = test_utils.numeric_grad(_affine(), {"x": x, "w": w})
    np.testing.assert_allclose(numeric["x"], 2 * np.ones((2, 3)) @ w, rtol=1e-6)
    np.testing.assert_allclose(numeric["w"], 2 * np.ones((3, 2)) @ x, rtol=1e-6)


def test_numeric_gradient_of_a_symbol_with_auxiliary_states():
    rng = np.random.default_rng(4)
    bn = mx.sym.BatchNorm(mx.sym.var("x"), fix_gamma=False, name="bn")
    location = {"x": rng.standard_normal((5, 3)), "bn_gamma": rng.uniform(0.5, 1.5, 3),
                "bn_beta": rng.standard_normal(3)}
    test_utils.check_numeric_gradient(bn, location, aux_states=[np.zeros(3), np.ones(3)])


def test_sym_random_builds_mxnets_sampling_nodes():
    with mx.name.NameManager():
        uniform = mx.sym.random.uniform(-1, 1, shape=(2, 3))
    assert uniform.name == "_random_uniform0"
    assert uniform.list_attr() == {"low": "-1", "high": "1", "shape": "(2, 3)"}
    values = uniform.eval()[0].asnumpy()
    assert values.shape == (2, 3) and values.min() >= -1 and values.max() < 1
    per_element = mx.sym.random.normal(mx.sym.var("m"), mx.sym.var("s"), shape=(4,))
    assert per_element.infer_shape(m=(2,), s=(2,))[1] == [(2, 4)]
    assert mx.sym.random.exponential(2.0, shape=(3,)).list_attr()["lam"] == "0.5"
