"""``nd.random`` / ``mx.random``: MXNet's signatures, defaults, and reproducible seeding."""
import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import engine as mx_engine
from minimx import nd
from minimx.base import InvalidParameterError

SAMPLERS = ["uniform", "normal", "randint", "exponential", "gamma", "poisson",
            "negative_binomial", "generalized_negative_binomial"]


def test_signatures_follow_mxnet():
    def names(function):
        return [p for p in inspect.signature(function).parameters if p != "kwargs"]

    R = nd.random
    assert names(R.uniform) == ["low", "high", "shape", "dtype", "ctx", "out"]
    assert names(R.normal) == ["loc", "scale", "shape", "dtype", "ctx", "out"]
    assert names(R.randint) == ["low", "high", "shape", "dtype", "ctx", "out"]
    assert names(R.exponential) == ["scale", "shape", "dtype", "ctx", "out"]
    assert names(R.gamma) == ["alpha", "beta", "shape", "dtype", "ctx", "out"]
    assert names(R.poisson) == ["lam", "shape", "dtype", "ctx", "out"]
    assert names(R.negative_binomial) == ["k", "p", "shape", "dtype", "ctx", "out"]
    assert names(R.multinomial) == ["data", "shape", "get_prob", "out", "dtype"]
    assert inspect.signature(R.multinomial).parameters["dtype"].default == "int32"
    assert inspect.signature(R.uniform).parameters["high"].default == 1


def test_mx_random_exposes_the_same_samplers():
    for name in SAMPLERS + ["randn", "multinomial", "shuffle"]:
        assert getattr(mx.random, name) is getattr(nd.random, name), name
    assert nd.random.uniform_like(nd.zeros((2, 2))).shape == (2, 2)


@pytest.mark.parametrize("name", [n for n in SAMPLERS if n != "randint"])
def test_default_shape_is_one_sample_of_float32(name):
    out = getattr(nd.random, name)()
    assert out.shape == (1,) and out.dtype == np.float32


@pytest.mark.parametrize("shape, expected", [(3, (3,)), ((2, 3), (2, 3)), ([4], (4,))])
def test_shape_may_be_an_int_or_a_tuple(shape, expected):
    assert nd.random.uniform(shape=shape).shape == expected
    assert nd.random.randint(0, 4, shape=shape).shape == expected


def test_dtype_ctx_and_out():
    assert nd.random.normal(0, 1, (2,), dtype="float64").dtype == np.float64
    assert nd.random.randint(0, 3, 2).dtype == np.int32
    assert nd.random.randint(0, 3, 2, dtype="int64").dtype == np.int64
    assert nd.random.uniform(shape=2, ctx=mx.cpu(1)).context == mx.cpu(1)
    with mx.cpu(2):
        assert nd.random.normal(shape=2).context == mx.cpu(2)
    target = nd.zeros((2, 2), dtype="float64")
    result = nd.random.uniform(5, 6, out=target)
    assert result is target and target.dtype == np.float64
    values = target.asnumpy()
    assert ((values >= 5) & (values <= 6)).all()


def test_randn_takes_the_shape_as_arguments():
    assert nd.random.randn(2, 3).shape == (2, 3)
    values = nd.random.randn(4000, loc=10, scale=0.1).asnumpy()
    assert abs(values.mean() - 10) < 0.02 and abs(values.std() - 0.1) < 0.01


def test_exponential_takes_the_scale_not_the_rate():
    values = nd.random.exponential(scale=4.0, shape=20000).asnumpy()
    assert abs(values.mean() - 4.0) < 0.2


def test_ndarray_parameters_sample_one_distribution_per_element():
    low, high = nd.array([0.0, 10.0]), nd.array([1.0, 11.0])
    out = nd.random.uniform(low, high, shape=50).asnumpy()
    assert out.shape == (2, 50)
    assert (out[0] >= 0).all() and (out[0] <= 1).all() and (out[1] >= 10).all()
    assert nd.random.uniform(low, high).shape == (2,)
    assert nd.random.normal(nd.zeros((2, 2)), nd.ones((2, 2)), shape=3).shape == (2, 2, 3)
    assert nd.random.exponential(nd.array([2.0]), shape=4).shape == (1, 4)
    assert nd.random.poisson(nd.array([2.0, 3.0])).shape == (2,)


def test_mixing_numbers_and_ndarrays_is_an_error():
    with pytest.raises(InvalidParameterError, match="all numbers or all NDArrays"):
        nd.random.uniform(nd.zeros((2,)), 1)


def test_multinomial_and_shuffle_wrappers():
    probs = nd.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(nd.random.multinomial(probs, shape=3).asnumpy(),
                                  [[1, 1, 1], [0, 0, 0]])
    out, logp = nd.random.multinomial(probs, get_prob=True)
    np.testing.assert_array_equal(logp.asnumpy(), [0.0, 0.0])
    assert sorted(nd.random.shuffle(nd.arange(5)).asnumpy().tolist()) == [0, 1, 2, 3, 4]


# -- seeding --------------------------------------------------------------------------------------
def _draw_sequence():
    """Several samplers pushed back to back, then read."""
    arrays = [nd.random.uniform(shape=5), nd.random.normal(shape=(2, 2)),
              nd.random.randint(0, 100, shape=4), nd.random.shuffle(nd.arange(6)),
              nd.random.multinomial(nd.array([0.3, 0.7]), shape=4)]
    return [a.asnumpy() for a in arrays]


def _same(first, second):
    return all(np.array_equal(a, b) for a, b in zip(first, second))


def test_the_same_seed_repeats_the_numbers(engine):
    mx.random.seed(42)
    first = _draw_sequence()
    mx.random.seed(42)
    assert _same(first, _draw_sequence())
    mx.random.seed(43)
    assert not _same(first, _draw_sequence())


def test_naive_and_threaded_engines_give_the_same_numbers():
    results = {}
    for name in ("NaiveEngine", "ThreadedEngine"):
        with mx_engine.engine_type(name):
            mx.random.seed(7)
            results[name] = _draw_sequence()
    assert _same(results["NaiveEngine"], results["ThreadedEngine"])


def test_seeds_are_taken_at_push_time_not_run_time():
    with mx_engine.engine_type("ThreadedEngine"):
        mx.random.seed(5)
        pending = [nd.random.normal(shape=100) for _ in range(8)]
        mx.random.seed(5)             # reseeding while the first batch may still be queued
        again = [nd.random.normal(shape=100) for _ in range(8)]
        for a, b in zip(pending, again):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_seeding_one_context_leaves_the_others_alone():
    mx.random.seed(11)
    on_cpu0 = nd.random.uniform(shape=4, ctx=mx.cpu(0)).asnumpy()
    on_cpu1 = nd.random.uniform(shape=4, ctx=mx.cpu(1)).asnumpy()
    next_on_cpu1 = nd.random.uniform(shape=4, ctx=mx.cpu(1)).asnumpy()

    mx.random.seed(11)
    nd.random.uniform(shape=4, ctx=mx.cpu(0))
    nd.random.uniform(shape=4, ctx=mx.cpu(1))
    mx.random.seed(11, ctx=mx.cpu(0))
    np.testing.assert_array_equal(nd.random.uniform(shape=4, ctx=mx.cpu(0)).asnumpy(), on_cpu0)
    # cpu(1) was not reseeded: it continues its own sequence
    np.testing.assert_array_equal(nd.random.uniform(shape=4, ctx=mx.cpu(1)).asnumpy(),
                                  next_on_cpu1)
    assert not np.array_equal(on_cpu1, next_on_cpu1)


def test_seed_validation_and_any_int_is_accepted():
    for bad in (1.5, "1", None):
        with pytest.raises(ValueError, match="seed_state"):
            mx.random.seed(bad)
    with pytest.raises(ValueError, match="ctx"):
        mx.random.seed(1, ctx="cpu")
    for value in (-1, 0, 2**40, np.int64(3)):
        mx.random.seed(value)
        first = nd.random.uniform(shape=3).asnumpy()
        mx.random.seed(value)
        np.testing.assert_array_equal(nd.random.uniform(shape=3).asnumpy(), first)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(-2**31, 2**31), shape=st.lists(st.integers(1, 4), min_size=1,
                                                        max_size=3).map(tuple),
       name=st.sampled_from(SAMPLERS))
def test_any_seed_and_shape_reproduce(seed, shape, name):
    sampler = getattr(nd.random, name)
    args = (0, 10) if name == "randint" else ()
    mx.random.seed(seed)
    first = sampler(*args, shape=shape).asnumpy()
    mx.random.seed(seed)
    second = sampler(*args, shape=shape).asnumpy()
    assert first.shape == shape
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("name", ["uniform", "normal"])
def test_out_decides_the_context_when_ctx_is_not_given(name):
    # as in MXNet: `with ctx:` sets the default, but out= says where the samples go (Gluon's
    # deferred initialisation fills a cpu array while the forward runs under the data's context)
    out = nd.zeros((2, 3), ctx=mx.cpu(0))
    with mx.cpu(1):
        result = getattr(nd.random, name)(shape=(2, 3), out=out)
    assert result is out and result.context == mx.cpu(0)
    assert np.unique(out.asnumpy()).size > 1
