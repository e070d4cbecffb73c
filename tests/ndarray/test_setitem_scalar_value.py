"""Assigning a one-element array to one element, as course code does (``Y[i, j] = s.sum()``)."""
import numpy as np
import pytest

from minimx import nd
from minimx.base import InvalidShapeError


def corr2d(X, K):
    """Dive into Deep Learning's cross-correlation, element by element."""
    h, w = K.shape
    Y = nd.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i: i + h, j: j + w] * K).sum()
    return Y


def test_a_one_element_array_fills_one_element():
    X, K = nd.arange(9).reshape((3, 3)), nd.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(corr2d(X, K).asnumpy(), [[19, 25], [37, 43]])


def test_leading_unit_axes_are_dropped_and_other_shapes_refused_at_the_call():
    y = nd.zeros((2, 3))
    y[1] = nd.ones((1, 1, 3))
    np.testing.assert_array_equal(y.asnumpy()[1], [1, 1, 1])
    with pytest.raises(InvalidShapeError, match=r"value of shape \(2,\) to a region of shape \(\)"):
        y[0, 0] = nd.ones((2,))
    with pytest.raises(InvalidShapeError, match=r"shape \(2,\) to a region of shape \(3,\)"):
        y[0] = nd.ones((2,))
