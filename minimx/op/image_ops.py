"""``nd.image`` / ``sym.image`` operators: ``to_tensor`` and ``normalize``.

Lesson: 11-data.  Mirrors ``src/operator/image/image_random.cc``.  ``to_tensor`` turns
HWC (or NHWC) values in [0, 255] into CHW (NCHW) float32 in [0, 1]; ``normalize`` computes
``(x - mean) / std`` per channel of a CHW (or NCHW) tensor.  Gluon's ``ToTensor`` and
``Normalize`` transforms call them.
"""
from .params import FloatTuple, Param
from .registry import OpDef, TestHints, register_op


def _per_channel(values, channels, what, op):
    if len(values) == 1:
        return values * channels
    if len(values) != channels:
        raise op.shape_error(f"{what} has {len(values)} values for {channels} channels")
    return values


@register_op
class ToTensor(OpDef):
    """HWC (NHWC) in [0, 255] -> CHW (NCHW) float32 in [0, 1]; no gradient."""
    name = "_image_to_tensor"
    differentiable = False
    test = TestHints(shapes=((4, 2, 3),), low=0, high=255, grad=False,
                     reference=lambda np, x: (np.moveaxis(x, -1, -3) / 255.0).astype(
                         np.float32), cases=(({}, ((2, 4, 2, 3),)),))

    def infer_shape(self, data):
        if len(data) not in (3, 4):
            raise self.shape_error(f"expected an HWC or NHWC image, got shape {tuple(data)}")
        return tuple(data[:-3]) + (data[-1], data[-3], data[-2])

    def infer_type(self, data):
        return "float32"

    def forward(self, xp, data):
        return xp.ascontiguousarray(xp.moveaxis(data, -1, -3)).astype("float32") / 255.0


@register_op
class Normalize(OpDef):
    """``(x - mean) / std`` for each channel of a CHW or NCHW tensor (one value, or one per
    channel, for each of ``mean`` and ``std``)."""
    name = "_image_normalize"
    params = {"mean": Param(FloatTuple, default=(0.0,), doc="per-channel mean"),
              "std": Param(FloatTuple, default=(1.0,), doc="per-channel deviation")}
    test = TestHints(shapes=((3, 2, 4),), params={"mean": (0.0, 1.0, 2.0),
                                                   "std": (3.0, 2.0, 1.0)},
                     reference=lambda np, x, mean, std: (x - np.array(mean)[:, None, None])
                     / np.array(std)[:, None, None],
                     cases=(({"mean": (0.5,), "std": (2.0,)}, ((2, 3, 2, 2),)),))

    def shaped_like_output(self):
        return (0,)

    def infer_shape(self, data):
        if len(data) not in (3, 4):
            raise self.shape_error(f"expected a CHW or NCHW tensor, got shape {tuple(data)}")
        _per_channel(self.mean, data[-3], "mean", self)
        _per_channel(self.std, data[-3], "std", self)
        return tuple(data)

    def _columns(self, xp, channels, dtype):
        shape = (channels, 1, 1)
        mean = xp.asarray(_per_channel(self.mean, channels, "mean", self), dtype=dtype)
        std = xp.asarray(_per_channel(self.std, channels, "std", self), dtype=dtype)
        return mean.reshape(shape), std.reshape(shape)

    def forward(self, xp, data):
        mean, std = self._columns(xp, data.shape[-3], data.dtype)
        return (data - mean) / std

    def backward(self, xp, out_grad):
        _, std = self._columns(xp, out_grad.shape[-3], out_grad.dtype)
        return out_grad / std
