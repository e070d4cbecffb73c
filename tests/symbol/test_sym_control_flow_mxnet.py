"""sym.contrib.foreach, while_loop and cond beside MXNet 1.9.1: the graphs' JSON, their
values and gradients through an executor, hybridized blocks, export, dynamic_unroll.

Each program runs on both (``same_program``); skipped without the reference MXNet.
"""
import json

import numpy as np
import pytest

import minimx as mx
from same_program import on_minimx, on_mxnet

GRAPHS = """
import json
from collections import defaultdict
import numpy as np
sym, nd = mx.sym, mx.nd
rng = np.random.RandomState(0)
out = {}
# node and body names counted from 0, whatever ran before in this process
mx.attribute.AttrScope._subgraph_names = defaultdict(int)
names = mx.name.NameManager()
names.__enter__()

def run(name, graph, arrays):
    args = {k: nd.array(v) for k, v in arrays.items()}
    grads = {k: nd.zeros(v.shape) for k, v in arrays.items()}
    ex = graph.bind(mx.current_context(), args, args_grad=grads)
    results = ex.forward(is_train=True)
    heads = [nd.array(rng.uniform(size=r.shape)) for r in results]
    ex.backward(heads)
    out[name] = {"json": graph.tojson(), "outputs": [r.asnumpy().tolist() for r in results],
                 "grads": {k: g.asnumpy().tolist() for k, g in sorted(grads.items())},
                 "shapes": graph.infer_shape(**{k: v.shape for k, v in arrays.items()})}

# foreach: two data arrays, nested states, a value cut from outside, a body variable
x, y, s, w = sym.var("x"), sym.var("y"), sym.var("s"), sym.var("w")
scale = sym.exp(w)
def step(data, states):
    a, b = data
    h, (c,) = states
    h2 = sym.tanh(a * h + b * scale)
    return [h2, h2 * c], [h2, [c + a]]
outs, states = sym.contrib.foreach(step, [x, y], [s, [s * 2]])
run("foreach", sym.Group(outs + [states[0], states[1][0]]),
    {"x": rng.uniform(size=(4, 3)), "y": rng.uniform(size=(4, 3)), "s": rng.uniform(size=3),
     "w": rng.uniform(size=3)})

# while_loop: the condition reads a loop variable, the body a value from outside
i, p, k = sym.var("i"), sym.var("p"), sym.var("k")
outs, (fi, fp) = sym.contrib.while_loop(
    lambda i, p: i < 4, lambda i, p: ([p * k], [i + 1, p * k + 1]), [i, p],
    max_iterations=6)
run("while", sym.Group(outs + [fi, fp]),
    {"i": np.array([0.0]), "p": rng.uniform(size=(2, 2)), "k": rng.uniform(size=(2, 2))})

# cond, both branches
a, b = sym.var("a"), sym.var("b")
for value in (1.0, 9.0):
    r = sym.contrib.cond(a * b < 5, lambda: [(a + 5) * (b + 5), a - b],
                         lambda: [(a - 5) * (b - 5), a + b])
    run(f"cond{value}", sym.Group(r), {"a": np.array([value]), "b": np.array([2.0])})
names.__exit__(None, None, None)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def graphs(mxnet_python):
    return on_mxnet(mxnet_python, GRAPHS), on_minimx(GRAPHS)


@pytest.mark.parametrize("name", ["foreach", "while", "cond1.0", "cond9.0"])
def test_graph_json_values_and_gradients_match_mxnet(graphs, name):
    expected, got = graphs[0][name], graphs[1][name]
    assert got["json"] == expected["json"], name
    if expected["shapes"][0] is not None:     # MXNet infers no shape of the while graph
        assert got["shapes"] == expected["shapes"]
    for mine, theirs in zip(got["outputs"], expected["outputs"], strict=True):
        # while_loop's rows after the last step are undefined on MXNet (zeros on minimx)
        rows = 4 if name == "while" and len(np.shape(theirs)) == 3 else None
        np.testing.assert_allclose(np.array(mine)[:rows], np.array(theirs)[:rows], rtol=1e-5,
                                   atol=1e-6)
    assert got["grads"].keys() == expected["grads"].keys()
    for key in expected["grads"]:
        np.testing.assert_allclose(got["grads"][key], expected["grads"][key], rtol=1e-4,
                                   atol=1e-6, err_msg=f"{name}: gradient of {key}")


LOAD = """
import json
import numpy as np
graph = mx.sym.load_json(INPUT)
names = graph.list_arguments()
rng = np.random.RandomState(1)
shapes = {"x": (4, 3), "y": (4, 3), "s": (3,), "w": (3,)}
args = {n: mx.nd.array(rng.uniform(size=shapes[n])) for n in names}
print(json.dumps([o.asnumpy().tolist() for o in graph.bind(mx.current_context(), args).forward()]))
"""


def test_mxnet_json_of_a_foreach_graph_loads_and_runs(graphs, mxnet_python):
    text = graphs[0]["foreach"]["json"]
    for mine, theirs in zip(on_minimx(LOAD, text), on_mxnet(mxnet_python, LOAD, text)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


HYBRID = """
import json
from collections import defaultdict
import numpy as np
gluon, nd = mx.gluon, mx.nd
mx.attribute.AttrScope._subgraph_names = defaultdict(int)   # bodies numbered from 0
rng = np.random.RandomState(0)

class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = gluon.nn.Dense(3, flatten=False, in_units=4)
    def hybrid_forward(self, F, x, h):
        def step(data, states):
            out = F.tanh(self.dense(data) + states[0])
            return out, [out]
        outs, states = F.contrib.foreach(step, x, [h])
        running = F.contrib.cond(states[0].sum() > 0, lambda: states[0] * 2,
                                 lambda: states[0] - 1)
        return outs, running

out = {}
x, h = nd.array(rng.uniform(-1, 1, size=(5, 2, 4))), nd.array(rng.uniform(size=(2, 3)))
weight, bias = rng.uniform(-1, 1, size=(3, 4)), rng.uniform(size=3)
for hybrid in (False, True):
    net = Net(prefix="net_")
    net.initialize(ctx=mx.current_context())
    net.dense.weight.set_data(nd.array(weight))
    net.dense.bias.set_data(nd.array(bias))
    if hybrid:
        net.hybridize()
    x.attach_grad()
    with mx.autograd.record():
        outs, running = net(x, h)
        (outs.sum() + running.sum()).backward()
    out[str(hybrid)] = [outs.asnumpy().tolist(), running.asnumpy().tolist(),
                        x.grad.asnumpy().tolist(), net.dense.weight.grad().asnumpy().tolist()]
net.export(INPUT + "/net")
loaded = gluon.SymbolBlock.imports(INPUT + "/net-symbol.json", ["data0", "data1"],
                                   INPUT + "/net-0000.params", ctx=mx.current_context())
out["imported"] = [o.asnumpy().tolist() for o in loaded(x, h)]
print(json.dumps(out))
"""


def test_hybridized_control_flow_and_export_match_mxnet(mxnet_python, tmp_path):
    (tmp_path / "mx").mkdir()
    (tmp_path / "mm").mkdir()
    expected = on_mxnet(mxnet_python, HYBRID, str(tmp_path / "mx"))
    got = on_minimx(HYBRID, str(tmp_path / "mm"))
    # MXNet 1.9.1's hybridized foreach-then-cond gives gradients off by up to 9e19 from
    # its own imperative ones (unset memory; they change from run to run): minimx's are
    # compared with MXNet's imperative gradients, which are of the same function
    expected["True"][2:] = expected["False"][2:]
    for key in expected:
        for mine, theirs in zip(got[key], expected[key], strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5, err_msg=key)
    assert _nodes(tmp_path / "mm") == _nodes(tmp_path / "mx")


def _nodes(folder):
    """The exported graph's nodes; without ``__storage_type__``, which minimx's parameters
    do not write yet (a Dense layer's export differs the same way)."""
    text = (folder / "net-symbol.json").read_text().replace('"__storage_type__": "0", ', "")
    return json.loads(text)["nodes"]


UNROLL = """
import json
import numpy as np
gluon, nd = mx.gluon, mx.nd
rng = np.random.RandomState(0)

class Unroll(gluon.HybridBlock):
    def __init__(self, layout, **kwargs):
        super().__init__(**kwargs)
        self.layout = layout
        with self.name_scope():
            self.cell = gluon.rnn.LSTMCell(4, input_size=3)
    def hybrid_forward(self, F, x, h, c, valid):
        unroll = gluon.contrib.rnn.rnn_cell.dynamic_unroll
        return unroll(self.cell, x, [h, c], layout=self.layout, valid_length=valid)

out = {}
for layout, shape in (("TNC", (5, 2, 3)), ("NTC", (2, 5, 3))):
    x = nd.array(rng.uniform(-1, 1, size=shape))
    h, c = nd.array(rng.uniform(size=(2, 4))), nd.array(rng.uniform(size=(2, 4)))
    valid = nd.array([3, 5])
    weights = {name: rng.uniform(-0.5, 0.5, size=shape)
               for name, shape in (("i2h_weight", (16, 3)), ("h2h_weight", (16, 4)),
                                   ("i2h_bias", (16,)), ("h2h_bias", (16,)))}
    for hybrid in (False, True):
        net = Unroll(layout, prefix="unroll_")
        net.initialize(ctx=mx.current_context())
        for name, value in weights.items():
            getattr(net.cell, name).set_data(nd.array(value))
        if hybrid:
            net.hybridize()
        x.attach_grad()
        with mx.autograd.record():
            outputs, states = net(x, h, c, valid)
            (outputs.sum() + states[0].sum() * 2 + states[1].sum()).backward()
        out[f"{layout}-{hybrid}"] = [outputs.asnumpy().tolist(), states[0].asnumpy().tolist(),
                                     states[1].asnumpy().tolist(), x.grad.asnumpy().tolist(),
                                     net.cell.i2h_weight.grad().asnumpy().tolist()]
print(json.dumps(out))
"""


def test_dynamic_unroll_hybridized_matches_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, UNROLL)
    got = on_minimx(UNROLL)
    assert got.keys() == expected.keys()
    for key in expected:
        for mine, theirs in zip(got[key], expected[key], strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5, err_msg=key)


def test_loop_node_runs_its_body_once_per_step_not_unrolled():
    """The point of the operator: the graph holds the body once, for any length."""
    data, state = mx.sym.var("data"), mx.sym.var("state")
    outs, _ = mx.sym.contrib.foreach(lambda d, s: (d * s[0], [s[0] + d]), data, [state])
    assert [node.op_name() for node in outs.nodes() if not node.is_variable] == ["_foreach"]
    for steps in (2, 7):
        args = {"data": mx.nd.ones((steps, 3)), "state": mx.nd.ones(3)}
        ex = outs.bind(mx.current_context(), args)
        assert ex.forward()[0].asnumpy()[:, 0].tolist() == list(range(1, steps + 1))


def test_a_loop_operator_without_a_body_names_itself():
    loop = mx.op.get_op("_foreach")(num_args=2, num_outputs=1, num_out_data=1,
                                    in_state_locs="[]", in_data_locs="[0]", remain_locs="[]")
    with pytest.raises(mx.base.MXNetError, match="_foreach.*has none"):
        loop.forward(np, np.ones((2, 3)))
