"""``contrib.DeformableConvolution``: a 2-d convolution whose taps move by learned offsets.

Lesson: 09-gluon.  Mirrors ``src/operator/contrib/deformable_convolution.cc`` and
``modulated_deformable_convolution.cc`` (Dai et al. 2017, Zhu et al. 2019).  Tap
``k = (i, j)`` of the window at output ``(y, x)`` reads the input at
``(y * stride - pad + i * dilate + dy, x * stride - pad + j * dilate + dx)``, where
``(dy, dx)`` are channels ``2k`` and ``2k + 1`` of ``offset`` (one set per deformable
group of input channels) at ``(y, x)``.  A fractional position is read by bilinear
interpolation; a position outside ``[0, H) x [0, W)`` reads 0, and one in the last row or
column reads that row or column (MXNet's CPU rule).  The read values form the columns of
im2col, and the product with the weight is that of a convolution; the gradients flow
back through the same bilinear weights (to the data) and their slopes (to the offsets).
The modulated version also scales each read by a mask and reads 0 at a corner outside.
"""
import math

from .conv import ConvolutionBase, _KERNEL_PARAMS, _conv_size
from .params import Param
from .registry import ALL_NEEDED, TestHints, register_op


def _corners(xp, position, size, edge):
    """Bilinear corners of fractional ``position`` along an axis of ``size``: low and high
    indices (inside the axis), the high corner's weight, whether each corner is inside,
    and whether the position moves the read (the slope is 0 where it does not).

    ``edge`` 'clamp' (DeformableConvolution's CPU rule): a position in the last cell reads
    that cell alone.  'zero' (ModulatedDeformableConvolution's): a corner outside reads 0.
    """
    low = xp.floor(position)
    if edge == "clamp":
        clamped = low >= size - 1
        low = xp.clip(low, 0, size - 1)
        high = xp.where(clamped, size - 1, low + 1)
        frac = xp.where(clamped, 0, position - low)
        inside = xp.ones(position.shape, dtype=bool)
        return (low.astype("int64"), high.astype("int64"), frac, (inside, inside),
                ~clamped)
    frac = position - low
    high = low + 1
    inside = (low >= 0, high <= size - 1)
    low, high = (xp.clip(corner, 0, size - 1).astype("int64") for corner in (low, high))
    return low, high, frac, inside, xp.ones(position.shape, dtype=bool)


class _Sampling:
    """Where each tap of each window reads: positions ``(N, G, K, L)`` (G deformable groups,
    K taps, L output positions), and the four corners' flat indices, weights and whether
    they are inside the input."""

    def __init__(self, xp, offset, shape, geometry, groups, edge):
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
        lowest = 0 if edge == "clamp" else -1       # reads start at 0, or past -1
        self.valid = (y >= lowest) & (x >= lowest) & (y < height) & (x < width)
        if edge != "clamp":
            self.valid &= (y > -1) & (x > -1)
        y_low, y_high, self.fy, (y_low_in, y_high_in), self.moves_y = \
            _corners(xp, y, height, edge)
        x_low, x_high, self.fx, (x_low_in, x_high_in), self.moves_x = \
            _corners(xp, x, width, edge)
        self.index = [y_low * width + x_low, y_low * width + x_high,
                      y_high * width + x_low, y_high * width + x_high]
        self.inside = [y_low_in & x_low_in, y_low_in & x_high_in, y_high_in & x_low_in,
                       y_high_in & x_high_in]
        fy, fx = self.fy, self.fx
        self.weight = [(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx]
        self.shape = (n, groups, taps, positions)


def _gather(xp, data, sampling):
    """``(N, G, C/G, K, L)`` each: the four corners of every tap of every channel (0 for a
    corner outside the input)."""
    n, groups, taps, positions = sampling.shape
    flat = data.reshape(n, groups, -1, data.shape[2] * data.shape[3])
    corners = []
    for index, inside in zip(sampling.index, sampling.inside):
        picked = xp.take_along_axis(flat, index.reshape(n, groups, 1, -1), axis=3)
        corners.append(picked.reshape(n, groups, -1, taps, positions) * inside[:, :, None])
    return corners


_DEFORMABLE_PARAMS = {
    **_KERNEL_PARAMS,
    "num_filter": Param(int, doc="number of output channels"),
    "num_group": Param(int, default=1, doc="split channels into this many groups"),
    "num_deformable_group": Param(int, default=1,
                                  doc="channel groups with offsets of their own"),
    "workspace": Param(int, default=1024, doc="ignored"),
    "no_bias": Param(bool, default=False, doc="leave out the bias"),
    "layout": Param(str, default="NCHW", doc="only NCHW")}


@register_op
class DeformableConvolution(ConvolutionBase):
    """2-d convolution of ``data (N, C, H, W)`` whose taps are moved by
    ``offset (N, 2 * kh * kw * num_deformable_group, H_out, W_out)``; ``weight`` and
    ``bias`` are a Convolution's."""
    name = "_contrib_DeformableConvolution"
    family = "layer"
    inputs = ("data", "offset", "weight", "bias")
    saves = ("data", "offset", "weight")
    params = _DEFORMABLE_PARAMS
    test = TestHints(shapes=((2, 2, 5, 4), (2, 12, 3, 5), (3, 2, 3, 2), (3,)),
                     params={"kernel": (3, 2), "num_filter": 3, "pad": (0, 1)},
                     low=-0.9, high=0.9)
    _edge = "clamp"
    _modulated = False          # ModulatedDeformableConvolution: a mask input too

    def check_params(self):
        if len(self.kernel) != 2:
            raise self.param_error(f"kernel must have 2 axes, got {self.kernel}")
        if self.layout != "NCHW":
            raise self.param_error(f"layout {self.layout}: only NCHW is supported")
        super().check_params()

    def list_inputs(self, num_args=None):
        return self.inputs[:-1] if self.no_bias else self.inputs

    def weight_shape(self, data):
        return (self.num_filter, data[1] // self.num_group) + tuple(self.kernel)

    def _sampling_shapes(self, data):
        """The offset's shape (and the mask's) for ``data``."""
        taps = math.prod(self.kernel) * self.num_deformable_group
        spatial = _conv_size(data[2:], self.geometry())
        return [(data[0], 2 * taps) + spatial] + ([(data[0], taps) + spatial]
                                                  if self._modulated else [])

    def infer_input_shapes(self, data, *rest):
        moved = len(self._sampling_shapes(data)) if data is not None else 1 + self._modulated
        given, (weight, bias) = list(rest[:moved]), (list(rest[moved:]) + [None, None])[:2]
        if data is not None:
            given = [shape or wanted for shape, wanted in
                     zip(given + [None] * moved, self._sampling_shapes(data))]
        completed = super().infer_input_shapes(data, weight, bias)
        return [completed[0]] + given + completed[1:]

    def blas_work(self, data, offset, *rest):
        """Output positions x filters x taps per filter, as a convolution's."""
        weight = rest[-2] if not self.no_bias else rest[-1]
        return math.prod(offset[2:]) * self.num_filter * math.prod(weight[1:])

    def infer_shape(self, data, *rest):
        moved = 1 + self._modulated
        weight, bias = rest[moved], (rest[moved + 1] if len(rest) > moved + 1 else None)
        self.check_inputs(data, weight, bias)
        if data[1] % self.num_deformable_group:
            raise self.shape_error(f"data channels ({data[1]}) must be a multiple of "
                                   f"num_deformable_group ({self.num_deformable_group})")
        for name, shape, wanted in zip(self.inputs[1:], rest, self._sampling_shapes(data)):
            if tuple(shape) != wanted:
                raise self.shape_error(f"{name} must have shape {wanted}, got {tuple(shape)}")
        return (data[0], self.num_filter) + _conv_size(data[2:], self.geometry())

    def _split(self, arrays):
        """(offset, mask or None, weight, bias or None) from the inputs after data."""
        if not self._modulated:
            arrays = (arrays[0], None) + tuple(arrays[1:])
        return tuple(arrays) + (None,) * (4 - len(arrays))

    def _read(self, xp, data, offset, mask):
        """The moved taps: ``(sampling, corners, values (N, G, C/G, K, L), mask view)``."""
        sampling = _Sampling(xp, offset, data.shape, self.geometry(),
                             self.num_deformable_group, self._edge)
        corners = _gather(xp, data, sampling)
        values = sum(w[:, :, None] * c for w, c in zip(sampling.weight, corners)) * \
            sampling.valid[:, :, None]
        scale = None
        if mask is not None:
            scale = mask.reshape(sampling.shape)[:, :, None]
        return sampling, corners, values, scale

    def _grouped(self, xp, weight):
        return weight.reshape(self.num_group, self.num_filter // self.num_group, -1)

    def forward(self, xp, data, *arrays):
        offset, mask, weight, bias = self._split(arrays)
        sampling, _, values, scale = self._read(xp, data, offset, mask)
        columns = values if scale is None else values * scale
        n, positions = data.shape[0], sampling.shape[3]
        per_group = columns.reshape(n, self.num_group, -1, positions)
        output = xp.einsum("gfr,ngrl->ngfl", self._grouped(xp, weight), per_group)
        output = output.reshape((n, self.num_filter) + offset.shape[2:]).astype(data.dtype)
        return self.with_bias(xp, output, bias)

    def backward(self, xp, out_grad, data, offset, weight, mask=None, needs=ALL_NEEDED):
        sampling, corners, values, scale = self._read(xp, data, offset, mask)
        n, groups, taps, positions = sampling.shape
        columns = values if scale is None else values * scale
        g = out_grad.reshape(n, self.num_group, self.num_filter // self.num_group, positions)
        grad_weight = xp.einsum("ngfl,ngrl->gfr", g,
                                columns.reshape(n, self.num_group, -1, positions))
        grad_columns = xp.einsum("gfr,ngfl->ngrl", self._grouped(xp, weight), g).reshape(
            values.shape) * sampling.valid[:, :, None]
        grad_mask = None
        if scale is not None:
            grad_mask = (grad_columns * values).sum(axis=2).reshape(mask.shape)
            grad_columns = grad_columns * scale
        grad_data = self._scatter(xp, grad_columns, sampling, data) if needs[0] else None
        grad_offset = self._offset_grad(xp, grad_columns, corners, sampling, offset) \
            if needs[1] else None
        grads = (grad_data, grad_offset) + ((grad_mask.astype(mask.dtype),)
                                            if self._modulated else ()) + \
            (grad_weight.reshape(weight.shape).astype(weight.dtype),)
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
        for index, weight, inside in zip(sampling.index, sampling.weight, sampling.inside):
            where = first + index[:, :, None]
            values = grad_columns * (weight * inside)[:, :, None]
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


@register_op
class ModulatedDeformableConvolution(DeformableConvolution):
    """DeformableConvolution v2 (Zhu et al. 2019): each moved tap's read is also scaled by
    ``mask (N, kh * kw * num_deformable_group, H_out, W_out)``.  A corner outside the input
    reads 0, and reads start past -1 (MXNet's rule for this operator)."""
    name = "_contrib_ModulatedDeformableConvolution"
    inputs = ("data", "offset", "mask", "weight", "bias")
    saves = ("data", "offset", "mask", "weight")
    params = {**_DEFORMABLE_PARAMS,
              "im2col_step": Param(int, default=64, doc="ignored: images per im2col pass")}
    test = TestHints(shapes=((2, 2, 5, 4), (2, 12, 3, 5), (2, 6, 3, 5), (3, 2, 3, 2), (3,)),
                     params={"kernel": (3, 2), "num_filter": 3, "pad": (0, 1)},
                     low=-0.9, high=0.9)
    _edge = "zero"
    _modulated = True
