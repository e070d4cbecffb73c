"""``mx.np`` element-wise functions given numbers alone go to NumPy, as in MXNet 1.9.1.

MXNet's ``np.sqrt(0.4)`` is NumPy's float64 ``0.6324555320336759``; minimx gave a float32
0-d array (``0.6324555``), so ``a - 4 * np.sqrt(2 * p)`` lost precision and was an array
that plotting code then took for a sequence (d2l-en's random-variables page stopped in
``plt.hlines``).  Two Python numbers gave Python's result (``float``), not NumPy's scalar.
Found by running every function of the ufunc tables on Python and NumPy scalars on both
sides (December 2026).
"""
import json

import numpy as onp
import pytest

import minimx as mx
from minimx.numpy.ufuncs import BINARY, BINARY_OPERATORS, COMPARISONS, UNARY
from same_program import on_minimx, on_mxnet

np = mx.np
NUMBERS = [0.4, 3, True, onp.float32(0.4), onp.float64(0.4), onp.int64(3)]
PAIRS = [(0.4, 0.4), (3, 3), (0.4, 3), (onp.float32(0.4), 0.4), (onp.float64(0.4), 3),
         (True, True), (onp.int64(3), 3)]
FUNCTIONS = [*UNARY, "logical_not", "around"]


def numpy_result(function, *args):
    try:
        return function(*args)
    except Exception as error:      # noqa: BLE001 (compared below: the same kind of error)
        return error


def same(got, expected):
    if isinstance(expected, Exception):
        return isinstance(got, type(expected))
    return type(got) is type(expected) and (got == expected or (got != got and expected != expected))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_one_number_is_numpys_answer(name):
    for number in NUMBERS:
        expected = numpy_result(getattr(onp, name), number)
        got = numpy_result(getattr(np, name), number)
        assert same(got, expected), (name, number, got, expected)


@pytest.mark.parametrize("name", [*BINARY, *COMPARISONS, *BINARY_OPERATORS])
def test_two_numbers_are_numpys_answer(name):
    for x1, x2 in PAIRS:
        expected = numpy_result(getattr(onp, name), x1, x2)
        got = numpy_result(getattr(np, name), x1, x2)
        assert same(got, expected), (name, x1, x2, got, expected)


def test_an_array_operand_still_runs_the_operator():
    x = np.array([0.4, 2.0])
    assert isinstance(np.sqrt(x), np.ndarray) and np.sqrt(x).dtype == onp.float32
    assert isinstance(np.add(x, 0.5), np.ndarray) and np.add(x, 0.5).dtype == onp.float32
    assert isinstance(np.maximum(0.5, x), np.ndarray)
    zero_d = np.sqrt(np.array(0.4))
    assert isinstance(zero_d, np.ndarray) and zero_d.shape == ()
    out = np.zeros(())
    np.sqrt(4.0, out=out)                # an out array: the operator writes it
    assert float(out) == 2.0


def test_sign_of_a_zero_dimensional_array():
    assert float(np.sign(np.array(-0.4))) == -1.0
    assert float(mx.nd.sign(mx.nd.array([2.0]).reshape(()))) == 1.0


# Python numbers only: NumPy 1.23 (MXNet's) and NumPy 2 (minimx's here) agree on their types;
# NumPy scalars of other widths follow each NumPy's own promotion rules (NEP 50)
PROGRAM = """
import json
import numpy as onp
np = mx.np
out = {}
for name in json.loads(INPUT)["unary"]:
    for x in (0.4, 3):
        r = getattr(np, name)(x)
        out["%s(%r)" % (name, x)] = [type(r).__name__, repr(float(r))]
for name in json.loads(INPUT)["binary"]:
    r = getattr(np, name)(0.4, 3)
    out["%s(0.4, 3)" % name] = [type(r).__name__, repr(float(r))]
print(json.dumps(out))
"""
SHARED_UNARY = ["sqrt", "exp", "sin", "arctan", "tanh", "square", "abs", "negative", "sign",
                "rint", "isnan", "isfinite", "logical_not", "around", "radians"]
SHARED_BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
                 "greater", "equal", "arctan2", "hypot", "copysign", "mod"]


def test_numbers_match_mxnet(mxnet_python):
    given = json.dumps({"unary": SHARED_UNARY, "binary": SHARED_BINARY})
    ours, theirs = on_minimx(PROGRAM, given), on_mxnet(mxnet_python, PROGRAM, given)
    for key, (kind, value) in theirs.items():
        # the type's name: NumPy 2 calls NumPy 1's bool_ "bool"
        assert ours[key][0].rstrip("_") == kind.rstrip("_"), key
        assert float(ours[key][1]) == pytest.approx(float(value), rel=1e-15), key
