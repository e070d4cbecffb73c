"""gluon.nn layers: values, gradients, repr, names and traced symbols against MXNet 1.9.1;
hybridized against imperative; deferred initialisation, Dropout and BatchNorm modes;
the seed's HybridSequential MLP and HybridNet printing examples.

The MXNet comparisons build every layer once in minimx, give its parameters
random values, and write them (``save_parameters``) with the input (``nd.save``)
to a folder; one MXNet 1.9.1 process builds the same layers from the same
code, loads those files, and writes back its outputs, gradients of
``sum(output)`` and parameter values after the call, in prediction and in
training mode.
"""
import contextlib
import io
import json
import re
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import autograd, nd
from minimx.gluon import nn

Case = namedtuple("Case", "code shape kind input_grad modes hybrid")


def case(code, shape, kind="float", input_grad=True, modes=("predict", "train"), hybrid=True):
    return Case(code if "net =" in code else "net = " + code, shape, kind, input_grad, modes,
                hybrid)


CASES = {
    "dense_relu": case("nn.Dense(4, activation='relu')", (2, 3, 2)),
    "dense_nobias_in_units": case("nn.Dense(3, use_bias=False, in_units=5)", (2, 5)),
    "dense_no_flatten": case("nn.Dense(3, flatten=False, activation='tanh')", (2, 2, 5)),
    "dense_float64": case("nn.Dense(3, dtype='float64')", (2, 5), kind="float64"),
    "dropout": case("nn.Dropout(0.5)", (3, 4), modes=("predict",)),
    "dropout_zero": case("nn.Dropout(0)", (3, 4)),
    "batchnorm": case("nn.BatchNorm()", (3, 2, 2, 2)),
    "batchnorm_options": case("nn.BatchNorm(axis=-1, momentum=0.5, epsilon=1e-3, "
                              "scale=False, center=False, in_channels=2)", (3, 4, 2)),
    "batchnorm_global_stats": case("nn.BatchNorm(use_global_stats=True)", (2, 3, 4)),
    "layernorm": case("nn.LayerNorm()", (2, 3, 4)),
    "layernorm_axis1": case("nn.LayerNorm(axis=1, epsilon=1e-3, center=False)", (2, 3, 4)),
    "instancenorm": case("nn.InstanceNorm()", (2, 3, 4)),
    "instancenorm_axis2": case("nn.InstanceNorm(axis=2, scale=True)", (2, 3, 4, 2)),
    "groupnorm": case("nn.GroupNorm(num_groups=2)", (2, 4, 3)),
    "embedding": case("nn.Embedding(10, 4)", (2, 3), kind="index", input_grad=False),
    "flatten": case("nn.Flatten()", (2, 3, 2)),
    "lambda": case("nn.Lambda('tanh')", (2, 3), hybrid=False),
    "hybridlambda_name": case("nn.HybridLambda('tanh')", (2, 3)),
    "hybridlambda_function": case("nn.HybridLambda(lambda F, x: F.relu(x) * 2)", (2, 3)),
    "identity": case("nn.Identity()", (2, 3)),
    "concurrent": case("net = nn.Concurrent(axis=1)\nwith net.name_scope():\n"
                       "    net.add(nn.Dense(3), nn.Dense(2))", (2, 4), hybrid=False),
    "hybridconcurrent": case("net = nn.HybridConcurrent(axis=1)\nwith net.name_scope():\n"
                             "    net.add(nn.Dense(3), nn.Identity())", (2, 4)),
    "activation_relu": case("nn.Activation('relu')", (2, 5)),
    "activation_sigmoid": case("nn.Activation('sigmoid')", (2, 5)),
    "activation_tanh": case("nn.Activation('tanh')", (2, 5)),
    "activation_softrelu": case("nn.Activation('softrelu')", (2, 5)),
    "activation_softsign": case("nn.Activation('softsign')", (2, 5)),
    "leakyrelu": case("nn.LeakyReLU(0.1)", (2, 5)),
    "prelu": case("nn.PReLU()", (2, 5)),
    "prelu_channels": case("nn.PReLU(in_channels=3)", (2, 3, 4)),
    "elu": case("nn.ELU(0.5)", (2, 5)),
    "selu": case("nn.SELU()", (2, 5)),
    "swish": case("nn.Swish(2.0)", (2, 5)),
    "gelu": case("nn.GELU()", (2, 5)),
    "conv1d": case("nn.Conv1D(4, 3)", (2, 3, 7)),
    "conv2d": case("nn.Conv2D(4, 3, padding=1)", (2, 3, 5, 5)),
    "conv2d_options": case("nn.Conv2D(4, (3, 2), strides=2, padding=1, dilation=2, "
                           "use_bias=False, activation='relu', in_channels=2)", (2, 2, 7, 6)),
    "conv2d_groups": case("nn.Conv2D(4, 3, groups=2)", (1, 4, 5, 5)),
    "conv3d": case("nn.Conv3D(2, 2)", (1, 2, 3, 3, 3)),
    "conv1d_transpose": case("nn.Conv1DTranspose(3, 2, strides=2)", (2, 2, 4)),
    "conv2d_transpose": case("nn.Conv2DTranspose(3, 3, strides=2, padding=1, "
                             "output_padding=1)", (1, 2, 3, 3)),
    "conv3d_transpose": case("nn.Conv3DTranspose(2, 2)", (1, 2, 2, 2, 2)),
    "maxpool1d": case("nn.MaxPool1D()", (2, 3, 6)),
    "maxpool2d": case("nn.MaxPool2D()", (2, 2, 4, 4)),
    "maxpool2d_ceil": case("nn.MaxPool2D(3, 2, 1, ceil_mode=True)", (1, 2, 6, 6)),
    "maxpool3d": case("nn.MaxPool3D()", (1, 2, 4, 4, 4)),
    "avgpool1d": case("nn.AvgPool1D(3, padding=1)", (2, 3, 6)),
    "avgpool2d_ceil": case("nn.AvgPool2D(3, 2, 1, ceil_mode=True)", (1, 2, 6, 6)),
    "avgpool2d_exclude_pad": case("nn.AvgPool2D(padding=1, count_include_pad=False)",
                                  (1, 2, 4, 4)),
    "avgpool3d": case("nn.AvgPool3D()", (1, 2, 4, 4, 4)),
    "globalmaxpool1d": case("nn.GlobalMaxPool1D()", (2, 3, 5)),
    "globalmaxpool2d": case("nn.GlobalMaxPool2D()", (2, 3, 4, 4)),
    "globalmaxpool3d": case("nn.GlobalMaxPool3D()", (1, 2, 3, 3, 3)),
    "globalavgpool1d": case("nn.GlobalAvgPool1D()", (2, 3, 5)),
    "globalavgpool2d": case("nn.GlobalAvgPool2D()", (2, 3, 4, 4)),
    "globalavgpool3d": case("nn.GlobalAvgPool3D()", (1, 2, 3, 3, 3)),
    "reflectionpad2d": case("nn.ReflectionPad2D(1)", (1, 2, 3, 4)),
    "cnn": case("net = nn.HybridSequential()\nwith net.name_scope():\n"
                "    net.add(nn.Conv2D(4, 3, activation='relu'), nn.BatchNorm(), "
                "nn.MaxPool2D(), nn.Flatten(), nn.Dropout(0.0), nn.Dense(3))", (2, 1, 6, 6)),
    "seed_mlp": case("net = nn.HybridSequential()\nwith net.name_scope():\n"
                     "    net.add(nn.Dense(256, activation='relu'), "
                     "nn.Dense(128, activation='relu'), nn.Dense(2))", (1, 512)),
}
HYBRID_CASES = [name for name, spec in CASES.items() if spec.hybrid]
# Where MXNet 1.9.1's gradients are wrong, only outputs and parameter values are compared:
# its SELU gradient for negative inputs is lambda * (output + alpha), not the derivative
# lambda * alpha * exp(x); its max pooling in predict mode sends each window's gradient to
# the window's first element instead of its maximum.
MAX_POOLS = ("maxpool1d", "maxpool2d", "maxpool2d_ceil", "maxpool3d", "globalmaxpool1d",
             "globalmaxpool2d", "globalmaxpool3d", "cnn")
GRADIENT_DIFFERS = {("selu", "predict"), ("selu", "train")} | {
    (name, "predict") for name in MAX_POOLS}


# -- building, filling and running a case (the MXNet script below mirrors these) -----------------
def build(code):
    scope = {"nn": nn, "mx": mx}
    with mx.name.NameManager():
        exec(code, scope)
    return scope["net"]


def make_input(spec, rng):
    if spec.kind == "index":
        return nd.array(rng.randint(0, 10, size=spec.shape))
    dtype = "float64" if spec.kind == "float64" else "float32"
    return nd.array(rng.normal(size=spec.shape), dtype=dtype)


def randomize_parameters(net, rng):
    """Values far from the initialisers' defaults; variances and gammas stay positive.

    A gamma or beta that is not learned keeps its 1 or 0 (MXNet's BatchNorm with
    ``fix_gamma`` even writes 1 into gamma)."""
    for name, param in net.collect_params().items():
        if param.grad_req == "null" and name.endswith(("gamma", "beta")):
            continue
        low, high = (0.5, 1.5) if name.endswith(("running_var", "gamma")) else (-1.0, 1.0)
        if name.endswith("alpha"):
            low, high = 0.0, 0.5
        param.set_data(nd.array(rng.uniform(low, high, size=param.shape), dtype=param.dtype))


def run(net, x, train, input_grad):
    """Outputs, gradients of sum(output), and parameter values after one recorded call."""
    x = x.copy()
    if input_grad:
        x.attach_grad()
    with autograd.record(train_mode=train):
        out = net(x)
    out.backward(train_mode=train)    # MXNet's default (True) would differentiate a
    result = {"out": out.asnumpy()}   # predict-mode BatchNorm as if it used batch statistics
    if input_grad:
        result["xgrad"] = x.grad.asnumpy()
    for name, param in net._collect_params_with_prefix().items():
        result["data:" + name] = param.data().asnumpy()
        if param.grad_req != "null":
            result["grad:" + name] = param.grad().asnumpy()
    return result


def describe(net):
    return [[name, list(param.shape), param.grad_req, np.dtype(param.dtype).name]
            for name, param in net.collect_params().items()]


@pytest.fixture(scope="module")
def saved_cases(tmp_path_factory):
    """{case: file stem}: each case's parameters (``.params``) and input (``.input``)."""
    folder = tmp_path_factory.mktemp("nn_layers")
    rng = np.random.RandomState(0)
    stems = {}
    for name, spec in CASES.items():
        net = build(spec.code)
        net.initialize()
        x = make_input(spec, rng)
        net(x)                                   # completes the deferred shapes
        randomize_parameters(net, rng)
        stems[name] = str(folder / name)
        net.save_parameters(stems[name] + ".params")
        nd.save(stems[name] + ".input", [x])
    return stems


def load_case(name, stems):
    net = build(CASES[name].code)
    ctx = mx.current_context()          # load_parameters alone would load onto cpu()
    net.load_parameters(stems[name] + ".params", ctx=ctx)
    return net, nd.load(stems[name] + ".input")[0].as_in_context(ctx)


# -- MXNet 1.9.1 -----------------------------------------------------------------------------
MXNET_SCRIPT = r'''
import json, sys
import numpy as np
import mxnet as mx
from mxnet import autograd, nd
from mxnet.gluon import nn
from mxnet.gluon.contrib import nn as contrib_nn
for name in ("Identity", "Concurrent", "HybridConcurrent"):
    setattr(nn, name, getattr(contrib_nn, name))

def build(code):
    scope = {"nn": nn, "mx": mx}
    with mx.name.NameManager():
        exec(code, scope)
    return scope["net"]

def describe(net):
    return [[name, list(p.shape), p.grad_req, np.dtype(p.dtype).name]
            for name, p in net.collect_params().items()]

def run(net, x, train, input_grad):
    if input_grad:
        x.attach_grad()
    with autograd.record(train_mode=train):
        out = net(x)
    out.backward(train_mode=train)
    result = {"out": out}
    if input_grad:
        result["xgrad"] = x.grad
    for name, p in net._collect_params_with_prefix().items():
        result["data:" + name] = p.data()
        if p.grad_req != "null":
            result["grad:" + name] = p.grad()
    return result

cases, report = json.load(open(sys.argv[1])), {}
for case in cases:
    stem = case["stem"]
    net = build(case["code"])
    info = {"repr0": repr(net), "params0": describe(net)}
    if isinstance(net, mx.gluon.HybridBlock):
        info["internals"] = net(mx.sym.var("data")).get_internals().list_outputs()
    x = nd.load(stem + ".input")[0]
    for mode in case["modes"]:
        net = build(case["code"])
        net.load_parameters(stem + ".params")
        nd.save(stem + "." + mode + ".mxnet", run(net, x.copy(), mode == "train",
                                                  case["input_grad"]))
    info["repr1"], info["params1"] = repr(net), describe(net)
    report[case["name"]] = info
json.dump(report, open(sys.argv[2], "w"))
'''


@pytest.fixture(scope="module")
def mxnet_report(saved_cases, mxnet_python, tmp_path_factory):
    """What MXNet 1.9.1 says about every case (its arrays are in ``<stem>.<mode>.mxnet``)."""
    folder = tmp_path_factory.mktemp("nn_layers_mxnet")
    spec = [{"name": name, "stem": saved_cases[name], "code": c.code, "modes": list(c.modes),
             "input_grad": c.input_grad} for name, c in CASES.items()]
    (folder / "cases.json").write_text(json.dumps(spec))
    (folder / "script.py").write_text(MXNET_SCRIPT)
    subprocess.run([mxnet_python, str(folder / "script.py"), str(folder / "cases.json"),
                    str(folder / "report.json")], check=True, capture_output=True, timeout=600)
    return json.loads((folder / "report.json").read_text())


def assert_results_close(actual, expected, skip_grads=False, rtol=1e-4, atol=1e-5):
    assert sorted(actual) == sorted(expected)
    for key, value in expected.items():
        if skip_grads and key != "out" and not key.startswith("data:"):
            continue
        assert actual[key].shape == value.shape, key
        np.testing.assert_allclose(actual[key], value, rtol=rtol, atol=atol, err_msg=key)


@pytest.mark.parametrize("mode", ["predict", "train"])
@pytest.mark.parametrize("name", list(CASES))
def test_outputs_and_gradients_match_mxnet(name, mode, saved_cases, mxnet_report):
    spec = CASES[name]
    if mode not in spec.modes:
        pytest.skip(f"{name}: random in training mode, compared in distribution below")
    net, x = load_case(name, saved_cases)
    ours = run(net, x, mode == "train", spec.input_grad)
    theirs = {key: value.asnumpy()
              for key, value in nd.load(f"{saved_cases[name]}.{mode}.mxnet").items()}
    assert_results_close(ours, theirs, skip_grads=(name, mode) in GRADIENT_DIFFERS)


@pytest.mark.parametrize("name", list(CASES))
def test_repr_and_parameters_match_mxnet(name, saved_cases, mxnet_report):
    expected = mxnet_report[name]
    net = build(CASES[name].code)
    assert repr(net) == expected["repr0"]
    assert describe(net) == expected["params0"]
    net, x = load_case(name, saved_cases)
    with autograd.record(train_mode=False):
        net(x)
    assert repr(net) == expected["repr1"]
    assert describe(net) == expected["params1"]


@pytest.mark.parametrize("name", HYBRID_CASES)
def test_traced_symbol_names_match_mxnet(name, mxnet_report):
    net = build(CASES[name].code)
    internals = net(mx.sym.var("data")).get_internals().list_outputs()
    assert internals == mxnet_report[name]["internals"]


# -- hybridized against imperative --------------------------------------------------------------
@pytest.mark.parametrize("mode", ["predict", "train"])
@pytest.mark.parametrize("name", HYBRID_CASES)
def test_hybridized_matches_imperative(name, mode, saved_cases):
    """Every layer gives the same outputs, gradients and (BatchNorm) running statistics."""
    spec = CASES[name]
    results = []
    for hybridize in (False, True):
        net, x = load_case(name, saved_cases)
        if hybridize:
            net.hybridize()
        mx.random.seed(11)                       # the same Dropout mask both ways
        results.append(run(net, x, mode == "train", spec.input_grad))
    assert_results_close(results[1], results[0], rtol=1e-5, atol=1e-6)


def test_hybridized_layer_traces_once_and_reuses_the_graph(saved_cases):
    net, x = load_case("cnn", saved_cases)
    net.hybridize()
    first = net(x)
    graph = net._cached_graph
    second = net(x)
    assert net._cached_graph is graph
    np.testing.assert_array_equal(first.asnumpy(), second.asnumpy())


# -- behaviour without the reference ------------------------------------------------------------
def test_deferred_initialization_learns_input_sizes():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Flatten(), nn.Dense(3))
    net.initialize()
    assert net[0].weight.shape == (4, 0, 3, 3)
    assert net[3].weight.shape == (3, 0)
    with pytest.raises(mx.gluon.DeferredInitializationError):
        net[0].weight.data()
    out = net(nd.ones((2, 2, 5, 5)))
    assert out.shape == (2, 3)
    assert net[0].weight.shape == (4, 2, 3, 3)
    assert net[1].running_mean.shape == (4,)
    assert net[3].weight.shape == (3, 4 * 3 * 3)
    assert repr(net[3]) == "Dense(36 -> 3, linear)"


def test_known_input_sizes_initialize_at_once():
    layer = nn.Dense(3, in_units=5)
    layer.initialize()
    assert layer.weight.data().shape == (3, 5)
    conv = nn.Conv2DTranspose(3, 2, in_channels=4, groups=1)
    conv.initialize()
    assert conv.weight.data().shape == (4, 3, 2, 2)


@settings(max_examples=15, deadline=None)
@given(size=st.integers(4, 9), kernel=st.integers(1, 3), stride=st.integers(1, 3),
       pad=st.integers(0, 1), dilation=st.integers(1, 2))
def test_conv_and_pool_output_sizes_follow_the_formulas(size, kernel, stride, pad, dilation):
    x = nd.ones((1, 2, size, size))
    conv = nn.Conv2D(3, kernel, strides=stride, padding=pad, dilation=dilation)
    conv.initialize()
    out = (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
    assert conv(x).shape == (1, 3, out, out)
    transpose = nn.Conv2DTranspose(3, kernel, strides=stride, padding=pad)
    transpose.initialize()
    up = (size - 1) * stride - 2 * pad + kernel
    assert transpose(x).shape == (1, 3, up, up)
    if kernel > pad:
        pooled = (size + 2 * pad - kernel) // stride + 1
        assert nn.MaxPool2D(kernel, stride, pad)(x).shape == (1, 2, pooled, pooled)
        ceiled = -(-(size + 2 * pad - kernel) // stride) + 1
        assert nn.AvgPool2D(kernel, stride, pad, ceil_mode=True)(x).shape[2] == ceiled
    assert nn.GlobalAvgPool2D()(x).shape == (1, 2, 1, 1)


def test_dropout_follows_autograd_modes():
    layer = nn.Dropout(0.5)
    x = nd.ones((200, 50))
    np.testing.assert_array_equal(layer(x).asnumpy(), x.asnumpy())       # not recording
    x.attach_grad()
    with autograd.record():
        out = layer(x)
    out.backward()
    kept = out.asnumpy() != 0
    assert set(np.unique(out.asnumpy())) == {0.0, 2.0}                  # kept values scaled
    assert 0.4 < kept.mean() < 0.6
    np.testing.assert_array_equal(x.grad.asnumpy(), 2.0 * kept)
    with autograd.record(train_mode=False):
        np.testing.assert_array_equal(layer(x).asnumpy(), x.asnumpy())
    with autograd.train_mode():
        assert (layer(x).asnumpy() == 0).any()                            # train, not recording
    with autograd.record(), autograd.predict_mode():
        np.testing.assert_array_equal(layer(x).asnumpy(), x.asnumpy())


def test_dropout_shares_the_mask_along_axes():
    with autograd.train_mode():
        out = nn.Dropout(0.5, axes=(1,))(nd.ones((40, 6))).asnumpy()
    assert all(len(set(row)) == 1 for row in out)
    assert set(out[:, 0]) == {0.0, 2.0}


@pytest.mark.parametrize("hybridize", [False, True])
def test_batchnorm_running_statistics(hybridize):
    layer = nn.BatchNorm(momentum=0.8, in_channels=2)
    layer.initialize()
    if hybridize:
        layer.hybridize()
    data = np.random.normal(2.0, 3.0, size=(5, 2, 3)).astype(np.float32)
    with autograd.record():
        out = layer(nd.array(data))
    # as MXNet 1.9.1: the recorded forward leaves them; the backward through it moves them
    np.testing.assert_array_equal(layer.running_mean.data().asnumpy(), 0)
    np.testing.assert_array_equal(layer.running_var.data().asnumpy(), 1)
    out.backward()
    mean, var = data.mean(axis=(0, 2)), data.var(axis=(0, 2))
    np.testing.assert_allclose(layer.running_mean.data().asnumpy(), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(layer.running_var.data().asnumpy(), 0.8 + 0.2 * var, rtol=1e-5)
    normalized = (data - mean[:, None]) / np.sqrt(var[:, None] + 1e-5)
    np.testing.assert_allclose(out.asnumpy(), normalized, rtol=1e-4, atol=1e-5)
    predicted = layer(nd.array(data)).asnumpy()                       # running statistics
    running_mean, running_var = 0.2 * mean, 0.8 + 0.2 * var
    expected = (data - running_mean[:, None]) / np.sqrt(running_var[:, None] + 1e-5)
    np.testing.assert_allclose(predicted, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer.running_mean.data().asnumpy(), running_mean, rtol=1e-5)
    assert layer.running_mean.grad_req == layer.running_var.grad_req == "null"


def test_batchnorm_statistics_are_auxiliary_states_of_the_graph():
    out = nn.BatchNorm(prefix="bn_")(mx.sym.var("data"))
    assert out.list_auxiliary_states() == ["bn_running_mean", "bn_running_var"]
    assert out.list_arguments() == ["data", "bn_gamma", "bn_beta"]


def test_batchnorm_keeps_float32_statistics_when_cast_to_float16():
    layer = nn.BatchNorm(in_channels=2)
    layer.initialize()
    layer.cast("float16")
    assert np.dtype(layer.gamma.dtype) == np.float32
    dense = nn.Dense(2, in_units=2)
    dense.initialize()
    dense.cast("float16")
    assert dense.weight.data().dtype == np.float16


@pytest.mark.parametrize("make", [
    lambda: nn.Conv3DTranspose(2, 3, layout="NDHWC"), lambda: nn.Conv2D(2, 3, layout="NCW"),
    lambda: nn.MaxPool2D(layout="NCW")])
def test_unsupported_layouts_are_refused_clearly(make):
    with pytest.raises(ValueError, match="layout"):
        make()


def test_channel_last_layers_infer_their_weights_and_keep_the_layout():
    conv = nn.Conv2D(4, 3, layout="NHWC")
    pool = nn.MaxPool2D(layout="NHWC")
    conv.initialize()
    out = pool(conv(nd.ones((2, 8, 6, 3))))
    assert conv.weight.shape == (4, 3, 3, 3) and out.shape == (2, 3, 2, 4)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="kernel_size must be a number or a list of 2 ints"):
        nn.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="no less than 0"):
        nn.LeakyReLU(-0.1)
    with pytest.raises(ValueError, match="not found in ndarray"):
        nn.Lambda("no_such_function")
    with pytest.raises(ValueError, match="not found in symbol/ndarray"):
        nn.HybridLambda("no_such_function")
    with pytest.raises(ValueError, match="8 ints"):
        nn.ReflectionPad2D((1, 2))


def test_dense_float64_keeps_its_dtype():
    layer = nn.Dense(2, dtype="float64")
    layer.initialize()
    out = layer(nd.ones((1, 3), dtype="float64"))
    assert out.dtype == np.float64 and layer.weight.data().dtype == np.float64


# -- the seed's examples, printed output against MXNet 1.9.1 -------------------------------------
# Seed 000's two hybridize examples, as written there (``mxnet`` is replaced by ``minimx`` for
# minimx), with one added line each: the parameters and input come from files, so that both
# frameworks print the same numbers.
SEED_MLP = """
from mxnet import gluon
from mxnet.gluon import nn
from mxnet import ndarray as nd
def get_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(
            nn.Dense(256, activation='relu'),
            nn.Dense(128, activation='relu'),
            nn.Dense(2)
        )
    net.initialize()
    return net
x = nd.random.normal(shape=(1, 512))
net = get_net()
net.load_parameters(PARAMS); x = nd.load(INPUT)[0]
print(net(x))
net.hybridize()
print(net(x))
"""

SEED_HYBRID_NET = """
from mxnet.gluon import nn
from mxnet import ndarray as nd
class HybridNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(HybridNet, self).__init__(**kwargs)
        with self.name_scope():
            self.fc1 = nn.Dense(10)
            self.fc2 = nn.Dense(2)
    def hybrid_forward(self, F, x):
        print(F)
        print(x)
        x = F.relu(self.fc1(x))
        print(x)
        return self.fc2(x)
net = HybridNet()
net.initialize()
x = nd.random.normal(shape=(1, 4))
net.load_parameters(PARAMS); x = nd.load(INPUT)[0]
y = net(x)
print(y)
net.hybridize()
y = net(x)
print(y)
y = net(x)
print(y)
"""

_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?")


def _template_and_numbers(text):
    """Printed text with module paths and floating-point numbers taken out."""
    text = re.sub(r"<module '(?:minimx|mxnet)\.(\w+)' from '[^']*'>", r"<module '\1'>", text)
    return _NUMBER.sub("#", text), [float(n) for n in _NUMBER.findall(text)]


def _run_seed_example(code, folder, python=None):
    """stdout of the example, run by MXNet's interpreter or (python=None) by minimx."""
    script = f"PARAMS = {str(folder / 'net.params')!r}\nINPUT = {str(folder / 'x.nd')!r}\n"
    if python is None:
        script += code.replace("mxnet", "minimx")
        python = sys.executable
    else:
        script += code
    result = subprocess.run([python, "-c", script], capture_output=True, text=True,
                            timeout=300, cwd=str(Path(__file__).resolve().parents[2]))
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("code, make_net, shape", [
    (SEED_MLP, lambda: build(CASES["seed_mlp"].code), (1, 512)),
    (SEED_HYBRID_NET, None, (1, 4))], ids=["get_net", "HybridNet"])
def test_seed_example_prints_what_mxnet_prints(code, make_net, shape, tmp_path, mxnet_python):
    # Parameters with the example's structural names, from minimx's own run of a twin net.
    scope = {}
    exec(code.replace("mxnet", "minimx").split("net = HybridNet()")[0]
         if make_net is None else "", scope)
    net = scope["HybridNet"]() if make_net is None else make_net()
    net.initialize(mx.init.Normal(0.5))
    x = nd.random.normal(shape=shape)
    with contextlib.redirect_stdout(io.StringIO()):
        net(x)
    net.save_parameters(str(tmp_path / "net.params"))
    nd.save(str(tmp_path / "x.nd"), [x])
    ours = _run_seed_example(code, tmp_path)
    theirs = _run_seed_example(code, tmp_path, mxnet_python)
    ours_template, ours_numbers = _template_and_numbers(ours)
    theirs_template, theirs_numbers = _template_and_numbers(theirs)
    assert ours_template == theirs_template
    np.testing.assert_allclose(ours_numbers, theirs_numbers, rtol=1e-4, atol=1e-5)


def test_hybrid_net_prints_symbols_once_after_hybridize(tmp_path):
    """The seed's point: hybrid_forward runs with F = sym once, then never again."""
    scope = {}
    exec(SEED_HYBRID_NET.replace("mxnet", "minimx").split("net = HybridNet()")[0], scope)
    with mx.name.NameManager():
        net = scope["HybridNet"]()
    net.initialize()
    x = nd.random.normal(shape=(1, 4))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        net(x)
        imperative = buffer.getvalue()
        net.hybridize()
        net(x)
        first = buffer.getvalue()[len(imperative):]
        net(x)
        second = buffer.getvalue()[len(imperative) + len(first):]
    assert "minimx.ndarray" in imperative and imperative.count("<NDArray 1x") == 2
    assert "minimx.symbol" in first
    assert "<Symbol data>" in first and "<Symbol hybridnet0_relu0>" in first
    assert second == ""
