"""``numpy.<f>(mx arrays)`` (NEP 18) answers in the host NumPy's container: NumPy 2 gives
tuples where NumPy 1 gave lists (``broadcast_arrays``, ``meshgrid``, ``atleast_*d``), and
MXNet 1.9.1's test_numpy_interoperability::test_np_array_function_protocol compares the
container with the host's.  Called directly, ``mx.np.<f>`` keeps MXNet 1.9.1's list."""
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
