"""``contrib.DeformableConvolution``: a 2-d convolution whose taps move by learned offsets.

Lesson: 08-gluon.  Mirrors ``src/operator/contrib/deformable_convolution.cc`` (Dai et al.
2017).  Tap ``k = (i, j)`` of the window at output ``(y, x)`` reads the input at
``(y * stride - pad + i * dilate + dy, x * stride - pad + j * dilate + dx)``, where
``(dy, dx)`` are channels ``2k`` and ``2k + 1`` of ``offset`` (one set per deformable
group of input channels) at ``(y, x)``.  A fractional position is read by bilinear
interpolation; a position outside ``[0, H) x [0, W)`` reads 0, and one in the last row or
column reads that row or column (MXNet's CPU rule).  The read values form the columns of
im2col, and the product with the weight is that of a convolution; the gradients flow
back through the same bilinear weights (to the data) and their slopes (to the offsets).
"""
import math

from .conv import ConvolutionBase, _KERNEL_PARAMS, _conv_size
from .params import Param
from .registry import ALL_NEEDED, TestHints, register_op


def _corners(xp, position, size):
    """Bilinear corners of fractional ``position`` along an axis of ``size``: the low and
    high indices, the high corner's weight, and whether the position moves the weight (it
    does not in the last cell, clamped, where the slope is 0)."""
    low = xp.floor(position)
    clamped = low >= size - 1
    low = xp.clip(low, 0, size - 1)
    high = xp.where(clamped, size - 1, low + 1)
    frac = xp.where(clamped, 0, position - low)
    return low.astype("int64"), high.astype("int64"), frac, ~clamped


class _Sampling:
    """Where each tap of each window reads: positions ``(N, G, K, L)`` (G deformable groups,
    K taps, L output positions), and the four corners' flat indices and weights."""

    def __init__(self, xp, offset, shape, geometry, groups):
        n, _, height, width = shape
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = geometry
        out_h, out_w = offset.shape[2:]
        taps, positions = kh * kw, out_h * out_w
        offset = offset.reshape(n, groups, taps, 2, positions)
        base_y = (xp.arange(out_h) * sh - ph)[:, None] + xp.zeros(out_w)[None, :]
        base_x = (xp.arange(out_w) * sw - pw)[None, :] + xp.zeros(out_h)[:, None]
        tap_y = xp.repeat(xp.arange(kh) * dh, kw)[:, None]
        tap_x = xp.tile(xp.arange(kw) * dw, kh)[:, None]
        y = base_y.reshape(1, 1, 1, -1) + tap_y[None, None] + offset[:, :, :, 0]
        x = base_x.reshape(1, 1, 1, -1) + tap_x[None, None] + offset[:, :, :, 1]
        self.valid = (y >= 0) & (x >= 0) & (y < height) & (x < width)
        y_low, y_high, self.fy, self.moves_y = _corners(xp, y, height)
        x_low, x_high, self.fx, self.moves_x = _corners(xp, x, width)
        self.index = [y_low * width + x_low, y_low * width + x_high,
                      y_high * width + x_low, y_high * width + x_high]
        fy, fx = self.fy, self.fx
        self.weight = [(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx]
        self.shape = (n, groups, taps, positions)


def _gather(xp, data, sampling):
    """``(N, G, C/G, K, L)``: the four corners of every tap of every channel, weighted."""
    n, groups, taps, positions = sampling.shape
    flat = data.reshape(n, groups, -1, data.shape[2] * data.shape[3])
    corners = []
    for index in sampling.index:
        picked = xp.take_along_axis(flat, index.reshape(n, groups, 1, -1), axis=3)
        corners.append(picked.reshape(n, groups, -1, taps, positions))
    return corners


@register_op
class DeformableConvolution(ConvolutionBase):
    """2-d convolution of ``data (N, C, H, W)`` whose taps are moved by
    ``offset (N, 2 * kh * kw * num_deformable_group, H_out, W_out)``; ``weight`` and
    ``bias`` are a Convolution's."""
    name = "_contrib_DeformableConvolution"
    family = "layer"
    inputs = ("data", "offset", "weight", "bias")
    saves = ("data", "offset", "weight")
    params = {**_KERNEL_PARAMS,
              "num_filter": Param(int, doc="number of output channels"),
              "num_group": Param(int, default=1, doc="split channels into this many groups"),
              "num_deformable_group": Param(int, default=1,
                                            doc="channel groups with offsets of their own"),
              "workspace": Param(int, default=1024, doc="ignored"),
              "no_bias": Param(bool, default=False, doc="leave out the bias"),
              "layout": Param(str, default="NCHW", doc="only NCHW")}
    test = TestHints(shapes=((2, 2, 5, 4), (2, 12, 3, 5), (3, 2, 3, 2), (3,)),
                     params={"kernel": (3, 2), "num_filter": 3, "pad": (0, 1)},
                     low=-0.9, high=0.9)

    def check_params(self):
        if len(self.kernel) != 2:
            raise self.param_error(f"kernel must have 2 axes, got {self.kernel}")
        if self.layout != "NCHW":
            raise self.param_error(f"layout {self.layout}: only NCHW is supported")
        super().check_params()

    def list_inputs(self, num_args=None):
        return ("data", "offset", "weight") if self.no_bias else self.inputs

    def weight_shape(self, data):
        return (self.num_filter, data[1] // self.num_group) + tuple(self.kernel)

    def infer_input_shapes(self, data, offset=None, weight=None, bias=None):
        if data is not None and offset is None:
            offset = (data[0], 2 * math.prod(self.kernel) * self.num_deformable_group) + \
                _conv_size(data[2:], self.geometry())
        completed = super().infer_input_shapes(data, weight, bias)
        return [completed[0], offset] + completed[1:]

    def blas_work(self, data, offset, weight, bias=None):
        """Output positions x filters x taps per filter, as a convolution's."""
        return math.prod(offset[2:]) * self.num_filter * math.prod(weight[1:])

    def infer_shape(self, data, offset, weight, bias=None):
        self.check_inputs(data, weight, bias)
        out = (data[0], self.num_filter) + _conv_size(data[2:], self.geometry())
        expected = (data[0], 2 * math.prod(self.kernel) * self.num_deformable_group) + out[2:]
        if tuple(offset) != expected:
            raise self.shape_error(f"offset must have shape {expected}, got {tuple(offset)}")
        if data[1] % self.num_deformable_group:
            raise self.shape_error(f"data channels ({data[1]}) must be a multiple of "
                                   f"num_deformable_group ({self.num_deformable_group})")
        return out

    def _columns(self, xp, data, sampling):
        """im2col of the moved taps: ``(N, C * K, L)``, channel-major like the weight."""
        corners = _gather(xp, data, sampling)
        n, groups, taps, positions = sampling.shape
        mask = sampling.valid[:, :, None]
        columns = sum(w[:, :, None] * c for w, c in zip(sampling.weight, corners)) * mask
        return columns.reshape(n, -1, positions).astype(data.dtype), corners

    def _product(self, xp, columns, weight):
        """``(N, F, L)``: each group's filters times its channels' columns."""
        groups = self.num_group
        n, rows, positions = columns.shape
        per_group = columns.reshape(n, groups, rows // groups, positions)
        filters = weight.reshape(groups, self.num_filter // groups, -1)
        return xp.einsum("gfr,ngrl->ngfl", filters, per_group).reshape(n, self.num_filter,
                                                                       positions)

    def forward(self, xp, data, offset, weight, bias=None):
        sampling = _Sampling(xp, offset, data.shape, self.geometry(),
                             self.num_deformable_group)
        columns, _ = self._columns(xp, data, sampling)
        output = self._product(xp, columns, weight).reshape(
            (data.shape[0], self.num_filter) + offset.shape[2:])
        return self.with_bias(xp, output.astype(data.dtype), bias)

    def backward(self, xp, out_grad, data, offset, weight, needs=ALL_NEEDED):
        sampling = _Sampling(xp, offset, data.shape, self.geometry(),
                             self.num_deformable_group)
        columns, corners = self._columns(xp, data, sampling)
        n, groups, taps, positions = sampling.shape
        g = out_grad.reshape(n, self.num_group, self.num_filter // self.num_group, positions)
        filters = weight.reshape(self.num_group, self.num_filter // self.num_group, -1)
        per_group = columns.reshape(n, self.num_group, -1, positions)
        grad_weight = xp.einsum("ngfl,ngrl->gfr", g, per_group).reshape(weight.shape)
        grad_columns = xp.einsum("gfr,ngfl->ngrl", filters, g).reshape(
            n, groups, -1, taps, positions) * sampling.valid[:, :, None]
        grad_data = None
        if needs[0]:
            grad_data = self._scatter(xp, grad_columns, sampling, data)
        grad_offset = None
        if needs[1]:
            grad_offset = self._offset_grad(xp, grad_columns, corners, sampling, offset)
        grads = (grad_data, grad_offset, grad_weight.astype(weight.dtype))
        if self.no_bias:
            return grads
        return grads + (self.bias_grad(out_grad),)

    def _scatter(self, xp, grad_columns, sampling, data):
        """Each tap's gradient back to its four corner pixels, by the bilinear weights."""
        n, channels, height, width = data.shape
        per_group = channels // sampling.shape[1]
        plane = height * width
        # the flat position of pixel ``index`` of channel c of sample s
        first = (xp.arange(n * channels) * plane).reshape(n, sampling.shape[1], per_group, 1, 1)
        total = xp.zeros(n * channels * plane, dtype="float64")
        for index, weight in zip(sampling.index, sampling.weight):
            where = first + index[:, :, None]
            values = grad_columns * weight[:, :, None]
            total += xp.bincount(where.ravel(), weights=values.ravel(),
                                 minlength=total.size)
        return total.reshape(data.shape).astype(data.dtype)

    def _offset_grad(self, xp, grad_columns, corners, sampling, offset):
        """Slopes of the bilinear read in y and in x, summed over each group's channels."""
        v1, v2, v3, v4 = corners
        fy, fx = sampling.fy[:, :, None], sampling.fx[:, :, None]
        slope_y = ((1 - fx) * (v3 - v1) + fx * (v4 - v2)) * sampling.moves_y[:, :, None]
        slope_x = ((1 - fy) * (v2 - v1) + fy * (v4 - v3)) * sampling.moves_x[:, :, None]
        grad_y = (grad_columns * slope_y).sum(axis=2)
        grad_x = (grad_columns * slope_x).sum(axis=2)
        stacked = xp.stack([grad_y, grad_x], axis=3)       # (N, G, K, 2, L)
        return stacked.reshape(offset.shape).astype(offset.dtype)
