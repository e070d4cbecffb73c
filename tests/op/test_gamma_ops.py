"""``gamma`` and ``gammaln`` at their edges, against MXNet 1.9.1.

The generated registry tests compare random inputs away from the poles; here are the
poles themselves (0 and the negative integers), tiny and large arguments, the overflow
of ``gamma`` past 35 in float32, whole numbers in integer dtypes (whose results are
truncated: ``gamma(1)`` must be exactly 1) and float64.
"""
import numpy as np
import pytest
from _nn_helpers import requires_mxnet, run_minimx, run_mxnet

from minimx import nd, sym

EDGES = np.array([0, -0.0, -1, -0.5, -1.5, 0.5, 1, 2, 2.5, 10, 35, 171.5, -2.3, 1e-3, -7.9],
                 dtype=np.float32)


@requires_mxnet
@pytest.mark.parametrize("op_name", ["gamma", "gammaln"])
def test_edges_and_gradients_match_mxnet(tmp_path, op_name):
    inputs, heads = [EDGES], [np.ones(EDGES.shape, np.float32)]
    theirs = run_mxnet(tmp_path, op_name, inputs, {}, heads, grad_inputs=[0])
    mine = run_minimx(op_name, inputs, {}, heads, grad_inputs=[0])
    for name, a, b in [("output", mine[0][0], theirs[0][0]), ("gradient", mine[1][0],
                                                              theirs[1][0])]:
        assert a.dtype == b.dtype, name
        np.testing.assert_allclose(a, b, rtol=2e-5, err_msg=f"{op_name} {name}")


@requires_mxnet
@pytest.mark.parametrize("op_name", ["gamma", "gammaln"])
def test_float64_edges_match_mxnet(tmp_path, op_name):
    inputs = [EDGES.astype(np.float64)]
    theirs = run_mxnet(tmp_path, op_name, inputs, {})[0][0]
    mine = run_minimx(op_name, inputs, {})[0][0]
    assert mine.dtype == theirs.dtype
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)


@requires_mxnet
@pytest.mark.parametrize("op_name", ["gamma", "gammaln"])
def test_whole_numbers_in_integer_dtypes_match_mxnet(tmp_path, op_name):
    inputs = [np.arange(1, 13, dtype=np.int32)]
    theirs = run_mxnet(tmp_path, op_name, inputs, {})[0][0]
    mine = run_minimx(op_name, inputs, {})[0][0]
    assert mine.dtype == theirs.dtype
    np.testing.assert_array_equal(mine, theirs)


def test_frontends_as_in_mxnet():
    """nd and sym have both; NDArray has no ``gamma`` method in MXNet 1.9.1."""
    assert nd.gamma(nd.array([5.0])).asnumpy()[0] == 24.0
    assert float(nd.gammaln(nd.array([5.0])).asnumpy()[0]) == pytest.approx(np.log(24.0))
    assert sym.gamma(sym.var("x")).list_arguments() == ["x"]
    assert not hasattr(nd.NDArray, "gamma") and not hasattr(nd.NDArray, "gammaln")


def test_npx_functions_return_np_arrays():
    """``mx.npx.gamma`` / ``gammaln`` as MXNet 1.9.1's npx has them."""
    from minimx import np as mnp
    from minimx import npx
    x = mnp.array([0.5, 3.0])
    assert isinstance(npx.gamma(x), mnp.ndarray)
    np.testing.assert_allclose(npx.gamma(x).asnumpy(), [np.sqrt(np.pi), 2.0], rtol=1e-6)
    np.testing.assert_allclose(npx.gammaln(x).asnumpy(), [0.5 * np.log(np.pi), np.log(2.0)],
                               rtol=1e-6)
