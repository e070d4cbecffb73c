"""Shape inference in both directions: inputs completed from outputs (Reshape,
_rnn_param_concat, slice_axis), RNN's ``parameters`` length, creation ops whose
unknown sizes only inference knows."""
import json
import subprocess

import numpy as np
import pytest

import minimx as mx
from minimx.base import InvalidShapeError
from minimx.op import get_op

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
RNN_CASES = [("lstm", 1, False), ("gru", 2, True), ("rnn_tanh", 3, False), ("rnn_relu", 2, True)]


def _parameter_count(mode, layers, bidirectional, input_size, hidden):
    """Length of the flat vector, counted weight by weight (cuDNN's layout)."""
    directions = 2 if bidirectional else 1
    rows, total = GATES[mode] * hidden, 0
    for layer in range(layers):
        width = input_size if layer == 0 else directions * hidden
        total += directions * (rows * width + rows * hidden + 2 * rows)
    return total


def _rnn(mode, layers, bidirectional, parameters, hidden=3):
    inputs = {"data": mx.sym.var("data"), "parameters": parameters,
              "state": mx.sym.var("state")}
    if mode == "lstm":
        inputs["state_cell"] = mx.sym.var("cell")
    return mx.sym.RNN(**inputs, state_size=hidden, num_layers=layers, mode=mode,
                      bidirectional=bidirectional, name="rnn")


@pytest.mark.parametrize("mode, layers, bidirectional", RNN_CASES)
def test_rnn_infers_its_parameters_length(mode, layers, bidirectional):
    symbol = _rnn(mode, layers, bidirectional, mx.sym.var("parameters"))
    arg_shapes, out_shapes, _ = symbol.infer_shape(data=(5, 2, 4))
    shapes = dict(zip(symbol.list_arguments(), arg_shapes))
    assert shapes["parameters"] == (_parameter_count(mode, layers, bidirectional, 4, 3),)
    directions = 2 if bidirectional else 1
    assert shapes["state"] == (layers * directions, 2, 3)
    assert out_shapes == [(5, 2, directions * 3)]


def _flat_weights(mode, layers, bidirectional, hidden=3):
    """The chain Gluon's layer builds: weights (input size unknown for layer 0), each
    flattened, joined by _rnn_param_concat in MXNet's order."""
    rows, directions = GATES[mode] * hidden, "lr"[:2 if bidirectional else 1]
    pieces = []
    for kind in ("weight", "bias"):
        for layer in range(layers):
            for direction in directions:
                for group in ("i2h", "h2h"):
                    width = 0 if layer == 0 else len(directions) * hidden
                    shape = ((rows, width if group == "i2h" else hidden) if kind == "weight"
                             else (rows,))
                    variable = mx.sym.var(f"{direction}{layer}_{group}_{kind}", shape=shape)
                    pieces.append(mx.sym.reshape(variable, shape=(-1,)))
    return mx.sym._internal._rnn_param_concat(*pieces, dim=0)


@pytest.mark.parametrize("mode, layers, bidirectional", RNN_CASES)
def test_unknown_input_size_is_inferred_back_through_the_flat_vector(mode, layers,
                                                                      bidirectional):
    symbol = _rnn(mode, layers, bidirectional, _flat_weights(mode, layers, bidirectional))
    arg_shapes, _, _ = symbol.infer_shape(data=(5, 2, 7))
    shapes = dict(zip(symbol.list_arguments(), arg_shapes))
    for direction in "lr"[:2 if bidirectional else 1]:
        assert shapes[f"{direction}0_i2h_weight"] == (GATES[mode] * 3, 7)
    if layers > 1:
        assert shapes["l1_i2h_weight"][1] == (2 if bidirectional else 1) * 3


def test_reshape_completes_one_unknown_size_from_its_output():
    reshape = get_op("Reshape").create(shape=(-1,))
    assert reshape.infer_input_shapes_from_outputs([(3, 0)], [(12,)]) == [(3, 4)]
    assert reshape.infer_input_shapes_from_outputs([(0, 0)], [(12,)]) == [(0, 0)]
    assert reshape.infer_input_shapes_from_outputs([None], [(12,)]) == [None]
    assert reshape.infer_input_shapes_from_outputs([(3, 0)], [None]) == [(3, 0)]


def test_rnn_param_concat_rejects_an_output_too_short_for_its_known_inputs():
    count = _parameter_count("gru", 1, False, 4, 3)
    for known, expected in ((count - 10, (10,)), (count + 1, None)):
        pieces = [mx.sym.var("a", shape=(0,)), mx.sym.var("b", shape=(known,))]
        symbol = _rnn("gru", 1, False, mx.sym._internal._rnn_param_concat(*pieces, dim=0))
        if expected is None:
            with pytest.raises(InvalidShapeError, match="_rnn_param_concat"):
                symbol.infer_shape(data=(5, 2, 4))
        else:
            assert symbol.infer_shape(data=(5, 2, 4))[0][1] == expected


def test_slice_axis_takes_its_input_dims_from_its_output():
    state = mx.sym.zeros(shape=(4, 0, 3), name="state")
    part = mx.sym.slice_axis(state, axis=0, begin=2, end=4)
    symbol = mx.sym.RNN(mx.sym.var("data"), mx.sym.var("parameters"), part, state_size=3,
                        num_layers=1, mode="gru", bidirectional=True)
    internals = symbol.get_internals()
    shapes = dict(zip(internals.list_outputs(), internals.infer_shape(data=(6, 5, 2))[1]))
    assert shapes["state_output"] == (4, 5, 3)


def test_symbolic_zero_state_runs_with_the_inferred_batch_size():
    hidden, data = 3, np.random.uniform(-1, 1, (4, 2, 5)).astype(np.float32)
    count = _parameter_count("lstm", 1, False, 5, hidden)
    parameters = np.random.uniform(-0.5, 0.5, count).astype(np.float32)
    zero = mx.sym.zeros(shape=(1, 0, hidden))
    symbol = mx.sym.RNN(mx.sym.var("data"), mx.sym.var("parameters"), zero, zero,
                        state_size=hidden, num_layers=1, mode="lstm")
    out = symbol.eval(data=mx.nd.array(data), parameters=mx.nd.array(parameters))[0]
    state = mx.nd.zeros((1, 2, hidden))
    expected = mx.nd.RNN(mx.nd.array(data), mx.nd.array(parameters), state, state,
                         state_size=hidden, num_layers=1, mode="lstm")
    np.testing.assert_allclose(out.asnumpy(), expected.asnumpy(), rtol=1e-5)


MXNET_SCRIPT = r"""
import json, sys
import mxnet as mx
from mxnet import gluon, nd
net = gluon.nn.HybridSequential()
with net.name_scope():
    net.add(gluon.nn.Embedding(10, 4))
    net.add(gluon.rnn.GRU(3, num_layers=2, bidirectional=True, layout='NTC'))
    net.add(gluon.nn.Dense(2, flatten=False))
net.initialize()
net.hybridize()
net(nd.array([[1, 2, 3]]))
net.export(sys.argv[1])
symbol = mx.sym.load(sys.argv[1] + '-symbol.json')
print(json.dumps(dict(zip(symbol.list_arguments(), symbol.infer_shape(data=(2, 3))[0]))))
"""


def test_mxnet_export_of_a_layer_without_input_size_infers_as_in_mxnet(mxnet_python,
                                                                         tmp_path):
    prefix = str(tmp_path / "net")
    done = subprocess.run([mxnet_python, "-c", MXNET_SCRIPT, prefix], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    expected = {k: tuple(v) for k, v in json.loads(done.stdout.splitlines()[-1]).items()}
    symbol = mx.sym.load(prefix + "-symbol.json")
    assert open(prefix + "-symbol.json").read().count("(9, 0)") == 2     # l0, r0 i2h
    arg_shapes, _, _ = symbol.infer_shape(data=(2, 3))
    assert dict(zip(symbol.list_arguments(), arg_shapes)) == expected


def _counting_steps(monkeypatch):
    """Count the operator-node steps the shape inference takes."""
    from minimx.symbol import inference
    steps = []
    original = inference._infer_node

    def counted(node, shapes):
        steps.append(node.name)
        return original(node, shapes)
    monkeypatch.setattr(inference, "_infer_node", counted)
    return steps


def _mlp():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=8, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    return mx.sym.FullyConnected(net, num_hidden=3, name="fc2")


def test_a_node_with_every_input_known_is_not_visited_again(monkeypatch):
    """Once its inputs are known a node's outputs are final: with the data's shape given,
    one pass completes the parameters and every output, and no second pass runs."""
    steps = _counting_steps(monkeypatch)
    arg_shapes, out_shapes, _ = _mlp().infer_shape(data=(4, 5))
    assert steps == ["fc1", "relu1", "fc2"]
    assert arg_shapes == [(4, 5), (8, 5), (8,), (3, 8), (3,)]
    assert out_shapes == [(4, 3)]


def test_shapes_known_only_downstream_still_take_more_passes(monkeypatch):
    """The data's unknown batch size is found by a Reshape from its fixed output size, a
    node later than the identity that passes it back to the data: three passes, the
    Reshape settled after the second, and no fourth pass that would only confirm."""
    steps = _counting_steps(monkeypatch)
    copy = mx.sym.identity(mx.sym.var("data"), name="copy")
    arg_shapes, out_shapes, _ = mx.sym.Reshape(copy, shape=(3, 4), name="r").infer_shape(
        data=(0, 6))
    assert arg_shapes == [(2, 6)] and out_shapes == [(3, 4)]
    assert steps == ["copy", "r", "copy", "r", "copy"]
