"""mx.rnn's symbolic cells: names, shapes, fused and unfused forms, modifiers, checkpoints."""
import json
import subprocess

import numpy as np
import pytest

import minimx as mx
from minimx import nd


def _step_inputs(count):
    return [mx.sym.Variable(f"t{i}_data") for i in range(count)]


def _shapes(symbol, batch=4, width=6, count=3):
    return symbol.infer_shape(**{f"t{i}_data": (batch, width) for i in range(count)})


@pytest.mark.parametrize("cell_type, states", [(mx.rnn.RNNCell, 1), (mx.rnn.LSTMCell, 2),
                                               (mx.rnn.GRUCell, 1)])
def test_step_cells_share_weights_across_steps(cell_type, states):
    cell = cell_type(5, prefix="c_")
    outputs, last = cell.unroll(3, _step_inputs(3))
    assert sorted(cell.params._params) == ["c_h2h_bias", "c_h2h_weight", "c_i2h_bias",
                                           "c_i2h_weight"]
    group = mx.sym.Group(outputs)
    assert group.list_outputs() == [f"c_t{i}_out_output" for i in range(3)]
    assert _shapes(group)[1] == [(4, 5)] * 3
    assert len(last) == states


def _run(symbol, values, params):
    arrays = dict(values, **params)
    return [o.asnumpy() for o in symbol.eval(**{k: v for k, v in arrays.items()
                                                 if k in symbol.list_arguments()})]


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_fused_cell_computes_what_its_unfused_stack_computes(mode, bidirectional):
    fused = mx.rnn.FusedRNNCell(4, num_layers=2, mode=mode, bidirectional=bidirectional,
                                prefix="f_")
    stack = fused.unfuse()
    data = mx.sym.Variable("data")
    fused_out, _ = fused.unroll(3, data, layout="NTC", merge_outputs=True)
    stack_out, _ = stack.unroll(3, data, layout="NTC", merge_outputs=True)
    arg_shapes, _, _ = fused_out.infer_shape(data=(2, 3, 5))
    shapes = dict(zip(fused_out.list_arguments(), arg_shapes))
    rng = np.random.RandomState(0)
    flat = nd.array(rng.uniform(-0.5, 0.5, shapes["f_parameters"]))
    unpacked = fused.unpack_weights({"f_parameters": flat})
    packed = stack.pack_weights(unpacked)
    x = nd.array(rng.uniform(-1, 1, (2, 3, 5)))
    want = _run(fused_out, {"data": x}, {"f_parameters": flat})[0]
    got = _run(stack_out, {"data": x}, packed)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    back = fused.pack_weights(fused.unpack_weights({"f_parameters": flat}))["f_parameters"]
    np.testing.assert_array_equal(back.asnumpy(), flat.asnumpy())


def test_lstm_forget_bias_reaches_the_parameters():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(3, forget_bias=2.5, prefix="a_"))
    out, _ = stack.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    module = mx.mod.Module(out, label_names=None)
    module.bind(data_shapes=[("data", (4, 2, 5))], label_shapes=None)
    module.init_params()
    bias = module.get_params()[0]["a_i2h_bias"].asnumpy()
    np.testing.assert_array_equal(bias, np.r_[np.zeros(3), np.full(3, 2.5), np.zeros(6)])


def test_fused_initializer_opens_the_forget_gate():
    fused = mx.rnn.FusedRNNCell(3, num_layers=1, mode="lstm", forget_bias=1.5, prefix="f_")
    out, _ = fused.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    module = mx.mod.Module(out, label_names=None)
    module.bind(data_shapes=[("data", (2, 4, 5))], label_shapes=None)
    module.init_params(mx.init.Xavier())
    pieces = fused.unpack_weights(module.get_params()[0])
    np.testing.assert_array_equal(pieces["f_l0_i2h_f_bias"].asnumpy(), np.full(3, 1.5))
    np.testing.assert_array_equal(pieces["f_l0_h2h_i_bias"].asnumpy(), np.zeros(3))
    assert np.abs(pieces["f_l0_i2h_i_weight"].asnumpy()).sum() > 0


def test_modifier_cells():
    gru = mx.rnn.GRUCell(6, prefix="g_")
    residual = mx.rnn.ResidualCell(gru)
    outputs, _ = residual.unroll(2, _step_inputs(2))
    zeros = {name: nd.zeros(shape) for name, shape in
             zip(mx.sym.Group(outputs).list_arguments(), _shapes(mx.sym.Group(outputs),
                                                                 count=2)[0])}
    zeros.update({f"t{i}_data": nd.ones((4, 6)) * 3 for i in range(2)})
    for value in _run(mx.sym.Group(outputs), zeros, {}):
        np.testing.assert_allclose(value, np.full((4, 6), 3.0))   # zero GRU: the input
    with pytest.raises(RuntimeError, match="modifier"):
        gru.begin_state()
    bi = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(3, prefix="l_"),
                                  mx.rnn.LSTMCell(3, prefix="r_"), output_prefix="bi_")
    outputs, states = bi.unroll(3, _step_inputs(3))
    assert mx.sym.Group(outputs).list_outputs() == [f"bi_t{i}_output" for i in range(3)]
    assert _shapes(mx.sym.Group(outputs))[1] == [(4, 6)] * 3 and len(states) == 4
    zoneout = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(5, prefix="z_"), 0.5, 0.5)
    outputs, _ = zoneout.unroll(3, _step_inputs(3))
    assert _shapes(mx.sym.Group(outputs))[1] == [(4, 5)] * 3
    with pytest.raises(TypeError, match="unfuse"):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(3))


def test_conv_cells_keep_the_image_shape():
    for cell_type in (mx.rnn.ConvRNNCell, mx.rnn.ConvLSTMCell, mx.rnn.ConvGRUCell):
        cell = cell_type(input_shape=(1, 3, 8, 6), num_hidden=4, prefix="c_")
        outputs, _ = cell.unroll(2, [mx.sym.Variable(f"t{i}") for i in range(2)])
        shapes = mx.sym.Group(outputs).infer_shape(t0=(1, 3, 8, 6), t1=(1, 3, 8, 6))[1]
        assert shapes == [(1, 4, 8, 6)] * 2


def test_rnn_checkpoint_round_trip(tmp_path):
    fused = mx.rnn.FusedRNNCell(3, num_layers=1, mode="gru", prefix="f_")
    out, _ = fused.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    shapes = dict(zip(out.list_arguments(), out.infer_shape(data=(2, 4, 5))[0]))
    flat = nd.array(np.random.RandomState(1).rand(*shapes["f_parameters"]))
    prefix = str(tmp_path / "gru")
    mx.rnn.save_rnn_checkpoint(fused, prefix, 3, out, {"f_parameters": flat}, {})
    saved = nd.load(prefix + "-0003.params")
    assert "arg:f_l0_i2h_r_weight" in saved and "arg:f_parameters" not in saved
    _, args, _ = mx.rnn.load_rnn_checkpoint(fused, prefix, 3)
    np.testing.assert_array_equal(args["f_parameters"].asnumpy(), flat.asnumpy())


MXNET_UNPACK = """
import json, mxnet as mx, numpy as np
cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode='lstm', bidirectional=True, prefix='f_')
out, _ = cell.unroll(2, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
shapes = dict(zip(out.list_arguments(), out.infer_shape(data=(2, 4, 5))[0]))
flat = mx.nd.arange(shapes['f_parameters'][0])
pieces = cell.unpack_weights({'f_parameters': flat})
print(json.dumps({k: v.asnumpy().tolist() for k, v in pieces.items()}))
"""


def test_unpacked_pieces_match_mxnet(mxnet_python):
    done = subprocess.run([mxnet_python, "-c", MXNET_UNPACK], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    wanted = json.loads(done.stdout.strip().splitlines()[-1])
    cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode="lstm", bidirectional=True, prefix="f_")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    shapes = dict(zip(out.list_arguments(), out.infer_shape(data=(2, 4, 5))[0]))
    pieces = cell.unpack_weights({"f_parameters": nd.arange(shapes["f_parameters"][0])})
    assert sorted(pieces) == sorted(wanted)
    for name, values in wanted.items():
        np.testing.assert_array_equal(pieces[name].asnumpy(), values, err_msg=name)
