"""ROIPooling's bins on NaN, -inf and tied zeros, against MXNet 1.9.1.

MXNet starts every bin at -FLT_MAX and takes a cell only when it is greater: a NaN cell is
skipped, of tied cells the first (row-major) wins, and a bin of NaN and -inf alone keeps
-FLT_MAX and sends no gradient.  minimx took ``argmax`` of the bin, which picks the first
NaN (found at stop 46).
"""
import numpy as np
import pytest
from _nn_helpers import requires_mxnet, run_minimx, run_mxnet

ROIS = np.array([[0, 0, 0, 5, 3], [0, 1, 1, 4, 2], [1, 0, 0, 2, 2]], dtype=np.float32)


def _feature_maps(dtype):
    """Two images of 2 channels, 4x6 cells: NaN, -inf, +0/-0 ties, and a bin of NaN and
    -inf only (image 1, channel 0, top left)."""
    rng = np.random.RandomState(7)
    values = np.array([np.nan, -np.inf, np.inf, 0.0, -0.0, -1.0, 1.0, 2.0], dtype)
    data = rng.choice(values, size=(2, 2, 4, 6)).astype(dtype)
    data[1, 0, :2, :2] = [[np.nan, -np.inf], [np.nan, np.nan]]
    data[1, 1, :2, :2] = [[-0.0, 0.0], [0.0, -1.0]]
    return data


@requires_mxnet
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_roi_pooling_skips_nan_and_keeps_the_first_tie_as_mxnet(tmp_path, dtype):
    data = _feature_maps(dtype)
    params = {"pooled_size": (2, 2), "spatial_scale": 1.0}
    rois = ROIS.astype(dtype)
    head = (np.arange(3 * 2 * 2 * 2) % 5 + 1).reshape(3, 2, 2, 2).astype(dtype)
    got, grads, _ = run_minimx("ROIPooling", [data, rois], params, [head], (0,))
    expected, expected_grads, _ = run_mxnet(tmp_path, "ROIPooling", [data, rois], params,
                                            [head], (0,))
    np.testing.assert_array_equal(got[0].view(f"u{got[0].itemsize}"),
                                  expected[0].view(f"u{expected[0].itemsize}"))
    np.testing.assert_array_equal(grads[0], expected_grads[0])
