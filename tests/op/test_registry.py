"""Tests generated from the operator registry: every op x TestHints case x dtype.

For each case: the forward against its numpy reference (``TestHints.reference``, else
``references.py``; an operator without one fails), ``infer_shape``
and ``infer_type`` against what ``forward`` really returns, the autograd gradient
against float64 central differences (one random direction, one random head
gradient), and NaiveEngine against ThreadedEngine.  For each operator: clear
errors for an unknown parameter and a wrong number of inputs, and a generated
``nd`` function with a docstring, a signature and a name.  Runs on
``test_utils.default_context()`` (``MINIMX_TEST_CTX=gpu`` runs it on gpu(0)).
"""
import inspect

import numpy as np
import pytest
from registry_cases import (all_cases, as_list, forward_backward, forward_backward_nd,
                            head_gradient_shapes, make_inputs, reference_for, reference_output)

import minimx as mx
from minimx import backend, backend_standin, engine, nd, test_utils
from minimx.base import MXNetError
from minimx.op import list_ops

CASES = all_cases()
CASE_IDS = [case.id for case in CASES]
OPS = list_ops()
OP_IDS = [op.name for op in OPS]
# operators a generated case can call (not the control-flow ones, which need a body graph;
# tests/symbol/test_sym_control_flow_mxnet.py tests them)
CASE_OPS = [op for op in OPS if op.test.generated]
CASE_OP_IDS = [op.name for op in CASE_OPS]
RANDOM_CASES = [case for case in CASES if case.hints.random]


def _context():
    return test_utils.default_context()


def _to_nd(inputs):
    return [nd.array(x, ctx=_context(), dtype=x.dtype) for x in inputs]


def _run(case, inputs):
    """The visible outputs of the nd function on ``inputs``, as NDArrays."""
    return as_list(case.function()(*_to_nd(inputs), ctx=_context(), **case.call_params()))


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_forward_matches_reference(case):
    if case.hints.random:
        pytest.skip("random operator: values are checked by determinism, not a reference")
    if reference_for(case) is None:
        pytest.fail(f"{case.op.name} has no numpy reference: give its TestHints a reference, "
                    f"or add one to tests/op/references.py")
    inputs = make_inputs(case)
    outputs = [o.asnumpy() for o in _run(case, inputs)]
    expected = reference_output(case, inputs)
    assert len(outputs) == len(expected), f"{case.id}: output count differs from the reference"
    for position, (actual, wanted) in enumerate(zip(outputs, expected)):
        assert actual.shape == wanted.shape, (
            f"{case.id}: output {position} has shape {actual.shape}, reference {wanted.shape}")
        if case.hints.undefined_values:
            assert actual.dtype == wanted.dtype, (
                f"{case.id}: output {position} has dtype {actual.dtype}, "
                f"reference {wanted.dtype}")
            continue        # the values are unspecified: shape and dtype are the contract
        test_utils.assert_almost_equal(
            actual, wanted.astype(actual.dtype) if actual.dtype.kind != "f" else wanted,
            rtol=case.hints.rtol, atol=case.hints.atol,
            names=(f"{case.op.name} output {position}", "reference"))


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_inferred_shape_and_type_match_forward(case):
    op = case.instance()
    inputs = make_inputs(case)
    ctx = _context()
    xp = backend.get_xp(ctx)
    arrays = [backend.from_numpy(x, ctx) for x in inputs]
    extras = {}
    if "rng" in op.forward_extras:
        extras["rng"] = backend.make_rng(ctx, 0)
    if "is_train" in op.forward_extras:
        extras["is_train"] = True
    with backend.device_scope(ctx):
        result = op.forward(xp, *arrays, **extras)
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    shapes = op.output_shapes(list(case.shapes))
    dtypes = op.output_types([str(x.dtype) for x in inputs])
    assert len(result) == len(op.list_outputs()), (
        f"{case.id}: forward returned {len(result)} arrays for outputs {op.list_outputs()}")
    for name, value, shape, dtype in zip(op.list_outputs(), result, shapes, dtypes):
        assert tuple(value.shape) == tuple(shape), (
            f"{case.id}: output '{name}': infer_shape says {tuple(shape)}, forward gives "
            f"{tuple(value.shape)}")
        assert np.dtype(value.dtype) == np.dtype(dtype), (
            f"{case.id}: output '{name}': infer_type says {np.dtype(dtype).name}, forward "
            f"gives {np.dtype(value.dtype).name}")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_gradient_matches_central_differences(case):
    if not case.checks_gradient():
        pytest.skip("no gradient to check (not differentiable, grad=False, random, "
                    "integer dtype or no differentiable input)")
    function, params = case.function(), case.params
    hints = case.hints
    test_utils.check_numeric_gradient(
        lambda *arrays: function(*arrays, **params), make_inputs(case),
        grad_nodes=case.grad_inputs(), rtol=hints.grad_rtol, atol=hints.grad_atol,
        ctx=_context(), dtype=case.dtype)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_naive_and_threaded_engines_agree(case):
    inputs = make_inputs(case)
    head_grads = [np.random.normal(size=shape) for shape in head_gradient_shapes(case)]
    results = {}
    for name in ("NaiveEngine", "ThreadedEngine"):
        with engine.engine_type(name):
            outputs, grads = forward_backward(case, inputs, head_grads, _context())
            results[name] = outputs + grads
    for position, (naive, threaded) in enumerate(zip(*results.values())):
        np.testing.assert_array_equal(
            naive, threaded, err_msg=f"{case.id}: result {position} differs between engines")


FIRST_CASES = list({case.op: case for case in reversed(CASES)}.values())


@pytest.mark.parametrize("case", FIRST_CASES, ids=[case.id for case in FIRST_CASES])
def test_host_compute_is_declared_exactly(case):
    """On the strict stand-in for CuPy, an operator copies device data to the host (its
    forward or backward) exactly when its declaration says ``host_compute``."""
    head_grads = [np.random.normal(size=shape) for shape in head_gradient_shapes(case)]
    inputs = make_inputs(case)
    with backend.stand_in_gpus(1), engine.engine_type("NaiveEngine"):
        before = backend_standin.host_copies()
        forward_backward_nd(case, inputs, head_grads, mx.gpu(0))
        copies = backend_standin.host_copies() - before
    assert (copies > 0) == case.op.host_compute, (
        f"{case.op.name}: {copies} copies of device arrays to the host, but its declaration "
        f"says host_compute={case.op.host_compute}")


@pytest.mark.parametrize("case", RANDOM_CASES, ids=[case.id for case in RANDOM_CASES])
def test_random_operator_is_deterministic_under_a_seed(case):
    inputs = make_inputs(case)

    def draw(seed):
        mx.random.seed(seed)
        return [o.asnumpy() for o in _run(case, inputs)]

    first, again = draw(11), draw(11)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b, err_msg=f"{case.id}: same seed, different values")
    others = [draw(seed) for seed in (12, 13, 14)]
    assert any(not test_utils.same(a, b) for other in others for a, b in zip(first, other)), (
        f"{case.id}: different seeds give identical values; is the rng used?")


# -- per operator ---------------------------------------------------------------------------------
def _default_case(op_cls):
    return next(case for case in CASES if case.op is op_cls)


@pytest.mark.parametrize("op_cls", CASE_OPS, ids=CASE_OP_IDS)
def test_unknown_parameter_is_rejected_naming_the_op(op_cls):
    """Refused by an operator with parameters; ignored by one without, as MXNet 1.9.1
    (tests/test_unknown_keywords_mxnet.py compares both with MXNet)."""
    case = _default_case(op_cls)
    call = case.function()
    if op_cls.ignores_unknown_params():
        call(*_to_nd(make_inputs(case)), ctx=_context(), not_a_parameter_of_any_op=1,
             **case.params)
        return
    with pytest.raises(MXNetError, match=op_cls.name):
        call(*_to_nd(make_inputs(case)), ctx=_context(), not_a_parameter_of_any_op=1,
             **case.params)


@pytest.mark.parametrize("op_cls", CASE_OPS, ids=CASE_OP_IDS)
def test_wrong_input_count_is_rejected_naming_the_op(op_cls):
    case = _default_case(op_cls)
    arrays = _to_nd(make_inputs(case))
    params = dict(case.params)
    if op_cls.variadic:
        params["num_args"] = len(arrays) + 1
    elif arrays:
        arrays = arrays[:-1]
    else:
        arrays = [nd.ones((2,), ctx=_context())]
    with pytest.raises(MXNetError, match=op_cls.name):
        outputs = as_list(case.function()(*arrays, ctx=_context(), **params))
        for output in outputs:
            output.wait_to_read()


@pytest.mark.parametrize("op_cls", OPS, ids=OP_IDS)
def test_generated_function_is_documented(op_cls):
    assert op_cls.__doc__ and op_cls.__doc__.strip(), f"{op_cls.name} has no docstring"
    for public_name in (op_cls.name, *op_cls.aliases):
        function = getattr(nd.op, public_name)
        assert function.__name__ == public_name
        assert function.__doc__.startswith(inspect.cleandoc(op_cls.__doc__).split("\n")[0])
        signature = inspect.signature(function)
        assert isinstance(function.__signature__, inspect.Signature)
        if not op_cls.variadic:
            for name in op_cls.inputs:
                assert name in signature.parameters, f"{public_name}: no input {name}"
        for name in op_cls.params:
            if not (op_cls.variadic and name == "num_args"):
                assert name in signature.parameters, f"{public_name}: {name} not in {signature}"
        namespace = nd._internal if public_name.startswith("_") else nd
        assert hasattr(namespace, public_name), f"{public_name} is not in {namespace.__name__}"


def test_every_operator_has_at_least_one_case():
    assert {case.op for case in CASES} == set(CASE_OPS)
    # tested by hand: the control-flow operators (they need a body graph) and
    # reset_arrays (no output to compare: tests/op/test_reset_arrays.py)
    assert {op.name for op in OPS if op not in CASE_OPS} == {"_foreach", "_while_loop",
                                                               "_cond", "reset_arrays"}
