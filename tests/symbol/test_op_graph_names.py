"""What operators declare for the symbol layer: output names in a graph
(``named_outputs``, ``graph_output_names``) and ``__init__`` hints for new input
variables (``input_init_hints``).  The expected names are MXNet 1.9.1's."""
import pytest

import minimx as mx
from minimx.op import OpDef, Param, list_ops
from minimx.symbol.symbol import compose_op

x = mx.sym.var("x")
# (builder, MXNet 1.9.1's list_outputs(), the last of get_internals().list_outputs())
CASES = {
    "batchnorm_mean_var": (lambda: mx.sym.BatchNorm(x, output_mean_var=True, name="bn"),
                           ["bn_output", "bn_mean", "bn_var"], "bn_var"),
    "batchnorm": (lambda: mx.sym.BatchNorm(x, name="bn"), ["bn_output"], "bn_output"),
    "layernorm": (lambda: mx.sym.LayerNorm(x, output_mean_var=True, name="ln"),
                  ["ln_output", "ln_mean", "ln_std"], "ln_std"),
    "dropout": (lambda: mx.sym.Dropout(x, name="d"), ["d_output"], "d_output"),
    "leaky_rrelu": (lambda: mx.sym.LeakyReLU(x, act_type="rrelu", name="l"), None, "l_output"),
    "topk_value": (lambda: mx.sym.topk(x, ret_typ="value", name="t"), ["t_output0"],
                   "t_output0"),
    "topk_both": (lambda: mx.sym.topk(x, ret_typ="both", name="t"),
                  ["t_output0", "t_output1"], "t_output1"),
    "topk_indices": (lambda: mx.sym.topk(x, name="t"), ["t_output"], "t_output"),
    "sort": (lambda: mx.sym.sort(x, name="s"), ["s_output0"], "s_output0"),
    "split_one": (lambda: mx.sym.SliceChannel(x, num_outputs=1, name="s"), ["s_output0"],
                  "s_output0"),
    "split": (lambda: mx.sym.split(x, num_outputs=2, name="s"), ["s_output0", "s_output1"],
              "s_output1"),
    "lstm": (lambda: mx.sym.RNN(x, state_size=2, num_layers=1, mode="lstm",
                                state_outputs=True, name="r"),
             ["r_output", "r_state_output", "r_statecell_output"], "r_statecell_output"),
    "ctc": (lambda: mx.sym.CTCLoss(x, mx.sym.var("label"), name="c"), ["c_output0"],
            "c_output0"),
    "fc": (lambda: mx.sym.FullyConnected(x, num_hidden=2, name="fc"), ["fc_output"],
           "fc_output"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_names_follow_mxnet(name):
    build, outputs, last_internal = CASES[name]
    symbol = build()
    if outputs is not None:
        assert symbol.list_outputs() == outputs
    assert symbol.get_internals().list_outputs()[-1] == last_internal


@pytest.mark.parametrize("op", list_ops(), ids=lambda op: op.name)
def test_every_output_has_a_graph_name(op):
    test = op.test
    try:
        instance = op.create(**test.params)
    except Exception:                     # noqa: BLE001 - ops whose hints need inputs
        pytest.skip("default test parameters need more context")
    names = instance.graph_output_names()
    assert len(names) == len(instance.list_outputs()) == len(set(names))


def test_batchnorm_and_prelu_hint_their_new_variables_initializers():
    bn = mx.sym.BatchNorm(x, name="bn")
    attrs = bn.attr_dict()
    assert attrs["bn_moving_mean"]["__init__"] == '["zero", {}]'
    assert attrs["bn_moving_var"]["__init__"] == '["one", {}]'
    assert "__init__" not in attrs.get("bn_gamma", {})
    prelu = mx.sym.LeakyReLU(x, act_type="prelu", name="p")
    assert prelu.attr_dict()["p_gamma"]["__init__"] == '["Constant", {"value": 0.25}]'
    given = mx.sym.var("mine", init=mx.init.Constant(3))
    kept = mx.sym.BatchNorm(x, moving_var=given, name="bn2").attr_dict()["mine"]["__init__"]
    assert kept == mx.init.Constant(3).dumps()


class _Declared(OpDef):
    """A test operator (not registered): two outputs named after their declaration."""
    name = "_test_declared"
    inputs = ("data", "scale")
    outputs = ("value", "extra")
    params = {"factor": Param(float, default=1.0)}
    named_outputs = True
    input_init_hints = {"scale": '["one", {}]'}

    def infer_shape(self, data, scale):
        return [data, data]


def test_graph_reads_the_declarations_generically():
    symbol = compose_op(_Declared, (x,), {"name": "dec"}, "declared")
    assert symbol.list_outputs() == ["dec_value", "dec_extra"]
    assert symbol.attr_dict()["dec_scale"]["__init__"] == '["one", {}]'
    _Declared.named_outputs = False
    try:
        assert symbol.list_outputs() == ["dec_output0", "dec_output1"]
    finally:
        _Declared.named_outputs = True
