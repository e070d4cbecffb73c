"""A Gluon model written with ``np.dot`` (the book's from-scratch layers) gets the engine's
BLAS thread budget as ``nd.dot`` and ``FullyConnected`` do: ``_np_dot`` declares its work."""
import pytest

from minimx.op import get_op


@pytest.mark.parametrize("a, b, nd_shapes", [
    ((256, 784), (784, 256), ((256, 784), (784, 256))),
    ((4, 3, 5), (5, 2), ((12, 5), (5, 2))),
])
def test_np_dot_declares_the_work_of_its_product(a, b, nd_shapes):
    np_dot = get_op("_np_dot")()
    assert np_dot.blas_work(a, b) == get_op("dot")().blas_work(*nd_shapes)


def test_np_dot_of_vectors_and_scalars():
    np_dot = get_op("_np_dot")()
    assert np_dot.blas_work((7,), (7,)) == 7
    assert np_dot.blas_work((), (3, 3)) == 0
