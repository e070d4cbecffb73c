"""Integer division by zero: MXNet 1.9.1's kernel stops the whole process with SIGFPE
(``nd.array([7], dtype='int32') / 0``), and numpy's cast of the float quotient gave minimx
INT_MIN with a warning (found at stop 46).  minimx raises a ``ZeroDivisionError`` naming
the operator; float division by zero stays inf/NaN, without numpy's warning, as MXNet's;
integer ``%`` by zero gives 0, as MXNet's."""
import warnings

import numpy as np
import pytest

from minimx import nd


@pytest.mark.parametrize("divide, name", [
    (lambda a, b: a / b, "broadcast_div"), (lambda a, b: nd.elemwise_div(a, b), "elemwise_div"),
    (lambda a, b: a / 0, "_div_scalar"), (lambda a, b: 3 / b, "_rdiv_scalar")])
def test_integer_division_by_zero_names_the_operator(divide, name):
    lhs = nd.array([7, -7, 1], dtype="int32")
    rhs = nd.array([2, 0, 1], dtype="int32")
    with pytest.raises(ZeroDivisionError, match=f"{name}: integer division by zero"):
        divide(lhs, rhs).asnumpy()


def test_integer_division_truncates_and_float_division_by_zero_is_silent():
    quotient = nd.array([7, -7, 7], dtype="int32") / nd.array([2, 2, -2], dtype="int32")
    assert quotient.asnumpy().tolist() == [3, -3, -3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = (nd.array([1.0, -1.0, 0.0]) / nd.array([0.0, 0.0, 0.0])).asnumpy()
    assert values[0] == np.inf and values[1] == -np.inf and np.isnan(values[2])
    remainder = nd.array([7, -7], dtype="int32") % nd.array([0, 0], dtype="int32")
    assert remainder.asnumpy().tolist() == [0, 0]
