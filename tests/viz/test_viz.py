"""Tests of mx.viz: print_summary's table and plot_network's Graphviz graph.

Both are compared with MXNet 1.9.1 on the same networks (skipped without it).
plot_network is compared through a stand-in ``graphviz`` module that records
the nodes and edges it is given, so neither side needs the real package;
rendering is tested only where the ``dot`` program is installed.
"""
import contextlib
import io
import json
import math
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx.viz import GraphvizMissingError

# Each network is built by the same code in minimx and in MXNet.
NETWORKS = {
    "mlp": """
net = mx.sym.Variable('data')
net = mx.sym.FullyConnected(net, num_hidden=128, name='fc1')
net = mx.sym.Activation(net, act_type='relu', name='relu1')
net = mx.sym.FullyConnected(net, num_hidden=10, name='fc2')
net = mx.sym.SoftmaxOutput(net, name='softmax')
shape = {'data': (2, 784)}
""",
    "cnn": """
data = mx.sym.Variable('data')
c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, name='conv1')
c = mx.sym.BatchNorm(c, name='bn1')
c = mx.sym.Activation(c, act_type='relu', name='relu1')
c = mx.sym.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool1')
c = mx.sym.Convolution(c, kernel=(3, 3), stride=(1, 1), pad=(1, 1), num_filter=4,
                       no_bias=True, name='conv2')
c = mx.sym.LeakyReLU(c, name='leaky')
c = mx.sym.Flatten(c, name='flat')
c = mx.sym.FullyConnected(c, num_hidden=10, name='fc')
net = mx.sym.softmax(c, name='prob')
shape = {'data': (1, 3, 8, 8)}
""",
    "branches": """
data = mx.sym.Variable('data')
a = mx.sym.FullyConnected(data, num_hidden=6, name='left')
b = mx.sym.FullyConnected(data, num_hidden=6, no_bias=True, name='right')
s = mx.sym.elemwise_add(a, b, name='sum')
c = mx.sym.Concat(s, a, dim=1, name='cat')
e = mx.sym.Embedding(mx.sym.Variable('ids'), input_dim=7, output_dim=3, name='embed')
p = mx.sym.Pooling(mx.sym.Reshape(c, shape=(0, 3, 2, 2), name='reshape'), global_pool=True,
                   kernel=(1, 1), pool_type='avg', name='gap')
net = mx.sym.Group([p, e])
shape = {'data': (2, 5), 'ids': (2, 4)}
""",
}


def build(name):
    scope = {"mx": mx}
    exec(NETWORKS[name], scope)
    return scope["net"], scope["shape"]


def run_mxnet(mxnet_python, code):
    done = subprocess.run([mxnet_python, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


SUMMARY_SCRIPT = """
import mxnet as mx
{network}
mx.viz.print_summary(net, shape=shape, line_length={line_length}, positions={positions})
"""


def our_summary(net, **kwargs):
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        mx.viz.print_summary(net, **kwargs)
    return text.getvalue()


# -- print_summary -------------------------------------------------------------------------
@pytest.mark.mxnet
@pytest.mark.parametrize("name", ["mlp", "cnn"])
@pytest.mark.parametrize("line_length, positions",
                         [(120, [.44, .64, .74, 1.]), (64, [.3, .6, .8, 1.]),
                          (70, [30, 45, 55, 70])])
def test_print_summary_text_matches_mxnet(mxnet_python, name, line_length, positions):
    code = SUMMARY_SCRIPT.format(network=NETWORKS[name], line_length=line_length,
                                 positions=positions)
    expected = run_mxnet(mxnet_python, code)
    net, shape = build(name)
    assert our_summary(net, shape=shape, line_length=line_length,
                       positions=positions) == expected


def learned_parameter_total(net, shape):
    """Elements of every argument except the inputs given in ``shape`` and labels."""
    arg_shapes, _, _ = net.infer_shape(**shape)
    return sum(math.prod(s) for name, s in zip(net.list_arguments(), arg_shapes)
               if name not in shape and not name.endswith("_label"))


@settings(max_examples=15, deadline=None)
@given(hidden=st.lists(st.integers(1, 9), min_size=1, max_size=3),
       channels=st.integers(1, 3), filters=st.integers(1, 4), kernel=st.integers(1, 3),
       no_bias=st.booleans())
def test_print_summary_total_counts_every_learned_parameter(hidden, channels, filters,
                                                            kernel, no_bias):
    net = mx.sym.Convolution(mx.sym.var("data"), kernel=(kernel, kernel), num_filter=filters,
                             no_bias=no_bias, name="conv")
    net = mx.sym.BatchNorm(net, name="bn")
    net = mx.sym.Flatten(net)
    for index, size in enumerate(hidden):
        net = mx.sym.FullyConnected(net, num_hidden=size, name=f"fc{index}")
    shape = {"data": (2, channels, 4, 4)}
    text = our_summary(net, shape=shape)
    total = int(text.split("Total params: ")[1].split()[0])
    assert total == learned_parameter_total(net, shape)
    rows = {line.split()[0]: line.split() for line in text.splitlines() if "(" in line}
    per_filter = channels * kernel * kernel + (0 if no_bias else 1)
    assert rows["conv(Convolution)"][2] == str(filters * per_filter)
    assert rows["bn(BatchNorm)"][2] == str(2 * filters)


def test_print_summary_lists_every_previous_layer():
    net, shape = build("branches")
    lines = our_summary(net, shape=shape).splitlines()
    cat = next(i for i, line in enumerate(lines) if line.startswith("cat(Concat)"))
    assert lines[cat].split()[-1] == "sum"
    assert lines[cat + 1].strip() == "left"             # the second input on a row of its own
    gap = next(line for line in lines if line.startswith("gap(Pooling)"))
    assert gap.split()[1] == "3x1x1"


def test_print_summary_cuts_long_fields_at_their_column():
    net = mx.sym.Activation(mx.sym.var("data"), act_type="tanh", name="a" * 40)
    lines = our_summary(net, shape={"data": (1, 2)}, line_length=40,
                        positions=[.5, .7, .8, 1.]).splitlines()
    assert all(len(line) == 40 for line in lines if not line.startswith("Total"))
    row = next(line for line in lines if line.startswith("aaa"))
    assert row[:20] == "a" * 20 and row[20:28].strip() == "2"


def test_print_summary_without_shapes_leaves_them_empty():
    net, _ = build("mlp")
    text = our_summary(net)
    row = next(line for line in text.splitlines() if line.startswith("relu1"))
    assert row.split() == ["relu1(Activation)", "0", "fc1"]


def test_print_summary_errors():
    net, _ = build("mlp")
    with pytest.raises(ValueError, match="incomplete"):
        mx.viz.print_summary(net, shape={"softmax_label": (2,)})
    with pytest.raises(mx.MXNetError, match="no input 'images'"):
        mx.viz.print_summary(net, shape={"images": (2, 784)})
    with pytest.raises(TypeError, match="must be a Symbol"):
        mx.viz.print_summary("net")


# -- plot_network against MXNet, through a recording stand-in for graphviz -------------------
RECORDING_GRAPHVIZ = """
class Digraph:
    def __init__(self, name=None, format=None):
        self.calls = [('graph', name, format)]
    def node(self, name, label=None, **attrs):
        self.calls.append(('node', name, label, sorted(attrs.items())))
    def edge(self, tail_name, head_name, **attrs):
        self.calls.append(('edge', tail_name, head_name, sorted(attrs.items())))
"""

PLOT_SCRIPT = """
import json, sys, types, numpy as np
stub = types.ModuleType('graphviz')
exec({stub!r}, stub.__dict__)
sys.modules['graphviz'] = stub
import mxnet as mx
{network}
print(json.dumps(mx.viz.plot_network(net, **{kwargs}).calls))
"""

PLOT_CASES = [
    ("mlp", "dict(shape=shape)"),
    ("mlp", "dict(title='net', save_format='svg', dtype={'data': np.float32}, shape=shape)"),
    ("cnn", "dict(shape=shape, hide_weights=False)"),
    ("cnn", "dict(node_attrs={'shape': 'ellipse', 'fixedsize': 'false'})"),
    ("branches", "dict(shape=shape, dtype={'data': np.float64, 'ids': np.int32})"),
]


@pytest.fixture
def recording_graphviz(monkeypatch):
    stub = types.ModuleType("graphviz")
    exec(RECORDING_GRAPHVIZ, stub.__dict__)
    monkeypatch.setitem(sys.modules, "graphviz", stub)
    return stub


@pytest.mark.mxnet
@pytest.mark.parametrize("name, kwargs", PLOT_CASES)
def test_plot_network_draws_what_mxnet_draws(mxnet_python, recording_graphviz, name, kwargs):
    code = PLOT_SCRIPT.format(stub=RECORDING_GRAPHVIZ, network=NETWORKS[name], kwargs=kwargs)
    expected = json.loads(run_mxnet(mxnet_python, code))
    net, shape = build(name)
    ours = mx.viz.plot_network(net, **eval(kwargs, {"np": np, "shape": shape}))
    assert json.loads(json.dumps(ours.calls)) == expected


def test_plot_network_labels_and_hidden_weights(recording_graphviz):
    net, shape = build("cnn")
    calls = mx.viz.plot_network(net, shape=shape).calls
    labels = {call[1]: call[2] for call in calls if call[0] == "node"}
    assert labels["conv1"] == "Convolution\n3x3/1, 8"
    assert labels["conv2"] == "Convolution\n3x3/1x1, 4"
    assert labels["pool1"] == "Pooling\nmax, 2x2/2x2"
    assert labels["relu1"] == "Activation\nrelu"
    assert labels["fc"] == "FullyConnected\n10"
    assert not any(name.endswith(("_weight", "_bias", "_gamma", "_beta", "_moving_mean"))
                   for name in labels)
    edges = {(call[1], call[2]): dict(call[3])["label"] for call in calls if call[0] == "edge"}
    assert edges[("conv1", "data")] == "3x8x8"
    assert edges[("fc", "flat")] == str(4 * 3 * 3)
    assert ("conv1", "conv1_weight") not in edges


def test_plot_network_warns_about_repeated_names(recording_graphviz):
    net = mx.sym.var("x") + mx.sym.var("x")
    with pytest.warns(RuntimeWarning, match="x"):
        mx.viz.plot_network(net)


def test_plot_network_input_errors(recording_graphviz):
    net, _ = build("mlp")
    with pytest.raises(ValueError, match="incomplete"):
        mx.viz.plot_network(net, shape={"softmax_label": (2,)})
    with pytest.raises(TypeError, match="must be a Symbol"):
        mx.viz.plot_network(42)


# -- plot_network with the real graphviz package ------------------------------------------
def test_plot_network_without_the_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    net, _ = build("mlp")
    with pytest.raises(GraphvizMissingError, match="pip install graphviz") as error:
        mx.viz.plot_network(net)
    assert isinstance(error.value, ImportError) and isinstance(error.value, mx.MXNetError)


def test_plot_network_returns_a_digraph():
    graphviz = pytest.importorskip("graphviz")
    net, shape = build("mlp")
    dot = mx.viz.plot_network(net, shape=shape, title="mlp", save_format="png")
    assert isinstance(dot, graphviz.Digraph)
    assert dot.name == "mlp" and dot.format == "png"
    assert "fc1 -> data" in dot.source and "fc1_weight" not in dot.source
    assert '"FullyConnected\n128"' in dot.source


def test_rendering_without_dot_says_how_to_install_it(monkeypatch, tmp_path):
    pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path))        # no `dot` to be found
    dot = mx.viz.plot_network(build("mlp")[0])
    with pytest.raises(GraphvizMissingError, match="apt-get install graphviz"):
        dot.pipe(format="svg")
    with pytest.raises(GraphvizMissingError, match="Graphviz programs"):
        dot.render(directory=str(tmp_path))


@pytest.mark.skipif(shutil.which("dot") is None, reason="the Graphviz `dot` program is missing")
def test_rendering_with_dot(tmp_path):
    pytest.importorskip("graphviz")
    net, shape = build("cnn")
    dot = mx.viz.plot_network(net, shape=shape, save_format="svg")
    svg = dot.pipe().decode()
    assert "<svg" in svg and "Convolution" in svg
    path = dot.render(directory=str(tmp_path), filename="cnn")
    assert os.path.getsize(path) > 0 and path.endswith(".svg")
