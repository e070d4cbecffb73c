"""Values at the edges where numpy and MXNet 1.9.1 part ways, and minimx follows MXNet.

Found by running the same expressions on both (December 2026): ``arange`` computes
``start + i * step`` in the output's dtype (float32 rounding, not float64's); an integer
raised to a negative integer power is the real power truncated (numpy raises); ``sign`` of
NaN is 0 (numpy: NaN); the 2-norm of a vector holding an infinity is infinite (minimx's
scaling by the largest entry made it NaN); ``contrib.arange_like`` / ``npx.arange_like``.
"""
import json
import math

import numpy as np
import pytest

from minimx import nd
from minimx import numpy as mnp
from same_program import on_minimx, on_mxnet

ARANGES = [(0, 1, 0.1, 1), (10, 0, -0.7, 1), (0, 1, 0.3, 2), (0.5, 3, 1, 1), (-2, 2, 0.35, 3)]


@pytest.mark.parametrize("start, stop, step, repeat", ARANGES)
def test_arange_steps_in_the_output_dtype(start, stop, step, repeat):
    count = math.ceil((stop - start) / step)
    f32 = np.float32
    expected = np.repeat(np.arange(count, dtype=f32) * f32(step) + f32(start), repeat)
    got = nd.arange(start, stop, step, repeat=repeat).asnumpy()
    assert got.dtype == np.float32 and got.tobytes() == expected.tobytes()
    assert mnp.arange(start, stop, step).asnumpy().tobytes() == np.repeat(
        expected, 1)[::repeat].tobytes()


def test_arange_float64_and_int32():
    got = nd.arange(0, 1, 0.1, dtype="float64").asnumpy()
    assert got.tobytes() == (np.arange(10, dtype=np.float64) * 0.1).tobytes()
    # an integer dtype casts the step first, as MXNet's kernel (0.5 -> 0)
    np.testing.assert_array_equal(nd.arange(0, 2, 0.5, dtype="int32").asnumpy(), [0] * 4)


def test_integer_negative_powers_truncate():
    base = np.array([2, -1, 1, 3, -2], np.int32)
    exponent = np.array([-1, -1, -2, 2, -3], np.int32)
    expected = [math.trunc(float(b) ** float(e)) for b, e in zip(base, exponent)]
    got = (nd.array(base, dtype="int32") ** nd.array(exponent, dtype="int32")).asnumpy()
    assert got.dtype == np.int32 and got.tolist() == expected
    assert (nd.array(base, dtype="int32") ** -1).asnumpy().tolist() == [
        math.trunc(float(b) ** -1) for b in base]
    assert (mnp.array(base, dtype="int32") ** mnp.array(exponent, dtype="int32")
            ).asnumpy().tolist() == expected
    # floats are numpy's as before
    np.testing.assert_array_equal((nd.array([2.0]) ** -1).asnumpy(), [0.5])


def test_sign_of_nan_is_zero_and_norm_of_infinity_is_infinite():
    signs = nd.sign(nd.array([-0.0, np.nan, -2.0, np.inf])).asnumpy()
    assert signs.tolist() == [0.0, 0.0, -1.0, 1.0]
    norms = nd.norm(nd.array([[np.inf, 1.0], [3.0, 4.0], [np.nan, np.inf], [-np.inf, 0]]),
                    axis=1).asnumpy()
    assert np.isposinf(norms[0]) and norms[1] == 5.0 and np.isnan(norms[2])
    assert np.isposinf(norms[3])


def test_arange_like():
    data = nd.zeros((2, 3), dtype="float64")
    got = nd.contrib.arange_like(data, start=1, step=0.5, repeat=2).asnumpy()
    assert got.dtype == np.float64 and got.tolist() == [[1, 1, 1.5], [1.5, 2, 2]]
    assert nd.contrib.arange_like(data, axis=-1, start=2).asnumpy().tolist() == [2, 3, 4]
    assert nd.contrib.arange_like(nd.zeros((4,), dtype="int32"), step=0.5).asnumpy(
        ).tolist() == [0, 0, 0, 0]


PROGRAM = """
import json
import numpy as np
nd = mx.nd
out = {}
for start, stop, step, repeat in json.loads(INPUT):
    out["arange %s %s %s %s" % (start, stop, step, repeat)] = nd.arange(
        start, stop, step, repeat=repeat).asnumpy().tolist()
base = nd.array([2, -1, 1, 3, -2], dtype="int32")
out["power"] = (base ** nd.array([-1, -1, -2, 2, -3], dtype="int32")).asnumpy().tolist()
out["power scalar"] = (base ** -1).asnumpy().tolist()
out["rpower scalar"] = (2 ** nd.array([3, 0, 1], dtype="int32")).asnumpy().tolist()
out["sign"] = [str(v) for v in nd.sign(nd.array([-0.0, np.nan, -2.0, np.inf])).asnumpy()]
out["norm"] = [str(v) for v in nd.norm(nd.array([[np.inf, 1.0], [3.0, 4.0]]), axis=1).asnumpy()]
out["arange_like"] = nd.contrib.arange_like(nd.zeros((2, 3)), start=0.1, step=0.1,
                                            repeat=2).asnumpy().tolist()
out["arange_like axis"] = nd.contrib.arange_like(nd.zeros((2, 5)), axis=1).asnumpy().tolist()
print(json.dumps(out))
"""


def test_edge_values_match_mxnet(mxnet_python):
    given = json.dumps(ARANGES)
    assert on_minimx(PROGRAM, given) == on_mxnet(mxnet_python, PROGRAM, given)


@pytest.mark.parametrize("join", [
    lambda a, b: nd.concat(a, b, dim=0),
    lambda a, b: nd.stack(a, b),
    lambda a, b: mnp.concatenate([a.as_np_ndarray(), b.as_np_ndarray()]),
    lambda a, b: mnp.stack([a.as_np_ndarray(), b.as_np_ndarray()]),
])
def test_joining_two_dtypes_is_refused_not_truncated(join):
    """MXNet refuses a join of int32 and float32 ("Non-uniform data type in Concat");
    casting the floats to the first input's int32 would turn 1.5 into 1 without a word."""
    from minimx.base import MXNetError
    with pytest.raises(MXNetError, match="one dtype: input 0 is int32, input 1 is float32"):
        join(nd.array([1, 2], dtype="int32"), nd.array([1.5, 2.5])).wait_to_read()
    same = join(nd.array([1, 2]), nd.array([1.5, 2.5]))
    assert same.dtype == np.float32 and 1.5 in same.asnumpy()


NAMES_PROGRAM = """
import json, warnings
import numpy as np
warnings.simplefilter("ignore")
nd = mx.nd
a = nd.array([[1, 2], [3, 4]])
b = nd.array([[1, 0], [2, 1], [0, 3]])
counts, edges = nd.histogram(a)
print(json.dumps({"cumsum": nd.cumsum(a).asnumpy().tolist(),
                  "cumsum axis": nd.cumsum(a, axis=0).asnumpy().tolist(),
                  "cumsum dtype": str(nd.cumsum(a, dtype="float64").dtype),
                  "histogram": [counts.asnumpy().tolist(), str(counts.dtype),
                                [round(float(v), 5) for v in edges.asnumpy()]],
                  "khatri_rao": nd.khatri_rao(a, b).asnumpy().tolist(),
                  "khatri_rao one": nd.khatri_rao(a).asnumpy().tolist()}))
"""


def test_nd_cumsum_histogram_khatri_rao_as_mxnet(mxnet_python):
    """``nd.cumsum`` (flattened without an axis), ``nd.histogram`` without a range (over
    the values' minimum to maximum, as MXNet's) and ``nd.khatri_rao``: MXNet 1.9.1 API that
    calling every ``nd`` function on both sides found missing or refusing."""
    ours = on_minimx(NAMES_PROGRAM)
    assert ours["cumsum"] == [1, 3, 6, 10] and len(ours["khatri_rao"]) == 6
    assert ours == on_mxnet(mxnet_python, NAMES_PROGRAM)


STE_PROGRAM = """
import json
x = mx.nd.array([[-1.5, 0.4, 2.5, -0.0, 0.5]])
x.attach_grad()
out = {}
for name in ("round_ste", "sign_ste"):
    with mx.autograd.record():
        y = getattr(mx.nd.contrib, name)(x)
    y.backward(mx.nd.array([[1.0, 2.0, 3.0, 4.0, 5.0]]))
    out[name] = [y.asnumpy().tolist(), x.grad.asnumpy().tolist()]
print(json.dumps(out))
"""


def test_straight_through_estimators_as_mxnet(mxnet_python):
    """``contrib.round_ste`` / ``sign_ste``: round (halves away from zero) and sign forward,
    the gradient passed through unchanged -- MXNet 1.9.1 API that was missing."""
    ours = on_minimx(STE_PROGRAM)
    assert ours["round_ste"][1] == [[1.0, 2.0, 3.0, 4.0, 5.0]]
    assert ours == on_mxnet(mxnet_python, STE_PROGRAM)


MAE_PROGRAM = """
import json
x = mx.nd.array([[0.2, -0.8, 1.5]])
x.attach_grad()
with mx.autograd.record():
    y = mx.nd.MAERegressionOutput(x, mx.nd.array([[1.0, -0.8, 0.5]]))
y.backward()
print(json.dumps(x.grad.asnumpy().tolist()))
"""


def test_mae_regression_gradient_at_an_exact_prediction_as_mxnet(mxnet_python):
    """MXNet's MAERegressionOutput gradient is +1 above the label and -1 otherwise (scaled
    by 1/outputs), so an exact prediction gets -1; ``sign`` gave it 0."""
    ours = on_minimx(MAE_PROGRAM)
    assert ours[0][1] < 0
    assert ours == on_mxnet(mxnet_python, MAE_PROGRAM)
