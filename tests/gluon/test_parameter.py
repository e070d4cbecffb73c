"""Tests of gluon.Parameter, Constant and ParameterDict: initialisation (deferred too),
contexts, gradients, sharing, selection, and .params files shared with MXNet 1.9.1."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import autograd, backend, gluon, nd
from minimx.base import MXNetError

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "fixtures")
sys.path.insert(0, FIXTURES)
import make_gluon_params  # noqa: E402


@pytest.fixture
def two_gpus():
    """mx.gpu(0) and mx.gpu(1) backed by numpy for the test; the previous state afterwards."""
    with backend.stand_in_gpus(2):
        yield [mx.gpu(0), mx.gpu(1)]


def fc_loss(param_w, param_b, ctx=None):
    """Record sum(FullyConnected(ones)) and run backward on ``ctx``."""
    x = nd.ones((2, param_w.shape[1]), ctx=ctx or mx.current_context())
    with autograd.record():
        y = nd.FullyConnected(x, param_w.data(ctx), param_b.data(ctx),
                              num_hidden=param_w.shape[0])
        loss = y.sum()
    loss.backward()


# -- Parameter: creation and initialisation -----------------------------------------------------
def test_parameter_attributes_and_repr():
    param = gluon.Parameter("fc_weight", shape=3, dtype="float16", lr_mult=2.0, wd_mult=0.5)
    assert param.shape == (3,) and param.dtype == "float16"
    assert (param.lr_mult, param.wd_mult, param.grad_req) == (2.0, 0.5, "write")
    assert repr(param) == "Parameter fc_weight (shape=(3,), dtype=float16)"
    assert repr(gluon.Parameter("w")) == \
        "Parameter w (shape=None, dtype=<class 'numpy.float32'>)"


def test_initialize_with_default_uniform_and_zero_grad():
    param = gluon.Parameter("w", shape=(20, 30))
    param.initialize()
    values = param.data().asnumpy()
    assert values.dtype == np.float32 and values.shape == (20, 30)
    assert np.abs(values).max() <= 0.07 and np.abs(values).max() > 0.05
    assert np.all(param.grad().asnumpy() == 0)
    assert param.list_ctx() == [mx.current_context()]       # MXNet: the current context
    assert len(param.list_data()) == 1 and len(param.list_grad()) == 1


def test_init_precedence_argument_then_own_then_default():
    param = gluon.Parameter("w", shape=(2,), init=mx.init.Constant(3))
    param.initialize(default_init=mx.init.One())
    np.testing.assert_array_equal(param.data().asnumpy(), [3, 3])
    param.initialize(init="zeros", force_reinit=True)
    np.testing.assert_array_equal(param.data().asnumpy(), [0, 0])
    param = gluon.Parameter("fc_bias", shape=(2,))
    param.initialize(default_init=mx.init.One())    # own-init path: no suffix rule for bias
    np.testing.assert_array_equal(param.data().asnumpy(), [1, 1])


def test_initialize_twice_warns_and_force_reinit_draws_again():
    param = gluon.Parameter("w", shape=(5,))
    param.initialize()
    first = param.data().asnumpy()
    with pytest.warns(UserWarning, match="'w' is already initialized"):
        param.initialize()
    np.testing.assert_array_equal(param.data().asnumpy(), first)
    param.initialize(force_reinit=True)
    assert not np.array_equal(param.data().asnumpy(), first)


def test_seeded_initialisation_repeats():
    values = []
    for _ in range(2):
        mx.random.seed(42)
        param = gluon.Parameter("w", shape=(3, 4), init=mx.init.Xavier())
        param.initialize()
        values.append(param.data().asnumpy())
    np.testing.assert_array_equal(*values)


def test_unknown_shape_without_deferral_fails_naming_the_parameter():
    with pytest.raises(ValueError, match=r"Parameter 'w'.*invalid shape: \(3, 0\)"):
        gluon.Parameter("w", shape=(3, 0)).initialize()
    with pytest.raises(ValueError, match="invalid shape: None"):
        gluon.Parameter("v").initialize()


def test_reading_before_initialisation_says_what_to_do():
    param = gluon.Parameter("dense0_weight", shape=(2, 2))
    with pytest.raises(MXNetError, match="'dense0_weight' has not been initialized.*collect"):
        param.data()
    with pytest.raises(MXNetError, match="has not been initialized"):
        param.list_ctx()


def test_bad_grad_req_and_stype_are_rejected():
    with pytest.raises(ValueError, match="grad_req must be one of.*'sometimes'"):
        gluon.Parameter("w", grad_req="sometimes")
    with pytest.raises(ValueError, match="stype for Parameter 'w'"):
        gluon.Parameter("w", stype="dense")
    with pytest.raises(AssertionError, match="grad_stype"):       # MXNet asserts it
        gluon.Parameter("w", grad_stype="dense")


# -- deferred initialisation -------------------------------------------------------------------
def test_deferred_initialisation_waits_for_the_shape():
    param = gluon.Parameter("dense0_weight", shape=(4, 0), init=mx.init.One(),
                            allow_deferred_init=True)
    param.initialize(ctx=mx.cpu(0))
    assert param.list_ctx() == [mx.cpu(0)]
    with pytest.raises(gluon.DeferredInitializationError,
                       match="'dense0_weight'.*deferred.*first forward pass"):
        param.data()
    with pytest.raises(MXNetError, match="deferred"):
        param.grad()
    param.shape = (4, 3)
    param._finish_deferred_init()
    np.testing.assert_array_equal(param.data().asnumpy(), np.ones((4, 3)))
    assert param.grad().shape == (4, 3)
    param._finish_deferred_init()          # nothing left to do: a no-op


def test_finishing_with_the_shape_still_unknown_fails():
    param = gluon.Parameter("w", shape=(4, 0), allow_deferred_init=True)
    param.initialize()
    with pytest.raises(ValueError, match="'w'.*invalid shape.*in_units"):
        param._finish_deferred_init()


def test_shape_completion_only_fills_unknown_dimensions():
    param = gluon.Parameter("w", shape=(4, 0))
    with pytest.raises(ValueError, match=r"'w'.*\(5, 3\).*\(4, 0\)"):
        param.shape = (5, 3)
    with pytest.raises(ValueError, match="incompatible"):
        param.shape = (4, 3, 1)
    param.shape = [4, 7]
    assert param.shape == (4, 7)


def test_set_data_during_deferral_becomes_the_initial_value():
    param = gluon.Parameter("w", shape=(0, 2), allow_deferred_init=True)
    param.initialize()
    param.set_data(nd.array([[1, 2], [3, 4], [5, 6]]))
    assert param.shape == (3, 2)
    param._finish_deferred_init()
    np.testing.assert_array_equal(param.data().asnumpy(), [[1, 2], [3, 4], [5, 6]])


def test_set_data_needs_initialisation_or_deferral():
    with pytest.raises(MXNetError, match="'w' has not been initialized"):
        gluon.Parameter("w", shape=(2,)).set_data(nd.ones((2,)))


# -- contexts -------------------------------------------------------------------------------------
def test_one_copy_per_context_and_gradients_per_context(two_gpus):
    weight = gluon.Parameter("w", shape=(3, 2))
    bias = gluon.Parameter("b", shape=(3,), init="zeros")
    for param in (weight, bias):
        param.initialize(ctx=two_gpus)
    assert weight.list_ctx() == two_gpus
    copies = weight.list_data()
    assert [copy.context for copy in copies] == two_gpus
    np.testing.assert_array_equal(copies[0].asnumpy(), copies[1].asnumpy())
    fc_loss(weight, bias, ctx=mx.gpu(1))
    assert np.all(weight.grad(mx.gpu(1)).asnumpy() == 2)
    assert np.all(weight.grad(mx.gpu(0)).asnumpy() == 0)
    assert weight.grad(mx.gpu(0)).context == mx.gpu(0)


def test_data_without_ctx_uses_the_current_context_when_there_are_several(two_gpus):
    param = gluon.Parameter("w", shape=(2,))
    param.initialize(ctx=two_gpus)
    with mx.gpu(1):
        assert param.data().context == mx.gpu(1)
    with mx.cpu(), pytest.raises(MXNetError,
                                 match=r"'w' was not initialized on context cpu\(0\).*gpu"):
        param.data()


def test_reset_ctx_keeps_the_mean_value(two_gpus):
    param = gluon.Parameter("w", shape=(2,), init=mx.init.One())
    param.initialize(ctx=two_gpus)
    param.list_data()[1][:] = 3
    param.reset_ctx(mx.cpu())
    assert param.list_ctx() == [mx.cpu()]
    np.testing.assert_array_equal(param.data().asnumpy(), [2, 2])
    assert param.grad().context == mx.cpu()


def test_reset_ctx_while_deferred_and_before_initialisation(two_gpus):
    param = gluon.Parameter("w", shape=(0,), allow_deferred_init=True)
    param.initialize(ctx=mx.cpu())
    param.reset_ctx(two_gpus)
    param.shape = (3,)
    param._finish_deferred_init()
    assert param.list_ctx() == two_gpus
    with pytest.raises(MXNetError, match="Cannot reset context for Parameter 'v'"):
        gluon.Parameter("v", shape=(1,)).reset_ctx(mx.cpu())


# -- gradients ------------------------------------------------------------------------------------
def test_autograd_writes_the_parameter_gradient():
    weight = gluon.Parameter("w", shape=(3, 2))
    bias = gluon.Parameter("b", shape=(3,))
    weight.initialize()
    bias.initialize()
    fc_loss(weight, bias)
    np.testing.assert_array_equal(weight.grad().asnumpy(), np.full((3, 2), 2.0))
    np.testing.assert_array_equal(bias.grad().asnumpy(), [2, 2, 2])


def test_grad_req_add_accumulates_until_zero_grad():
    weight = gluon.Parameter("w", shape=(1, 2), grad_req="add")
    bias = gluon.Parameter("b", shape=(1,), grad_req="add")
    for param in (weight, bias):
        param.initialize()
    fc_loss(weight, bias)
    fc_loss(weight, bias)
    np.testing.assert_array_equal(bias.grad().asnumpy(), [4])
    bias.zero_grad()
    np.testing.assert_array_equal(bias.grad().asnumpy(), [0])


def test_grad_req_null_drops_the_gradient_and_write_brings_it_back():
    param = gluon.Parameter("w", shape=(2, 3), grad_req="null")
    param.initialize()
    with pytest.raises(MXNetError, match="'w' because grad_req='null'"):
        param.grad()
    with pytest.raises(MXNetError, match="grad_req='null'"):
        param.list_grad()
    param.zero_grad()                            # nothing to clear: no error
    param.grad_req = "write"
    assert np.all(param.grad().asnumpy() == 0)
    param.grad_req = "null"
    with autograd.record():                      # data is detached: not a variable any more
        y = param.data() * 2
    with pytest.raises(MXNetError):
        y.backward()


def test_non_differentiable_parameter_never_has_a_gradient():
    param = gluon.Parameter("w", shape=(2,), differentiable=False)
    param.grad_req = "write"
    assert param.grad_req == "null"


def test_cast_changes_data_and_gradient_and_keeps_them_linked():
    weight = gluon.Parameter("w", shape=(3, 2))
    bias = gluon.Parameter("b", shape=(3,))
    for param in (weight, bias):
        param.initialize()
        param.cast("float64")
    assert weight.dtype == "float64" and weight.data().dtype == np.float64
    assert weight.grad().dtype == np.float64
    x = nd.ones((2, 2), dtype="float64")
    with autograd.record():
        loss = nd.FullyConnected(x, weight.data(), bias.data(), num_hidden=3).sum()
    loss.backward()
    np.testing.assert_array_equal(weight.grad().asnumpy(), np.full((3, 2), 2.0))
    weight.dtype = "float16"
    assert weight.data().dtype == np.float16


# -- var() and Constant ---------------------------------------------------------------------------
def test_var_carries_shape_dtype_multipliers_and_init():
    param = gluon.Parameter("fc_bias", shape=(3, 0), dtype="float64", lr_mult=2.0,
                            init="zeros")
    attrs = param.var().list_attr()
    assert attrs["__shape__"] == "(3, 0)" and attrs["__dtype__"] == "1"
    assert attrs["__lr_mult__"] == "2.0" and attrs["__wd_mult__"] == "1.0"
    assert attrs["__init__"] == "zeros"
    assert param.var().name == "fc_bias" and param.var() is param.var()
    xavier = gluon.Parameter("w", shape=(2, 2), init=mx.init.Xavier(magnitude=2))
    assert mx.init.create(xavier.var().list_attr()["__init__"]) == mx.init.Xavier(magnitude=2)


def test_constant_holds_its_value_and_ignores_gradients():
    const = gluon.Constant("const", [[1, 2], [3, 4]])
    assert repr(const) == "Constant const (shape=(2, 2), dtype=<class 'numpy.float32'>)"
    const.initialize()
    np.testing.assert_array_equal(const.data().asnumpy(), [[1, 2], [3, 4]])
    assert const.grad_req == "null" and const._grad is None
    with pytest.warns(UserWarning, match="does not support grad_req"):
        const.grad_req = "write"
    assert const.grad_req == "null"
    const.set_data(nd.zeros((2, 2)))
    assert np.all(const.data().asnumpy() == 0)


# -- ParameterDict --------------------------------------------------------------------------------
def test_get_creates_with_prefix_and_returns_the_same_object():
    params = gluon.ParameterDict("net_")
    weight = params.get("weight", shape=(2, 3))
    assert weight.name == "net_weight" and params.get("weight") is weight
    assert list(params.keys()) == ["net_weight"] and "net_weight" in params
    assert len(params) == 1 and list(params) == ["net_weight"]
    assert params["net_weight"] is weight and params.prefix == "net_"


def test_get_merges_unknown_dimensions_and_rejects_conflicts():
    params = gluon.ParameterDict("a_")
    params.get("w", shape=(2, 0))
    assert params.get("w", shape=(0, 3)).shape == (2, 3)
    with pytest.raises(ValueError, match=r"'a_w'.*'shape': desired '\(4, 3\)'"):
        params.get("w", shape=(4, 3))
    assert params.get("w", dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="attribute 'dtype'"):
        params.get("w", dtype="float16")
    with pytest.raises(ValueError, match="attribute 'lr_mult'"):
        params.get("w", lr_mult=2.0)
    assert params.get("w", init="ones").init == "ones"       # None before: now set


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=4))
def test_shape_merging_agrees_with_a_dimension_by_dimension_rule(pairs):
    stored = tuple(a for a, _ in pairs)
    wanted = tuple(b for _, b in pairs)
    params = gluon.ParameterDict()
    params.get("w", shape=stored)
    conflict = any(a and b and a != b for a, b in pairs)
    if conflict:
        with pytest.raises(ValueError):
            params.get("w", shape=wanted)
    else:
        assert params.get("w", shape=wanted).shape == tuple(a or b for a, b in pairs)


def test_shared_dict_hands_out_the_same_parameters():
    first = gluon.ParameterDict("net_")
    weight = first.get("weight", shape=(2,))
    second = gluon.ParameterDict("net_", shared=first)
    assert second.get("weight") is weight
    assert second.get("bias", shape=(1,)) is not None and "net_bias" not in first


def test_update_rejects_two_parameters_with_one_name():
    first = gluon.ParameterDict("x_")
    first.get("w", shape=(1,))
    other = gluon.ParameterDict("x_")
    other.get("w", shape=(1,))
    with pytest.raises(ValueError, match="'x_w'"):
        first.update(other)
    merged = gluon.ParameterDict()
    merged.update(first)
    merged.update(first)                                   # the same objects: fine
    assert merged["x_w"] is first["x_w"]


def test_select_matches_regular_expressions_from_the_start():
    params = gluon.ParameterDict("net_")
    for name in ("dense0_weight", "dense0_bias", "dense1_weight", "bn_gamma"):
        params.get(name, shape=(1,))
    assert list(params.select(".*weight")) == ["net_dense0_weight", "net_dense1_weight"]
    assert list(params.select("net_dense0|.*gamma")) == [
        "net_dense0_weight", "net_dense0_bias", "net_bn_gamma"]
    assert list(params.select("weight")) == []              # re.match: anchored at the start
    assert len(params.select(None)) == 4 and params.select(".*").prefix == "net_"
    assert list(gluon.parameter_dict.select_params(dict(params.items()), ".*bias")) == [
        "net_dense0_bias"]


def test_initialize_setattr_zero_grad_and_list_ctx():
    params = gluon.ParameterDict("n_")
    params.get("weight", shape=(2, 2))
    params.get("bias", shape=(2,), init=mx.init.Constant(5))
    params.initialize(mx.init.One())
    np.testing.assert_array_equal(params["n_weight"].data().asnumpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(params["n_bias"].data().asnumpy(), [5, 5])
    params["n_bias"].grad()[:] = 3
    params.zero_grad()
    assert np.all(params["n_bias"].grad().asnumpy() == 0)
    params.setattr("lr_mult", 0.5)
    assert all(p.lr_mult == 0.5 for p in params.values())
    params.setattr("grad_req", "null")
    assert all(p._grad is None for p in params.values())
    assert params.list_ctx() == [mx.current_context()]
    params.initialize(mx.init.Zero(), force_reinit=True)
    assert np.all(params["n_weight"].data().asnumpy() == 0)


def test_initialize_with_mixed_chooses_by_full_name():
    params = gluon.ParameterDict("net_")
    params.get("dense0_weight", shape=(2,))
    params.get("dense1_weight", shape=(2,))
    params.initialize(mx.init.Mixed(["net_dense0", ".*"], [mx.init.Constant(4), mx.init.One()]))
    np.testing.assert_array_equal(params["net_dense0_weight"].data().asnumpy(), [4, 4])
    np.testing.assert_array_equal(params["net_dense1_weight"].data().asnumpy(), [1, 1])


def test_get_constant_creates_finds_and_checks():
    params = gluon.ParameterDict("c_")
    const = params.get_constant("k", [1, 2])
    assert params.get_constant("k") is const and params.get_constant("k", [1, 2]) is const
    with pytest.raises(ValueError, match="doesn't match"):
        params.get_constant("k", [1, 3])
    with pytest.raises(ValueError, match="No constant named 'c_z'"):
        params.get_constant("z")
    params.get("w", shape=(1,))
    with pytest.raises(ValueError, match="not a constant"):
        params.get_constant("w", [1])


def test_repr_lists_each_parameter_like_mxnet():
    params = gluon.ParameterDict("net_")
    params.get("weight", shape=(3, 0))
    params.get_constant("c", [[1, 2], [3, 4]])
    assert repr(params) == (
        "net_ (\n"
        "  Parameter net_weight (shape=(3, 0), dtype=<class 'numpy.float32'>)\n"
        "  Constant net_c (shape=(2, 2), dtype=<class 'numpy.float32'>)\n"
        ")")
    assert repr(gluon.ParameterDict()) == "(\n\n)"


# -- save and load ------------------------------------------------------------------------------
def small_dict(prefix="net_", init=None):
    params = gluon.ParameterDict(prefix)
    params.get("weight", shape=(2, 3))
    params.get("bias", shape=(2,))
    params.initialize(init or mx.init.Uniform())
    return params


def test_save_strips_the_prefix_and_load_restores_it(tmp_path):
    path = str(tmp_path / "net.params")
    saved = small_dict()
    saved.save(path, strip_prefix="net_")
    assert sorted(nd.load(path)) == ["bias", "weight"]
    loaded = small_dict(init=mx.init.Zero())
    loaded.load(path, restore_prefix="net_")
    for name in ("net_weight", "net_bias"):
        np.testing.assert_array_equal(loaded[name].data().asnumpy(),
                                      saved[name].data().asnumpy())
    with pytest.raises(ValueError, match="'other_weight' does not start with 'net_'"):
        small_dict("other_").save(path, strip_prefix="net_")
    with pytest.raises(ValueError, match="restore_prefix is 'x_'"):
        loaded.load(path, restore_prefix="x_")


def test_save_averages_the_copies_of_several_contexts(tmp_path, two_gpus):
    params = gluon.ParameterDict()
    params.get("w", shape=(2,), init=mx.init.One())
    params.initialize(ctx=two_gpus)
    params["w"].list_data()[0][:] = 5
    params.save(str(tmp_path / "p.params"))
    np.testing.assert_array_equal(nd.load(str(tmp_path / "p.params"))["w"].asnumpy(), [3, 3])
    fresh = gluon.ParameterDict()
    fresh.get("w", shape=(2,))
    fresh.load(str(tmp_path / "p.params"), ctx=two_gpus)
    assert fresh["w"].list_ctx() == two_gpus
    np.testing.assert_array_equal(fresh["w"].data(mx.gpu(1)).asnumpy(), [3, 3])


def test_load_names_every_missing_and_every_extra_parameter(tmp_path):
    path = str(tmp_path / "p.params")
    nd.save(path, {"net_weight": nd.ones((2, 3)), "net_gamma": nd.ones((2,)),
                   "net_beta": nd.ones((2,))})
    params = small_dict()
    with pytest.raises(AssertionError, match=r"'net_bias'.*missing in file: .*p\.params.*allow_"):
        params.load(path)
    with pytest.raises(AssertionError, match="'net_gamma', 'net_beta'.*not present.*ignore_extra"):
        params.load(path, allow_missing=True)
    before = params["net_bias"].data().asnumpy()
    params.load(path, allow_missing=True, ignore_extra=True)
    np.testing.assert_array_equal(params["net_weight"].data().asnumpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(params["net_bias"].data().asnumpy(), before)


def test_load_checks_shape_and_dtype(tmp_path):
    path = str(tmp_path / "p.params")
    nd.save(path, {"w": nd.ones((3, 3))})
    params = gluon.ParameterDict()
    params.get("w", shape=(2, 3))
    with pytest.raises(ValueError, match=r"'w'.*expected \(2, 3\) vs saved \(3, 3\)"):
        params.load(path)
    nd.save(path, {"w": nd.ones((2, 3), dtype="float64")})
    with pytest.raises(TypeError, match="'w'.*float32 vs saved float64.*cast_dtype"):
        params.load(path)
    params.load(path, cast_dtype=True)
    assert params["w"].data().dtype == np.float32
    params.load(path, cast_dtype=True, dtype_source="saved")
    assert params["w"].data().dtype == np.float64 and np.dtype(params["w"].dtype) == np.float64


def test_load_completes_a_deferred_parameter(tmp_path):
    path = str(tmp_path / "p.params")
    nd.save(path, {"w": nd.arange(6).reshape((2, 3))})
    params = gluon.ParameterDict()
    params.get("w", shape=(2, 0), allow_deferred_init=True)
    params.initialize()
    params.load(path)
    assert params["w"].shape == (2, 3)
    np.testing.assert_array_equal(params["w"].data().asnumpy(), np.arange(6).reshape(2, 3))
    params["w"]._finish_deferred_init()         # nothing waits any more
    fresh = gluon.ParameterDict()
    fresh.get("w", shape=(2, 0))
    fresh.load(path)                             # never initialised: loads onto cpu
    assert fresh["w"].list_ctx() == [mx.cpu()] and fresh["w"].grad().shape == (2, 3)


def test_load_dict_drops_arg_and_aux_and_refuses_unnamed_files(tmp_path):
    params = gluon.ParameterDict()
    params.get("w", shape=(2,))
    params.get("m", shape=(2,))
    params.load_dict({"arg:w": nd.ones((2,)), "aux:m": nd.zeros((2,))})
    np.testing.assert_array_equal(params["w"].data().asnumpy(), [1, 1])
    path = str(tmp_path / "list.nd")
    nd.save(path, [nd.ones((2,))])
    with pytest.raises(ValueError, match="without names"):
        params.load(path)


def test_loads_a_params_file_written_by_mxnet():
    path = os.path.join(FIXTURES, make_gluon_params.FILE_NAME)
    expected = make_gluon_params.expected()
    params = gluon.ParameterDict("model_")
    for name, value in expected.items():
        params.get(name, shape=(0,) * value.ndim, dtype=value.dtype, allow_deferred_init=True)
    params.initialize()
    params.load(path, restore_prefix="model_")
    for name, value in expected.items():
        data = params["model_" + name].data()
        assert data.dtype == value.dtype
        np.testing.assert_array_equal(data.asnumpy(), value)


MXNET_READ = """
import json, sys, warnings
warnings.simplefilter("ignore")
import mxnet as mx
params = mx.gluon.ParameterDict("net_")
params.get("weight", shape=(2, 3))
params.get("bias", shape=(0,), allow_deferred_init=True, dtype="float64")
params.load(sys.argv[1], restore_prefix="net_")
print(json.dumps({k: v.data().asnumpy().tolist() for k, v in params.items()}))
"""


@pytest.mark.mxnet
def test_minimx_params_file_loads_in_mxnet(mxnet_python, tmp_path):
    path = str(tmp_path / "minimx.params")
    params = gluon.ParameterDict("net_")
    params.get("weight", shape=(2, 3))
    params.get("bias", shape=(2,), dtype="float64")
    params.initialize(mx.init.Normal(1.0))
    params.save(path, strip_prefix="net_")
    done = subprocess.run([mxnet_python, "-c", textwrap.dedent(MXNET_READ), path],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    import json
    read = json.loads(done.stdout.strip().splitlines()[-1])
    for name in ("net_weight", "net_bias"):
        np.testing.assert_array_equal(np.array(read[name]), params[name].data().asnumpy())


def test_no_warnings_from_a_plain_initialisation():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        small_dict()
