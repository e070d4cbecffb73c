"""``Correlation``: how well patches of two feature maps match at nearby displacements
(FlowNet's correlation layer, for optical flow).

Lesson: 09-gluon.  Mirrors ``src/operator/correlation.cc``.  Both inputs are padded by
``pad_size``.  For output position ``(i, j)`` the patch of ``data1`` at
``(i * stride1 + max_displacement, j * stride1 + max_displacement)`` (``kernel_size`` square,
from its top-left corner) is compared with the patch of ``data2`` displaced by ``(dy, dx)``,
both multiples of ``stride2`` within ``max_displacement``: output channel
``(dy / stride2 + r) * (2r + 1) + (dx / stride2 + r)`` holds the sum over the patch and the
channels of ``a * b`` (or ``|a - b|`` without ``is_multiply``), divided by
``kernel_size ** 2 * channels``.  Per displacement this is a product map and a box sum
(an integral image); the gradient spreads each output back over its patch the same way.
"""
from .params import Param
from .registry import OpDef, TestHints, register_op


def _padded(xp, data, pad):
    out = xp.zeros(data.shape[:2] + (data.shape[2] + 2 * pad, data.shape[3] + 2 * pad),
                   dtype=data.dtype)
    out[:, :, pad:pad + data.shape[2], pad:pad + data.shape[3]] = data
    return out


def _shifted(xp, padded, dy, dx):
    """``padded`` moved so that position (y, x) holds (y + dy, x + dx); zeros outside."""
    out = xp.zeros_like(padded)
    height, width = padded.shape[2:]
    ys, yd = (slice(0, height - dy), slice(dy, height)) if dy >= 0 else (
        slice(-dy, height), slice(0, height + dy))
    xs, xd = (slice(0, width - dx), slice(dx, width)) if dx >= 0 else (
        slice(-dx, width), slice(0, width + dx))
    out[:, :, ys, xs] = padded[:, :, yd, xd]
    return out


@register_op
class Correlation(OpDef):
    """The correlation of ``data1`` and ``data2`` (N, C, H, W) at every displacement."""
    name = "Correlation"
    inputs = ("data1", "data2")
    params = {"kernel_size": Param(int, default=1, doc="the patch side (odd)"),
              "max_displacement": Param(int, default=1, doc="the largest displacement"),
              "stride1": Param(int, default=1, doc="step between output positions"),
              "stride2": Param(int, default=1, doc="step between displacements"),
              "pad_size": Param(int, default=0, doc="zeros added on every side"),
              "is_multiply": Param(bool, default=True, doc="a * b (else |a - b|)")}
    saves = ("data1", "data2")
    test = TestHints(shapes=((1, 2, 6, 7), (1, 2, 6, 7)),
                     params={"kernel_size": 3, "max_displacement": 2, "pad_size": 2},
                     cases=(({"kernel_size": 1, "max_displacement": 2, "stride1": 2,
                              "stride2": 2, "pad_size": 1, "is_multiply": False},
                             ((2, 1, 5, 5), (2, 1, 5, 5))),))

    def check_params(self):
        if self.kernel_size < 1 or self.kernel_size % 2 == 0:
            raise self.param_error(f"kernel_size must be odd and positive, got "
                                   f"{self.kernel_size}")
        if min(self.stride1, self.stride2) < 1 or self.max_displacement < 0:
            raise self.param_error("strides must be positive and max_displacement not "
                                   "negative")

    def _radius(self):
        return self.max_displacement // self.stride2

    def displacements(self):
        radius, step = self._radius(), self.stride2
        return [(dy * step, dx * step) for dy in range(-radius, radius + 1)
                for dx in range(-radius, radius + 1)]

    def out_size(self, height, width):
        border = self.max_displacement + (self.kernel_size - 1) // 2
        # rounded up, as MXNet's kernel does
        return [-(-(side + 2 * self.pad_size - 2 * border) // self.stride1) for side in
                (height, width)]

    def infer_shape(self, data1, data2):
        if len(data1) != 4 or tuple(data1) != tuple(data2):
            raise self.shape_error(f"data1 and data2 must be one (N, C, H, W) shape, got "
                                   f"{tuple(data1)} and {tuple(data2)}")
        height, width = self.out_size(data1[2], data1[3])
        if height < 1 or width < 1:
            raise self.shape_error(f"kernel_size {self.kernel_size} with max_displacement "
                                   f"{self.max_displacement} leaves no output position in "
                                   f"{tuple(data1[2:])} (padded by {self.pad_size})")
        side = 2 * self._radius() + 1
        return (data1[0], side * side, height, width)

    def _corners(self, height, width):
        """Top-left corners (rows, cols) of the data1 patches of every output position."""
        rows = [i * self.stride1 + self.max_displacement for i in range(height)]
        cols = [j * self.stride1 + self.max_displacement for j in range(width)]
        return rows, cols

    def forward(self, xp, data1, data2):
        first, second = _padded(xp, data1, self.pad_size), _padded(xp, data2, self.pad_size)
        height, width = self.out_size(data1.shape[2], data1.shape[3])
        rows, cols = self._corners(height, width)
        k, norm = self.kernel_size, self.kernel_size ** 2 * data1.shape[1]
        outputs = []
        for dy, dx in self.displacements():
            other = _shifted(xp, second, dy, dx)
            match = first * other if self.is_multiply else xp.abs(first - other)
            summed = match.sum(axis=1, dtype="float64")
            total = xp.zeros((summed.shape[0], summed.shape[1] + 1, summed.shape[2] + 1))
            total[:, 1:, 1:] = summed.cumsum(axis=1).cumsum(axis=2)
            r, c = xp.asarray(rows)[:, None], xp.asarray(cols)[None, :]
            window = (total[:, r + k, c + k] - total[:, r, c + k] - total[:, r + k, c]
                      + total[:, r, c])
            outputs.append(window / norm)
        return xp.stack(outputs, axis=1).astype(data1.dtype)

    def backward(self, xp, out_grad, data1, data2):
        pad, k = self.pad_size, self.kernel_size
        first, second = _padded(xp, data1, pad), _padded(xp, data2, pad)
        height, width = out_grad.shape[2:]
        rows, cols = self._corners(height, width)
        norm = k ** 2 * data1.shape[1]
        grad_first, grad_second = xp.zeros_like(first), xp.zeros_like(second)
        r, c = xp.asarray(rows)[:, None], xp.asarray(cols)[None, :]
        padded_h, padded_w = first.shape[2:]
        for index, (dy, dx) in enumerate(self.displacements()):
            # every padded position's share of the outputs whose patch covers it: each
            # output marks its patch's four corners on a difference image, and two
            # cumulative sums fill the patches in
            corners = xp.zeros((first.shape[0], padded_h + 1, padded_w + 1))
            share = out_grad[:, index].astype("float64") / norm
            for rows_at, cols_at, sign in ((r, c, 1), (r, c + k, -1), (r + k, c, -1),
                                           (r + k, c + k, 1)):
                rows_b, cols_b = xp.broadcast_arrays(rows_at, cols_at)
                xp.add.at(corners, (slice(None), rows_b, cols_b), sign * share)
            spread = corners.cumsum(axis=1).cumsum(axis=2)[:, :padded_h, :padded_w]
            spread = spread.astype(first.dtype)
            other = _shifted(xp, second, dy, dx)
            spread = spread[:, None]
            if self.is_multiply:
                grad_first += spread * other
                grad_other = spread * first
            else:
                sign = xp.where(first >= other, 1, -1).astype(first.dtype)   # MXNet: +1 at a tie
                grad_first += spread * sign
                grad_other = -spread * sign
            grad_second += _shifted(xp, grad_other, -dy, -dx)
        crop = (slice(None), slice(None), slice(pad, pad + data1.shape[2]),
                slice(pad, pad + data1.shape[3]))
        return grad_first[crop], grad_second[crop]
