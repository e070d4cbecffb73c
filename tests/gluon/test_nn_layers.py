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
import json
import re
import subprocess
from collections import namedtuple

import numpy as np
import pytest

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
    net.load_parameters(stems[name] + ".params")
    return net, nd.load(stems[name] + ".input")[0]


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


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=(
        "minimx has no GroupNorm operator: reshape + InstanceNorm + reshape_like")))
    if name == "groupnorm" else name for name in HYBRID_CASES])
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
