"""Executor: the seed's section 5 examples, grad_req, planning passes, reshape, errors."""
import json

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, backend, nd
from minimx.base import MXNetError


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_seed_bind_forward_outputs():
    data = mx.sym.Variable("data", shape=(1, 2))
    weight = mx.sym.Variable("weight", shape=(1, 2))
    bias = mx.sym.Variable("bias", shape=(1.2))       # the seed's typo is harmless at bind
    fc = mx.sym.FullyConnected(data=data, weight=weight, bias=bias, num_hidden=12)
    w = nd.random.normal(shape=(12, 2))
    b = nd.random.normal(shape=(12,))
    executor = fc.bind(ctx=mx.current_context(),
                       args={"data": nd.ones([1, 2]), "weight": w, "bias": b})
    executor.forward()
    expected = np.ones((1, 2)) @ w.asnumpy().T + b.asnumpy()
    np.testing.assert_allclose(executor.outputs[0].asnumpy(), expected, rtol=1e-5)


def test_seed_softmax_executor_with_args_grad():
    hidden_num = 4
    data = mx.sym.Variable("data")
    weight = mx.sym.Variable("weight")
    bias = mx.sym.Variable("bias")
    fc = mx.sym.FullyConnected(data=data, weight=weight, bias=bias, num_hidden=hidden_num,
                               name="fc")
    softmax = mx.sym.SoftmaxOutput(fc, name="softmax")
    w = nd.random.normal(shape=(hidden_num, 2))
    b = nd.random.normal(shape=(hidden_num,))
    executor = softmax.bind(
        ctx=mx.current_context(),
        args={"data": nd.ones([1, 2]), "softmax_label": nd.ones((1,)), "weight": w, "bias": b},
        args_grad={"weight": nd.zeros((hidden_num, 2)), "bias": nd.zeros((hidden_num,))})
    executor.forward(is_train=True)
    probabilities = _softmax(np.ones((1, 2)) @ w.asnumpy().T + b.asnumpy())
    np.testing.assert_allclose(executor.output_dict["softmax_output"].asnumpy(), probabilities,
                               rtol=1e-5)
    executor.backward()
    delta = probabilities - np.eye(hidden_num)[[1]]
    np.testing.assert_allclose(executor.grad_dict["bias"].asnumpy(), delta[0], rtol=1e-5)
    np.testing.assert_allclose(executor.grad_dict["weight"].asnumpy(), delta.T @ np.ones((1, 2)),
                               rtol=1e-5)
    assert {k for k, v in executor.grad_dict.items() if v is not None} == {"weight", "bias"}
    assert executor.grad_dict["data"] is None


def _mlp():
    data = mx.sym.var("data")
    hidden = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=8, name="fc1"),
                               act_type="relu", name="relu1")
    out = mx.sym.FullyConnected(hidden, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(out, name="softmax")


def test_executor_matches_autograd():
    net = _mlp()
    executor = net.simple_bind(mx.cpu(), data=(5, 4))
    rng = np.random.default_rng(0)
    for name, array in executor.arg_dict.items():
        array[:] = rng.standard_normal(array.shape).astype(np.float32)
    executor.arg_dict["softmax_label"][:] = np.array([0, 1, 2, 1, 0])
    executor.forward(is_train=True)
    executor.backward()
    params = {k: nd.array(v.asnumpy()) for k, v in executor.arg_dict.items()}
    for name in ("fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"):
        params[name].attach_grad()
    with autograd.record():
        hidden = nd.relu(nd.FullyConnected(params["data"], params["fc1_weight"],
                                           params["fc1_bias"], num_hidden=8))
        out = nd.FullyConnected(hidden, params["fc2_weight"], params["fc2_bias"], num_hidden=3)
        loss = nd.SoftmaxOutput(out, params["softmax_label"])
    loss.backward()
    np.testing.assert_allclose(executor.outputs[0].asnumpy(), loss.asnumpy(), rtol=1e-5)
    for name in ("fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"):
        np.testing.assert_allclose(executor.grad_dict[name].asnumpy(),
                                   params[name].grad.asnumpy(), rtol=1e-4, atol=1e-6)


def test_grad_req_add_and_null():
    x = mx.sym.var("x")
    net = mx.sym.sum(x * x)
    executor = net.simple_bind(mx.cpu(), grad_req="add", x=(3,))
    executor.arg_dict["x"][:] = np.array([1.0, 2.0, 3.0])
    for _ in range(2):
        executor.forward(is_train=True)
        executor.backward(mx.nd.ones((1,)))      # sum is not a loss: MXNet asks for its head gradient
    assert executor.grad_dict["x"].asnumpy().tolist() == [4.0, 8.0, 12.0]
    frozen = net.simple_bind(mx.cpu(), grad_req="null", x=(3,))
    assert frozen.grad_dict == {"x": None}


def test_plan_report_fuses_chains_and_removes_dropout():
    x = mx.sym.var("x")
    net = mx.sym.Dropout(mx.sym.exp(mx.sym.relu(x * 2 + 1)), p=0.5)
    executor = net.simple_bind(mx.cpu(), x=(4,))
    report = executor.plan_report()
    assert len(report.passes["remove_identities"]) == 1
    assert any("4 ops" in change for change in report.passes["fuse_elementwise"])
    assert report.steps_after == 1
    executor.arg_dict["x"][:] = np.array([-1.0, 0.0, 1.0, 2.0])
    executor.forward()
    np.testing.assert_allclose(executor.outputs[0].asnumpy(),
                               np.exp(np.maximum(np.array([-1, 0, 1, 2]) * 2 + 1, 0)), rtol=1e-6)


def test_constant_folding():
    x = mx.sym.var("x")
    net = x + mx.sym.ones(shape=(3,)) * 2
    executor = net.simple_bind(mx.cpu(), x=(3,))
    assert len(executor.plan_report().passes["fold_constants"]) == 2
    executor.forward(x=nd.array([1, 2, 3]))
    assert executor.outputs[0].asnumpy().tolist() == [3, 4, 5]


def test_memory_plan_releases_intermediates():
    x = mx.sym.var("x")
    net = mx.sym.sum(mx.sym.broadcast_mul(mx.sym.exp(x), mx.sym.exp(x)))
    executor = net.simple_bind(mx.cpu(), x=(1000,))
    report = executor.plan_report()
    assert report.memory_planned < report.memory_unplanned


def test_forward_is_one_engine_push():
    net = _mlp()
    executor = net.simple_bind(mx.cpu(), data=(2, 4))
    events = []
    mx.engine.subscribe(events.append)
    try:
        executor.forward(is_train=True)
        executor.backward()
        nd.waitall()
    finally:
        mx.engine.unsubscribe(events.append)
    pushes = [e.name for e in events if e.kind == "push"]
    assert pushes == ["executor_forward", "executor_backward"]


def test_reshape_shares_parameters():
    net = _mlp()
    executor = net.simple_bind(mx.cpu(), data=(2, 4))
    executor.arg_dict["fc1_weight"][:] = 1
    bigger = executor.reshape(allow_up_sizing=True, data=(6, 4), softmax_label=(6,))
    assert bigger.arg_dict["data"].shape == (6, 4)
    assert bigger.arg_dict["fc1_weight"] is executor.arg_dict["fc1_weight"]
    assert bigger.forward()[0].shape == (6, 3)


def test_copy_params_from():
    net = _mlp()
    executor = net.simple_bind(mx.cpu(), data=(2, 4))
    executor.copy_params_from({"fc2_bias": nd.ones((3,))})
    assert executor.arg_dict["fc2_bias"].asnumpy().tolist() == [1, 1, 1]
    with pytest.raises(MXNetError, match="not an argument"):
        executor.copy_params_from({"nope": nd.ones((1,))})


def test_bind_errors_are_clear():
    net = _mlp()
    with pytest.raises(MXNetError, match="missing"):
        net.bind(mx.cpu(), {"data": nd.ones((2, 4))})
    with pytest.raises(MXNetError, match="cannot infer the shapes"):
        mx.sym.FullyConnected(mx.sym.var("d"), num_hidden=2).simple_bind(mx.cpu())
    with pytest.raises(MXNetError, match="grad_req"):
        net.simple_bind(mx.cpu(), grad_req="sometimes", data=(2, 4))


def test_monitor_callback_sees_outputs():
    net = _mlp()
    executor = net.simple_bind(mx.cpu(), data=(2, 4))
    seen = []
    executor.set_monitor_callback(lambda name, array: seen.append((name, array.shape)))
    executor.forward()
    nd.waitall()
    assert ("fc1_output", (2, 8)) in seen and ("softmax_output", (2, 3)) in seen


def test_bind_ignores_arrays_the_graph_does_not_use_and_says_so():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    y = mx.sym.FullyConnected(x, w, num_hidden=2, no_bias=True)
    arrays = {"x": mx.nd.ones((1, 3)), "w": mx.nd.ones((2, 3)), "b": mx.nd.ones((2,))}
    with pytest.warns(UserWarning, match=r"ignored: \['b'\]"):
        exe = y.bind(mx.current_context(), args=arrays)
    assert exe.forward()[0].asnumpy().tolist() == [[3.0, 3.0]]


def test_get_optimized_symbol_without_common_expressions_is_a_copy():
    """Without repeated subexpressions MXNet 1.9.1 returns a new Symbol whose JSON equals
    the bound one's (checked there with FullyConnected -> relu -> BatchNorm)."""
    data = mx.sym.var("data")
    net = mx.sym.BatchNorm(mx.sym.Activation(mx.sym.FullyConnected(
        data, num_hidden=3, name="fc"), act_type="relu", name="r"), name="bn")
    executor = net.simple_bind(mx.cpu(), data=(2, 4))
    optimized = executor.get_optimized_symbol()
    assert optimized is not net and optimized.tojson() == net.tojson()
    assert optimized.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    rebound = optimized.simple_bind(mx.cpu(), data=(2, 4))
    for name, array in executor.arg_dict.items():
        array[:] = mx.nd.random.uniform(shape=array.shape)
        rebound.arg_dict[name][:] = array
    np.testing.assert_allclose(rebound.forward()[0].asnumpy(), executor.forward()[0].asnumpy())


def _json_ops(symbol):
    return [node["op"] for node in json.loads(symbol.tojson())["nodes"]]


@pytest.mark.parametrize("build, expected", [
    # each expected list is the node ops of MXNet 1.9.1's get_optimized_symbol
    (lambda a, b: (a + b) + (a + b), ["null", "null", "elemwise_add", "elemwise_add"]),
    (lambda a, b: mx.sym.Group([a * (a + 1), a * (a + 1)]),
     ["null", "_plus_scalar", "elemwise_mul", "_copy"]),
    (lambda a, b: mx.sym.Dropout(a) + mx.sym.Dropout(a),
     ["null", "Dropout", "Dropout", "elemwise_add"]),
])
def test_get_optimized_symbol_eliminates_common_expressions(build, expected, monkeypatch):
    net = build(mx.sym.var("a"), mx.sym.var("b"))
    shapes = {name: (2,) for name in net.list_inputs()}
    optimized = net.simple_bind(mx.cpu(), **shapes).get_optimized_symbol()
    assert _json_ops(optimized) == expected
    copies = [name for name in optimized.list_outputs() if "copy" in name]
    assert all(name.endswith("_0_copy_output") for name in copies)
    monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "0")
    unchanged = net.simple_bind(mx.cpu(), **shapes).get_optimized_symbol()
    assert unchanged.tojson() == net.tojson()


def test_bind_refuses_an_array_on_another_device_type():
    """minimx runs a graph on one array library: bind names the array and the contexts."""
    with backend.stand_in_gpus(1):
        x = mx.sym.Variable("x")
        with pytest.raises(mx.base.ContextMismatchError) as caught:
            (x * 2).bind(mx.cpu(), {"x": nd.ones((2,), ctx=mx.gpu(0))})
        assert all(part in str(caught.value) for part in ("'x'", "gpu(0)", "cpu(0)"))


def test_head_gradients_on_another_device_are_copied_over():
    """As MXNet's Backward, a head gradient from another device is copied to the output's."""
    with backend.stand_in_gpus(1):
        x = mx.sym.Variable("x")
        executor = (x * 3).simple_bind(mx.cpu(), x=(2,))
        executor.forward(is_train=True, x=nd.array([1.0, 2.0]))
        executor.backward(nd.array([1.0, 10.0], ctx=mx.gpu(0)))
        np.testing.assert_allclose(executor.grad_dict["x"].asnumpy(), [3.0, 30.0])
