"""The sign of a zero remainder, as MXNet 1.9.1 gives it (found at stop 46).

MXNet's ``mod`` takes ``fmod`` of the magnitudes and, for operands of mixed signs, adds
the divisor back or a +0: a zero remainder is -0 only for a -0 dividend over a positive
divisor and a negative dividend over a negative divisor.  numpy's ``mod`` gives a zero the
divisor's sign instead (``2 % -1`` is -0 there, +0 in MXNet).
"""
import numpy as np
import pytest
from _nn_helpers import requires_mxnet, run_mxnet

from minimx import nd

VALUES = np.array([-2, -1, -0.0, 0.0, 1, 2, 3, 0.5, -0.5, np.inf, -np.inf, np.nan], np.float32)


def _grid(dtype):
    lhs, rhs = np.meshgrid(VALUES, VALUES, indexing="ij")
    return lhs.astype(dtype), rhs.astype(dtype)


def _same(got, expected):
    """Equal bits, NaN of any sign equal to NaN."""
    bits = f"u{got.itemsize}"
    same = (got.view(bits) == expected.view(bits)) | (np.isnan(got) & np.isnan(expected))
    assert same.all(), list(zip(*np.nonzero(~same)))[:10]


@pytest.mark.parametrize("lhs, rhs, expected", [
    (-0.0, 1.0, -0.0), (0.0, -2.0, 0.0), (2.0, -1.0, 0.0), (-2.0, -1.0, -0.0),
    (-2.0, 1.0, 0.0), (-0.0, -0.5, 0.0), (3.0, 0.0, 0.0), (-1.0, 2.0, 1.0)])
def test_zero_remainders_take_mxnets_sign(lhs, rhs, expected):
    for got in (nd.array([lhs]) % nd.array([rhs]), nd.array([lhs]) % rhs, lhs % nd.array([rhs])):
        value = got.asnumpy()[0]
        assert value == expected and np.signbit(value) == np.signbit(expected), (lhs, rhs)


@requires_mxnet
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_broadcast_mod_matches_mxnet_bit_for_bit(tmp_path, dtype):
    lhs, rhs = _grid(dtype)
    expected = run_mxnet(tmp_path, "broadcast_mod", [lhs, rhs], {})[0][0]
    _same(nd.broadcast_mod(nd.array(lhs, dtype=dtype), nd.array(rhs, dtype=dtype)).asnumpy(),
          expected)
