"""nd.image.resize and sym.image.resize beside MXNet 1.9.1: every interpolation, HWC and
NHWC, uint8 and float32, each form of ``size`` (with ``keep_ratio``).

Each program runs on both (``same_program``); skipped without the reference MXNet.
"""
import numpy as np
import pytest

import minimx as mx
from same_program import on_minimx, on_mxnet

RESIZE = """
import json
import numpy as np
rng = np.random.RandomState(0)
out = {}
images = {"hwc": rng.uniform(0, 255, size=(9, 12, 3)), "nhwc": rng.uniform(0, 255, size=(2, 12, 9, 1))}
sizes = {"pair": (5, 7), "square": 6, "ratio": 4, "grow": (20, 15)}
for image_name, image in images.items():
    for dtype in ("uint8", "float32"):
        x = mx.nd.array(image, dtype=dtype)
        for size_name, size in sizes.items():
            for interp in range(5):
                keep = size_name == "ratio"
                y = mx.nd.image.resize(x, size=size, keep_ratio=keep, interp=interp)
                out[f"{image_name}-{dtype}-{size_name}-{interp}"] = [
                    list(y.shape), str(y.dtype), y.asnumpy().astype(float).tolist()]
graph = mx.sym.image.resize(mx.sym.var("data"), size=(5, 7))
out["sym"] = [list(s) for s in graph.infer_shape(data=(2, 12, 9, 3))[1]]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def results(mxnet_python):
    return on_mxnet(mxnet_python, RESIZE), on_minimx(RESIZE)


def test_resize_shapes_and_dtypes_match_mxnet(results):
    expected, got = results
    assert got.keys() == expected.keys()
    for key in expected:
        assert got[key][:2] == expected[key][:2], key


@pytest.mark.parametrize("interp, atol", [(0, 0), (1, 1), (2, 1), (3, 1), (4, 1)])
def test_resize_values_match_mxnet(results, interp, atol):
    """Within rounding of OpenCV's (one grey level, float32 too)."""
    expected, got = results
    keys = [k for k in expected if k.endswith(f"-{interp}")]
    assert keys
    for key in keys:
        np.testing.assert_allclose(got[key][2], expected[key][2], rtol=0, atol=atol + 1e-3,
                                   err_msg=key)


def test_resize_refuses_a_size_of_three_sides():
    with pytest.raises(mx.base.MXNetError, match="_image_resize.*size"):
        mx.nd.image.resize(mx.nd.ones((4, 4, 3)), size=(2, 2, 2))
