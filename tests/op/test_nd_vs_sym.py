"""``nd`` against ``sym`` + Executor for every registry case (generated, as test_registry.py).

For each case the operator is built as a Symbol over Variables named after its
inputs, bound to the case's inputs and run: the forward at inference
(``is_train=False``) must equal the ``nd`` call outside ``autograd.record``;
for cases with a gradient, ``forward(is_train=True)`` + ``backward(head)`` must
equal ``autograd.record`` + ``backward(head)`` on ``nd``, outputs and input
gradients both.  Random operators are compared by shape and dtype only.
"""
import numpy as np
import pytest
from registry_cases import (all_cases, as_list, forward_backward, head_gradient_shapes,
                            make_inputs)

import minimx as mx
from minimx import nd, test_utils

# Operators that cannot be written as a Symbol, and why.
NOT_SYMBOLIC = {
    "_index": "NDArray indexing: its key is a Python object (slices, arrays), not a graph input",
}
CASES = [case for case in all_cases() if case.op.name not in NOT_SYMBOLIC]
CASE_IDS = [case.id for case in CASES]
GRAD_CASES = [case for case in CASES if case.checks_gradient()]


def _context():
    return test_utils.default_context()


def _symbol(case):
    """The case's operator applied to one Variable per input (``<input>`` names)."""
    names = case.input_names()
    variables = [mx.sym.var(f"in{position}_{name}") for position, name in enumerate(names)]
    function = getattr(mx.sym.op, case.op.name)
    if case.op.variadic:
        return function(*variables, name="node", **case.call_params())
    return function(name="node", **dict(zip(names, variables)), **case.call_params())


def _bind(case, inputs, grad_positions=()):
    """An executor over copies of ``inputs``; gradient buffers for ``grad_positions``."""
    symbol = _symbol(case)
    ctx = _context()
    arrays = {f"in{position}_{name}": nd.array(value, ctx=ctx, dtype=value.dtype)
              for position, (name, value) in enumerate(zip(case.input_names(), inputs))}
    names = list(arrays)
    grads = {names[p]: nd.zeros(inputs[p].shape, ctx=ctx, dtype=inputs[p].dtype)
             for p in grad_positions}
    aux_names = symbol.list_auxiliary_states()
    return symbol.bind(ctx, {k: v for k, v in arrays.items() if k not in aux_names},
                       args_grad=grads or None,
                       aux_states={k: arrays[k] for k in aux_names}), grads, names


def _compare(case, actual, expected, what):
    assert len(actual) == len(expected), f"{case.id}: {what}: {len(actual)} vs {len(expected)}"
    for position, (value, wanted) in enumerate(zip(actual, expected)):
        assert value.shape == wanted.shape, (
            f"{case.id}: {what} {position}: sym shape {value.shape}, nd shape {wanted.shape}")
        assert value.dtype == wanted.dtype, (
            f"{case.id}: {what} {position}: sym dtype {value.dtype}, nd dtype {wanted.dtype}")
        if case.hints.random or case.hints.undefined_values:
            continue
        test_utils.assert_almost_equal(value, wanted, rtol=case.hints.rtol, atol=case.hints.atol,
                                       names=(f"sym {what} {position}", "nd"), equal_nan=True)


def test_only_listed_operators_are_skipped():
    assert set(NOT_SYMBOLIC) <= {op.name for op in mx.op.list_ops()}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_inference_forward_matches_nd(case):
    inputs = make_inputs(case)
    mx.random.seed(7)
    ctx = _context()
    expected = as_list(case.function()(*[nd.array(x, ctx=ctx, dtype=x.dtype) for x in inputs],
                                       ctx=ctx, **case.call_params()))
    mx.random.seed(7)
    executor, _, _ = _bind(case, inputs)
    outputs = executor.forward(is_train=False)
    _compare(case, [o.asnumpy() for o in outputs], [o.asnumpy() for o in expected], "output")


@pytest.mark.parametrize("case", GRAD_CASES, ids=[case.id for case in GRAD_CASES])
def test_training_forward_and_backward_match_autograd(case):
    inputs = make_inputs(case)
    heads = [np.random.normal(size=shape).astype(case.dtype)
             for shape in head_gradient_shapes(case)]
    expected_outputs, expected_grads = forward_backward(case, inputs, heads, _context())
    positions = case.grad_inputs()
    executor, grads, names = _bind(case, inputs, positions)
    mx.random.seed(7)
    outputs = executor.forward(is_train=True)
    executor.backward([nd.array(h, ctx=_context(), dtype=o.dtype) for h, o in zip(heads, outputs)])
    _compare(case, [o.asnumpy() for o in outputs], expected_outputs, "training output")
    _compare(case, [grads[names[p]].asnumpy() for p in positions], expected_grads, "gradient")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cached_op_program_matches_nd(case):
    """A hybridized call outside ``record`` runs the lowered ``ForwardProgram``."""
    from minimx.gluon.cached_op import CachedOp
    inputs = make_inputs(case)
    if not inputs:
        pytest.skip("a CachedOp is called with at least one array (creation ops have none)")
    ctx = _context()
    arrays = [nd.array(x, ctx=ctx, dtype=x.dtype) for x in inputs]
    mx.random.seed(7)
    expected = as_list(case.function()(*arrays, ctx=ctx, **case.call_params()))
    symbol = _symbol(case)
    cached = CachedOp(symbol, [f"in{p}_{name}" for p, name in enumerate(case.input_names())])
    mx.random.seed(7)
    outputs = as_list(cached(*[nd.array(x, ctx=ctx, dtype=x.dtype) for x in inputs]))
    (entry,) = cached._plans.values()
    assert (entry.program is None) == bool(case.hints.random or entry.rng_nodes), case.id
    _compare(case, [o.asnumpy() for o in outputs], [o.asnumpy() for o in expected],
             "CachedOp output")
