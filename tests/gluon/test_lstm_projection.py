"""``gluon.rnn.LSTM(projection_size=P)`` (LSTMP) and the LSTM state-clip options.

An LSTMP layer carries ``r = W_hr h`` (P features, no bias) as its output and recurrent
state: output ``(T, N, D * P)``, ``h`` ``(L * D, N, P)``, ``c`` ``(L * D, N, H)``, and per
layer and direction the parameters ``l0_i2h_weight (4H, in)``, ``l0_h2h_weight (4H, P)``,
``l0_h2r_weight (P, H)`` and the two biases.

MXNet 1.9.1's CPU kernel runs the fused LSTMP forward only (under ``autograd.record`` it
raises "No training support for LSTM with projection on CPU"), so the fused forward is
compared with MXNet's, and the gradients with MXNet's unfused ``contrib.rnn.LSTMPCell``
stepped over the same sequence (the same equations, differentiated by MXNet's autograd).
Its state clip (``state_clip_min/max``) is applied on GPU only: the CPU kernel ignores it
without a projection and refuses it with one, as minimx does.

One program runs on both sides (``same_program``), with every parameter, input, state and
head gradient drawn from one numpy seed.
"""
import json

import numpy as np
import pytest

from minimx.base import InvalidParameterError, MXNetError
from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
import numpy
nd, gluon, autograd = mx.nd, mx.gluon, mx.autograd
T, N, C, H, P = 4, 3, 5, 6, 3

def fill(net, source):
    for param in net.collect_params().values():
        param.set_data(nd.array(source.uniform(-0.5, 0.5, param.shape)))

def values(source, layers, directions):
    x = source.uniform(-1, 1, (T, N, C))
    h0 = source.uniform(-1, 1, (layers * directions, N, P))
    c0 = source.uniform(-1, 1, (layers * directions, N, H))
    heads = [source.uniform(-1, 1, (T, N, directions * P)), source.uniform(-1, 1, h0.shape),
             source.uniform(-1, 1, c0.shape)]
    return [nd.array(a) for a in (x, h0, c0)], [nd.array(a) for a in heads]

def loss(outputs, heads):
    return sum((o * g).sum() for o, g in zip(outputs, heads))

def unfused(cells, layers, directions, x, h0, c0):
    # one contrib.rnn.LSTMPCell per layer and direction, stepped by hand
    inputs, hs, cs = x, [], []
    for layer in range(layers):
        outputs = []
        for d in range(directions):
            index = layer * directions + d
            cell = cells[index]
            r, c = h0[index], c0[index]
            steps = [None] * T
            for t in (range(T - 1, -1, -1) if d else range(T)):
                steps[t], (r, c) = cell(inputs[t], [r, c])
            outputs.append(nd.stack(*steps))
            hs.append(r)
            cs.append(c)
        inputs = nd.concat(*outputs, dim=2) if directions == 2 else outputs[0]
    return [inputs, nd.stack(*hs), nd.stack(*cs)]

def make_cells(net, layers, directions):
    cells = []
    for layer in range(layers):
        for d in range(directions):
            prefix = f"{'lr'[d]}{layer}_"
            width = C if layer == 0 else directions * P
            cell = gluon.contrib.rnn.LSTMPCell(H, P, input_size=width, prefix=prefix)
            cell.initialize()
            for name in ("i2h_weight", "h2h_weight", "h2r_weight", "i2h_bias", "h2h_bias"):
                getattr(cell, name).set_data(getattr(net, prefix + name).data())
            cells.append(cell)
    return cells

def grads_of(arrays, params):
    return [a.grad.asnumpy().tolist() for a in arrays] + [
        p.grad().asnumpy().tolist() for p in params]

layers, bidirectional, hybridize, dropout, fused_grads = json.loads(INPUT)
directions = 2 if bidirectional else 1
net = gluon.rnn.LSTM(H, num_layers=layers, bidirectional=bidirectional, projection_size=P,
                     input_size=C, dropout=dropout, prefix="lstm_")
net.initialize()
source = numpy.random.RandomState(7)
fill(net, source)
if hybridize:
    net.hybridize()
(x, h0, c0), heads = values(source, layers, directions)
out, (h, c) = net(x, [h0, c0])                # prediction: no dropout, MXNet's CPU runs it
result = {"names": list(net.collect_params().keys()),
          "shapes": [list(p.shape) for p in net.collect_params().values()],
          "forward": [a.asnumpy().tolist() for a in (out, h, c)]}

CELLS = make_cells(net, layers, directions)
cell_params = [getattr(cell, name) for cell in CELLS
               for name in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias", "h2r_weight")]
for a in (x, h0, c0):
    a.attach_grad()
with autograd.record(train_mode=False):
    outputs = unfused(CELLS, layers, directions, x, h0, c0)
    total = loss(outputs, heads)
total.backward()
result["unfused"] = [a.asnumpy().tolist() for a in outputs]
result["unfused_grads"] = grads_of((x, h0, c0), cell_params)
if fused_grads:                               # MXNet's CPU refuses this
    with autograd.record(train_mode=False):
        out, (h, c) = net(x, [h0, c0])
        total = loss([out, h, c], heads)
    total.backward()
    result["fused_grads"] = grads_of((x, h0, c0), list(net.collect_params().values()))
print(json.dumps(result))
"""

CASES = [(1, False, False, 0.0), (2, False, True, 0.3), (1, True, False, 0.0),
         (2, True, True, 0.0)]
IDS = ["1layer", "2layers-hybridized-dropout", "bidirectional", "2layers-bidirectional-hybridized"]


def _close(actual, expected, what, rtol=1e-4, atol=1e-5):
    assert len(actual) == len(expected), what
    for index, (a, b) in enumerate(zip(actual, expected)):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=rtol, atol=atol,
                                   err_msg=f"{what} {index}")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fused_layer_equals_unrolled_lstmp_cells(case):
    """No MXNet needed: the fused layer's outputs, states and every gradient (data, h0, c0,
    each parameter) are those of contrib.rnn.LSTMPCell stepped over the sequence."""
    mine = on_minimx(PROGRAM, json.dumps(list(case) + [True]))
    _close(mine["forward"], mine["unfused"], "forward")
    _close(mine["fused_grads"], mine["unfused_grads"], "gradient")


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_lstmp_layer_matches_mxnet(mxnet_python, case):
    """Parameter names and shapes, the fused forward (MXNet's fused kernel), and the fused
    layer's gradients against MXNet's unfused LSTMPCell gradients."""
    theirs = on_mxnet(mxnet_python, PROGRAM, json.dumps(list(case) + [False]))
    mine = on_minimx(PROGRAM, json.dumps(list(case) + [True]))
    assert mine["names"] == theirs["names"]
    assert mine["shapes"] == theirs["shapes"]
    _close(mine["forward"], theirs["forward"], "forward")
    _close(mine["unfused"], theirs["unfused"], "unfused forward")
    _close(mine["fused_grads"], theirs["unfused_grads"], "fused gradient vs MXNet's cells")
    _close(mine["unfused_grads"], theirs["unfused_grads"], "unfused gradient")


def test_lstmp_layer_shapes_names_and_begin_state():
    from minimx import gluon, nd
    net = gluon.rnn.LSTM(6, num_layers=2, bidirectional=True, projection_size=3, layout="NTC")
    net.initialize()
    out, (h, c) = net(nd.ones((4, 7, 5)), net.begin_state(4))
    assert out.shape == (4, 7, 6) and h.shape == (4, 4, 3) and c.shape == (4, 4, 6)
    assert [s.shape for s in net.begin_state(2)] == [(4, 2, 3), (4, 2, 6)]
    shapes = {name.split("_", 1)[1]: p.shape for name, p in net.collect_params().items()}
    assert shapes["l0_i2h_weight"] == (24, 5) and shapes["l0_h2h_weight"] == (24, 3)
    assert shapes["l0_h2r_weight"] == (3, 6) and shapes["r1_i2h_weight"] == (24, 6)
    with pytest.raises(ValueError, match="Invalid recurrent state shape"):
        net(nd.ones((4, 7, 5)), [nd.zeros((4, 4, 6)), nd.zeros((4, 4, 6))])
    assert gluon.rnn.LSTM(6, projection_size=0)._projection_size is None   # 0: none, as MXNet


def test_lstmp_layer_trains_and_its_unfused_stack_agrees():
    """``_unfuse`` (which MXNet refuses for LSTMP) builds LSTMPCells sharing the parameters."""
    from minimx import autograd, gluon, nd
    net = gluon.rnn.LSTM(5, num_layers=2, bidirectional=True, projection_size=2, input_size=3)
    net.initialize()
    x = nd.random.uniform(-1, 1, shape=(4, 2, 3))
    stack = net._unfuse()
    expected, _ = stack.unroll(4, x, layout="TNC", merge_outputs=True)
    np.testing.assert_allclose(net(x).asnumpy(), expected.asnumpy(), rtol=1e-5, atol=1e-6)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    losses = []
    for _ in range(5):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(1)
        losses.append(float(loss.asscalar()))
    assert losses[-1] < losses[0]


EXPORT_PROGRAM = """
import json
import numpy
nd, gluon = mx.nd, mx.gluon
folder, write = json.loads(INPUT)
cpu = mx.cpu()                  # (both sides on the CPU, also in the stand-in GPU pass)
x = nd.array(numpy.random.RandomState(1).uniform(-1, 1, (4, 3, 5)), ctx=cpu)
if write:
    net = gluon.rnn.LSTM(6, num_layers=2, bidirectional=True, projection_size=3, input_size=5)
    net.initialize(ctx=cpu)
    source = numpy.random.RandomState(2)
    for param in net.collect_params().values():
        param.set_data(nd.array(source.uniform(-0.5, 0.5, param.shape), ctx=cpu))
    net.hybridize()
    net(x)
    net.export(folder + "/lstmp")
    net.save_parameters(folder + "/lstmp.params")
    keys = sorted(nd.load(folder + "/lstmp.params").keys())
    print(json.dumps([keys, net(x).asnumpy().tolist()]))
else:
    block = gluon.SymbolBlock.imports(folder + "/lstmp-symbol.json", ["data0", "data1", "data2"],
                                      folder + "/lstmp-0000.params", ctx=cpu)
    zeros = [nd.zeros((4, 3, 3), ctx=cpu), nd.zeros((4, 3, 6), ctx=cpu)]
    net = gluon.rnn.LSTM(6, num_layers=2, bidirectional=True, projection_size=3, input_size=5)
    net.load_parameters(folder + "/lstmp.params", ctx=cpu)
    print(json.dumps([block(x, *zeros).asnumpy().tolist(), net(x).asnumpy().tolist()]))
"""


@pytest.mark.mxnet
@pytest.mark.parametrize("writer", ["minimx", "mxnet"])
def test_lstmp_export_and_parameters_load_on_the_other_side(mxnet_python, tmp_path, writer):
    """``export`` (symbol JSON + params) and ``save_parameters`` (MXNet's ``_unfused.0.l_cell.
    h2r_weight`` keys) written by one side load on the other and give the same output."""
    run = {"minimx": on_minimx,
           "mxnet": lambda program, given: on_mxnet(mxnet_python, program, given)}
    reader = "mxnet" if writer == "minimx" else "minimx"
    keys, written = run[writer](EXPORT_PROGRAM, json.dumps([str(tmp_path), True]))
    assert "_unfused.0.l_cell.h2r_weight" in keys and "_unfused.1.r_cell.h2r_weight" in keys
    imported, loaded = run[reader](EXPORT_PROGRAM, json.dumps([str(tmp_path), False]))
    np.testing.assert_allclose(imported, written, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loaded, written, rtol=1e-5, atol=1e-6)


CLIP_PROGRAM = """
import json
import numpy
nd, gluon = mx.nd, mx.gluon
projection, = json.loads(INPUT)
x = nd.array(numpy.random.RandomState(3).uniform(-2, 2, (4, 3, 5)))
results = []
for clip in ({}, dict(state_clip_min=-0.05, state_clip_max=0.05, state_clip_nan=True)):
    net = gluon.rnn.LSTM(6, num_layers=2, projection_size=projection, input_size=5,
                         prefix="lstm_", **clip)
    net.initialize(mx.init.Constant(0.3))
    try:
        out, (h, c) = net(x, net.begin_state(3))
        results.append([a.asnumpy().tolist() for a in (out, h, c)])
    except Exception as error:        # MXNetError there, InvalidParameterError here
        results.append(str(error).strip().splitlines()[-1])
print(json.dumps(results))
"""


@pytest.mark.parametrize("projection", [None, 3])
def test_state_clip_is_ignored_without_projection_and_refused_with_it(projection):
    from minimx import gluon, nd
    plain, clipped = on_minimx(CLIP_PROGRAM, json.dumps([projection]))
    if projection is None:
        _close(clipped, plain, "clip ignored", rtol=0, atol=0)
        assert np.abs(np.array(plain[2])).max() > 0.05          # a clip would have acted
    else:
        assert "GPU" in clipped and "lstm_state_clip" in clipped
    net = gluon.rnn.LSTM(6, projection_size=3, state_clip_min=-1, state_clip_max=1,
                         input_size=4)
    net.initialize()
    with pytest.raises(InvalidParameterError, match="operator RNN: lstm_state_clip"):
        net(nd.ones((2, 2, 4)))
    deferred = gluon.rnn.LSTM(6, projection_size=3, state_clip_max=1)
    deferred.initialize()
    with pytest.raises(MXNetError, match="only"):     # through the deferred shape inference
        deferred(nd.ones((2, 2, 4)))


@pytest.mark.mxnet
@pytest.mark.parametrize("projection", [None, 3])
def test_state_clip_matches_mxnet_cpu(mxnet_python, projection):
    theirs = on_mxnet(mxnet_python, CLIP_PROGRAM, json.dumps([projection]))
    mine = on_minimx(CLIP_PROGRAM, json.dumps([projection]))
    _close(mine[0], theirs[0], "without clip")
    if projection is None:
        _close(mine[1], theirs[1], "clip ignored")
    else:
        assert "GPU" in theirs[1] and "GPU" in mine[1]             # both refuse it
