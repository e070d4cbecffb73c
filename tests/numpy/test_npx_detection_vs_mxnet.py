"""mx.npx's detection operators (roi_pooling, multibox_*) against MXNet 1.9.1.

Dive into Deep Learning's rcnn and ssd pages call them through npx (MXNet's ``_npx_``
aliases of ROIPooling and the contrib MultiBox operators).  The cases run on MXNet through
``test_np_vs_mxnet``'s ``ask_mxnet`` and on minimx; shapes, dtypes and values must agree.
"""
import numpy as onp
import pytest

import minimx as mx
from minimx import np, npx

from test_np_vs_mxnet import ask_mxnet

SETUP = """
X = np.arange(16, dtype='float32').reshape(1, 1, 4, 4)
ROIS = np.array([[0, 0, 0, 20, 20], [0, 0, 10, 30, 30]], dtype='float32')
FEATURE = np.zeros((1, 3, 4, 4))
ANCHORS = np.array([[[0.0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4], [0.63, 0.05, 0.88, 0.98],
                     [0.66, 0.45, 0.8, 0.8], [0.57, 0.3, 0.92, 0.9]]])
LABELS = np.array([[[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]]])
CLS_PREDS = np.zeros((1, 3, 5))
PROBS = np.array([[[0.0, 0.0, 0.0, 0.0, 0.1], [0.9, 0.8, 0.7, 0.1, 0.2],
                   [0.1, 0.2, 0.3, 0.9, 0.6]]])
OFFSETS = np.zeros((1, 20))
"""

CASES = {
    # d2l's rcnn page
    "roi-pooling": "npx.roi_pooling(X, ROIS, pooled_size=(2, 2), spatial_scale=0.1)",
    # d2l's ssd page: anchors, then training targets and detections
    "multibox-prior": "npx.multibox_prior(FEATURE, sizes=[0.75, 0.5], ratios=[1, 2, 0.5])",
    "multibox-target-offsets": "npx.multibox_target(ANCHORS, LABELS, CLS_PREDS)[0]",
    "multibox-target-mask": "npx.multibox_target(ANCHORS, LABELS, CLS_PREDS)[1]",
    "multibox-target-classes": "npx.multibox_target(ANCHORS, LABELS, CLS_PREDS)[2]",
    "multibox-detection": "npx.multibox_detection(PROBS, OFFSETS, ANCHORS, nms_threshold=0.5)",
}


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python):
    return ask_mxnet(mxnet_python, SETUP, CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_npx_detection_matches_mxnet(name, mxnet_results):
    wanted = mxnet_results[name]
    assert "error" not in wanted, wanted
    names = {"np": np, "npx": npx, "mx": mx}
    with mx.util.np_shape(True), mx.util.np_array(True):
        exec(SETUP, names)
        got = eval(CASES[name], names)
    assert isinstance(got, np.ndarray), f"{name}: {type(got)} is not an mx.np.ndarray"
    assert list(got.shape) == wanted["shape"]
    assert str(got.dtype) == wanted["dtype"]
    onp.testing.assert_allclose(got.asnumpy(), onp.array(wanted["value"]), rtol=1e-5, atol=1e-6)
