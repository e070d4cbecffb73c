"""The symbol-graph view's model on known graphs, its memory slots, and its pictures."""
import doctest
import json
import math

import pytest
from hypothesis import given, settings, strategies as st

import minimx as mx
from minimx import nd
from minimx.gluon import nn
from widgets.symbol_graph import SymbolGraph, graph_model
from widgets.symbol_graph import draw as draw_module
from widgets.symbol_graph import view as view_module
from widgets.symbol_graph.draw import drawing, has_dot
from widgets.symbol_graph.model import assign_slots, buffer_lifetimes, plan_of


def mlp():
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    relu = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    return mx.sym.FullyConnected(relu, num_hidden=3, name="fc2")


def by_name(nodes):
    return {node["name"]: node for node in nodes}


def test_known_graph_nodes_edges_shapes_and_parameter_counts():
    model = graph_model(mlp(), shape={"data": (2, 4)})
    traced = model["traced"]
    names = [node["name"] for node in traced["nodes"]]
    assert sorted(names) == sorted(["data", "fc1_weight", "fc1_bias", "fc1", "relu1",
                                    "fc2_weight", "fc2_bias", "fc2"])
    assert len(traced["edges"]) == 3 + 1 + 3
    nodes = by_name(traced["nodes"])
    assert nodes["fc1"]["shapes"] == [[2, 8]] and nodes["fc2"]["shapes"] == [[2, 3]]
    assert nodes["fc1"]["params"] == 8 * 4 + 8 and nodes["fc2"]["params"] == 3 * 8 + 3
    assert nodes["relu1"]["params"] == 0 and traced["params"] == 40 + 27
    assert nodes["fc1"]["key_attrs"] == {"num_hidden": "8"}
    assert nodes["fc1_weight"]["kind"] == "weight" and nodes["data"]["kind"] == "input"
    ids = {node["id"]: node["name"] for node in traced["nodes"]}
    into_relu = [e for e in traced["edges"] if ids[e["target"]] == "relu1"]
    assert len(into_relu) == 1 and ids[into_relu[0]["source"]] == "fc1"
    assert into_relu[0]["shape"] == [2, 8] and into_relu[0]["bytes"] == 2 * 8 * 4
    json.dumps(model)          # plain data only


def test_elementwise_chain_is_one_fused_box_and_a_shared_value_is_not():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=6, name="fc")
    chain = mx.sym.tanh(mx.sym.sigmoid(mx.sym.relu(fc, name="r"), name="s"), name="t")
    planned = graph_model(chain, shape={"data": (3, 5)})["planned"]
    fused = [box for box in planned["boxes"] if box["kind"] == "fused"]
    assert len(fused) == 1 and fused[0]["names"] == ["r", "s", "t"]
    assert fused[0]["ops"] == ["relu", "sigmoid", "tanh"]
    # the value r is read twice: neither reader may swallow it
    r = mx.sym.relu(fc, name="r")
    branches = mx.sym.sigmoid(r, name="s") + mx.sym.tanh(r, name="t")
    planned = graph_model(branches, shape={"data": (3, 5)})["planned"]
    assert all(box["kind"] != "fused" or "r" not in box["names"][1:] for box in planned["boxes"])
    assert any(box["names"] == ["r"] for box in planned["boxes"])
    # the traced graph keeps every node whatever the plan does
    assert len(graph_model(chain, shape={"data": (3, 5)})["traced"]["nodes"]) == 7


def test_identity_removed_at_inference_only_and_constants_folded():
    data = mx.sym.var("data")
    drop = mx.sym.Dropout(mx.sym.relu(data, name="r"), p=0.5, name="drop")
    out = mx.sym.FullyConnected(drop, num_hidden=2, name="fc") + mx.sym.ones((4, 2), name="one")
    inference = graph_model(out, shape={"data": (4, 3)})["planned"]
    assert [(r["name"], r["op"], r["replaced_by"]) for r in inference["removed"]] == [
        ("drop", "Dropout", "r_output")]
    constants = [box["names"] for box in inference["boxes"] if box["kind"] == "constant"]
    assert constants == [["one"]]
    training = graph_model(out, shape={"data": (4, 3)}, is_train=True)["planned"]
    assert training["removed"] == []
    assert any(box["names"] == ["drop"] for box in training["boxes"])


def _check_slots(planned):
    buffers = planned["buffers"]
    for a in buffers:
        for b in buffers:
            if a is not b and a["slot"] == b["slot"]:
                assert a["last"] < b["first"] or b["last"] < a["first"], (a, b)
    for slot in planned["slots"]:
        sizes = [b["bytes"] for b in buffers if b["slot"] == slot["slot"]]
        assert slot["bytes"] == max(sizes)
    memory = planned["memory"]
    assert memory["planned"] <= memory["unplanned"]
    # buffers alive together sit in distinct slots, each at least as large as its buffer
    assert memory["planned"] <= memory["slots"] <= memory["unplanned"]


UNARY = ("relu", "sigmoid", "tanh", "exp")


@st.composite
def random_graph(draw):
    """A random DAG of unary ops, sums and FullyConnected layers over one input."""
    values = [mx.sym.var("data")]
    for position in range(draw(st.integers(1, 9))):
        kind = draw(st.sampled_from(("unary", "unary", "add", "fc")))
        source = values[draw(st.integers(0, len(values) - 1))]
        if kind == "unary":
            op = getattr(mx.sym, draw(st.sampled_from(UNARY)))
            values.append(op(source, name=f"u{position}"))
        elif kind == "add":
            other = values[draw(st.integers(0, len(values) - 1))]
            values.append(mx.sym.broadcast_add(source, other, name=f"a{position}"))
        else:
            values.append(mx.sym.FullyConnected(source, num_hidden=4, name=f"f{position}"))
    heads = draw(st.lists(st.integers(1, len(values) - 1), min_size=1, max_size=2, unique=True))
    return mx.sym.Group([values[i] for i in heads]), draw(st.booleans())


def _broadcastable(symbol):
    try:
        return symbol.infer_shape(data=(4, 4))[0] is not None
    except Exception:
        return False


@settings(max_examples=40, deadline=None)
@given(random_graph())
def test_slots_never_shared_by_overlapping_lifetimes(case):
    symbol, is_train = case
    if not _broadcastable(symbol):
        return
    planned = graph_model(symbol, shape={"data": (4, 4)}, is_train=is_train)["planned"]
    _check_slots(planned)
    # each buffer is alive at every step that reads it (computed from the plan itself)
    _, plan, _, _ = plan_of(symbol, {"data": (4, 4)}, None, is_train)
    lifetimes = buffer_lifetimes(plan)
    for index, step in enumerate(plan.steps):
        for key in step.inputs:
            if key in lifetimes:
                assert lifetimes[key][0] < index <= lifetimes[key][1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 6), st.integers(1, 100)),
                max_size=20))
def test_assign_slots_on_random_intervals(raw):
    buffers = [(first, first + length, size) for first, length, size in raw]
    slots, sizes = assign_slots(buffers)
    for i, a in enumerate(buffers):
        assert sizes[slots[i]] >= a[2]
        for j, b in enumerate(buffers):
            if i != j and slots[i] == slots[j]:
                assert a[1] < b[0] or b[1] < a[0]
    peak = max((sum(s for f, l, s in buffers if f <= t <= l) for t in range(20)), default=0)
    assert peak <= sum(sizes) <= sum(size for _, _, size in buffers)


def test_hybridized_block_uses_the_plan_it_ran():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(5, activation="relu"), nn.Dropout(0.3), nn.Dense(2))
    net.initialize()
    with pytest.raises(ValueError, match="hybridize"):
        graph_model(net)
    net.hybridize()
    net(nd.ones((3, 4))).wait_to_read()
    model = graph_model(net)
    plan = net.cached_plans()[-1].plan
    planned = model["planned"]
    assert len(planned["boxes"]) == len(plan.steps) == plan.report.steps_after
    assert [r["op"] for r in planned["removed"]] == ["Dropout"]
    ops = [n["op"] for n in model["traced"]["nodes"] if n["op"] != "null"]
    assert ops == ["FullyConnected", "Activation", "Dropout", "FullyConnected"]
    assert model["traced"]["params"] == 4 * 5 + 5 + 5 * 2 + 2
    _check_slots(planned)


def test_executor_plan_and_symbol_without_shapes():
    executor = mlp().simple_bind(mx.cpu(), data=(2, 4))
    model = graph_model(executor)
    report = executor.plan_report()
    assert len(model["planned"]["boxes"]) == report.steps_after
    assert model["planned"]["memory"]["planned"] == report.memory_planned
    no_shapes = graph_model(mlp())
    assert no_shapes["planned"] is None
    assert by_name(no_shapes["traced"]["nodes"])["fc1"]["shapes"] == [None]


@pytest.mark.parametrize("use_dot", [False, True])
def test_pictures_have_every_drawn_element_and_its_details(use_dot):
    if use_dot and not has_dot():
        pytest.skip("Graphviz's dot is not installed")
    view = SymbolGraph(mlp(), shape={"data": (2, 4)}, use_dot=use_dot)
    assert view.engine == ("graphviz" if use_dot else "fallback")
    assert ("Graphviz" in view.note) != use_dot
    for mode in ("traced", "planned"):
        picture = drawing(view.model, mode)
        assert not any("weight" in n["label"][0] for n in picture["nodes"])
        for element in picture["nodes"] + picture["edges"]:
            assert f'id="{element["id"]}"' in view.svgs[mode]
            assert element["id"] in view.info[mode]
    shown = drawing(view.model, "traced", hide_weights=False)
    assert len(shown["nodes"]) == len(view.model["traced"]["nodes"])
    html = view._repr_mimebundle_()["text/html"]
    assert "as traced" in html and "after the executor" in html


def test_slot_colours_on_planned_edges():
    view = SymbolGraph(mlp(), shape={"data": (2, 4)})
    planned = view.model["planned"]
    picture = drawing(view.model, "planned", hide_weights=False)
    for edge, drawn in zip(planned["edges"], picture["edges"]):
        if edge["buffer"] is not None:
            assert drawn["color"] == draw_module.slot_color(
                planned["buffers"][edge["buffer"]]["slot"])


def test_docstring_example():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(view_module, globs={**vars(view_module), "mx": mx}):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_block_without_plan_for_new_shapes_is_planned_from_shapes():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=2))
    net.initialize()
    net.hybridize()
    net(nd.ones((1, 2)))
    model = graph_model(net, shape={"data": (7, 2)})
    out = [b for b in model["planned"]["buffers"] if b["is_output"]]
    assert out[0]["shape"] == [7, 3] and out[0]["bytes"] == 7 * 3 * 4
    assert math.isclose(model["planned"]["memory"]["planned"], 7 * 3 * 4)
