"""``UpSampling``: enlarge feature maps by an integer ``scale``, nearest or bilinear.

Lesson: 09-gluon.  Mirrors ``src/operator/nn/upsampling.cc``.  ``nearest`` repeats each
pixel ``scale x scale`` times; several inputs are each enlarged to the first one's output
size and then concatenated along the channels (or summed, ``multi_input_mode='sum'``).
``bilinear`` is a transposed convolution, one channel at a time, with a learnable
``weight`` of shape ``(num_filter, 1, k, k)`` where ``k = 2 * scale - scale % 2`` (MXNet
initialises it with the bilinear kernel, ``mx.init.Bilinear``).
"""
import math

from .conv import Geometry, _convolve, _convolve_transpose, _convolve_weight_grad
from .params import Choice, Param
from .registry import ALL_NEEDED, OpDef, TestHints, register_op


def _reference_bilinear(np, data, weight, scale):
    """A transposed convolution written as scatter-adds, one input pixel at a time."""
    kernel, pad = weight.shape[-1], math.ceil((scale - 1) / 2)
    n, c, h, w = data.shape
    full = np.zeros((n, c, (h - 1) * scale + kernel, (w - 1) * scale + kernel), data.dtype)
    for i in range(h):
        for j in range(w):
            full[:, :, i * scale:i * scale + kernel, j * scale:j * scale + kernel] += (
                data[:, :, i:i + 1, j:j + 1] * weight[:, 0][None])
    return full[:, :, pad:pad + h * scale, pad:pad + w * scale]


def _reference(np, *arrays, scale, sample_type, multi_input_mode="concat", **_):
    if sample_type == "bilinear":
        return _reference_bilinear(np, *arrays, scale)
    size = arrays[0].shape[2] * scale
    parts = []
    for x in arrays:
        step = size // x.shape[2]
        parts.append(x.repeat(step, axis=2).repeat(step, axis=3))
    return sum(parts) if multi_input_mode == "sum" else np.concatenate(parts, axis=1)


@register_op
class UpSampling(OpDef):
    """Enlarge NCHW inputs by ``scale``: ``nearest`` (any number of inputs) or
    ``bilinear`` (``data`` and ``weight``)."""
    name = "UpSampling"
    variadic = True
    saves = ("input_shapes", "data", "weight")      # data and weight: bilinear only
    params = {"scale": Param(int, doc="the enlargement factor"),
              "num_filter": Param(int, default=0, doc="bilinear: the channels of data"),
              "sample_type": Param(Choice("nearest", "bilinear"), doc="how to fill"),
              "multi_input_mode": Param(Choice("concat", "sum"), default="concat",
                                        doc="nearest, several inputs: how to combine them"),
              "num_args": Param(int, default=1, doc="number of inputs"),
              "workspace": Param(int, default=512, doc="ignored")}
    test = TestHints(shapes=((1, 2, 4, 4), (1, 3, 2, 2)),
                     params={"scale": 2, "sample_type": "nearest", "num_args": 2},
                     reference=_reference,
                     cases=(({"scale": 3, "sample_type": "nearest", "num_args": 1},
                             ((2, 1, 2, 3),)),
                            ({"scale": 2, "sample_type": "bilinear", "num_args": 2,
                              "num_filter": 2}, ((1, 2, 3, 3), (2, 1, 4, 4)))))

    def check_params(self):
        if self.scale < 1:
            raise self.param_error(f"scale must be at least 1, got {self.scale}")
        if self.sample_type == "bilinear" and self.num_args != 2:
            raise self.param_error(f"bilinear takes data and weight (num_args=2), got "
                                   f"num_args={self.num_args}")

    def list_inputs(self, num_args=None):
        if self.sample_type == "bilinear":
            return ("data", "weight")
        count = num_args if num_args is not None else self.num_args
        return tuple(f"arg{index}" for index in range(count))

    def geometry(self):
        kernel = 2 * self.scale - self.scale % 2
        pad = math.ceil((self.scale - 1) / 2)
        return Geometry((kernel, kernel), (self.scale, self.scale), (1, 1), (pad, pad))

    def infer_input_shapes(self, data, *rest):
        if self.sample_type != "bilinear" or data is None or len(data) != 4:
            return [data, *rest]
        kernel = self.geometry().kernel
        return [data, (data[1], 1) + kernel]

    def infer_shape(self, *shapes):
        for shape in shapes:
            if len(shape) != 4:
                raise self.shape_error(f"inputs must be 4-D (N, C, H, W), got {tuple(shape)}")
        first = shapes[0]
        size = (first[2] * self.scale, first[3] * self.scale)
        if self.sample_type == "bilinear":
            weight = (first[1], 1) + self.geometry().kernel
            if tuple(shapes[1]) != weight:
                raise self.shape_error(f"weight must be {weight} for data {tuple(first)}, got "
                                       f"{tuple(shapes[1])}")
            return (first[0], first[1]) + size
        channels = 0
        for shape in shapes:
            if size[0] % shape[2] or size[1] % shape[3] or shape[0] != first[0] or (
                    size[0] // shape[2] != size[1] // shape[3]):
                raise self.shape_error(f"input {tuple(shape)} does not enlarge to {size} by "
                                       f"a whole factor")
            if self.multi_input_mode == "sum" and shape[1] != first[1]:
                raise self.shape_error(f"multi_input_mode='sum' needs one channel count, got "
                                       f"{[tuple(s) for s in shapes]}")
            channels += shape[1]
        if self.multi_input_mode == "sum":
            channels = first[1]
        return (first[0], channels) + size

    def forward(self, xp, *arrays):
        if self.sample_type == "bilinear":
            data, weight = arrays
            shape = self.infer_shape(data.shape, weight.shape)
            return _convolve_transpose(xp, data, weight, shape, self.geometry(), data.shape[1])
        size = arrays[0].shape[2] * self.scale
        parts = []
        for x in arrays:
            step = size // x.shape[2]
            parts.append(x.repeat(step, axis=2).repeat(step, axis=3))
        if self.multi_input_mode == "sum":
            return sum(parts[1:], parts[0])
        return xp.concatenate(parts, axis=1)

    def backward(self, xp, out_grad, input_shapes, data=None, weight=None, needs=ALL_NEEDED):
        if self.sample_type == "bilinear":
            geometry = self.geometry()
            grad_data = grad_weight = None
            if needs[0]:
                grad_data = _convolve(xp, out_grad, weight, geometry, data.shape[1])
                grad_data = grad_data[..., :data.shape[2], :data.shape[3]]
            if needs[1]:
                grad_weight = _convolve_weight_grad(xp, data, out_grad, geometry,
                                                    data.shape[1])
            return grad_data, grad_weight
        grads, start = [], 0
        for (n, c, h, w) in input_shapes:
            step = out_grad.shape[2] // h
            if self.multi_input_mode == "sum":
                part = out_grad
            else:
                part = out_grad[:, start:start + c]
                start += c
            grads.append(part.reshape(n, c, h, step, w, step).sum(axis=(3, 5)))
        return tuple(grads)
