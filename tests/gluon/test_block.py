"""Block and HybridBlock core: naming, registration, deferred init, hybridize, export/import."""
import subprocess
import sys

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd
from minimx.gluon import nn


class Affine(nn.HybridBlock):
    """y = x W^T + b with W's input size found at the first call (a minimal Dense)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        with self.name_scope():
            self.weight = self.params.get("weight", shape=(units, 0), allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(units,), init="zeros")

    def hybrid_forward(self, F, x, weight, bias):
        return F.FullyConnected(x, weight, bias, num_hidden=self.units)


class Printing(nn.HybridBlock):
    def __init__(self, log, **kwargs):
        super().__init__(**kwargs)
        self.log = log
        with self.name_scope():
            self.inner = Affine(3)

    def hybrid_forward(self, F, x):
        self.log.append(F.__name__)
        return F.relu(self.inner(x))


def test_prefixes_follow_mxnet():
    with mx.name.NameManager():
        outer = nn.HybridSequential()
        with outer.name_scope():
            outer.add(Affine(2), Affine(3))
    assert outer.prefix == "hybridsequential0_"
    assert outer[1].prefix == "hybridsequential0_affine1_"
    assert list(outer.collect_params().keys()) == [
        "hybridsequential0_affine0_weight", "hybridsequential0_affine0_bias",
        "hybridsequential0_affine1_weight", "hybridsequential0_affine1_bias"]
    assert list(outer.collect_params(".*bias").keys())[0].endswith("affine0_bias")


def test_deferred_initialization_completes_at_first_call():
    block = Affine(4)
    block.initialize()
    with pytest.raises(mx.gluon.DeferredInitializationError):
        block.weight.data()
    out = block(nd.ones((2, 5)))
    assert out.shape == (2, 4)
    assert block.weight.shape == (4, 5)


def test_hybridize_runs_python_once_and_matches_imperative():
    log = []
    block = Printing(log)
    block.initialize()
    x = nd.random.uniform(shape=(2, 5))
    imperative = block(x).asnumpy()
    assert log == ["minimx.ndarray"]
    block.hybridize()
    first = block(x).asnumpy()
    second = block(x).asnumpy()
    assert log == ["minimx.ndarray", "minimx.symbol"]
    np.testing.assert_allclose(first, imperative, rtol=1e-6)
    np.testing.assert_allclose(second, imperative, rtol=1e-6)
    block(nd.ones((3, 5)))                       # new shape: new plan, no new trace
    assert log == ["minimx.ndarray", "minimx.symbol"]
    assert block._cached_op.plans_built == 2


def test_hybridized_gradients_match_imperative():
    block = Printing([])
    block.initialize()
    x = nd.random.uniform(shape=(2, 5))
    block(x)
    params = block.collect_params()

    def gradients():
        with autograd.record():
            loss = (block(x) * block(x)).sum()
        loss.backward()
        return {name: p.grad().asnumpy().copy() for name, p in params.items()}

    before = gradients()
    block.hybridize()
    after = gradients()
    for name in before:
        np.testing.assert_allclose(after[name], before[name], rtol=1e-5, atol=1e-7)


def test_hybridized_forward_and_backward_are_single_pushes():
    block = Printing([])
    block.initialize()
    x = nd.ones((2, 5))
    block.hybridize()
    block(x).wait_to_read()
    events = []
    mx.engine.subscribe(events.append)
    try:
        with autograd.record():
            y = block(x)
        y.backward()
        nd.waitall()
    finally:
        mx.engine.unsubscribe(events.append)
    names = [e.name for e in events if e.kind == "push"]
    assert names.count("CachedOp") == 1 and names.count("CachedOp_backward") == 1


def test_symbol_input_returns_symbol():
    block = Printing([])
    out = block(mx.sym.var("data"))
    assert isinstance(out, mx.sym.Symbol)
    assert "data" in out.list_arguments()


def test_non_hybrid_child_is_refused():
    with pytest.raises(ValueError, match="Children of HybridBlock must also be HybridBlock"):
        nn.HybridSequential().add(nn.Sequential())


def test_export_and_symbolblock_imports(tmp_path):
    block = Printing([])
    block.initialize()
    x = nd.random.uniform(shape=(2, 5))
    block.hybridize()
    expected = block(x).asnumpy()
    symbol_file, params_file = block.export(str(tmp_path / "model"), epoch=3)
    assert params_file.endswith("model-0003.params")
    loaded = mx.gluon.SymbolBlock.imports(symbol_file, ["data"], params_file, ctx=x.context)
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-6)


def test_export_before_a_call_is_clear():
    block = Printing([])
    block.hybridize()
    with pytest.raises(RuntimeError, match="hybridize"):
        block.export("nowhere")


SYMBOL_BLOCK_REPRS = """
import sys
mx = __import__(sys.argv[1])
x = mx.sym.var("data")
act = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=3, name="fc"), act_type="relu",
                        name="act")
net = mx.gluon.nn.HybridSequential(prefix="net_")
net.add(mx.gluon.SymbolBlock(act, x))
net.add(mx.gluon.SymbolBlock(mx.sym.Group([act, mx.sym.sigmoid(x, name="sig")]), x))
print(repr(net))
"""


def test_symbol_block_repr_shows_its_output_symbol(mxnet_python, tmp_path):
    script = tmp_path / "reprs.py"
    script.write_text(SYMBOL_BLOCK_REPRS)
    mine = subprocess.run([sys.executable, str(script), "minimx"], capture_output=True,
                          text=True, check=True).stdout
    assert "(0): SymbolBlock(\n  <Symbol act> : 1 -> 1\n  )" in mine
    assert "<Symbol group [act, sig]> : 1 -> 2" in mine
    reference = subprocess.run([mxnet_python, str(script), "mxnet"], capture_output=True,
                               text=True, check=True).stdout
    assert mine == reference


def test_save_and_load_parameters(tmp_path):
    net = nn.HybridSequential()
    net.add(Affine(3), Affine(2))
    net.initialize()
    x = nd.ones((1, 4))
    expected = net(x).asnumpy()
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    assert set(nd.load(path)) == {"0.weight", "0.bias", "1.weight", "1.bias"}
    again = nn.HybridSequential()
    again.add(Affine(3), Affine(2))
    again.load_parameters(path, ctx=x.context)       # MXNet loads onto cpu() without ctx
    np.testing.assert_allclose(again(x).asnumpy(), expected, rtol=1e-6)
    smaller = nn.HybridSequential()
    smaller.add(Affine(3))
    with pytest.raises(mx.MXNetError, match="ignore_extra"):
        smaller.load_parameters(path)



def test_deduplicated_save_keeps_the_last_name_and_loads_back(tmp_path):
    def shared_net():
        net = nn.HybridSequential()
        first = Affine(3)
        net.add(first, Affine(2), Affine(3, params=first.params))
        return net

    net = shared_net()
    net.initialize()
    x = nd.ones((1, 3))
    net[1](net[0](x))                   # finish the deferred shapes
    expected = net[2](x).asnumpy()
    path = str(tmp_path / "shared.params")
    net.save_parameters(path, deduplicate=True)
    # MXNet 1.9.1 keeps the last structural name of a shared parameter
    assert sorted(nd.load(path)) == ["1.bias", "1.weight", "2.bias", "2.weight"]
    net.load_parameters(path)
    again = shared_net()
    again.load_parameters(path, ctx=x.context)
    np.testing.assert_allclose(again[0](x).asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(again[2](x).asnumpy(), expected, rtol=1e-6)
    nd.save(path, {"1.weight": again[1].weight.data(), "1.bias": again[1].bias.data()})
    with pytest.raises(mx.MXNetError, match="lacks parameters"):
        again.load_parameters(path)

def test_hooks_and_apply():
    block = Affine(2)
    block.initialize()
    seen = []
    handle = block.register_forward_hook(lambda b, inputs, out: seen.append(out.shape))
    block(nd.ones((1, 3)))
    handle.detach()
    block(nd.ones((1, 3)))
    assert seen == [(1, 2)]
    names = []
    block.apply(lambda b: names.append(type(b).__name__))
    assert names == ["Affine"]


def test_sequential_plain_blocks():
    class Double(mx.gluon.Block):
        def forward(self, x):
            return x * 2

    net = nn.Sequential()
    net.add(Double(), Double())
    assert net(nd.ones((2,))).asnumpy().tolist() == [4.0, 4.0]
    assert len(net) == 2


def test_hybridized_block_sees_new_parameter_arrays(tmp_path):
    """The cached parameter arrays are dropped whenever a Parameter's arrays are replaced
    (``Parameter.data_version``): reinitialising, loading, casting, set_data."""
    net = nn.Dense(2, in_units=3)
    net.initialize(mx.init.Constant(1))
    net.hybridize()
    x = nd.ones((1, 3))
    np.testing.assert_allclose(net(x).asnumpy(), [[3, 3]])
    net.initialize(mx.init.Constant(2), force_reinit=True)
    np.testing.assert_allclose(net(x).asnumpy(), [[6, 6]])
    net.weight.set_data(nd.full((2, 3), 3))
    np.testing.assert_allclose(net(x).asnumpy(), [[9, 9]])
    other = nn.Dense(2, in_units=3)
    other.initialize(mx.init.Constant(-1))
    other.save_parameters(str(tmp_path / "other.params"))
    net.load_parameters(str(tmp_path / "other.params"))
    np.testing.assert_allclose(net(x).asnumpy(), [[-3, -3]])
    net.cast("float64")
    assert net(x.astype("float64")).dtype == np.float64


def test_op_hooks_see_every_operator_of_a_hybridized_block():
    model = nn.HybridSequential(prefix="net_")
    with model.name_scope():
        model.add(nn.Dense(2), nn.Activation("relu"))
    model.initialize()
    model.hybridize()
    seen = []
    model.register_op_hook(lambda name, op_name, array: seen.append((name, op_name,
                                                                      array.shape)), True)
    model(mx.nd.ones((3, 4)))
    mx.nd.waitall()
    assert [name for name, _, _ in seen] == [
        "net_dense0_fwd_data", "net_dense0_fwd_weight", "net_dense0_fwd_bias",
        "net_dense0_fwd_output", "net_relu0_fwd_input0", "net_relu0_fwd_output"]
    assert seen[3][1:] == ("FullyConnected", (3, 2))


def test_hybridized_inputs_follow_mxnet_rules():
    class Add(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, a, b=None):
            return a if b is None else a + b

    block = Add()
    block.hybridize()
    assert block(mx.nd.ones((2,))).shape == (2,)
    assert block(mx.nd.ones((2,)), None).shape == (2,)        # a trailing None: the default
    with pytest.raises(ValueError, match="structure"):
        block(mx.nd.ones((2,)), mx.nd.ones((2,)))
    with pytest.raises(ValueError, match="NDArrays"):
        _hybridized(Add())(mx.nd.ones((2,)), 1)
    with pytest.raises(ValueError, match="at least one NDArray"):
        Add()(None, None)


def _hybridized(block):
    block.hybridize()
    return block
