"""Convolution, transposed convolution and pooling over 1, 2 or 3 spatial axes.

Lesson: 09-gluon.  Mirrors ``src/operator/nn/convolution.cc``,
``deconvolution.cc`` and ``pooling.cc``.  This module holds the operators:
parameters, shapes, padding and which path to take.  The array work lives in
``conv_kernels.py`` (im2col + batched ``matmul`` for convolutions, a tap-by-tap
col2im for their data gradient) and ``pool_kernels.py`` (pooling tap by tap, the
planes last, a cache-sized chunk at a time).  Every kernel window is also available as a
strided *view* ``(N, C, *out, *kernel)`` of the padded input (``_windows``), the
general path of the rarer pooling cases.
Channel-last layouts (NWC, NHWC, NDHWC) of Convolution and Pooling move the channels to
axis 1, compute, and move them back (the weight of a channel-last convolution is
``(num_filter, *kernel, C)``, as MXNet's).
"""
import math
from collections import namedtuple

from . import conv_kernels as kernels
from . import pool_kernels, pool_max
from . import conv_taps, winograd
from .params import Choice, Optional, Param, Shape, dims_text
from .registry import ALL_NEEDED, OpDef, TestHints, register_op

Geometry = namedtuple("Geometry", "kernel stride dilate pad")
_MAX_TAPS = 64          # Pooling reads windows tap by tap up to this kernel size
# Below these many output positions in a batch, a stride-1 data gradient adds the taps back
# (col2im) instead of running the full convolution.  Measured on ResNet-18's 3x3 layers at
# batch 1 (32x32 input): 512 channels at 4x4, 1.0 ms against 4.3 ms; 128 at 16x16, 0.6
# against 0.8; 64 at 32x32 (1024 positions), 0.9 against 0.7.
_FEW_POSITIONS = 512
# A stride-1 data gradient adds its taps back on a wide grid (``wide_transpose``) when the
# full convolution would compute this many times more output positions per sample: an
# unpadded convolution whose kernel is large beside its output (LeNet's 5x5 over 8x8: 144
# positions against 96).  Padded ("same") convolutions keep the full convolution.
_WIDE_GAIN = 1.25
_LAYOUTS = (None, "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")


# -- layouts: channel-last data is moved to channel-first and back --------------------------------
def channel_last(layout):
    """Whether ``layout`` puts the channels last (NWC, NHWC, NDHWC)."""
    return bool(layout) and layout[1] != "C"


def to_channel_first(shape):
    return (shape[0], shape[-1]) + tuple(shape[1:-1])


def to_channel_last(shape):
    return (shape[0],) + tuple(shape[2:]) + (shape[1],)


def _moved_first(xp, array):
    return xp.moveaxis(array, -1, 1)


def _moved_last(xp, array):
    return xp.ascontiguousarray(xp.moveaxis(array, 1, -1))


def _check_layout(op, layout, rank):
    if layout is not None and len(layout) != rank + 2:
        raise op.param_error(f"layout {layout} does not fit a kernel of {rank} axes")


# -- window helpers shared by all three operators ----------------------------------------------
def _pad(xp, data, before, after=None, value=0):
    """``data`` with ``value`` added before/after each spatial axis (``xp.pad`` is slow)."""
    after = before if after is None else after
    if not any(before + after):
        return data
    shape = data.shape[:2] + tuple(n + b + a for n, b, a in zip(data.shape[2:], before, after))
    padded = xp.full(shape, value, dtype=data.dtype)
    padded[(slice(None), slice(None)) + tuple(slice(b, b + n) for b, n in
                                              zip(before, data.shape[2:]))] = data
    return padded


def _lowest(xp, data):
    """The value padding holds for max pooling: below every element."""
    return -xp.inf if data.dtype.kind == "f" else xp.iinfo(data.dtype).min


def _windows(xp, padded, geometry, out_size):
    """A read-only view ``(N, C, *out_size, *kernel)`` of every kernel window."""
    strides = padded.strides
    spatial = strides[2:]
    shape = padded.shape[:2] + tuple(out_size) + tuple(geometry.kernel)
    view_strides = (strides[:2] + tuple(s * k for s, k in zip(spatial, geometry.stride))
                    + tuple(s * d for s, d in zip(spatial, geometry.dilate)))
    return xp.lib.stride_tricks.as_strided(padded, shape, view_strides)


def _col2im(xp, columns, padded_shape, geometry):
    """Adjoint of ``_windows``: add each window's values back where they came from."""
    rank = len(geometry.kernel)
    windows = xp.moveaxis(columns, tuple(range(2 + rank, 2 + 2 * rank)),
                          tuple(range(2, 2 + rank)))
    return kernels.add_windows(xp, windows, padded_shape, geometry)


def _crop(data, pad, size):
    return data[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in zip(pad, size))]


def _conv_size(size, geometry):
    """Output length of a convolution along each spatial axis."""
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, s, d, p in zip(
        size, geometry.kernel, geometry.stride, geometry.dilate, geometry.pad))


def _convolve(xp, data, weight, geometry, groups):
    """``data (N, C, *in)`` * ``weight (F, C/groups, *kernel)`` -> ``(N, F, *out)``; 3x3
    stride-1 kernels over many channels take Winograd's path (``winograd.py``), and small
    planes whose windows read much padding one product per tap (``conv_taps.py``)."""
    out_size = _conv_size(data.shape[2:], geometry)
    if winograd.suits(xp, data.shape, data.dtype, weight.shape[0], geometry, groups,
                      out_size):
        return winograd.convolve(xp, data, weight, geometry.pad)
    if conv_taps.suits(xp, data.shape, data.dtype, weight.shape[0], geometry, groups,
                       out_size):
        return conv_taps.convolve(xp, data, weight, geometry, out_size)
    return kernels.convolve(xp, _pad(xp, data, geometry.pad), weight, geometry, groups,
                            out_size)


def _convolve_transpose(xp, out_grad, weight, data_shape, geometry, groups):
    """Adjoint of ``_convolve`` in ``data``: ``(N, F, *out)`` -> ``(N, C, *in)``.

    Where the forward takes one product per tap (``conv_taps.suits``), so does this.
    Otherwise, with stride 1 the adjoint is itself a convolution: ``out_grad`` padded by
    ``dilate * (kernel - 1) - pad`` and correlated with the filters flipped in space, their
    channel and filter axes swapped (a "full" convolution), which runs on the forward's
    fast path.  Other strides add each kernel tap back into place (``col2im``), and so do
    kernels larger than the output (a 224x224 kernel over a 224x224 input has one output
    position: the full convolution would read a window the kernel's size at every input
    position, col2im reads one).  col2im is also taken when the whole batch has few output
    positions (batch 1, a late layer): the full convolution's flipped filters are a
    weight-sized copy, which then costs more than the products.  A stride-1 kernel large
    beside its output (unpadded, LeNet's 5x5 over 8x8) adds its rows of taps back on a wide
    grid instead (``wide_transpose``): the full convolution would compute every input
    position, ``_WIDE_GAIN`` times more than that grid holds.  Otherwise a single input
    channel per group (a grayscale first layer) also adds its taps back when the output
    rows are long: the full convolution would copy ``kernel[0]`` rows of windows of every
    filter's gradient to make one channel, col2im multiplies ``(K, F) x (F, P)`` and adds K
    slices of one channel (3x3 pad 1 over 16x1x28x28 from 8 filters, the executor
    benchmark's first layer: 228-254 -> 139-142 us; 5x5 pad 2 from 16 filters 666 -> 479
    us; with 2-3 channels neither was faster throughout, up to 2x apart either way)."""
    if conv_taps.suits(xp, data_shape, out_grad.dtype, out_grad.shape[1], geometry, groups,
                       out_grad.shape[2:]):
        return conv_taps.convolve_transpose(xp, out_grad, weight, data_shape, geometry)
    full_pad = tuple(d * (k - 1) - p for d, k, p in
                     zip(geometry.dilate, geometry.kernel, geometry.pad))
    positions = math.prod(out_grad.shape[2:])
    small_output = positions < math.prod(geometry.kernel) or \
        positions * out_grad.shape[0] < _FEW_POSITIONS
    padded_shape = tuple(data_shape[:2]) + tuple(
        n + 2 * p for n, p in zip(data_shape[2:], geometry.pad))
    single = data_shape[1] == groups and out_grad.shape[-1] >= kernels._LONG_ROW
    if all(s == 1 for s in geometry.stride) and min(full_pad) >= 0 and not small_output:
        if math.prod(data_shape[2:]) > _WIDE_GAIN * kernels.wide_positions(
                padded_shape, out_grad.shape[2:]):
            padded = kernels.wide_transpose(xp, out_grad, weight, padded_shape, geometry,
                                            groups)
            return xp.ascontiguousarray(_crop(padded, geometry.pad, data_shape[2:]))
        if not single:
            full = geometry._replace(pad=full_pad)
            return _convolve(xp, out_grad, kernels.adjoint_filters(xp, weight, groups), full,
                             groups)
    padded = kernels.convolve_transpose(xp, out_grad, weight, padded_shape, geometry, groups)
    return xp.ascontiguousarray(_crop(padded, geometry.pad, data_shape[2:]))


def _convolve_weight_grad(xp, out_grad, data, geometry, groups):
    """Gradient of ``_convolve`` in ``weight``: ``(F, C/groups, *kernel)``."""
    if winograd.suits(xp, data.shape, data.dtype, out_grad.shape[1], geometry, groups,
                      out_grad.shape[2:]):
        return winograd.weight_grad(xp, out_grad, data, geometry.pad)
    if conv_taps.suits(xp, data.shape, data.dtype, out_grad.shape[1], geometry, groups,
                       out_grad.shape[2:]):
        return conv_taps.weight_grad(xp, out_grad, data, geometry)
    return kernels.convolve_weight_grad(xp, out_grad, _pad(xp, data, geometry.pad), geometry,
                                        groups)


def _bias_view(bias, ndim):
    return bias.reshape((1, -1) + (1,) * (ndim - 2))


# -- the operators ------------------------------------------------------------------------------
_KERNEL_PARAMS = {
    "kernel": Param(Shape, doc="kernel size, e.g. (3, 3)"),
    "stride": Param(Shape, default=(), doc="step between windows (default 1)"),
    "dilate": Param(Shape, default=(), doc="spacing of kernel taps (default 1)"),
    "pad": Param(Shape, default=(), doc="zeros added on both sides (default 0)"),
}


class ConvolutionBase(OpDef):
    """What Convolution and Deconvolution share: geometry, groups, bias, weight shape."""

    inputs = ("data", "weight", "bias")
    saves = ("data", "weight")

    def check_params(self):
        rank = len(self.kernel)
        if not 1 <= rank <= 3:
            raise self.param_error(f"kernel must have 1 to 3 axes, got {self.kernel}")
        for name in ("stride", "dilate", "pad") + (("adj",) if hasattr(self, "adj") else ()):
            value = getattr(self, name)
            if value and len(value) != rank:
                raise self.param_error(f"{name} {value} must have {rank} entries like kernel")
        _check_layout(self, self.layout, rank)
        if channel_last(self.layout) and type(self).__name__ != "Convolution":
            raise self.param_error(f"layout {self.layout} is not supported for {self.name}; "
                                   f"minimx supports channel-first layouts (NCW, NCHW, NCDHW)")
        if self.num_group < 1 or self.num_filter % self.num_group:
            raise self.param_error(f"num_filter ({self.num_filter}) must be a multiple of "
                                   f"num_group ({self.num_group})")

    def geometry(self):
        rank = len(self.kernel)
        return Geometry(self.kernel, self.stride or (1,) * rank, self.dilate or (1,) * rank,
                        self.pad or (0,) * rank)

    def list_inputs(self, num_args=None):
        return ("data", "weight") if self.no_bias else self.inputs

    def blas_work(self, data, weight, bias=None):
        """The im2col product of one sample: output positions x filters x taps per filter
        (numpy multiplies the samples of a batch one product each)."""
        taps = math.prod(weight[1:])
        positions = math.prod(self.output_shapes([data, weight] + ([bias] if bias else []))
                              [0][2:])
        return positions * self.num_filter * taps

    def infer_input_shapes(self, data, weight=None, bias=None):
        if data is not None and weight is None:
            weight = self.weight_shape(data)
        completed = [data, weight]
        return completed if self.no_bias else completed + [bias or (self.num_filter,)]

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """The data's batch is the output's; with stride 1 its spatial sizes follow too
        (as MXNet's ``ConvolutionShape`` back-calculates them)."""
        data, *rest = input_shapes
        output = output_shapes[0]
        if output is None or data is None or type(self).__name__ != "Convolution":
            return list(input_shapes)
        geometry = self.geometry()
        spatial = tuple(
            size or (out and s == 1 and out + d * (k - 1) - 2 * p) or 0 for size, out, k, s, d, p
            in zip(data[2:], output[2:], geometry.kernel, geometry.stride, geometry.dilate,
                   geometry.pad))
        return [(data[0] or output[0], data[1]) + spatial, *rest]

    def check_inputs(self, data, weight, bias):
        if len(data) != len(self.kernel) + 2:
            raise self.shape_error(f"data must have {len(self.kernel) + 2} axes for kernel "
                                   f"{self.kernel}, got shape {tuple(data)}")
        if data[1] % self.num_group:
            raise self.shape_error(f"data channels ({data[1]}) must be a multiple of "
                                   f"num_group ({self.num_group})")
        expected = self.weight_shape(data)
        if tuple(weight) != expected:
            raise self.shape_error(f"weight must have shape {expected}, got {tuple(weight)}")
        if bias is not None and tuple(bias) != (self.num_filter,):
            raise self.shape_error(f"bias must have shape ({self.num_filter},), got {bias}")

    def with_bias(self, xp, output, bias):
        """Add the bias, in place: ``output`` is always a fresh array of the forward."""
        if bias is None:
            return output
        if xp.result_type(output, bias) != output.dtype:
            return output + _bias_view(bias, output.ndim)
        output += _bias_view(bias, output.ndim)
        return output

    def bias_grad(self, out_grad):
        """The output gradient summed over the batch, then over each filter's positions:
        two contiguous reductions, 2-3x faster than numpy's one over axes (0, 2, 3)
        (LeNet's layers, batch 64: 24 + 9 us against 46 + 30)."""
        over_batch = out_grad.sum(axis=0)
        return over_batch.reshape(over_batch.shape[0], -1).sum(axis=1)


_CONV_PARAMS = {
    "num_filter": Param(int, doc="number of output channels"),
    "num_group": Param(int, default=1, doc="split channels into this many groups"),
    "workspace": Param(int, default=1024, doc="ignored"),
    "no_bias": Param(bool, default=False, doc="leave out the bias"),
    "cudnn_tune": Param(Optional(str), default=None, doc="ignored"),
    "cudnn_off": Param(bool, default=False, doc="ignored"),
    "layout": Param(Optional(Choice(*_LAYOUTS[1:])), default=None, doc="data layout"),
}


@register_op
class Convolution(ConvolutionBase):
    """N-d convolution (cross-correlation) of ``data (N, C, *spatial)`` with
    ``weight (num_filter, C / num_group, *kernel)``, plus ``bias``."""
    name = "Convolution"
    family = "layer"
    params = {**_KERNEL_PARAMS, **_CONV_PARAMS}
    test = TestHints(shapes=((2, 2, 5, 4), (3, 2, 3, 2), (3,)),
                     params={"kernel": (3, 2), "num_filter": 3, "pad": (1, 0)},
                     cases=(({"kernel": (3,), "num_filter": 4, "stride": (2,), "dilate": (2,),
                              "num_group": 2}, ((1, 4, 9), (4, 2, 3), (4,))),))


    @classmethod
    def plot_label(cls, attrs):
        """``Convolution\n3x3/1, 32``: kernel/stride, filters (as MXNet's plot_network)."""
        return (f"Convolution\n{dims_text(attrs['kernel'])}/{dims_text(attrs.get('stride', '1'))}, "
                f"{attrs['num_filter']}")

    def weight_shape(self, data):
        if channel_last(self.layout):
            return (self.num_filter,) + tuple(self.kernel) + (data[-1] // self.num_group,)
        return (self.num_filter, data[1] // self.num_group) + tuple(self.kernel)

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        if channel_last(self.layout):
            return list(input_shapes)
        return super().infer_input_shapes_from_outputs(input_shapes, output_shapes)

    def infer_shape(self, data, weight, bias=None):
        if channel_last(self.layout):
            data, weight = to_channel_first(data), to_channel_first(weight)
            first = Convolution.create(**dict(self.param_values(), layout=None))
            return to_channel_last(first.infer_shape(data, weight, bias))
        self.check_inputs(data, weight, bias)
        return (data[0], self.num_filter) + _conv_size(data[2:], self.geometry())

    def forward(self, xp, data, weight, bias=None):
        if channel_last(self.layout):
            output = self._forward_first(xp, _moved_first(xp, data), _moved_first(xp, weight),
                                         bias)
            return _moved_last(xp, output)
        return self._forward_first(xp, data, weight, bias)

    def _forward_first(self, xp, data, weight, bias):
        output = _convolve(xp, data, weight, self.geometry(), self.num_group)
        return self.with_bias(xp, output, bias)

    def backward(self, xp, out_grad, data, weight, needs=ALL_NEEDED):
        if not channel_last(self.layout):
            return self._backward_first(xp, out_grad, data, weight, needs)
        grads = self._backward_first(xp, _moved_first(xp, out_grad), _moved_first(xp, data),
                                     _moved_first(xp, weight), needs)
        return tuple(None if grad is None or position > 1 else _moved_last(xp, grad)
                     for position, grad in enumerate(grads[:2])) + tuple(grads[2:])

    def _backward_first(self, xp, out_grad, data, weight, needs):
        geometry = self.geometry()
        grad_data = grad_weight = None
        if needs[0]:        # skipped for the network's input data
            grad_data = _convolve_transpose(xp, out_grad, weight, data.shape, geometry,
                                            self.num_group)
        if needs[1]:
            grad_weight = _convolve_weight_grad(xp, out_grad, data, geometry, self.num_group)
        if self.no_bias:
            return grad_data, grad_weight
        return grad_data, grad_weight, self.bias_grad(out_grad) if needs[2] else None


@register_op
class Deconvolution(ConvolutionBase):
    """Transposed convolution: the gradient of Convolution used as a forward pass.

    ``weight`` has shape ``(C, num_filter / num_group, *kernel)``.  The output
    length is ``(in - 1) * stride - 2 * pad + dilate * (kernel - 1) + 1 + adj``;
    ``target_shape`` chooses ``pad`` and ``adj`` to reach a given size.
    """
    name = "Deconvolution"
    params = {**_KERNEL_PARAMS,
              "adj": Param(Shape, default=(), doc="extra output length at the end"),
              "target_shape": Param(Shape, default=(), doc="output spatial shape"),
              **_CONV_PARAMS,
              "workspace": Param(int, default=512, doc="ignored"),
              "no_bias": Param(bool, default=True, doc="leave out the bias")}
    test = TestHints(shapes=((2, 2, 3, 3), (2, 3, 3, 2)),
                     params={"kernel": (3, 2), "num_filter": 3, "stride": (2, 1),
                             "pad": (1, 0), "adj": (1, 0)},
                     cases=(({"kernel": (3,), "num_filter": 4, "num_group": 2,
                              "no_bias": False, "stride": (2,)},
                             ((1, 2, 4), (2, 2, 3), (4,))),))

    def weight_shape(self, data):
        return (data[1], self.num_filter // self.num_group) + tuple(self.kernel)

    def _pad_adj(self, size):
        """``pad`` and ``adj`` per axis, derived from ``target_shape`` when it is given."""
        geometry = self.geometry()
        if not self.target_shape:
            return geometry.pad, self.adj or (0,) * len(self.kernel)
        pads, adjs = [], []
        for n, k, s, d, target in zip(size, geometry.kernel, geometry.stride,
                                      geometry.dilate, self.target_shape):
            total = s * (n - 1) + d * (k - 1) + 1 - target
            pads.append((total + 1) // 2 if total > 0 else 0)
            adjs.append(total % 2 if total > 0 else -total)
        return tuple(pads), tuple(adjs)

    def _geometry_and_size(self, size):
        pad, adj = self._pad_adj(size)
        geometry = self.geometry()._replace(pad=pad)
        out = tuple((n - 1) * s - 2 * p + d * (k - 1) + 1 + a for n, k, s, d, p, a in zip(
            size, geometry.kernel, geometry.stride, geometry.dilate, pad, adj))
        return geometry, out

    def infer_shape(self, data, weight, bias=None):
        self.check_inputs(data, weight, bias)
        return (data[0], self.num_filter) + self._geometry_and_size(data[2:])[1]

    def forward(self, xp, data, weight, bias=None):
        geometry, size = self._geometry_and_size(data.shape[2:])
        shape = (data.shape[0], self.num_filter) + size
        output = _convolve_transpose(xp, data, weight, shape, geometry, self.num_group)
        return self.with_bias(xp, output, bias)

    def backward(self, xp, out_grad, data, weight, needs=ALL_NEEDED):
        geometry, _ = self._geometry_and_size(data.shape[2:])
        grad_data = grad_weight = None
        if needs[0]:
            grad_data = _convolve(xp, out_grad, weight, geometry, self.num_group)
            grad_data = grad_data[(Ellipsis,) + tuple(slice(0, n) for n in data.shape[2:])]
        if needs[1]:
            grad_weight = _convolve_weight_grad(xp, data, out_grad, geometry, self.num_group)
        if self.no_bias:
            return grad_data, grad_weight
        return grad_data, grad_weight, self.bias_grad(out_grad) if needs[2] else None


@register_op
class Pooling(OpDef):
    """Max, average, sum or Lp pooling over kernel windows (or the whole input with
    ``global_pool``).  ``pooling_convention='full'`` rounds the output size up."""
    name = "Pooling"
    family = "pooling"
    params = {
        "kernel": Param(Shape, default=(), doc="window size"),
        "pool_type": Param(Choice("avg", "lp", "max", "sum"), default="max"),
        "global_pool": Param(bool, default=False, doc="pool over all spatial positions"),
        "cudnn_off": Param(bool, default=False, doc="ignored"),
        "pooling_convention": Param(Choice("full", "same", "valid"), default="valid"),
        "stride": Param(Shape, default=(), doc="step between windows (default 1)"),
        "pad": Param(Shape, default=(), doc="padding on both sides (default 0)"),
        "p_value": Param(Optional(int), default=None, doc="p of Lp pooling"),
        "count_include_pad": Param(Optional(bool), default=None,
                                   doc="avg: count padding in the divisor (default True)"),
        "layout": Param(Optional(Choice(*_LAYOUTS[1:])), default=None, doc="data layout"),
    }
    saves = ("data", "output")
    test = TestHints(shapes=((2, 2, 4, 5),), params={"kernel": (2, 2), "pool_type": "avg"},
                     cases=(({"kernel": (3,), "stride": (2,), "pad": (1,),
                              "pool_type": "sum", "pooling_convention": "full"}, ((1, 2, 6),)),
                            ({"global_pool": True}, ((2, 3, 2, 2),))))


    @classmethod
    def plot_label(cls, attrs):
        """``Pooling\nmax, 2x2/2``: type, kernel/stride (as MXNet's plot_network)."""
        kernel = dims_text(attrs["kernel"]) if "kernel" in attrs else "[]"
        return (f"Pooling\n{attrs.get('pool_type', 'max')}, {kernel}/"
                f"{dims_text(attrs.get('stride', '1'))}")

    def check_params(self):
        if not self.global_pool and not self.kernel:
            raise self.param_error("kernel is required unless global_pool is True")
        if not self.global_pool:
            _check_layout(self, self.layout, len(self.kernel))
        if self.pooling_convention == "same" and any(self.pad or ()):
            raise self.param_error(f"pooling_convention 'same' chooses the padding itself; "
                                   f"pad must be 0, got {self.pad}")

    def geometry(self, spatial):
        if self.global_pool:
            rank = len(spatial)
            return Geometry(tuple(spatial), (1,) * rank, (1,) * rank, (0,) * rank)
        rank = len(self.kernel)
        stride = self.stride or (1,) * rank
        if self.pooling_convention == "same":
            # as TensorFlow's SAME: ceil(n / s) windows, the padding split with the odd
            # element at the end (_layout adds that one as ``extra``)
            pad = tuple(max((-(-n // s) - 1) * s + k - n, 0) // 2
                        for n, k, s in zip(spatial, self.kernel, stride))
            return Geometry(self.kernel, stride, (1,) * rank, pad)
        return Geometry(self.kernel, stride, (1,) * rank, self.pad or (0,) * rank)

    def _out_size(self, spatial, geometry):
        if self.pooling_convention == "same" and not self.global_pool:
            return tuple(-(-n // s) for n, s in zip(spatial, geometry.stride))
        rounding = math.ceil if self.pooling_convention == "full" else math.floor
        return tuple(int(rounding((n + 2 * p - k) / s)) + 1 for n, k, s, p in zip(
            spatial, geometry.kernel, geometry.stride, geometry.pad))

    def infer_shape(self, data):
        if channel_last(self.layout):
            return to_channel_last(self._infer_shape_first(to_channel_first(data)))
        return self._infer_shape_first(data)

    def forward(self, xp, data):
        if channel_last(self.layout):
            return _moved_last(xp, self._forward_first(xp, _moved_first(xp, data)))
        return self._forward_first(xp, data)

    def backward(self, xp, out_grad, data, output):
        if channel_last(self.layout):
            grad = self._backward_first(xp, _moved_first(xp, out_grad), _moved_first(xp, data),
                                        _moved_first(xp, output))
            return _moved_last(xp, grad)
        return self._backward_first(xp, out_grad, data, output)

    def _infer_shape_first(self, data):
        if not self.global_pool and len(data) != len(self.kernel) + 2:
            raise self.shape_error(f"data must have {len(self.kernel) + 2} axes for kernel "
                                   f"{self.kernel}, got shape {tuple(data)}")
        return tuple(data[:2]) + self._out_size(data[2:], self.geometry(data[2:]))

    def _layout(self, shape):
        """Geometry, output size and the extra end padding ('full' windows may overhang)."""
        geometry = self.geometry(shape[2:])
        out_size = self._out_size(shape[2:], geometry)
        extra = tuple(max(0, (o - 1) * s + k - (n + 2 * p)) for o, s, k, n, p in zip(
            out_size, geometry.stride, geometry.kernel, shape[2:], geometry.pad))
        return geometry, out_size, extra

    def _padded(self, xp, data, fill):
        """The input padded for every window, its geometry and the output size."""
        geometry, out_size, extra = self._layout(data.shape)
        after = tuple(p + e for p, e in zip(geometry.pad, extra))
        return _pad(xp, data, geometry.pad, after, value=fill), geometry, out_size

    def _padded_windows(self, xp, data, fill):
        padded, geometry, out_size = self._padded(xp, data, fill)
        return _windows(xp, padded, geometry, out_size), padded.shape, geometry

    def _by_taps(self):
        """Whether to pool tap by tap (``pool_kernels``: few taps, many windows) rather
        than reduce the window view (one strided reduction: global pooling, huge kernels,
        Lp pooling)."""
        return not self.global_pool and math.prod(self.kernel) <= _MAX_TAPS and \
            self.pool_type != "lp"

    def _tap_layout(self, shape):
        """Geometry, output size and the padding after each axis (pad plus the 'full'
        overhang) for ``pool_kernels``."""
        geometry, out_size, extra = self._layout(shape)
        return geometry, out_size, tuple(p + e for p, e in zip(geometry.pad, extra))

    def _window_axes(self, ndim):
        return tuple(range(ndim, 2 * ndim - 2))

    def _divisor(self, xp, data):
        """How many elements each average window counts."""
        geometry, out_size, extra = self._layout(data.shape)
        include_pad = self.count_include_pad in (None, True)
        ones = xp.ones((1, 1) + data.shape[2:], dtype=data.dtype)
        if include_pad:
            ones = _pad(xp, ones, geometry.pad, value=1)
            ones = _pad(xp, ones, (0,) * len(extra), extra)
        else:
            ones = _pad(xp, ones, geometry.pad, tuple(p + e for p, e in zip(geometry.pad, extra)))
        counts = _windows(xp, ones, geometry, out_size).sum(axis=self._window_axes(data.ndim))
        return xp.maximum(counts, 1)

    def _forward_first(self, xp, data):
        kind = self.pool_type
        fill = _lowest(xp, data) if kind == "max" else 0

        def window_view():
            return self._padded_windows(xp, data, fill)[0]
        if self._by_taps():
            pooled = pool_kernels.pool(xp, data, *self._tap_layout(data.shape), kind, fill)
            if kind == "max":
                return pool_max.follow_mxnet(xp, pooled, data, window_view)
            return pooled / self._divisor(xp, data) if kind == "avg" else pooled
        axes = self._window_axes(data.ndim)
        if kind == "max":
            pooled = pool_max.nan_skipping_max(xp, window_view(), axes)
            return pool_max.follow_mxnet(xp, pooled, data, window_view)
        windows = window_view()
        if kind == "lp":
            power = self.p_value or 1
            return (windows ** power).sum(axis=axes) ** (1.0 / power)
        summed = windows.sum(axis=axes)
        return summed / self._divisor(xp, data) if kind == "avg" else summed

    def _window_grads(self, xp, out_grad, data, output):
        """Gradient with respect to each window element, shape ``(N, C, *out, *kernel)``."""
        kind = self.pool_type
        windows, padded_shape, geometry = self._padded_windows(
            xp, data, _lowest(xp, data) if kind == "max" else 0)
        rank = data.ndim - 2
        expand = (Ellipsis,) + (None,) * rank
        if kind == "max":
            flat = windows.reshape(windows.shape[:2 + rank] + (-1,))
            # (MXNet's oneDNN kernel: float32, channels first)
            to_first = data.dtype == xp.float32 and not channel_last(self.layout)
            winner = pool_max.first_winner(xp, flat, output, to_first)
            # selected, not multiplied: the other taps get 0 beside an infinite gradient
            shares = xp.where(winner.reshape(windows.shape), out_grad[expand],
                              xp.zeros((), dtype=out_grad.dtype))
            return shares, padded_shape, geometry
        if kind == "lp":
            power = self.p_value or 1
            safe = xp.where(output == 0, 1, output)
            ratio = (windows / safe[expand]) ** (power - 1)
            return ratio * out_grad[expand], padded_shape, geometry
        scale = out_grad / self._divisor(xp, data) if kind == "avg" else out_grad
        return xp.broadcast_to(scale[expand], windows.shape), padded_shape, geometry

    def _backward_first(self, xp, out_grad, data, output):
        kind = self.pool_type
        if self._by_taps() and kind in ("avg", "sum"):
            scale = out_grad / self._divisor(xp, data) if kind == "avg" else out_grad
            geometry, _, after = self._tap_layout(data.shape)
            return pool_kernels.sum_pool_grad(xp, scale, data.shape, geometry, after)
        # a window whose maximum is the lowest finite value (nothing beat MXNet's start, or
        # a tap holds it) takes the general path below (``pool_max.first_winner``)
        if self._by_taps() and (output > pool_max.lowest_finite(data.dtype)).all():
            geometry, _, after = self._tap_layout(data.shape)
            return pool_kernels.max_pool_grad(xp, out_grad, data, output, geometry, after,
                                              _lowest(xp, data))
        columns, padded_shape, geometry = self._window_grads(xp, out_grad, data, output)
        grad = _col2im(xp, columns, padded_shape, geometry)
        return _crop(grad, geometry.pad, data.shape[2:])
