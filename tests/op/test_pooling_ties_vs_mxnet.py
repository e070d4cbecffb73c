"""Max pooling's ties and NaN against MXNet 1.9.1.

MXNet's CPU kernel starts each window at the float type's lowest finite value and takes a
tap only when it is strictly greater: ``if (v > out) out = v``, taps in row-major order.  So
of tied taps the *first* wins, a NaN is never taken, and a window of NaN or -inf gives
-3.4e38 for float32.  Which tap wins decides where the gradient goes, and minimx matches
that.  Its values use numpy's ``maximum``, which differs in two corners
(found at stop 45, not fixed yet):

* where +0 and -0 tie, numpy's vectorised ``maximum`` returns its *second* argument, so the
  sign of the zero that comes out is the last tied tap's, not the first one's;
* ``maximum`` propagates NaN, where MXNet skips it.

The two tests marked ``xfail(strict=True)`` pin those differences: they fail (XPASS) the day
the kernels follow MXNet's rule, and must then lose the mark.
"""
import itertools
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from _nn_helpers import requires_mxnet, run_mxnet, run_minimx  # noqa: E402

LAYOUTS = [dict(kernel=(2, 2), stride=(2, 2)),       # windows that tile the planes
           dict(kernel=(2, 2), stride=(1, 1))]       # overlapping windows


def _windows(*value_sets):
    """Every arrangement of each of ``value_sets`` (four values) as a 2x2 window, side by
    side: a (1, 1, 2, 2 * count) float32 array."""
    patterns = set()
    for values in value_sets:
        for order in itertools.permutations(range(4)):
            patterns.add(tuple(np.float32(values[i]).tobytes() for i in order))
    windows = [np.frombuffer(b"".join(p), np.float32).reshape(2, 2) for p in sorted(patterns)]
    return np.concatenate(windows, axis=1)[None, None].copy()


def _both(tmp_path, x, params):
    params = dict(params, pool_type="max")
    out_shape = run_minimx("Pooling", [x], params)[0][0].shape
    head = np.arange(1, 1 + int(np.prod(out_shape)), dtype=np.float32).reshape(out_shape)
    expected, expected_grads, _ = run_mxnet(tmp_path, "Pooling", [x], params, [head], (0,))
    got, grads, _ = run_minimx("Pooling", [x], params, [head], (0,))
    return (got[0], grads[0]), (expected[0], expected_grads[0])


@requires_mxnet
@pytest.mark.parametrize("params", LAYOUTS)
def test_tied_maxima_send_the_gradient_to_the_first_tap_as_mxnet(tmp_path, params):
    x = _windows([2.0, 2.0, 1.0, -3.0], [-0.0, 0.0, -1.0, -1.0], [0.0, -0.0, -0.0, -1.0])
    (value, grad), (expected_value, expected_grad) = _both(tmp_path, x, params)
    np.testing.assert_array_equal(value, expected_value)       # (-0 == +0 here)
    np.testing.assert_array_equal(grad, expected_grad)


@requires_mxnet
@pytest.mark.xfail(strict=True, reason="numpy's maximum keeps the last of tied +0/-0 taps; "
                                       "MXNet keeps the first (see the module docstring)")
@pytest.mark.parametrize("params", LAYOUTS)
def test_the_sign_of_a_tied_zero_maximum_is_the_first_taps(tmp_path, params):
    x = _windows([-0.0, 0.0, -1.0, -1.0], [0.0, -0.0, -0.0, -1.0])
    (value, _), (expected_value, _) = _both(tmp_path, x, params)
    np.testing.assert_array_equal(np.signbit(value), np.signbit(expected_value))


@requires_mxnet
@pytest.mark.xfail(strict=True, reason="numpy's maximum propagates NaN; MXNet skips it "
                                       "(see the module docstring)")
@pytest.mark.parametrize("params", LAYOUTS)
def test_a_nan_tap_is_skipped(tmp_path, params):
    x = _windows([np.nan, 1.0, 2.0, 3.0])
    (value, _), (expected_value, _) = _both(tmp_path, x, params)
    np.testing.assert_array_equal(value, expected_value)
