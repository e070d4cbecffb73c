"""``contrib.BilinearResize2D``: resize NCHW maps by bilinear interpolation.

Lesson: 09-gluon.  Mirrors ``src/operator/contrib/bilinear_resize.cc``.  Interpolation is
linear along each axis, so a resize is two small matrices: ``out = A_h @ x @ A_w^T`` per
map, where row ``o`` of ``A`` mixes the two input positions around the source coordinate
of output ``o`` (``o * (n - 1) / (m - 1)`` with ``align_corners``, else
``(o + 0.5) * n / m - 0.5``).  The gradient is ``A_h^T @ g @ A_w``.  ``mode`` chooses
the output size: ``size`` (``height``/``width``, or the scales), ``odd_scale``, ``like``
(a second input's size) or to the nearest even/odd size up or down.
"""
import math

import numpy as np

from .params import Choice, Optional, Param
from .registry import OpDef, TestHints, register_op

_MODES = ("size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down",
          "to_odd_up")


def interpolation_matrix(size_in, size_out, align_corners):
    """(size_out, size_in): the weights of linear interpolation along one axis."""
    matrix = np.zeros((size_out, size_in))
    for out in range(size_out):
        if align_corners:
            source = out * (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
        else:
            source = max((out + 0.5) * size_in / size_out - 0.5, 0.0)
        low = min(int(math.floor(source)), size_in - 1)
        high = low + 1 if low < size_in - 1 else low
        weight = source - low
        matrix[out, low] += 1 - weight
        matrix[out, high] += weight
    return matrix


def _new_size(size, mode, scale, given):
    if mode == "size":
        return int(size * scale) if scale is not None else given
    if mode == "odd_scale":
        return int(size * scale) if size % 2 == 0 else int((size - 1) * scale) + 1
    even = mode.startswith("to_even")
    keep = (size % 2 == 0) == even
    return size if keep else size + (1 if mode.endswith("up") else -1)


@register_op
class BilinearResize2D(OpDef):
    """Resize ``data (N, C, H, W)`` by bilinear interpolation (see the module)."""
    name = "_contrib_BilinearResize2D"
    inputs = ("data", "like")
    params = {"height": Param(int, default=1, doc="output height (mode 'size')"),
              "width": Param(int, default=1, doc="output width (mode 'size')"),
              "scale_height": Param(Optional(float), default=None, doc="height factor"),
              "scale_width": Param(Optional(float), default=None, doc="width factor"),
              "mode": Param(Choice(*_MODES), default="size", doc="how the size is chosen"),
              "align_corners": Param(bool, default=True, doc="corners map onto corners")}
    saves = ("data_shape",)
    no_grad_inputs = ("like",)
    test = TestHints(shapes=((2, 3, 4, 5),), params={"height": 6, "width": 3},
                     cases=(({"height": 3, "width": 7, "align_corners": False},
                             ((1, 2, 5, 4),)),
                            ({"mode": "to_odd_up"}, ((1, 1, 4, 6),))))

    def list_inputs(self, num_args=None):
        return self.inputs if self.mode == "like" else ("data",)

    def out_size(self, data, like=None):
        if self.mode == "like":
            return like[2], like[3]
        return (_new_size(data[2], self.mode, self.scale_height, self.height),
                _new_size(data[3], self.mode, self.scale_width, self.width))

    def infer_shape(self, data, like=None):
        if len(data) != 4 or (like is not None and len(like) != 4):
            raise self.shape_error(f"expected (N, C, H, W) inputs, got {tuple(data)}"
                                   f"{'' if like is None else ' and ' + str(tuple(like))}")
        height, width = self.out_size(data, like)
        if height < 1 or width < 1:
            raise self.shape_error(f"the output size ({height}, {width}) is empty")
        return (data[0], data[1], height, width)

    def _matrices(self, xp, data_shape, out_h, out_w, dtype):
        rows = interpolation_matrix(data_shape[2], out_h, self.align_corners)
        cols = interpolation_matrix(data_shape[3], out_w, self.align_corners)
        return xp.asarray(rows, dtype=dtype), xp.asarray(cols, dtype=dtype)

    def forward(self, xp, data, like=None):
        out_h, out_w = self.out_size(data.shape, None if like is None else like.shape)
        rows, cols = self._matrices(xp, data.shape, out_h, out_w, data.dtype)
        return rows @ data @ cols.T

    def backward(self, xp, out_grad, data_shape):
        rows, cols = self._matrices(xp, data_shape, out_grad.shape[2], out_grad.shape[3],
                                    out_grad.dtype)
        grad = rows.T @ out_grad @ cols
        return (grad, None) if self.mode == "like" else grad
