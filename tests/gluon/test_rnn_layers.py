"""gluon.rnn: layers and cells against MXNet 1.9.1 with identical weights; hybridize; unroll."""
import json
import subprocess
import textwrap

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd
from minimx.gluon import nn, rnn

# Each case: code that builds ``block`` (run in both frameworks), the input shape, and how it
# is run: "layer" (with or without begin states) or "unroll" (length, layout, merge_outputs).
CASES = {
    "lstm_2layers_states": ("block = rnn.LSTM(3, num_layers=2)", (4, 2, 5), ("layer", True)),
    "gru_bidir_ntc": ("block = rnn.GRU(3, bidirectional=True, layout='NTC')", (2, 4, 5),
                      ("layer", True)),
    "rnn_tanh_2layers_bidir": ("block = rnn.RNN(3, 2, 'tanh', bidirectional=True)", (3, 2, 4),
                               ("layer", False)),
    "rnn_relu": ("block = rnn.RNN(4, input_size=3)", (3, 2, 3), ("layer", True)),
    "lstm_cell_ntc_merged": ("block = rnn.LSTMCell(3, prefix='c_')", (2, 4, 5),
                             ("unroll", "NTC", True)),
    "gru_cell_tnc_list": ("block = rnn.GRUCell(3, prefix='c_')", (4, 2, 5),
                          ("unroll", "TNC", False)),
    "rnn_cell_relu": ("block = rnn.RNNCell(3, 'relu', prefix='c_')", (2, 3, 4),
                      ("unroll", "NTC", True)),
    "stack": ("block = rnn.SequentialRNNCell(prefix='s_')\n"
              "with block.name_scope():\n"
              "    block.add(rnn.LSTMCell(3, prefix='a_'))\n"
              "    block.add(rnn.ResidualCell(rnn.GRUCell(3, prefix='b_')))\n"
              "    block.add(rnn.DropoutCell(0.0))",
              (2, 3, 4), ("unroll", "NTC", False)),
    "hybrid_stack": ("block = rnn.HybridSequentialRNNCell(prefix='s_')\n"
                     "with block.name_scope():\n"
                     "    block.add(rnn.RNNCell(3, prefix='a_'))\n"
                     "    block.add(rnn.LSTMCell(2, prefix='b_'))",
                     (3, 2, 4), ("unroll", "TNC", True)),
    "bidirectional_cell": ("block = rnn.BidirectionalCell(rnn.LSTMCell(3, prefix='l_'), "
                           "rnn.GRUCell(3, prefix='r_'))", (2, 3, 4), ("unroll", "NTC", True)),
}

# Runs one case given ``mx``/``rnn``/``autograd``/``nd`` of either framework; defines run().
HARNESS = textwrap.dedent('''
    def run(code, run_spec, arrays, hybridize=False):
        scope = {"rnn": rnn, "mx": mx}
        exec(code, scope)
        block = scope["block"]
        block.initialize()
        x = nd.array(arrays["x"])
        params = block.collect_params()
        if run_spec[0] == "layer":
            block(x)                          # finish deferred initialisation
        else:
            block.unroll(x.shape[run_spec[1].find("T")], x, layout=run_spec[1])
        for name, param in params.items():
            param.set_data(nd.array(arrays["p_" + name[len(block.prefix):]]))
        if hybridize:
            block.hybridize()
        x.attach_grad()
        with autograd.record():
            if run_spec[0] == "layer":
                batch = x.shape[block._layout.find("N")]
                states = block.begin_state(batch) if run_spec[1] else None
                if states:
                    states = [s + 0.1 * (i + 1) for i, s in enumerate(states)]
                result = block(x, states) if states else block(x)
                out, states = (result if states else (result, []))
                axis = block._layout.find("T")
            else:
                length = x.shape[run_spec[1].find("T")]
                out, states = block.unroll(length, x, layout=run_spec[1],
                                           merge_outputs=run_spec[2])
                axis = run_spec[1].find("T")
                if isinstance(out, list):
                    out = nd.stack(*out, axis=axis)
            loss = (out * nd.array(arrays["cotangent"][:out.size].reshape(out.shape))).sum()
            for i, state in enumerate(states):
                loss = loss + (state * (i + 2)).sum()
        loss.backward()
        results = {"out": out.asnumpy(), "x_grad": x.grad.asnumpy()}
        results.update({f"state{i}": s.asnumpy() for i, s in enumerate(states)})
        results.update({"g_" + name[len(block.prefix):]: p.grad().asnumpy()
                        for name, p in params.items()})
        return results
''')
exec(HARNESS, globals())       # noqa: S102  (defines run() for minimx)


def _shapes_of(name):
    """Parameter shapes of a case (from a minimx block after its first call)."""
    code, shape, spec = CASES[name]
    scope = {"rnn": rnn, "mx": mx}
    exec(code, scope)
    block = scope["block"]
    block.initialize()
    x = nd.zeros(shape)
    if spec[0] == "layer":
        block(x)
    else:
        block.unroll(shape[spec[1].find("T")], x, layout=spec[1])
    return {name[len(block.prefix):]: p.shape for name, p in block.collect_params().items()}


def _arrays(name):
    rng = np.random.default_rng(sorted(CASES).index(name))
    arrays = {"x": rng.uniform(-1, 1, CASES[name][1]).astype(np.float32),
              "cotangent": rng.standard_normal(256).astype(np.float32)}
    for param, shape in sorted(_shapes_of(name).items()):
        arrays["p_" + param] = rng.uniform(-0.5, 0.5, shape).astype(np.float32)
    return arrays


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python, tmp_path_factory):
    folder = tmp_path_factory.mktemp("mxnet_rnn")
    for name in CASES:
        np.savez(folder / f"{name}.npz", **_arrays(name))
    (folder / "cases.json").write_text(json.dumps({k: [v[0], v[2]] for k, v in CASES.items()}))
    script = ("import json, sys\nimport numpy as np\nimport mxnet as mx\n"
              "from mxnet import autograd, nd\nfrom mxnet.gluon import rnn\n" + HARNESS + """
cases = json.load(open(sys.argv[1] + '/cases.json'))
for name, (code, spec) in cases.items():
    arrays = dict(np.load(f'{sys.argv[1]}/{name}.npz'))
    np.savez(f'{sys.argv[1]}/{name}_out.npz', **run(code, spec, arrays))
""")
    (folder / "run.py").write_text(script)
    subprocess.run([mxnet_python, str(folder / "run.py"), str(folder)], check=True,
                   capture_output=True, timeout=300)
    return {name: dict(np.load(folder / f"{name}_out.npz")) for name in CASES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name, mxnet_results):
    code, _, spec = CASES[name]
    ours = run(code, spec, _arrays(name))
    theirs = mxnet_results[name]
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-4, atol=1e-5, err_msg=key)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hybridized_equals_imperative(name):
    code, _, spec = CASES[name]
    arrays = _arrays(name)
    imperative, hybridized = run(code, spec, arrays), run(code, spec, arrays, hybridize=True)
    for key in imperative:
        np.testing.assert_allclose(hybridized[key], imperative[key], rtol=1e-5, atol=1e-6,
                                   err_msg=key)


def test_lstm_step_matches_numpy():
    layer = rnn.LSTM(2, input_size=3)
    layer.initialize(mx.init.Uniform(0.5))
    x = np.random.uniform(-1, 1, (1, 1, 3)).astype(np.float32)
    out, (h, c) = layer(nd.array(x), layer.begin_state(1))
    w_ih, w_hh = layer.l0_i2h_weight.data().asnumpy(), layer.l0_h2h_weight.data().asnumpy()
    gates = x[0] @ w_ih.T + layer.l0_i2h_bias.data().asnumpy() + layer.l0_h2h_bias.data().asnumpy()
    i, f, g, o = np.split(gates, 4, axis=-1)
    sigmoid = lambda v: 1 / (1 + np.exp(-v))        # noqa: E731
    cell = sigmoid(i) * np.tanh(g)                  # the previous cell state is zero
    np.testing.assert_allclose(c.asnumpy()[0], cell, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy()[0], sigmoid(o) * np.tanh(cell), rtol=1e-5)
    assert w_hh.shape == (8, 2)


def test_names_repr_and_state_info_follow_mxnet():
    layer = rnn.LSTM(3, num_layers=2, bidirectional=True, dropout=0.2, prefix="lstm_")
    assert list(layer.collect_params())[:5] == [
        "lstm_l0_i2h_weight", "lstm_l0_h2h_weight", "lstm_l0_i2h_bias", "lstm_l0_h2h_bias",
        "lstm_r0_i2h_weight"]
    assert layer.collect_params()["lstm_l1_i2h_weight"].shape == (12, 6)
    assert repr(layer) == "LSTM(None -> 3, TNC, num_layers=2, dropout=0.2, bidirectional)"
    assert repr(rnn.GRU(4, layout="NTC", input_size=2)) == "GRU(2 -> 4, NTC)"
    assert [s["shape"] for s in layer.state_info(5)] == [(4, 5, 3), (4, 5, 3)]
    assert repr(rnn.RNNCell(3, input_size=2)) == "RNNCell(2 -> 3, tanh)"
    assert repr(rnn.ZoneoutCell(rnn.GRUCell(2), 0.1, 0.2)) == \
        "ZoneoutCell(p_out=0.1, p_state=0.2, GRUCell(None -> 6))"
    with pytest.raises(ValueError, match="layout"):
        rnn.RNN(3, layout="CNT")


def test_bad_state_shape_is_reported():
    layer = rnn.GRU(3, input_size=2)
    layer.initialize()
    with pytest.raises(ValueError, match="Invalid recurrent state shape"):
        layer(nd.ones((4, 2, 2)), nd.zeros((1, 3, 3)))


def test_inter_layer_dropout_only_while_training():
    layer = rnn.LSTM(4, num_layers=2, dropout=0.5, input_size=3)
    layer.initialize()
    x = nd.random.uniform(shape=(5, 2, 3))
    inference = layer(x).asnumpy()
    np.testing.assert_allclose(layer(x).asnumpy(), inference)    # deterministic
    with autograd.record():
        training = layer(x).asnumpy()
    assert not np.allclose(training, inference)
    no_dropout = rnn.LSTM(4, num_layers=2, input_size=3)
    no_dropout.initialize()
    for name, param in layer.collect_params().items():
        no_dropout.collect_params()[name.replace(layer.prefix, no_dropout.prefix)].set_data(
            param.data())
    np.testing.assert_allclose(no_dropout(x).asnumpy(), inference, rtol=1e-5, atol=1e-6)


def test_save_parameters_keys_load_in_mxnet(mxnet_python, tmp_path):
    layer = rnn.LSTM(3, bidirectional=True, input_size=2)
    layer.initialize()
    layer.save_parameters(str(tmp_path / "lstm.params"))
    assert "_unfused.0.r_cell.h2h_bias" in nd.load(str(tmp_path / "lstm.params"))
    script = (f"import mxnet as mx\nl = mx.gluon.rnn.LSTM(3, bidirectional=True, input_size=2)\n"
              f"l.load_parameters({str(tmp_path / 'lstm.params')!r})\n"
              f"print(l.l0_i2h_weight.data().asnumpy().sum())")
    done = subprocess.run([mxnet_python, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    expected = layer.l0_i2h_weight.data().asnumpy().sum()
    assert abs(float(done.stdout.split()[-1]) - expected) < 1e-4


class LanguageModel(mx.gluon.HybridBlock):
    """Embedding -> LSTM -> Dense, the shape of the Gluon course's word-level model."""

    def __init__(self, vocab, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embedding = nn.Embedding(vocab, 6)
            self.lstm = rnn.LSTM(5, num_layers=2, input_size=6)
            self.decoder = nn.Dense(vocab, flatten=False)

    def hybrid_forward(self, F, tokens, states):
        out, states = self.lstm(self.embedding(tokens), states)
        return self.decoder(out), states


def test_language_model_trains_hybridized():
    model = LanguageModel(7)
    model.initialize(mx.init.Xavier())
    model.hybridize()
    tokens = nd.array(np.random.randint(0, 7, (4, 3)))           # (T, N)
    targets = nd.array(np.random.randint(0, 7, (4, 3)))
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    params = model.collect_params()
    losses = []
    for _ in range(3):
        states = model.lstm.begin_state(3)
        with autograd.record():
            logits, states = model(tokens, states)
            loss = loss_fn(logits, targets).mean()
        loss.backward()
        for param in params.values():
            param.set_data(param.data() - 0.5 * param.grad())
        losses.append(loss.asscalar())
    assert logits.shape == (4, 3, 7) and [s.shape for s in states] == [(2, 3, 5)] * 2
    assert losses[-1] < losses[0]
    assert all(np.abs(p.grad().asnumpy()).sum() > 0 for p in params.values())


# Layers without input_size inside a hybridized parent: the traced graph has to infer the
# first layer's i2h weights back through _rnn_param_concat and Reshape (and run the symbolic
# zero states, whose batch size only inference knows).
LAYERS_WITHOUT_INPUT_SIZE = {
    "lstm": (lambda: rnn.LSTM(5), 4),
    "gru_2layers_bidir_ntc": (lambda: rnn.GRU(3, num_layers=2, bidirectional=True,
                                              layout="NTC"), 3),
    "rnn_2layers_dropout": (lambda: rnn.RNN(4, num_layers=2, dropout=0.5, layout="NTC"), 1),
}


@pytest.mark.parametrize("name", sorted(LAYERS_WITHOUT_INPUT_SIZE))
def test_layer_without_input_size_in_a_hybridized_parent(name):
    make_layer, gates = LAYERS_WITHOUT_INPUT_SIZE[name]
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Embedding(10, 6))
        net.add(make_layer())
        net.add(nn.Dense(3, flatten=False))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    tokens = nd.array(np.random.randint(0, 10, (2, 4)))
    out = net(tokens)
    layer = net[1]
    for direction in "lr"[:layer._dir]:
        assert getattr(layer, f"{direction}0_i2h_weight").shape == (gates * layer._hidden_size, 6)
    assert out.shape == (2, 4, 3)
    net.hybridize(False)
    np.testing.assert_allclose(out.asnumpy(), net(tokens).asnumpy(), rtol=1e-5, atol=1e-6)


def test_layer_without_input_size_exports_mxnets_graph(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Embedding(10, 4))
        net.add(rnn.LSTM(5, layout="NTC"))
    net.initialize()
    net.hybridize()
    net(nd.array([[1, 2, 3]]))
    symbol_file, _ = net.export(str(tmp_path / "lm"))
    nodes = json.loads(open(symbol_file).read())["nodes"]
    ops = [node["op"] for node in nodes if node["op"] != "null"]
    assert ops == ["Embedding", "SwapAxis"] + ["Reshape"] * 4 + [
        "_rnn_param_concat", "_zeros", "_zeros", "RNN", "SwapAxis"]
    weight = net[1].l0_i2h_weight.name
    assert next(node for node in nodes if node["name"] == weight)["attrs"]["__shape__"] == \
        "(20, 0)"           # traced before the input size was known, as in MXNet's export
    loaded = mx.sym.load(symbol_file)
    arg_shapes, _, _ = loaded.infer_shape(data=(2, 3))
    assert dict(zip(loaded.list_arguments(), arg_shapes))[weight] == (20, 4)
