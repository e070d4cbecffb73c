"""ForwardProgram: a plan lowered to slots must compute what the interpreter computes."""
import numpy as np
import pytest

import minimx as mx
from minimx import nd
from minimx.executor.plan import build_plan
from minimx.executor.program import ForwardProgram, can_lower
from minimx.executor.run import run_forward
from minimx.symbol import inference
from minimx.symbol.graph import topo_order


def _lowered(symbol, arrays, is_train=False):
    """(program, plan, input keys, result keys) for ``symbol`` fed ``arrays`` by name."""
    entries = symbol._entries
    variables = {node.name: node for node in topo_order(entries) if node.is_variable}
    shapes_in = {name: value.shape for name, value in arrays.items()}
    _, shapes = inference.infer_shapes(entries, shapes_in)
    _, dtypes = inference.infer_types(entries, {name: value.dtype.name
                                                for name, value in arrays.items()})
    plan = build_plan(entries, shapes, dtypes, is_train, np)
    input_keys = [(variables[name], 0) for name in arrays]
    result_keys = [plan.resolve(entry) for entry in entries]
    program = ForwardProgram(plan, np, input_keys, result_keys, is_train)
    return program, plan, input_keys, result_keys


def _interpreted(plan, input_keys, result_keys, values, is_train=False):
    table = dict(zip(input_keys, values))
    run_forward(plan, np, table, is_train, {}, None, None)
    return [table[key] for key in result_keys]


def _graph():
    """Branches, a fused chain (tanh -> exp -> negative), a multi-output split, a constant."""
    x, w = mx.sym.var("x"), mx.sym.var("w")
    hidden = mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=6, name="fc")
    chain = mx.sym.negative(mx.sym.exp(mx.sym.tanh(hidden)))
    halves = mx.sym.split(hidden, num_outputs=2, axis=1)
    constant = mx.sym.ones((1, 3)) * 2
    return mx.sym.Group([chain, mx.sym.broadcast_add(halves[0] + halves[1], constant),
                         halves[1]])


def test_program_equals_interpreter_on_a_graph_with_every_kind_of_step():
    rng = np.random.RandomState(0)
    arrays = {"x": rng.rand(4, 5).astype("float32"), "w": rng.rand(6, 5).astype("float32")}
    program, plan, input_keys, result_keys = _lowered(_graph(), arrays)
    assert plan.report.passes["fuse_elementwise"], "the graph should contain a fused chain"
    assert any(value is not None for value in program.template), "one slot is a constant"
    got = program.run(list(arrays.values()))
    wanted = _interpreted(plan, input_keys, result_keys, list(arrays.values()))
    assert len(got) == len(wanted) == 3
    for value, expected in zip(got, wanted):
        np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_program_frees_dead_intermediates_and_lists_its_instructions():
    rng = np.random.RandomState(1)
    arrays = {"x": rng.rand(2, 5).astype("float32"), "w": rng.rand(6, 5).astype("float32")}
    program, _, _, _ = _lowered(_graph(), arrays)
    freed = {slot for _, _, _, _, frees in program.code for slot in frees}
    assert freed, "memory planning should release some intermediate"
    assert not freed & set(range(program.num_inputs)), "inputs belong to the caller"
    text = str(program)
    assert "fc (FullyConnected): slots [0, 1] ->" in text
    assert "then free" in text


def test_program_is_reusable_and_keeps_no_state_between_runs():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    symbol = mx.sym.relu(mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=3))
    arrays = {"x": np.ones((2, 4), "float32"), "w": np.ones((3, 4), "float32")}
    program, _, _, _ = _lowered(symbol, arrays)
    first = program.run([arrays["x"], arrays["w"]])[0].copy()
    second = program.run([-arrays["x"], arrays["w"]])[0]
    np.testing.assert_array_equal(first, np.full((2, 3), 4, "float32"))
    np.testing.assert_array_equal(second, np.zeros((2, 3), "float32"))
    assert all(value is None for value in program.template), "run must not fill the template"


def test_random_graphs_are_not_lowered_and_hybridized_dropout_still_draws():
    x = mx.sym.var("x")
    program_free = mx.sym.Dropout(x, p=0.5)
    entries = program_free._entries
    _, shapes = inference.infer_shapes(entries, {"x": (4, 4)})
    _, dtypes = inference.infer_types(entries, {"x": "float32"})
    assert not can_lower(build_plan(entries, shapes, dtypes, True, np))
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dropout(0.5))
    net.hybridize()
    with mx.autograd.train_mode():
        first, second = net(nd.ones((50, 50))).asnumpy(), net(nd.ones((50, 50))).asnumpy()
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("train", [False, True])
def test_hybridized_batchnorm_updates_running_stats_like_imperative(train):
    """Aux inputs are written in place inside the program, as in the interpreter."""
    results = []
    for hybrid in (False, True):
        mx.random.seed(3)
        net = mx.gluon.nn.HybridSequential()
        net.add(mx.gluon.nn.BatchNorm(in_channels=3))
        net.initialize()
        if hybrid:
            net.hybridize()
        data = nd.array(np.random.RandomState(2).rand(4, 3).astype("float32"))
        if train:
            with mx.autograd.train_mode():
                out = net(data)
        else:
            out = net(data)
        results.append((out.asnumpy(), net[0].running_mean.data().asnumpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)
