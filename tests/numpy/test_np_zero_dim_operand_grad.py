"""A 0-d array that has a gradient, broadcast against a larger one (``w * x`` with a scalar
weight ``w = np.array(2.0)``): its gradient is the head's summed over every axis, as MXNet
1.9.1's broadcast backward gives it, on both sides of every binary operator, imperative and
hybridized.  (A Python number reaches these operators as a 0-d array too, and keeps the
scalar operators' element-wise backward: ``arithmetic._needed``.)  Found by MXNet's
``test_numpy_ndarray.py::test_np_ndarray_binary_element_wise_ops``: the 0-d side's
gradient was left unsummed, and writing it failed ("cannot reshape array of size 60 into
shape ()")."""
import json

import numpy
import pytest

from same_program import on_minimx_np_mode, on_mxnet

OPERATORS = ["multiply", "add", "subtract", "divide", "power", "maximum", "mod", "hypot",
             "arctan2"]

PROGRAM = """
import json
import numpy as onp
np, npx = mx.np, mx.npx
npx.set_np()

class Apply(mx.gluon.HybridBlock):
    def __init__(self, name, scalar_first):
        super().__init__()
        self.function, self.scalar_first = name, scalar_first

    def hybrid_forward(self, F, scalar, tensor):
        function = getattr(F.np, self.function)
        return function(scalar, tensor) if self.scalar_first else function(tensor, scalar)

out = {}
for name in json.loads(INPUT):
    for scalar_first in (True, False):
        for hybrid in (False, True):
            scalar = np.array(1.5)
            tensor = np.array(onp.arange(1, 61, dtype="float32").reshape(3, 5, 4) / 10)
            scalar.attach_grad()
            tensor.attach_grad()
            block = Apply(name, scalar_first)
            if hybrid:
                block.hybridize()
            with mx.autograd.record():
                result = block(scalar, tensor)
            result.backward()
            out[f"{name} {scalar_first} {hybrid}"] = [
                list(scalar.grad.shape), float(scalar.grad.asnumpy()),
                tensor.grad.asnumpy().ravel().tolist()]
# a -0 head gradient comes back +0 on both sides, as from MXNet's broadcast backward
scalar, tensor = np.array(2.0), np.zeros((2, 2))
scalar.attach_grad()
tensor.attach_grad()
with mx.autograd.record():
    result = scalar * tensor
result.backward(np.full((2, 2), -0.0))
out["signs"] = [bool(onp.signbit(scalar.grad.asnumpy())),
                onp.signbit(tensor.grad.asnumpy()).ravel().tolist()]
print(json.dumps(out))
"""


def _assert_close(ours, theirs):
    assert ours.keys() == theirs.keys()
    for key, found in theirs.items():
        if key == "signs":
            continue
        shape, scalar, tensor = found
        assert ours[key][0] == shape == [], key
        # the 0-d gradient is a float32 sum of 60 terms, in another order than MXNet's
        numpy.testing.assert_allclose(ours[key][1], scalar, rtol=1e-5, err_msg=key)
        numpy.testing.assert_allclose(ours[key][2], tensor, rtol=1e-6, err_msg=key)
    assert ours["signs"] == theirs["signs"]


def test_zero_dim_operand_gradients_match_mxnet(mxnet_python):
    given = json.dumps(OPERATORS)
    _assert_close(on_minimx_np_mode(PROGRAM, given), on_mxnet(mxnet_python, PROGRAM, given))


@pytest.mark.parametrize("name, expected", [
    ("multiply", lambda t: t.sum()), ("add", lambda t: t.size),
    ("subtract", lambda t: t.size)])
def test_zero_dim_operand_gradient_is_the_summed_head(name, expected):
    """Without MXNet: the 0-d side's gradient against numpy's sum, both operand orders
    (for ``subtract`` the tensor-first order negates it)."""
    out = on_minimx_np_mode(PROGRAM, json.dumps([name]))
    tensor = numpy.arange(1, 61, dtype="float32") / 10
    for scalar_first in (True, False):
        for hybrid in (False, True):
            shape, value, _ = out[f"{name} {scalar_first} {hybrid}"]
            sign = -1 if (name == "subtract" and not scalar_first) else 1
            assert shape == []
            assert value == pytest.approx(sign * float(expected(tensor)), rel=1e-6)
    assert out["signs"] == [False, [False] * 4]
