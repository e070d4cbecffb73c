"""Symbol API: the seed's section 4 examples with its printed results, naming, JSON, errors."""
import json

import numpy as np
import pytest

import minimx as mx
from minimx import nd
from minimx.base import FileFormatError, InvalidShapeError, MXNetError


def test_seed_symbolic_fully_connected_names_types_shapes():
    data = mx.sym.Variable("data", shape=(1, 2))
    with mx.name.NameManager():          # fresh counters, as in a new Python session
        fc = mx.sym.FullyConnected(data=data, num_hidden=12)
    assert str(fc) == "<Symbol fullyconnected0>"
    assert (fc.list_arguments(), fc.list_outputs(), fc.list_auxiliary_states()) == (
        ["data", "fullyconnected0_weight", "fullyconnected0_bias"],
        ["fullyconnected0_output"], [])
    assert fc.infer_type(data=np.float32) == ([np.float32] * 3, [np.float32], [])
    assert fc.infer_shape(data=(1, 2)) == ([(1, 2), (12, 2), (12,)], [(1, 12)], [])


def test_seed_tojson_layout():
    data = mx.sym.Variable("data", shape=(1, 2))
    fc = mx.sym.FullyConnected(data=data, num_hidden=12, name="fullyconnected0")
    graph = json.loads(fc.tojson())
    assert [n["name"] for n in graph["nodes"]] == [
        "data", "fullyconnected0_weight", "fullyconnected0_bias", "fullyconnected0"]
    assert graph["nodes"][0]["attrs"] == {"__shape__": "(1, 2)"}
    assert graph["nodes"][1]["attrs"] == {"num_hidden": "12"}
    assert graph["nodes"][3]["inputs"] == [[0, 0, 0], [1, 0, 0], [2, 0, 0]]
    assert graph["arg_nodes"] == [0, 1, 2]
    assert graph["node_row_ptr"] == [0, 1, 2, 3, 4]
    assert graph["heads"] == [[3, 0, 0]]
    assert graph["attrs"]["mxnet_version"][0] == "int"


def test_seed_get_internals():
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data=data, num_hidden=12, name="fc1")
    fc2 = mx.sym.FullyConnected(data=fc1, num_hidden=12, name="fc2")
    assert fc2.get_internals().list_outputs() == [
        "data", "fc1_weight", "fc1_bias", "fc1_output", "fc2_weight", "fc2_bias", "fc2_output"]
    assert isinstance(fc2.get_internals()["fc1_output"], mx.sym.Symbol)


def test_seed_graph_splicing_after_load(tmp_path):
    data = mx.sym.Variable("data", shape=(1, 2))
    weight = mx.sym.Variable("weight", shape=(1, 2))
    bias = mx.sym.Variable("bias", shape=(1, 2))
    fc1 = mx.sym.FullyConnected(data=data, weight=weight, bias=bias, num_hidden=12, name="fc1")
    fc2 = mx.sym.FullyConnected(data=fc1, weight=weight, bias=bias, num_hidden=12, name="fc2")
    softmax = mx.sym.SoftmaxOutput(fc2, name="softmax")
    path = tmp_path / "model.symbol.json"
    softmax.save(str(path))
    symbol = mx.sym.load(str(path))
    assert symbol.get_internals().list_outputs() == [
        "data", "weight", "bias", "fc1_output", "fc2_output", "softmax_label", "softmax_output"]
    fc1 = symbol.get_internals()["fc1_output"]
    fc2_new = mx.sym.FullyConnected(data=fc1, weight=weight, bias=bias, num_hidden=99,
                                    name="fc2_new")
    softmax_new = mx.sym.SoftmaxOutput(fc2_new, name="softmax_new")
    assert repr(softmax_new.get_internals()) == (
        "<Symbol group [data, weight, bias, fc1, weight, bias, fc2_new, softmax_new_label, "
        "softmax_new]>")


def test_batchnorm_auxiliary_states_and_outputs():
    bn = mx.sym.BatchNorm(mx.sym.var("data"), name="bn")
    assert bn.list_arguments() == ["data", "bn_gamma", "bn_beta"]
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert bn.list_outputs() == ["bn_output"]
    args, outs, aux = bn.infer_shape(data=(4, 3, 2, 2))
    assert args == [(4, 3, 2, 2), (3,), (3,)] and aux == [(3,), (3,)] and outs == [(4, 3, 2, 2)]


def test_automatic_names_and_prefix():
    a = mx.sym.var("a")
    product = a * (a + 1)
    assert product.get_internals().list_outputs()[1].startswith("_plusscalar")
    with mx.name.Prefix("net_"):
        fc = mx.sym.FullyConnected(a, num_hidden=2)
    assert fc.name.startswith("net_fullyconnected")
    assert fc.list_arguments()[1].startswith("net_fullyconnected")


def test_multi_output_indexing_and_group():
    with mx.name.NameManager():
        parts = mx.sym.split(mx.sym.var("x"), num_outputs=3, axis=1)
    assert len(parts) == 3
    assert parts.list_outputs() == ["split0_output0", "split0_output1", "split0_output2"]
    assert parts[1].list_outputs() == ["split0_output1"]
    assert parts["split0_output2"].list_outputs() == ["split0_output2"]
    group = mx.sym.Group([parts[0], mx.sym.var("y")])
    assert group.list_outputs() == ["split0_output0", "y"]


def test_compose_replaces_a_variable():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    head = mx.sym.Activation(mx.sym.var("data"), act_type="relu", name="relu")
    assert head.list_arguments() == ["data"]          # walked (and remembered) before
    joined = head(data=net)
    assert joined.list_arguments() == ["data", "fc_weight", "fc_bias"]
    assert head.list_arguments() == ["data"] and len(joined.get_internals()) == 5
    with pytest.raises(MXNetError, match="no argument named"):
        head(nothing=net)


def test_attributes():
    x = mx.sym.var("x", lr_mult=2.0, shape=(3,), dtype="float32")
    assert x.attr("__lr_mult__") == "2.0" and x.attr("lr_mult") == "2.0"
    with mx.AttrScope(group="stage1"):
        y = mx.sym.relu(x, name="r")
    assert y.attr("group") == "stage1"
    assert "r" in y.attr_dict() and y.list_attr()["group"] == "stage1"


def test_inconsistent_shapes_name_the_node():
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    with pytest.raises(InvalidShapeError, match="_plus"):
        (a + b).infer_shape(a=(2, 3), b=(3, 2))


def test_partial_inference():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    assert fc.infer_shape() == (None, None, None)
    args, outs, _ = fc.infer_shape_partial()
    assert args == [(), (), ()] and outs == [()]


def test_json_round_trip_and_errors():
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4), name="s")
    again = mx.sym.load_json(net.tojson())
    assert again.tojson() == net.tojson()
    with pytest.raises(FileFormatError, match="not valid JSON"):
        mx.sym.load_json("{nodes")
    bad = json.loads(net.tojson())
    bad["nodes"][-1]["op"] = "NoSuchOp"
    with pytest.raises(FileFormatError, match="unknown operator 'NoSuchOp'"):
        mx.sym.load_json(json.dumps(bad))
    bad = json.loads(net.tojson())
    bad["nodes"][-1]["inputs"][0][0] = 99
    with pytest.raises(FileFormatError, match="refers to node 99"):
        mx.sym.load_json(json.dumps(bad))
    bad = json.loads(net.tojson())
    bad["nodes"][-1]["inputs"] = bad["nodes"][-1]["inputs"][:1]
    with pytest.raises(FileFormatError, match="expects inputs"):
        mx.sym.load_json(json.dumps(bad))


def test_debug_str_has_a_line_per_node():
    net = mx.sym.relu(mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="fc"), name="r")
    lines = net.debug_str().splitlines()
    assert lines[0] == "Variable:x"
    assert lines[-1] == "r = relu(fc_output)"


def test_eval_computes():
    a = mx.sym.var("a")
    (result,) = (a * 2 + 1).eval(a=nd.array([1.0, 2.0]))
    assert result.asnumpy().tolist() == [3.0, 5.0]


def test_infer_type_partial_keeps_what_does_not_depend_on_the_unknown():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(mx.sym.Cast(data, dtype="float32"), num_hidden=4, name="fc")
    assert net.infer_type_partial()[0] == [None, np.float32, np.float32]
    assert net.infer_type() == (None, None, None)
    assert net.infer_type(data=np.float16)[0] == [np.float16, np.float32, np.float32]


def test_abs_and_alias_methods_compose_as_the_functions_do():
    data = mx.sym.Variable("data")
    assert abs(data).list_outputs()[0].startswith("abs")
    with mx.name.NameManager():
        assert data.flip(axis=0).name == "flip0"          # named after the alias called


def test_json_records_np_shape_and_legacy_files_load_under_it():
    data = mx.sym.var("data", shape=(0, 3))
    text = data.tojson()
    assert "is_np_shape" not in json.loads(text)["attrs"]
    with mx.np_shape(True):
        assert json.loads(mx.sym.var("x").tojson())["attrs"]["is_np_shape"] == ["int", 1]
        loaded = mx.sym.load_json(text)                   # 0 meant unknown when saved
        assert loaded.infer_shape_partial()[0] == [(-1, 3)]


def test_a_positional_none_leaves_an_optional_input_out():
    data = mx.sym.var("data")
    resized = mx.sym.contrib.BilinearResize2D(data, None, scale_height=2.0, scale_width=2.0)
    assert resized.list_arguments() == ["data"]
    assert resized.infer_shape(data=(1, 1, 3, 4))[1] == [(1, 1, 6, 8)]
