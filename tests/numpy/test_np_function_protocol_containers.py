"""``numpy.<f>(mx arrays)`` (NEP 18) answers in the host NumPy's container: NumPy 2 gives
tuples where NumPy 1 gave lists (``broadcast_arrays``, ``meshgrid``, ``atleast_*d``) and named
tuples where it gave tuples (``linalg.eig`` ...), and MXNet 1.9.1's
test_numpy_interoperability::test_np_array_function_protocol compares the container with the
host's.  Called directly, ``mx.np.<f>`` keeps MXNet 1.9.1's list or tuple."""
import numpy as onp
import pytest

from minimx import np

NAMES = ("broadcast_arrays", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d")


@pytest.mark.parametrize("name", NAMES)
def test_host_container_through_the_protocol(name):
    a, b = np.ones((2, 1)), np.arange(3).reshape(1, 3)
    host = getattr(onp, name)(a.asnumpy(), b.asnumpy())
    through = getattr(onp, name)(a, b)
    assert type(through) is type(host)
    assert all(isinstance(part, np.ndarray) for part in through)
    for got, expected in zip(through, host):
        onp.testing.assert_array_equal(got.asnumpy(), expected)
    assert type(getattr(np, name)(a, b)) is list          # MXNet 1.9.1's mx.np


@pytest.mark.parametrize("name", ["eig", "eigh", "slogdet", "svd", "qr"])
def test_linalg_results_in_the_host_container(name):
    """NumPy 2's linalg functions of several results return named tuples (``EigResult``
    with ``.eigenvalues`` ...); through the protocol minimx's answer comes in the same
    container (MXNet 1.9.1's test compares the types), called directly in a plain tuple."""
    matrix = onp.array([[2.0, 1.0], [1.0, 3.0]], dtype="float32")
    host = getattr(onp.linalg, name)(matrix)
    through = getattr(onp.linalg, name)(np.array(matrix))
    assert type(through) is type(host)
    assert all(isinstance(part, np.ndarray) for part in through)
    if hasattr(host, "_fields"):
        assert through._fields == host._fields
    # (eig's eigenvalues come in another order from each; the product is the determinant)
    onp.testing.assert_allclose(onp.prod(through[0].asnumpy()), onp.prod(host[0]), rtol=1e-5)
    assert type(getattr(np.linalg, name)(np.array(matrix))) is tuple


@pytest.mark.parametrize("function, q", [("percentile", 30.0), ("quantile", 0.3)])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_percentile_takes_numpy_2s_method_keyword(function, q, method):
    """Host NumPy 2 passes ``method=`` when ``numpy.percentile(mx array)`` dispatches to
    minimx, whose ``percentile`` takes MXNet's ``interpolation=``: both are taken."""
    data = onp.array([[1.0, 7.0, 3.0, 4.0], [9.0, 2.0, 5.0, 0.5]], dtype="float32")
    expected = getattr(onp, function)(data, q, axis=1, method=method)
    for got in (getattr(onp, function)(np.array(data), q, axis=1, method=method),
                getattr(np, function)(np.array(data), q, axis=1, method=method),
                getattr(np, function)(np.array(data), q, axis=1, interpolation=method)):
        assert isinstance(got, np.ndarray)
        onp.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)
    with pytest.raises(TypeError, match="not both"):
        getattr(np, function)(np.array(data), q, interpolation="lower", method="higher")
