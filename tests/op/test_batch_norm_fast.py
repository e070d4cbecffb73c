"""BatchNorm's fast training path (``normalization._fast_train_forward``/``_backward``) gives
the reference path's results bit for bit: outputs, hidden mean and 1/std, the three
gradients and the moved moving statistics, over randomized shapes, channel axes, dtypes
and ``fix_gamma``.  The reference is the general ``BatchNorm.forward``/``backward`` with
``FAST_PATH`` off; both are compared with MXNet in test_nn_ops / test_vs_mxnet."""
import numpy as np
import pytest

from minimx.op import get_op, normalization


def _step(op, data, gamma, beta, out_grad, fast):
    channels = gamma.shape[0]
    moving_mean = np.linspace(-1, 1, channels).astype(data.dtype)
    moving_var = np.linspace(0.5, 2, channels).astype(data.dtype)
    saved = normalization.FAST_PATH
    normalization.FAST_PATH = fast
    try:
        out, mean, invstd = op.forward(np, data, gamma, beta, moving_mean, moving_var,
                                       is_train=True)
        grads = op.backward(np, out_grad, data=data, gamma=gamma, mean=mean, var=invstd,
                            moving_mean=moving_mean, moving_var=moving_var, is_train=True)
    finally:
        normalization.FAST_PATH = saved
    return [out, mean, invstd, *grads[:3], moving_mean, moving_var]


@pytest.mark.parametrize("seed", range(12))
def test_fast_path_is_the_reference_bit_for_bit(seed):
    rng = np.random.RandomState(seed)
    ndim = rng.randint(2, 5)
    shape = tuple(rng.randint(1, 9, size=ndim))
    if seed % 3 == 0:
        shape = (rng.randint(2, 17), rng.randint(1, 9), 28, 28)[:max(ndim, 2)] \
            if ndim == 4 else shape + (200,)      # rows of 128 values or more: BLAS sums
    axis = int(rng.choice([1, -1, ndim - 1 if ndim > 2 else 1]))
    dtype = "float32" if seed % 4 else "float64"
    data = (rng.randn(*shape) * rng.uniform(0.1, 3) + rng.uniform(-3, 3)).astype(dtype)
    out_grad = rng.randn(*shape).astype(dtype)
    channels = shape[axis]
    gamma = (rng.rand(channels) + 0.5).astype(dtype)
    beta = rng.randn(channels).astype(dtype)
    op = get_op("BatchNorm")(fix_gamma=bool(seed % 2), axis=axis, eps=float(rng.choice(
        [1e-3, 1e-5])), momentum=0.8)
    fast = _step(op, data, gamma, beta, out_grad, True)
    reference = _step(op, data, gamma, beta, out_grad, False)
    for got, want in zip(fast, reference):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert (np.signbit(got) == np.signbit(want)).all()


def test_fast_path_taken_only_for_its_case():
    """float32 data with float32 parameters in training mode: fast; global statistics,
    float16 data, float64 parameters, and the operators with a variance output: not."""
    data = np.ones((2, 3, 4), "float32")
    vector = np.ones(3, "float32")
    op = get_op("BatchNorm")()
    assert op._fast(True, data, vector, vector)
    assert not op._fast(False, data, vector, vector)
    assert not get_op("BatchNorm")(use_global_stats=True)._fast(True, data, vector, vector)
    assert not op._fast(True, data.astype("float16"), vector, vector)
    assert not op._fast(True, data, vector.astype("float64"), vector)
    assert not get_op("BatchNorm_v1")()._fast(True, data, vector, vector)
