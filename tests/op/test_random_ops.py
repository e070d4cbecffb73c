"""Random operators (minimx/op/random.py): distributions, parameters, multinomial, shuffle.

Statistics use enough samples that the checked bounds sit many standard errors
away from the true values, so a correct sampler fails them with negligible
probability while a wrong formula (scale for rate, variance for deviation)
fails them for certain.
"""
import numpy as np
import pytest

from minimx import autograd, nd
from minimx.base import InvalidParameterError, InvalidShapeError, InvalidTypeError
from minimx.ndarray.register import call
from minimx.op import get_op

N = 20000


def _check_moments(values, mean, var, name):
    values = np.asarray(values, dtype=np.float64).ravel()
    n = values.size
    assert abs(values.mean() - mean) < 6 * np.sqrt(var / n) + 1e-9, (
        f"{name}: mean {values.mean()}, expected {mean}")
    assert abs(values.var() - var) < 0.1 * var, f"{name}: variance {values.var()}, expected {var}"


# op name, parameters, mean, variance
DISTRIBUTIONS = [
    ("_random_uniform", {"low": -1.0, "high": 3.0}, 1.0, 16 / 12),
    ("_random_normal", {"loc": 2.0, "scale": 0.5}, 2.0, 0.25),
    ("_random_gamma", {"alpha": 2.0, "beta": 3.0}, 6.0, 18.0),
    ("_random_exponential", {"lam": 2.0}, 0.5, 0.25),
    ("_random_poisson", {"lam": 3.0}, 3.0, 3.0),
    ("_random_negative_binomial", {"k": 3, "p": 0.4}, 4.5, 11.25),
    ("_random_generalized_negative_binomial", {"mu": 2.0, "alpha": 0.5}, 2.0, 4.0),
    ("_random_generalized_negative_binomial", {"mu": 2.0, "alpha": 0.0}, 2.0, 2.0),
    ("_random_randint", {"low": -3, "high": 5}, 0.5, 63 / 12),
]


@pytest.mark.parametrize("name, params, mean, var", DISTRIBUTIONS,
                         ids=[f"{d[0]}-{i}" for i, d in enumerate(DISTRIBUTIONS)])
def test_samples_have_the_distribution_moments(name, params, mean, var):
    values = call(name, shape=(N,), **params).asnumpy()
    assert values.shape == (N,)
    _check_moments(values, mean, var, name)


@pytest.mark.parametrize("name, params", [
    ("_random_poisson", {"lam": 2.5}), ("_random_negative_binomial", {"k": 2, "p": 0.3}),
    ("_random_generalized_negative_binomial", {"mu": 3.0, "alpha": 0.2})])
def test_count_distributions_give_non_negative_whole_numbers(name, params):
    values = call(name, shape=(500,), **params).asnumpy()
    assert values.dtype == np.float32
    assert (values >= 0).all() and (values == np.round(values)).all()


def test_uniform_and_randint_stay_in_bounds():
    u = call("_random_uniform", low=-2.0, high=-1.5, shape=(4000,)).asnumpy()
    assert u.min() >= -2.0 and u.max() <= -1.5
    r = call("_random_randint", low=-2, high=3, shape=(4000,)).asnumpy()
    assert r.dtype == np.int32
    assert sorted(set(r.tolist())) == [-2, -1, 0, 1, 2]


def test_randint_int64_reaches_beyond_int32():
    r = call("_random_randint", low=2**40, high=2**40 + 3, shape=(50,), dtype="int64")
    values = r.asnumpy()
    assert values.dtype == np.int64 and values.min() >= 2**40 and values.max() < 2**40 + 3


@pytest.mark.parametrize("name", ["_random_uniform", "_random_normal", "_random_gamma",
                                  "_random_exponential", "_random_poisson",
                                  "_random_negative_binomial",
                                  "_random_generalized_negative_binomial"])
def test_float_samplers_default_to_float32_and_accept_other_floats(name):
    assert call(name, shape=(2, 3)).dtype == np.float32
    for dtype in ("float16", "float64"):
        out = call(name, shape=(3,), dtype=dtype)
        assert out.dtype == np.dtype(dtype) and out.shape == (3,)
    with pytest.raises(InvalidParameterError, match=name):
        call(name, shape=(3,), dtype="int32")


def test_randint_rejects_float_dtype():
    with pytest.raises(InvalidParameterError, match="int32, int64"):
        call("_random_randint", low=0, high=3, shape=(2,), dtype="float32")


@pytest.mark.parametrize("name, params, message", [
    ("_random_uniform", {"low": 1.0, "high": 0.0}, "low must be <= high"),
    ("_random_normal", {"scale": 0.0}, "scale must be positive"),
    ("_random_gamma", {"alpha": -1.0}, "alpha must be positive"),
    ("_random_gamma", {"beta": 0.0}, "beta must be positive"),
    ("_random_exponential", {"lam": 0.0}, "lam must be positive"),
    ("_random_poisson", {"lam": -1.0}, "lam must be non-negative"),
    ("_random_negative_binomial", {"k": -1}, "k must be non-negative"),
    ("_random_negative_binomial", {"p": 0.0}, "p must be in"),
    ("_random_generalized_negative_binomial", {"alpha": -0.5}, "alpha must be non-negative"),
    ("_random_randint", {"low": 5, "high": 5}, "high must be > low"),
])
def test_invalid_distribution_parameters_raise_naming_the_operator(name, params, message):
    # as MXNet: the kernel checks the values, so the error comes at the sync point
    drawn = call(name, shape=(2,), **params)
    with pytest.raises(InvalidParameterError, match=message) as error:
        drawn.asnumpy()
    assert name in str(error.value)


def test_degenerate_parameters_give_constant_samples():
    assert (call("_random_uniform", low=2.0, high=2.0, shape=(5,)).asnumpy() == 2).all()
    assert (call("_random_poisson", lam=0.0, shape=(5,)).asnumpy() == 0).all()
    assert (call("_random_negative_binomial", k=3, p=1.0, shape=(5,)).asnumpy() == 0).all()


def test_random_operators_are_declared_non_differentiable_and_random():
    for name in ("_random_uniform", "_random_normal", "_random_randint", "_shuffle",
                 "_random_uniform_like", "_sample_normal"):
        op = get_op(name)
        assert op.differentiable is False and op.test.random and not op.test.grad, name
        assert "rng" in op.forward_extras
    assert get_op("uniform") is get_op("random_uniform") is get_op("_random_uniform")
    assert get_op("shuffle") is get_op("_shuffle")


# -- _like ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_like_samplers_take_shape_and_dtype_from_data(dtype):
    data = nd.array(np.full((3, 4), 7.0), dtype=dtype)
    out = call("_random_uniform_like", data, low=5.0, high=6.0)
    assert out.shape == (3, 4) and out.dtype == np.dtype(dtype)
    values = out.asnumpy()
    assert values.min() >= 5 and values.max() <= 6 and len(np.unique(values)) > 1


def test_like_samplers_follow_their_distribution():
    data = nd.zeros((N,))
    _check_moments(call("_random_normal_like", data, loc=-1.0, scale=2.0).asnumpy(),
                   -1.0, 4.0, "normal_like")
    _check_moments(call("_random_exponential_like", data, lam=4.0).asnumpy(),
                   0.25, 1 / 16, "exponential_like")
    with pytest.raises(InvalidParameterError, match="scale must be positive"):
        call("_random_normal_like", data, scale=-1.0).asnumpy()


def test_like_samplers_reject_integer_data():
    with pytest.raises(InvalidTypeError, match="float"):
        call("_random_uniform_like", nd.zeros((2,), dtype="int32"))


def test_like_sampler_output_carries_no_gradient():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = call("_random_uniform_like", x) + 3 * x
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 3.0])


# -- _sample_*: one distribution per element ----------------------------------------------------
def test_sample_ops_draw_per_element_with_shape_appended():
    mu = nd.array([[0.0, 10.0], [-5.0, 100.0]])
    sigma = nd.array([[1.0, 0.1], [2.0, 5.0]])
    out = call("_sample_normal", mu, sigma, shape=(N // 4,))
    assert out.shape == (2, 2, N // 4) and out.dtype == np.float32
    values = out.asnumpy()
    for i in range(2):
        for j in range(2):
            m, s = mu.asnumpy()[i, j], sigma.asnumpy()[i, j]
            _check_moments(values[i, j], m, s * s, f"sample_normal[{i},{j}]")


@pytest.mark.parametrize("name, inputs, mean, var", [
    ("_sample_uniform", ([1.0], [3.0]), 2.0, 4 / 12),
    ("_sample_gamma", ([2.0], [0.5]), 1.0, 0.5),
    ("_sample_exponential", ([0.5],), 2.0, 4.0),
    ("_sample_poisson", ([4.0],), 4.0, 4.0),
    ("_sample_negative_binomial", ([2.0], [0.5]), 2.0, 4.0),
    ("_sample_generalized_negative_binomial", ([3.0], [1.0]), 3.0, 12.0),
])
def test_sample_ops_follow_their_distribution(name, inputs, mean, var):
    arrays = [nd.array(values) for values in inputs]
    out = call(name, *arrays, shape=N)
    assert out.shape == (1, N)
    _check_moments(out.asnumpy(), mean, var, name)


def test_sample_ops_dtype_follows_inputs_unless_given():
    low, high = nd.array([0.0, 1.0], dtype="float64"), nd.array([2.0, 3.0], dtype="float64")
    assert call("_sample_uniform", low, high).dtype == np.float64
    assert call("_sample_uniform", low, high, dtype="float16").dtype == np.float16
    assert call("_sample_uniform", low, high).shape == (2,)


def test_sample_ops_reject_mismatched_parameters():
    with pytest.raises(InvalidShapeError, match="one shape"):
        call("_sample_uniform", nd.zeros((2,)), nd.ones((3,)))
    with pytest.raises(InvalidTypeError, match="one dtype"):
        call("_sample_uniform", nd.zeros((2,)), nd.ones((2,), dtype="float64"))


# -- multinomial -------------------------------------------------------------------------------
@pytest.mark.parametrize("data_shape, shape, expected", [
    ((5,), (), (1,)), ((5,), (2,), (2,)), ((5,), (2, 3), (2, 3)), ((2, 5), (), (2,)),
    ((2, 5), (3,), (2, 3)), ((2, 2, 3), (), (2, 2)), ((2, 2, 3), (4,), (2, 2, 4))])
def test_multinomial_output_shape(data_shape, shape, expected):
    data = nd.array(np.full(data_shape, 1.0 / data_shape[-1]))
    out, prob = call("_sample_multinomial", data, shape=shape, get_prob=True)
    assert out.shape == expected and prob.shape == expected
    assert out.dtype == np.int32 and prob.dtype == np.float32


def test_multinomial_frequencies_match_the_probabilities():
    probs = np.array([[0.1, 0.0, 0.6, 0.3], [0.25, 0.25, 0.25, 0.25]])
    out = call("_sample_multinomial", nd.array(probs), shape=N).asnumpy()
    for row, p in zip(out, probs):
        counts = np.bincount(row, minlength=4) / N
        assert counts[p == 0].sum() == 0, "a zero-probability category was drawn"
        np.testing.assert_allclose(counts, p, atol=6 * np.sqrt(0.25 / N))


def test_multinomial_get_prob_is_the_log_probability_of_each_sample():
    probs = np.array([[0.2, 0.5, 0.3], [0.7, 0.1, 0.2]], dtype=np.float64)
    out, logp = call("_sample_multinomial", nd.array(probs, dtype="float64"), shape=6,
                     get_prob=True)
    index, logp = out.asnumpy(), logp.asnumpy()
    assert logp.dtype == np.float64
    expected = np.log(np.take_along_axis(probs, index.astype(int), axis=1))
    np.testing.assert_allclose(logp, expected, rtol=1e-12)


def test_multinomial_index_dtype_and_rejected_inputs():
    probs = nd.array([[0.5, 0.5]])
    assert call("_sample_multinomial", probs, dtype="float32").dtype == np.float32
    assert call("_sample_multinomial", probs, dtype="uint8").dtype == np.uint8
    with pytest.raises(InvalidParameterError, match="int32"):
        call("_sample_multinomial", probs, dtype="int64")
    with pytest.raises(InvalidTypeError, match="floats"):
        call("_sample_multinomial", nd.array([[1, 0]], dtype="int32"))
    with pytest.raises(InvalidShapeError, match="at least one axis"):
        call("_sample_multinomial", nd.array(np.array(0.5)))


def test_multinomial_probabilities_summing_below_one_can_give_index_k():
    out = call("_sample_multinomial", nd.zeros((3, 4)), shape=5).asnumpy()
    assert (out == 4).all()      # MXNet's rule: no category reached, index k


def test_multinomial_log_probability_gradient_is_the_score_function():
    probs = nd.array([[0.2, 0.8], [0.5, 0.5]])
    probs.attach_grad()
    head = np.arange(1.0, 9.0).reshape(2, 4)
    with autograd.record():
        out, logp = nd.random.multinomial(probs, shape=4, get_prob=True)
    logp.backward(nd.array(head))
    index = out.asnumpy()
    expected = np.zeros((2, 2))
    for row in range(2):
        for draw in range(4):
            category = index[row, draw]
            expected[row, category] += head[row, draw] / probs.asnumpy()[row, category]
    np.testing.assert_allclose(probs.grad.asnumpy(), expected, rtol=1e-6)


def test_multinomial_without_get_prob_passes_no_gradient():
    probs = nd.array([0.3, 0.7])
    probs.attach_grad()
    with autograd.record():
        out = nd.random.multinomial(probs, shape=3)
        y = (out.astype("float32") * probs[0]).sum()
    y.backward()
    np.testing.assert_allclose(probs.grad.asnumpy(), [out.asnumpy().sum(), 0.0])


# -- shuffle -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8"])
def test_shuffle_permutes_the_first_axis(dtype):
    data = np.arange(24).reshape(8, 3).astype(dtype)
    out = nd.shuffle(nd.array(data, dtype=dtype))
    values = out.asnumpy()
    assert values.dtype == np.dtype(dtype) and values.shape == (8, 3)
    # rows move whole: each output row is an input row, and every input row appears once
    order = values[:, 0] // 3
    assert sorted(order.tolist()) == list(range(8))
    np.testing.assert_array_equal(values, data[order.astype(int)])


def test_shuffle_moves_elements_and_every_order_is_reachable():
    data = nd.arange(3)
    seen = {tuple(nd.shuffle(data).asnumpy().astype(int)) for _ in range(60)}
    assert len(seen) == 6      # all 3! orders appear in 60 draws (miss chance < 1e-4)


def test_shuffle_rejects_a_scalar():
    with pytest.raises(InvalidShapeError, match="at least one axis"):
        nd.shuffle(nd.array(np.array(1.0)))


def test_random_ops_run_in_the_engine(engine):
    arrays = [call("_random_normal", shape=(50,)) for _ in range(4)]
    nd.waitall()
    assert len({a.asnumpy().tobytes() for a in arrays}) == 4
