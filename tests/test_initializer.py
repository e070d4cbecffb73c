"""Tests of mx.init: registry and JSON, suffix dispatch, value statistics, MXNet peers."""
import json
import subprocess
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import nd
from minimx.base import MXNetError

INIT_NAMES = {"zero": "Zero", "zeros": "Zero", "one": "One", "ones": "One",
              "uniform": "Uniform", "normal": "Normal", "xavier": "Xavier",
              "msraprelu": "MSRAPrelu", "orthogonal": "Orthogonal", "bilinear": "Bilinear",
              "lstmbias": "LSTMBias"}


def filled(init, name, shape, attrs=None):
    """``init`` applied to a fresh float32 array described as ``name``."""
    arr = nd.zeros(shape)
    init(mx.init.InitDesc(name, attrs), arr)
    return arr.asnumpy()


# -- registry and JSON ----------------------------------------------------------------------
@pytest.mark.parametrize("name, class_name", sorted(INIT_NAMES.items()))
def test_create_by_name_and_alias(name, class_name):
    assert type(mx.init.create(name)).__name__ == class_name
    assert type(mx.initializer.create(name.upper())).__name__ == class_name


def test_create_passes_instances_and_kwargs_through():
    xavier = mx.init.Xavier()
    assert mx.init.create(xavier) is xavier
    assert mx.init.create("xavier", magnitude=2).magnitude == 2.0
    assert mx.init.create("constant", 0.5).value == 0.5


def test_create_unknown_name_lists_the_registered_ones():
    with pytest.raises(MXNetError, match="unknown initializer 'nosuch'.*xavier"):
        mx.init.create("nosuch")


@pytest.mark.parametrize("init", [
    mx.init.Zero(), mx.init.One(), mx.init.Constant(2.5), mx.init.Uniform(0.3),
    mx.init.Normal(0.2), mx.init.Xavier("gaussian", "in", 2.34), mx.init.MSRAPrelu("out", 0.1),
    mx.init.Orthogonal(0.9, "normal"), mx.init.Bilinear(), mx.init.LSTMBias(2.0)])
def test_dumps_then_create_gives_an_equal_initializer(init):
    text = init.dumps()
    name, kwargs = json.loads(text)
    assert name == type(init).__name__.lower()
    again = mx.init.create(text)
    assert again == init and type(again) is type(init)
    assert isinstance(kwargs, dict)


def test_dumps_of_xavier_keeps_mxnets_key_order():
    assert mx.init.Xavier(factor_type="in", magnitude=2.34).dumps() == \
        '["xavier", {"rnd_type": "uniform", "factor_type": "in", "magnitude": 2.34}]'
    assert mx.init.MSRAPrelu().dumps() == '["msraprelu", {"factor_type": "avg", "slope": 0.25}]'


def test_constant_with_an_array_value_dumps_a_list():
    value = nd.array([[1, 2], [3, 4]])
    again = mx.init.create(mx.init.Constant(value).dumps())
    np.testing.assert_array_equal(filled(again, "c_weight", (2, 2)), value.asnumpy())


def test_constant_dumps_keeps_the_list_in_its_arguments():
    """As MXNet's: after ``dumps`` the keyword arguments hold the list, so they are JSON
    themselves (MXNet's test_init::test_const_init_dumps compares the two), and the
    initializer still fills from the array it was given."""
    for value in (nd.ones((2, 3)), np.ones((2, 3))):
        init = mx.init.Constant(value)
        text = init.dumps()
        assert text == json.dumps(["constant", init._kwargs])
        assert init._kwargs["value"] == [[1.0] * 3] * 2
        np.testing.assert_array_equal(filled(init, "c_weight", (2, 3)), np.ones((2, 3)))
    assert mx.init.Constant(1).dumps() == '["constant", {"value": 1}]'


def test_register_a_custom_initializer():
    @mx.init.register
    @mx.init.alias("sevens")
    class Sevens(mx.init.Initializer):
        def _init_weight(self, _, arr):
            arr[:] = 7

    assert isinstance(mx.init.create("sevens"), Sevens)
    np.testing.assert_array_equal(filled(mx.init.create("Sevens"), "a_weight", (2,)), [7, 7])


def test_register_rejects_a_class_that_is_not_an_initializer():
    with pytest.raises(MXNetError, match="Initializer"):
        mx.init.register(dict)


# -- which fill a name gets ---------------------------------------------------------------------
@pytest.mark.parametrize("name, expected", [
    ("fc_bias", 0.0), ("bn_gamma", 1.0), ("bn_beta", 0.0), ("q_min", 0.0), ("q_max", 1.0)])
def test_suffix_rules_for_init_desc(name, expected):
    np.testing.assert_array_equal(filled(mx.init.Uniform(5.0), name, (3,)), [expected] * 3)


def test_weight_suffix_uses_the_initializer_itself():
    values = filled(mx.init.Uniform(5.0), "fc_weight", (50,))
    assert np.all(np.abs(values) <= 5.0) and np.abs(values).max() > 1.0


def test_unknown_suffix_asks_for_an_explicit_initializer():
    with pytest.raises(ValueError, match="bn_moving_var.*init"):
        filled(mx.init.Uniform(), "bn_moving_var", (3,))


def test_own_init_attribute_overrides_the_suffix():
    values = filled(mx.init.Zero(), "bn_moving_var", (3,), {"__init__": "ones"})
    np.testing.assert_array_equal(values, [1, 1, 1])
    values = filled(mx.init.Zero(), "fc_bias", (2,), {"__init__": mx.init.Constant(3).dumps()})
    np.testing.assert_array_equal(values, [3, 3])


def test_desc_records_the_global_initializer():
    init = mx.init.One()
    desc = mx.init.InitDesc("x_weight")
    init(desc, nd.zeros((1,)))
    assert desc.global_init is init and desc == "x_weight" and desc.attrs == {}


@pytest.mark.parametrize("name, expected", [
    ("bn_moving_mean", 0.0), ("bn_moving_var", 1.0), ("bn_moving_inv_var", 0.0),
    ("avg_moving_avg", 0.0), ("fc_bias", 0.0), ("bn_gamma", 1.0)])
def test_legacy_string_names_follow_the_longer_rule_list(name, expected):
    arr = nd.zeros((2,))
    with pytest.warns(DeprecationWarning):
        mx.init.Uniform()(name, arr)
    np.testing.assert_array_equal(arr.asnumpy(), [expected] * 2)


def test_legacy_upsampling_name_gets_the_bilinear_kernel():
    arr = nd.zeros((1, 1, 4, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        mx.init.Zero()("upsampling0_weight", arr)
    np.testing.assert_allclose(arr.asnumpy(), reference_bilinear((1, 1, 4, 4)))


# -- known values -------------------------------------------------------------------------------
def reference_bilinear(shape):
    """MXNet's definition, element by element over the flat index."""
    weight = np.zeros(int(np.prod(shape)), dtype=np.float32)
    factor = np.ceil(shape[3] / 2.0)
    centre = (2 * factor - 1 - factor % 2) / (2.0 * factor)
    for index in range(weight.size):
        x = index % shape[3]
        y = (index // shape[3]) % shape[2]
        weight[index] = (1 - abs(x / factor - centre)) * (1 - abs(y / factor - centre))
    return weight.reshape(shape)


@pytest.mark.parametrize("shape", [(1, 1, 4, 4), (2, 3, 3, 5), (1, 2, 6, 3), (1, 1, 1, 1)])
def test_bilinear_matches_the_elementwise_definition(shape):
    np.testing.assert_allclose(filled(mx.init.Bilinear(), "up_weight", shape),
                               reference_bilinear(shape), rtol=1e-6)


def test_zero_one_constant_and_lstm_bias():
    assert np.all(filled(mx.init.Zero(), "a_weight", (2, 3)) == 0)
    assert np.all(filled(mx.init.One(), "a_weight", (2, 3)) == 1)
    assert np.all(filled(mx.init.Constant(-1.5), "a_weight", (2, 3)) == -1.5)
    np.testing.assert_array_equal(filled(mx.init.Constant([[1, 2]]), "a_weight", (1, 2)),
                                  [[1, 2]])
    values = filled(mx.init.LSTMBias(2.0), "lstm_i2h_bias", (8,), {"__init__": "lstmbias"})
    np.testing.assert_array_equal(values, [0, 0, 1, 1, 0, 0, 0, 0])   # default forget_bias
    values = filled(mx.init.Zero(), "l_bias", (8,), {"__init__": mx.init.LSTMBias(2.0)})
    np.testing.assert_array_equal(values, [0, 0, 2, 2, 0, 0, 0, 0])


# -- random fills: statistics -------------------------------------------------------------------
def test_uniform_and_normal_statistics():
    values = filled(mx.init.Uniform(0.5), "w_weight", (200, 100))
    assert values.min() >= -0.5 and values.max() <= 0.5
    assert abs(values.mean()) < 0.01 and abs(values.std() - 0.5 / np.sqrt(3)) < 0.01
    values = filled(mx.init.Normal(0.3), "w_weight", (200, 100))
    assert abs(values.mean()) < 0.01 and abs(values.std() - 0.3) < 0.01


def xavier_scale(shape, factor_type, magnitude):
    kernel = np.prod(shape[2:]) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * kernel, shape[0] * kernel
    factor = {"avg": (fan_in + fan_out) / 2, "in": fan_in, "out": fan_out}[factor_type]
    return np.sqrt(magnitude / factor)


@pytest.mark.parametrize("factor_type", ["avg", "in", "out"])
@pytest.mark.parametrize("shape", [(64, 200), (32, 8, 3, 3)])
def test_xavier_uniform_bound_and_gaussian_deviation(factor_type, shape):
    scale = xavier_scale(shape, factor_type, 3.0)
    values = filled(mx.init.Xavier("uniform", factor_type, 3), "w_weight", shape)
    assert np.abs(values).max() <= scale * (1 + 1e-6)
    assert np.abs(values).max() > 0.95 * scale
    assert abs(values.var() - scale ** 2 / 3) < 0.08 * scale ** 2 / 3
    values = filled(mx.init.Xavier("gaussian", factor_type, 2.0), "w_weight", shape)
    expected = xavier_scale(shape, factor_type, 2.0)
    assert abs(values.std() - expected) < 0.05 * expected


@pytest.mark.parametrize("slope", [0.0, 0.25, 1.0])
def test_msra_prelu_is_gaussian_with_he_magnitude(slope):
    shape = (128, 64)
    values = filled(mx.init.MSRAPrelu("in", slope), "w_weight", shape)
    expected = xavier_scale(shape, "in", 2.0 / (1 + slope ** 2))
    assert abs(values.std() - expected) < 0.05 * expected


def test_xavier_rejects_vectors_and_bad_options():
    with pytest.raises(ValueError, match="vector v_weight"):
        filled(mx.init.Xavier(), "v_weight", (3,))
    with pytest.raises(ValueError, match="factor type"):
        filled(mx.init.Xavier(factor_type="both"), "v_weight", (3, 3))
    with pytest.raises(ValueError, match="random type"):
        filled(mx.init.Xavier(rnd_type="cauchy"), "v_weight", (3, 3))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 2, 2), (4, 4)])
@pytest.mark.parametrize("rand_type", ["uniform", "normal"])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, rand_type):
    values = filled(mx.init.Orthogonal(2.0, rand_type), "w_weight", shape)
    matrix = values.reshape(shape[0], -1) / 2.0
    gram = matrix @ matrix.T if matrix.shape[0] <= matrix.shape[1] else matrix.T @ matrix
    np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-5)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1),
       init=st.sampled_from([mx.init.Uniform(), mx.init.Normal(), mx.init.Xavier(),
                             mx.init.MSRAPrelu(), mx.init.Orthogonal()]))
def test_random_fills_repeat_after_the_same_seed(seed, init):
    mx.random.seed(seed)
    first = filled(init, "w_weight", (4, 6))
    mx.random.seed(seed)
    np.testing.assert_array_equal(filled(init, "w_weight", (4, 6)), first)
    assert not np.array_equal(filled(init, "w_weight", (4, 6)), first)


# -- Mixed and Load ------------------------------------------------------------------------------
def test_mixed_uses_the_first_matching_pattern():
    init = mx.init.Mixed([".*bias", ".*"], [mx.init.Constant(2), mx.init.One()])
    np.testing.assert_array_equal(filled(init, "fc_weight", (2,)), [1, 1])
    # the chosen initializer still applies its own suffix rule (Constant on a bias: zero)
    np.testing.assert_array_equal(filled(init, "fc_bias", (2,)), [0, 0])
    init = mx.init.Mixed(["fc1_", "fc2_"], ["zeros", mx.init.Constant(5)])
    np.testing.assert_array_equal(filled(init, "fc2_weight", (2,)), [5, 5])


def test_mixed_without_a_match_says_which_patterns_it_has():
    init = mx.init.Mixed(["conv.*"], [mx.init.Zero()])
    with pytest.raises(ValueError, match="fc_weight.*conv"):
        filled(init, "fc_weight", (2,))
    with pytest.raises(ValueError, match="2 patterns but 1"):
        mx.init.Mixed(["a", "b"], [mx.init.Zero()])


def test_mixed_as_global_initializer_honours_an_own_init():
    init = mx.init.Mixed([".*"], [mx.init.Zero()])
    np.testing.assert_array_equal(filled(init, "x_weight", (2,), {"__init__": "ones"}), [1, 1])


def test_load_copies_by_name_and_falls_back_to_default(tmp_path):
    saved = {"arg:fc_weight": nd.array([[1, 2]]), "aux:bn_moving_var": nd.array([3, 4])}
    for source in (saved, str(tmp_path / "p.nd")):
        nd.save(str(tmp_path / "p.nd"), saved)
        init = mx.init.Load(source, default_init=mx.init.One())
        np.testing.assert_array_equal(filled(init, "fc_weight", (1, 2)), [[1, 2]])
        np.testing.assert_array_equal(filled(init, "bn_moving_var", (2,)), [3, 4])
        np.testing.assert_array_equal(filled(init, "other_weight", (2,)), [1, 1])


def test_load_errors_name_the_parameter():
    init = mx.init.Load({"fc_weight": nd.ones((2, 2))})
    with pytest.raises(ValueError, match=r"fc_weight.*\(1, 2\).*\(2, 2\)"):
        filled(init, "fc_weight", (1, 2))
    with pytest.raises(ValueError, match="Cannot initialize x_weight"):
        filled(init, "x_weight", (1, 2))


def test_verbose_initializer_logs_each_array(caplog):
    init = mx.init.One().set_verbosity(True)
    with caplog.at_level("INFO"):
        filled(init, "fc_weight", (4,))
    assert "Initialized fc_weight as weight: 1.0" in caplog.text


# -- peer: MXNet 1.9.1 --------------------------------------------------------------------------
MXNET_SCRIPT = """
import json, sys, warnings
warnings.simplefilter("ignore")
import mxnet as mx
inits = [mx.init.Zero(), mx.init.One(), mx.init.Constant(2.5), mx.init.Uniform(0.3),
         mx.init.Normal(), mx.init.Xavier("gaussian", "in", 2.34), mx.init.MSRAPrelu("out"),
         mx.init.Orthogonal(), mx.init.Bilinear(), mx.init.LSTMBias(2.0)]
values = {}
for name, shape in (("up_weight", (2, 1, 3, 4)), ("x_bias", (3,)), ("x_gamma", (2,))):
    arr = mx.nd.zeros(shape)
    mx.init.Bilinear()(mx.init.InitDesc(name), arr)
    values[name] = arr.asnumpy().tolist()
arr = mx.nd.zeros((8,))
mx.init.Zero()(mx.init.InitDesc("l_bias", {"__init__": mx.init.LSTMBias(2.0).dumps()}), arr)
values["lstm"] = arr.asnumpy().tolist()
print(json.dumps({"dumps": [i.dumps() for i in inits], "values": values}))
"""


def test_dumps_and_fixed_values_match_mxnet(mxnet_python):
    done = subprocess.run([mxnet_python, "-c", MXNET_SCRIPT], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    reference = json.loads(done.stdout.strip().splitlines()[-1])
    inits = [mx.init.Zero(), mx.init.One(), mx.init.Constant(2.5), mx.init.Uniform(0.3),
             mx.init.Normal(), mx.init.Xavier("gaussian", "in", 2.34), mx.init.MSRAPrelu("out"),
             mx.init.Orthogonal(), mx.init.Bilinear(), mx.init.LSTMBias(2.0)]
    assert [init.dumps() for init in inits] == reference["dumps"]
    for name, shape in (("up_weight", (2, 1, 3, 4)), ("x_bias", (3,)), ("x_gamma", (2,))):
        np.testing.assert_allclose(filled(mx.init.Bilinear(), name, shape),
                                   reference["values"][name], rtol=1e-6)
    lstm = filled(mx.init.Zero(), "l_bias", (8,), {"__init__": mx.init.LSTMBias(2.0).dumps()})
    np.testing.assert_array_equal(lstm, reference["values"]["lstm"])
