"""``mx.npx.image``: nd.image's operators on np arrays (MXNet 1.9.1's ``_npx__image_*``
names of them), imperatively and inside a hybridized block (``F.npx.image``).  The same
program on both (tests/same_program.py)."""
import numpy as np
import pytest

from same_program import on_minimx_np_mode, on_mxnet

pytestmark = pytest.mark.mxnet

NAMES = ["adjust_lighting", "crop", "flip_left_right", "flip_top_bottom", "normalize",
         "random_brightness", "random_color_jitter", "random_contrast",
         "random_flip_left_right", "random_flip_top_bottom", "random_hue", "random_lighting",
         "random_saturation", "resize", "to_tensor"]

PROGRAM = """
import json
import numpy as onp
mx.npx.set_np()
names = %r
image = mx.np.array(onp.arange(4 * 6 * 3).reshape(4, 6, 3) * 3 %% 256, dtype="uint8")
tensor = mx.npx.image.to_tensor(image)
results = {
    "present": [name for name in names if callable(getattr(mx.npx.image, name, None))],
    "types": [type(tensor).__name__, str(tensor.dtype)],
    "to_tensor": tensor.tolist(),
    "normalize": mx.npx.image.normalize(tensor, mean=(0.5, 0.4, 0.3),
                                        std=(0.2, 0.3, 0.4)).tolist(),
    # on a float image: on uint8, OpenCV's fixed-point bilinear arithmetic (MXNet's) and
    # minimx's float weights may round a value differently by 1 (op/resize_kernels.py)
    "resize": mx.npx.image.resize(image.astype("float32"), size=(3, 2)).tolist(),
    "resize_dtype": str(mx.npx.image.resize(image, size=(3, 2)).dtype),
    "crop": mx.npx.image.crop(image, x=1, y=2, width=3, height=2).astype("float32").tolist(),
    "flip_left_right": mx.npx.image.flip_left_right(image).astype("float32").tolist(),
    "flip_top_bottom": mx.npx.image.flip_top_bottom(image).astype("float32").tolist(),
    "adjust_lighting": mx.npx.image.adjust_lighting(
        image.astype("float32"), alpha=(0.1, -0.2, 0.05)).tolist(),
    "jittered_shape": list(mx.npx.image.random_brightness(
        image.astype("float32"), min_factor=0.5, max_factor=1.5).shape),
}

class Net(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        x = F.npx.image.to_tensor(F.npx.image.resize(x.astype("float32"), size=(4, 2)))
        return F.npx.image.normalize(x, mean=(0.5, 0.4, 0.3), std=(0.2, 0.3, 0.4))

net = Net()
net.hybridize()
output = net(image)
results["hybridized"] = [type(output).__name__, output.tolist()]
print(json.dumps(results))
""" % NAMES


def test_npx_image_as_mxnet(mxnet_python):
    theirs = on_mxnet(mxnet_python, PROGRAM)
    ours = on_minimx_np_mode(PROGRAM)
    assert theirs["present"] == NAMES and ours["present"] == NAMES
    assert ours["types"] == theirs["types"] == ["ndarray", "float32"]
    assert ours["jittered_shape"] == theirs["jittered_shape"]
    assert ours["resize_dtype"] == theirs["resize_dtype"] == "uint8"
    assert ours["hybridized"][0] == theirs["hybridized"][0] == "ndarray"
    np.testing.assert_allclose(ours["hybridized"][1], theirs["hybridized"][1], rtol=1e-5,
                               atol=1e-5)
    for key in ("to_tensor", "normalize", "resize", "crop", "flip_left_right",
                "flip_top_bottom", "adjust_lighting"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-5, err_msg=key)
