"""Convolution, transposed convolution, pooling and padding layers (1-D, 2-D, 3-D).

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/nn/conv_layers.py``.  One base
class per family (``_Conv``, ``_Pooling``) turns the user's arguments into the
operator's (``kernel``, ``stride``, ``pad``, ...); the numbered subclasses only
fix the number of spatial axes.  Convolutions and pooling take the channel-first layouts
(NCW, NCHW, NCDHW) and the channel-last ones (NWC, NHWC, NDHWC); transposed
convolutions the channel-first ones.
"""
from numbers import Number

from ..hybrid_block import HybridBlock
from ..parameter import shown_shape
from .activations import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
           "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
           "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D"]

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_CHANNEL_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _check_layout(layer, layout, dims, channel_last_ok=True):
    allowed = (_LAYOUTS[dims], _CHANNEL_LAST[dims]) if channel_last_ok else (_LAYOUTS[dims],)
    if layout not in allowed:
        raise ValueError(f"{layer}: layout {layout!r} is not supported; minimx supports "
                         f"{' and '.join(map(repr, allowed))} for {dims}-D data")


def _tuple(value, dims, what):
    """``3`` -> ``(3, 3)`` for 2-D; a tuple must already have ``dims`` entries."""
    if isinstance(value, Number):
        return (value,) * dims
    value = tuple(value)
    if len(value) != dims:
        raise ValueError(f"{what} must be a number or a list of {dims} ints, got {value}")
    return value


# -- convolution ---------------------------------------------------------------------------------
class _Conv(HybridBlock):
    """Convolution (``op_name='Convolution'``) or its transpose (``'Deconvolution'``)."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", op_name="Convolution", adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        dims = len(kernel_size)
        self._channels = channels
        self._in_channels = in_channels
        self._op_name = op_name
        self._kwargs = {"kernel": kernel_size, "stride": _tuple(strides, dims, "strides"),
                        "dilate": _tuple(dilation, dims, "dilation"),
                        "pad": _tuple(padding, dims, "padding"), "num_filter": channels,
                        "num_group": groups, "no_bias": not use_bias, "layout": layout}
        if adj is not None:
            self._kwargs["adj"] = adj
        with self.name_scope():
            self.weight = self.params.get("weight", shape=self._weight_shape(),
                                          init=weight_initializer, allow_deferred_init=True)
            self.bias = None
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            self.act = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")

    def _weight_shape(self):
        """Convolution: (out, in / groups, *kernel); Deconvolution: (in, out / groups, *kernel).
        An unknown ``in_channels`` (0) stays 0 until the first call."""
        groups, kernel = self._kwargs["num_group"], self._kwargs["kernel"]
        if self._op_name == "Deconvolution":
            return (self._in_channels, self._channels // groups) + tuple(kernel)
        if self._kwargs["layout"][-1] == "C":        # channel-last: (out, *kernel, in)
            return (self._channels,) + tuple(kernel) + (self._in_channels // groups,)
        return (self._channels, self._in_channels // groups) + tuple(kernel)

    def _alias(self):
        return "conv"

    def hybrid_forward(self, F, x, weight, bias=None):
        inputs = (x, weight) if bias is None else (x, weight, bias)
        out = getattr(F, self._op_name)(*inputs, name="fwd", **self._kwargs)
        return out if self.act is None else self.act(out)

    def __repr__(self):
        kwargs = self._kwargs
        dims = len(kwargs["kernel"])
        text = f"kernel_size={kwargs['kernel']}, stride={kwargs['stride']}"
        if kwargs["pad"] != (0,) * dims:
            text += f", padding={kwargs['pad']}"
        if kwargs["dilate"] != (1,) * dims:
            text += f", dilation={kwargs['dilate']}"
        # MXNet 1.9.1 never prints output_padding (its check reads a misspelled attribute).
        if kwargs["num_group"] != 1:
            text += f", groups={kwargs['num_group']}"
        if self.bias is None:
            text += ", bias=False"
        if self.act:
            text += f", {self.act}"
        shape = shown_shape(self.weight.shape)
        # As in MXNet: weight axis 1 -> axis 0, so a transposed layer reads "out -> in".
        return f"{type(self).__name__}({shape[1] or None} -> {shape[0]}, {text})"


class _ConvND(_Conv):
    """Shared constructor of Conv1D/2D/3D: ``dims`` spatial axes."""

    dims = 2

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout=None, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        layout = layout or _LAYOUTS[self.dims]
        op_name = kwargs.pop("op_name", "Convolution")
        _check_layout(type(self).__name__, layout, self.dims, op_name == "Convolution")
        kernel_size = _tuple(kernel_size, self.dims, "kernel_size")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name, **kwargs)


class Conv1D(_ConvND):
    """1-D convolution over ``(N, C, W)`` data.

    Parameters
    ----------
    channels : int
        Number of output channels.
    kernel_size : int or tuple of 1 int
    strides, padding, dilation : int or tuple of 1 int, defaults 1, 0, 1
    groups : int, default 1
        Split input and output channels into this many independent convolutions.
    layout : str, default 'NCW'
    activation : str, optional
    use_bias : bool, default True
    weight_initializer, bias_initializer : Initializer or str
    in_channels : int, default 0
        0 learns the number of input channels at the first call.
    """

    dims = 1

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout="NCW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer,
                         in_channels, **kwargs)


class Conv2D(_ConvND):
    """2-D convolution over ``(N, C, H, W)`` data; arguments as Conv1D with 2-tuples.

    Examples
    --------
    >>> conv = nn.Conv2D(4, kernel_size=3, padding=1)
    >>> conv.initialize()
    >>> conv(nd.ones((1, 2, 5, 5))).shape
    (1, 4, 5, 5)
    """

    dims = 2

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout="NCHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer,
                         in_channels, **kwargs)


class Conv3D(_ConvND):
    """3-D convolution over ``(N, C, D, H, W)`` data; arguments as Conv1D with 3-tuples."""

    dims = 3

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout="NCDHW", activation=None,
                 use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer,
                         in_channels, **kwargs)


class _ConvTransposeND(_Conv):
    """Shared constructor of Conv1D/2D/3DTranspose (the gradient of a convolution)."""

    dims = 2

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout=None, activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        layout = layout or _LAYOUTS[self.dims]
        _check_layout(type(self).__name__, layout, self.dims, channel_last_ok=False)
        kernel_size = _tuple(kernel_size, self.dims, "kernel_size")
        output_padding = _tuple(output_padding, self.dims, "output_padding")
        op_name = kwargs.pop("op_name", "Deconvolution")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name=op_name, adj=output_padding, **kwargs)
        self.outpad = output_padding


class Conv1DTranspose(_ConvTransposeND):
    """Transposed 1-D convolution; ``output_padding`` adds cells at the end of the output.

    Output width: ``(width - 1) * stride - 2 * padding + kernel_size + output_padding``
    (with dilation 1).  Other arguments as Conv1D.
    """

    dims = 1

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout="NCW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv2DTranspose(_ConvTransposeND):
    """Transposed 2-D convolution (upsampling); arguments as Conv1DTranspose with 2-tuples."""

    dims = 2

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout="NCHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv3DTranspose(_ConvTransposeND):
    """Transposed 3-D convolution; arguments as Conv1DTranspose with 3-tuples."""

    dims = 3

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout="NCDHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


# -- pooling -------------------------------------------------------------------------------------
class _Pooling(HybridBlock):
    """Max or average pooling; ``ceil_mode`` rounds the output size up (MXNet's 'full')."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        dims = len(pool_size)
        self._kwargs = {"kernel": pool_size,
                        "stride": _tuple(pool_size if strides is None else strides, dims,
                                         "strides"),
                        "pad": _tuple(padding, dims, "padding"), "global_pool": global_pool,
                        "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        kwargs = self._kwargs
        return (f"{type(self).__name__}(size={kwargs['kernel']}, stride={kwargs['stride']}, "
                f"padding={kwargs['pad']}, "
                f"ceil_mode={kwargs['pooling_convention'] == 'full'}, "
                f"global_pool={kwargs['global_pool']}, pool_type={kwargs['pool_type']}, "
                f"layout={kwargs['layout']})")


def _pool_init(layer, dims, pool_type, pool_size, strides, padding, layout, ceil_mode,
               count_include_pad, kwargs):
    """Check the arguments of a MaxPool/AvgPool layer and initialise it as a _Pooling."""
    _check_layout(type(layer).__name__, layout, dims)
    pool_size = _tuple(pool_size, dims, "pool_size")
    _Pooling.__init__(layer, pool_size, strides, padding, ceil_mode, False, pool_type, layout,
                      count_include_pad, **kwargs)


class MaxPool1D(_Pooling):
    """Max pooling over ``(N, C, W)`` data.

    Parameters
    ----------
    pool_size : int or tuple of 1 int, default 2
    strides : int or tuple, default ``pool_size``
    padding : int or tuple, default 0
    layout : str, default 'NCW'
    ceil_mode : bool, default False
        Round the output size up instead of down.
    """

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False,
                 **kwargs):
        _pool_init(self, 1, "max", pool_size, strides, padding, layout, ceil_mode, None, kwargs)


class MaxPool2D(_Pooling):
    """Max pooling over ``(N, C, H, W)`` data; arguments as MaxPool1D with 2-tuples.

    Examples
    --------
    >>> nn.MaxPool2D()(nd.ones((1, 1, 4, 4))).shape
    (1, 1, 2, 2)
    """

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW",
                 ceil_mode=False, **kwargs):
        _pool_init(self, 2, "max", pool_size, strides, padding, layout, ceil_mode, None, kwargs)


class MaxPool3D(_Pooling):
    """Max pooling over ``(N, C, D, H, W)`` data; arguments as MaxPool1D with 3-tuples."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCDHW", **kwargs):
        _pool_init(self, 3, "max", pool_size, strides, padding, layout, ceil_mode, None, kwargs)


class AvgPool1D(_Pooling):
    """Average pooling over ``(N, C, W)`` data; arguments as MaxPool1D, plus
    ``count_include_pad`` (default True: padded cells count in the average)."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False,
                 count_include_pad=True, **kwargs):
        _pool_init(self, 1, "avg", pool_size, strides, padding, layout, ceil_mode,
                   count_include_pad, kwargs)


class AvgPool2D(_Pooling):
    """Average pooling over ``(N, C, H, W)`` data; arguments as AvgPool1D with 2-tuples."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCHW", count_include_pad=True, **kwargs):
        _pool_init(self, 2, "avg", pool_size, strides, padding, layout, ceil_mode,
                   count_include_pad, kwargs)


class AvgPool3D(_Pooling):
    """Average pooling over ``(N, C, D, H, W)`` data; arguments as AvgPool1D with 3-tuples."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCDHW", count_include_pad=True, **kwargs):
        _pool_init(self, 3, "avg", pool_size, strides, padding, layout, ceil_mode,
                   count_include_pad, kwargs)


class _GlobalPooling(_Pooling):
    """Pool each channel to a single value: the output is ``(N, C, 1, ...)``."""

    dims = 2
    pool_type = "max"

    def __init__(self, layout=None, **kwargs):
        layout = layout or _LAYOUTS[self.dims]
        _check_layout(type(self).__name__, layout, self.dims)
        super().__init__((1,) * self.dims, None, 0, True, True, self.pool_type, layout,
                         **kwargs)


class GlobalMaxPool1D(_GlobalPooling):
    """Maximum of each channel of ``(N, C, W)`` data."""

    dims, pool_type = 1, "max"

    def __init__(self, layout="NCW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalMaxPool2D(_GlobalPooling):
    """Maximum of each channel of ``(N, C, H, W)`` data."""

    dims, pool_type = 2, "max"

    def __init__(self, layout="NCHW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalMaxPool3D(_GlobalPooling):
    """Maximum of each channel of ``(N, C, D, H, W)`` data."""

    dims, pool_type = 3, "max"

    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool1D(_GlobalPooling):
    """Mean of each channel of ``(N, C, W)`` data."""

    dims, pool_type = 1, "avg"

    def __init__(self, layout="NCW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool2D(_GlobalPooling):
    """Mean of each channel of ``(N, C, H, W)`` data."""

    dims, pool_type = 2, "avg"

    def __init__(self, layout="NCHW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool3D(_GlobalPooling):
    """Mean of each channel of ``(N, C, D, H, W)`` data."""

    dims, pool_type = 3, "avg"

    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__(layout, **kwargs)


# -- padding -------------------------------------------------------------------------------------
class ReflectionPad2D(HybridBlock):
    """Pad the two spatial axes of ``(N, C, H, W)`` data by reflecting it at the border.

    Parameters
    ----------
    padding : int or tuple of 8 ints, default 0
        An int pads H and W by that much on both sides; 8 ints are ``Pad``'s
        ``pad_width`` (before/after for each of the four axes).
    """

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, Number):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise ValueError(f"ReflectionPad2D: padding must be an int or 8 ints, got {padding}")
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
