"""``np.random.multivariate_normal`` with MXNet 1.9.1's signature and batching: shapes for
batched and broadcast ``mean``/``cov`` and ``size`` (MXNet's ``test_np_multivariate_normal``
grid, imperative and hybridized), dtypes, the samples' statistics and the refusals.  The
same program on both (tests/same_program.py)."""
import numpy as np
import pytest

from same_program import on_minimx_np_mode, on_mxnet

pytestmark = pytest.mark.mxnet

PROGRAM = """
import itertools, json
import numpy as onp
mx.npx.set_np()
np = mx.np

class Sampler(mx.gluon.HybridBlock):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def hybrid_forward(self, F, mean, cov):
        return F.np.random.multivariate_normal(mean, cov, self.size)

mean, cov = np.array([0.123456789, 10]), np.array([[1, 0], [0, 10]])
shapes = []
for hybridize, dtype, size, (mean_shape, cov_shape) in itertools.product(
        [False, True], ["float16", "float32", "float64"], [None, 1, (), (2, 3), (2, 0)],
        [[(2,), (2, 2)], [(3, 2), (2, 2)], [(2,), (3, 2, 2)], [(3, 2), (4, 3, 2, 2)]]):
    sampler = Sampler(size)
    if hybridize:
        sampler.hybridize()
    sample = sampler(np.broadcast_to(mean, mean_shape).astype(dtype),
                     np.broadcast_to(cov, cov_shape).astype(dtype))
    shapes.append([list(sample.shape), str(sample.dtype)])
mx.random.seed(7)
draws = np.random.multivariate_normal(np.array([1.0, -2.0]),
                                      np.array([[2.0, 0.0], [0.0, 0.5]]), size=40000).asnumpy()
# a correlated cov: MXNet's sampler gives covariance L^T L (L: cov's Cholesky factor)
mx.random.seed(8)
correlated = np.random.multivariate_normal(np.zeros(2), np.array([[1.0, 0.8], [0.8, 2.0]]),
                                           size=40000).asnumpy()
errors = {}
for name, args, kwargs in [
        ("scalar mean", (np.array(1.0), np.ones((1, 1))), {}),
        ("vector cov", (np.ones(2), np.ones(2)), {}),
        ("cov not square", (np.ones(2), np.ones((2, 3))), {}),
        ("lengths differ", (np.ones(3), np.eye(2)), {}),
        ("check_valid", (np.ones(2), np.eye(2)), {"check_valid": "warn"}),
        ("tol", (np.ones(2), np.eye(2)), {"tol": 1e-8})]:
    try:
        np.random.multivariate_normal(*args, **kwargs).asnumpy()
        errors[name] = None
    except NotImplementedError:
        errors[name] = "NotImplementedError"
    except Exception:
        errors[name] = "error"
print(json.dumps({"shapes": shapes, "mean": draws.mean(axis=0).tolist(),
                  "cov": onp.cov(draws.T).tolist(), "correlated": onp.cov(correlated.T).tolist(),
                  "type": type(draws).__name__,
                  "errors": errors}))
"""


def test_multivariate_normal_as_mxnet(mxnet_python):
    theirs = on_mxnet(mxnet_python, PROGRAM)
    ours = on_minimx_np_mode(PROGRAM)
    assert ours["shapes"] == theirs["shapes"]
    assert ours["errors"] == theirs["errors"]
    # 40000 draws: the sample mean and covariance within a few standard errors
    np.testing.assert_allclose(ours["mean"], [1.0, -2.0], atol=0.03)
    np.testing.assert_allclose(ours["cov"], [[2.0, 0.0], [0.0, 0.5]], atol=0.06)
    np.testing.assert_allclose(theirs["mean"], [1.0, -2.0], atol=0.03)
    np.testing.assert_allclose(theirs["cov"], [[2.0, 0.0], [0.0, 0.5]], atol=0.06)
    factor = np.linalg.cholesky([[1.0, 0.8], [0.8, 2.0]])
    np.testing.assert_allclose(theirs["correlated"], factor.T @ factor, atol=0.06)
    np.testing.assert_allclose(ours["correlated"], factor.T @ factor, atol=0.06)
