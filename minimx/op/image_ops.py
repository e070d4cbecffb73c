"""``nd.image`` / ``sym.image`` operators: ``to_tensor``, ``normalize`` and ``resize``.

Lesson: 11-data.  Mirrors ``src/operator/image/image_random.cc``.  ``to_tensor`` turns
HWC (or NHWC) values in [0, 255] into CHW (NCHW) float32 in [0, 1]; ``normalize`` computes
``(x - mean) / std`` per channel of a CHW (or NCHW) tensor.  Gluon's ``ToTensor`` and
``Normalize`` transforms call them.
"""
import numpy as np

from .common import on_host, to_device
from .params import FloatTuple, Param, Shape
from .registry import OpDef, TestHints, register_op
from .resize_kernels import resize_array


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


def _resized_size(op, height, width):
    """MXNet's output (height, width): ``size`` is (width, height), or one side length --
    both sides, or with ``keep_ratio`` the shorter side, the other scaled (rounded down)."""
    if len(op.size) not in (1, 2) or any(side <= 0 for side in op.size):
        raise op.param_error(f"size must be one or two positive ints, got {op.size}")
    if len(op.size) == 2:
        return op.size[1], op.size[0]
    side = op.size[0]
    if not op.keep_ratio:
        return side, side
    if height > width:
        return height * side // width, side
    return side, width * side // height


@register_op
class Resize(OpDef):
    """Resize an HWC image or an NHWC batch to ``size`` with OpenCV's interpolation ``interp``
    (0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos); the dtype is kept (integers
    rounded).  No gradient flows back through it."""
    name = "_image_resize"
    params = {"size": Param(Shape, default=(), doc="(width, height), or one side length"),
              "keep_ratio": Param(bool, default=False,
                                  doc="with one side length: scale the shorter side to it"),
              "interp": Param(int, default=1, doc="interpolation, as OpenCV's (0-4)")}
    differentiable = False
    host_compute = True
    # the other modes, batches and keep_ratio: tests/ndarray/test_image_resize_mxnet.py
    test = TestHints(shapes=((5, 7, 3),), params={"size": (4, 6)}, low=0, high=255,
                     grad=False, reference=lambda np, x, size: _bilinear_reference(np, x, size))

    def check_params(self):
        if self.interp not in (0, 1, 2, 3, 4):
            raise self.param_error(f"interp must be 0, 1, 2, 3 or 4, got {self.interp}")
        if self.size:                  # () is refused at shape inference, as MXNet's
            _resized_size(self, 1, 1)

    def infer_shape(self, data):
        if len(data) not in (3, 4):
            raise self.shape_error(f"expected an HWC image or an NHWC batch, got shape "
                                   f"{tuple(data)}")
        height, width = _resized_size(self, data[-3], data[-2])
        return tuple(data[:-3]) + (height, width, data[-1])

    def forward(self, xp, data):
        if data.dtype == "float16":
            raise self.type_error("float16 images are not supported (as OpenCV's resize)")
        height, width = _resized_size(self, data.shape[-3], data.shape[-2])
        images = on_host(xp, data)
        if images.ndim == 3:
            resized = resize_array(images, width, height, self.interp)
        else:
            resized = np.stack([resize_array(image, width, height, self.interp)
                                for image in images])
        return to_device(xp, resized)


def _bilinear_reference(np, x, size):
    """OpenCV's bilinear resize of an HWC image to (width, height) = ``size``, straight from
    its formula: each output pixel centre mapped back into the input, clamped, and the four
    pixels around it mixed."""
    width, height = size
    rows = np.clip((np.arange(height) + 0.5) * x.shape[0] / height - 0.5, 0, x.shape[0] - 1)
    cols = np.clip((np.arange(width) + 0.5) * x.shape[1] / width - 0.5, 0, x.shape[1] - 1)
    r0, c0 = np.floor(rows).astype(int), np.floor(cols).astype(int)
    r1, c1 = np.minimum(r0 + 1, x.shape[0] - 1), np.minimum(c0 + 1, x.shape[1] - 1)
    fr, fc = (rows - r0)[:, None, None], (cols - c0)[None, :, None]
    out = (x[r0][:, c0] * (1 - fr) * (1 - fc) + x[r0][:, c1] * (1 - fr) * fc
           + x[r1][:, c0] * fr * (1 - fc) + x[r1][:, c1] * fr * fc)
    return out.astype(x.dtype)


def _image_axes(op, shape):
    """The (height, width) axes of an HWC image or an NHWC batch."""
    if len(shape) not in (3, 4):
        raise op.shape_error(f"expected an HWC image or an NHWC batch, got shape "
                             f"{tuple(shape)}")
    return len(shape) - 3, len(shape) - 2


@register_op
class Crop(OpDef):
    """The ``width`` x ``height`` region of an HWC image (or of each NHWC image) whose top
    left corner is (``x``, ``y``)."""
    name = "_image_crop"
    params = {"x": Param(int, doc="left edge"), "y": Param(int, doc="top edge"),
              "width": Param(int, doc="width of the region"),
              "height": Param(int, doc="height of the region")}
    saves = ("data_shape",)
    test = TestHints(shapes=((4, 5, 3),), params={"x": 1, "y": 2, "width": 3, "height": 2},
                     reference=lambda np, data, x, y, width, height:
                     data[y:y + height, x:x + width])

    def _region(self, shape):
        rows, cols = _image_axes(self, shape)
        if self.x < 0 or self.y < 0 or self.width <= 0 or self.height <= 0 or \
                self.x + self.width > shape[cols] or self.y + self.height > shape[rows]:
            raise self.shape_error(
                f"the region x={self.x}, y={self.y}, width={self.width}, height="
                f"{self.height} does not lie inside an image of height {shape[rows]} and "
                f"width {shape[cols]}")
        index = [slice(None)] * len(shape)
        index[rows] = slice(self.y, self.y + self.height)
        index[cols] = slice(self.x, self.x + self.width)
        return tuple(index)

    def infer_shape(self, data):
        rows, cols = _image_axes(self, data)
        self._region(data)
        shape = list(data)
        shape[rows], shape[cols] = self.height, self.width
        return tuple(shape)

    def forward(self, xp, data):
        return data[self._region(data.shape)].copy()

    def backward(self, xp, out_grad, data_shape):
        grad = xp.zeros(data_shape, out_grad.dtype)
        grad[self._region(data_shape)] = out_grad
        return grad


class _Flip(OpDef):
    """Mirror an HWC image with 1 or 3 channels along one of its axes (MXNet 1.9.1 takes no
    batch and no other channel count here)."""
    flips_width = True

    def _axis(self, shape):
        if len(shape) != 3 or shape[-1] not in (1, 3):
            raise self.shape_error(f"expected an HWC image (height, width, channels) with 1 "
                                   f"or 3 channels, got shape {tuple(shape)}")
        return 1 if self.flips_width else 0

    def infer_shape(self, data):
        self._axis(data)
        return tuple(data)

    def forward(self, xp, data):
        return xp.flip(data, axis=self._axis(data.shape)).copy()

    def backward(self, xp, out_grad):
        return xp.flip(out_grad, axis=self._axis(out_grad.shape)).copy()


@register_op
class FlipLeftRight(_Flip):
    """Mirror an HWC image left to right."""
    name = "_image_flip_left_right"
    test = TestHints(shapes=((4, 2, 3),), reference=lambda np, x: np.flip(x, 1),
                     cases=(({}, ((2, 4, 1),)),))     # even sizes: see test_image_ops_mxnet


@register_op
class FlipTopBottom(_Flip):
    """Mirror an HWC image top to bottom."""
    name = "_image_flip_top_bottom"
    flips_width = False
    test = TestHints(shapes=((4, 2, 3),), reference=lambda np, x: np.flip(x, 0),
                     cases=(({}, ((2, 4, 1),)),))


class _RandomFlip(_Flip):
    """Mirror the image with probability one half (the whole batch or none of it)."""
    saves = ("output",)

    def forward(self, xp, data, rng):
        if rng.integers(2) == 1:      # one fair coin for the whole input, as MXNet's
            return super().forward(xp, data)
        return data.copy()

    def backward(self, xp, out_grad, output):
        raise NotImplementedError(f"operator {self.name} has no gradient")


@register_op
class RandomFlipLeftRight(_RandomFlip):
    """Mirror an HWC image left to right with probability one half."""
    name = "_image_random_flip_left_right"
    differentiable = False
    test = TestHints(shapes=((4, 2, 3),), grad=False, random=True)


@register_op
class RandomFlipTopBottom(_RandomFlip):
    """Mirror an HWC image top to bottom with probability one half."""
    name = "_image_random_flip_top_bottom"
    flips_width = False
    differentiable = False
    test = TestHints(shapes=((4, 2, 3),), grad=False, random=True)
