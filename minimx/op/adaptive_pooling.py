"""``contrib.AdaptiveAvgPooling2D``: average pooling to a fixed output size.

Lesson: 09-gluon.  Mirrors ``src/operator/contrib/adaptive_avg_pooling.cc``.  Output row
``i`` of ``O`` averages input rows ``floor(i * H / O)`` to ``ceil((i + 1) * H / O)``
(windows may overlap by one), and likewise for columns.  The window sums come from an
integral image (four corner reads per window); the gradient spreads each output's share
back with the same corners on a difference image and two cumulative sums.
"""
from .params import Param, Shape
from .registry import OpDef, TestHints, register_op


def _bounds(xp, size, out):
    """Start and end (exclusive) of every output's window along one axis."""
    index = xp.arange(out)
    return (index * size) // out, -((-(index + 1) * size) // out)


def _reference(np, x, output_size=()):
    out_h, out_w = (tuple(output_size) * 2)[:2] if len(output_size) == 1 else (
        tuple(output_size) or (1, 1))
    height, width = x.shape[2:]
    y = np.zeros(x.shape[:2] + (out_h, out_w), dtype=x.dtype)
    for i in range(out_h):
        top, bottom = (i * height) // out_h, -(-(i + 1) * height // out_h)
        for j in range(out_w):
            left, right = (j * width) // out_w, -(-(j + 1) * width // out_w)
            y[:, :, i, j] = x[:, :, top:bottom, left:right].mean(axis=(2, 3))
    return y


@register_op
class AdaptiveAvgPooling2D(OpDef):
    """Average pooling of ``(N, C, H, W)`` data to ``output_size`` (one number: square;
    none: 1 x 1)."""
    name = "_contrib_AdaptiveAvgPooling2D"
    params = {"output_size": Param(Shape, default=(), doc="(height, width), or one size")}
    saves = ("data_shape",)
    test = TestHints(shapes=((2, 3, 7, 5),), params={"output_size": (3, 4)},
                     reference=_reference, cases=(({"output_size": (2,)}, ((1, 2, 5, 5),)),))

    def out_size(self):
        if not self.output_size:
            return 1, 1
        if len(self.output_size) == 1:
            return self.output_size[0], self.output_size[0]
        return tuple(self.output_size)

    def check_params(self):
        if len(self.output_size) > 2 or min(self.output_size or (1,)) < 1:
            raise self.param_error(f"output_size must be one or two positive sizes, got "
                                   f"{self.output_size}")

    def infer_shape(self, data):
        if len(data) != 4:
            raise self.shape_error(f"expected (N, C, H, W) data, got {tuple(data)}")
        return tuple(data[:2]) + self.out_size()

    def _windows(self, xp, height, width):
        out_h, out_w = self.out_size()
        top, bottom = _bounds(xp, height, out_h)
        left, right = _bounds(xp, width, out_w)
        area = ((bottom - top)[:, None] * (right - left)[None, :])
        return top[:, None], bottom[:, None], left[None, :], right[None, :], area

    def forward(self, xp, data):
        n, c, height, width = data.shape
        top, bottom, left, right, area = self._windows(xp, height, width)
        total = xp.zeros((n, c, height + 1, width + 1), dtype="float64")
        total[:, :, 1:, 1:] = data.cumsum(axis=2, dtype="float64").cumsum(axis=3)
        sums = (total[:, :, bottom, right] - total[:, :, top, right]
                - total[:, :, bottom, left] + total[:, :, top, left])
        return (sums / area).astype(data.dtype)

    def backward(self, xp, out_grad, data_shape):
        n, c, height, width = data_shape
        top, bottom, left, right, area = self._windows(xp, height, width)
        share = out_grad.astype("float64") / area
        corners = xp.zeros((n, c, height + 1, width + 1), dtype="float64")
        out_h, out_w = area.shape
        rows = [xp.broadcast_to(r, (out_h, out_w)) for r in (top, bottom)]
        cols = [xp.broadcast_to(k, (out_h, out_w)) for k in (left, right)]
        for row, sign_r in zip(rows, (1, -1)):
            for col, sign_c in zip(cols, (1, -1)):
                xp.add.at(corners, (slice(None), slice(None), row, col), sign_r * sign_c * share)
        grad = corners.cumsum(axis=2).cumsum(axis=3)[:, :, :height, :width]
        return grad.astype(out_grad.dtype)
