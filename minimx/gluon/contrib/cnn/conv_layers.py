"""DeformableConvolution: a 2-d convolution layer whose taps move by learned offsets.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/cnn/conv_layers.py``.  An
ordinary convolution over the input (``offset_weight``, ``offset_bias``; zero at the
start, so the layer starts as a plain convolution) predicts two offsets per kernel tap
and output position; ``contrib.DeformableConvolution`` then reads the input at the moved
taps (``deformable_conv_weight``, ``deformable_conv_bias``).
"""
from ...hybrid_block import HybridBlock
from ...nn import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _pair(value, what):
    pair = (value,) * 2 if isinstance(value, int) else tuple(value)
    if len(pair) != 2:
        raise ValueError(f"DeformableConvolution: {what} must be an int or 2 ints, got "
                         f"{value!r}")
    return pair


class DeformableConvolution(HybridBlock):
    _reads_per_tap = 2          # channels the offset convolution predicts per tap: dy, dx
    _op = "DeformableConvolution"

    """2-d deformable convolution (Dai et al. 2017), layout NCHW.

    Parameters
    ----------
    channels : int
        Output channels.
    kernel_size, strides, padding, dilation : int or (int, int)
    groups : int, default 1
    num_deformable_group : int, default 1
        Input channel groups with offsets of their own.
    layout : str, default 'NCHW'
    use_bias, offset_use_bias : bool, default True
    in_channels : int, default 0 (learned at the first call)
    activation : str, optional
    weight_initializer, bias_initializer, offset_weight_initializer,
    offset_bias_initializer : Initializer or str
        The offsets' default to zeros.
    """

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout="NCHW",
                 use_bias=True, in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True,
                 op_name="DeformableConvolution", adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        if layout != "NCHW":
            raise ValueError(f"DeformableConvolution: layout {layout!r}: only NCHW is "
                             f"supported")
        kernel = _pair(kernel_size, "kernel_size")
        geometry = {"kernel": kernel, "stride": _pair(strides, "strides"),
                    "dilate": _pair(dilation, "dilation"), "pad": _pair(padding, "padding"),
                    "num_group": groups, "layout": layout}
        taps = kernel[0] * kernel[1] * num_deformable_group
        offset_channels = self._reads_per_tap * taps
        self._offset_split_index = 2 * taps
        self._kwargs_offset = dict(geometry, num_filter=offset_channels,
                                   no_bias=not offset_use_bias)
        self._kwargs_deformable_conv = dict(geometry, num_filter=channels,
                                            num_deformable_group=num_deformable_group,
                                            no_bias=not use_bias)
        self._use_bias, self._offset_use_bias = use_bias, offset_use_bias
        per_group = in_channels // groups
        get = self.params.get
        self.offset_weight = get("offset_weight", shape=(offset_channels, per_group) + kernel,
                                 init=offset_weight_initializer, allow_deferred_init=True)
        self.offset_bias = get("offset_bias", shape=(offset_channels,),
                               init=offset_bias_initializer,
                               allow_deferred_init=True) if offset_use_bias else None
        self.deformable_conv_weight = get("deformable_conv_weight",
                                          shape=(channels, per_group) + kernel,
                                          init=weight_initializer, allow_deferred_init=True)
        self.deformable_conv_bias = get("deformable_conv_bias", shape=(channels,),
                                        init=bias_initializer,
                                        allow_deferred_init=True) if use_bias else None
        self.act = Activation(activation, prefix=activation + "_") if activation else None

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset_inputs = [x, offset_weight] + ([offset_bias] if self._offset_use_bias else [])
        offset = F.Convolution(*offset_inputs, name="offset", **self._kwargs_offset)
        inputs = [x] + self._moves(F, offset) + [deformable_conv_weight] + (
            [deformable_conv_bias] if self._use_bias else [])
        out = getattr(F.contrib, self._op)(*inputs, name="fwd", **self._kwargs_deformable_conv)
        return self.act(out) if self.act is not None else out

    def _moves(self, F, offset):
        """The operator's inputs between data and weight."""
        return [offset]

    def _alias(self):
        return "deformable_conv"

    def __repr__(self):
        kwargs = self._kwargs_deformable_conv
        shape = self.deformable_conv_weight.shape
        return (f"{type(self).__name__}({shape[1] * kwargs['num_group'] or None} -> "
                f"{shape[0]}, kernel_size={kwargs['kernel']}, stride={kwargs['stride']})")


class ModulatedDeformableConvolution(DeformableConvolution):
    """Deformable convolution v2 (Zhu et al. 2019): the offset convolution also predicts a
    mask per tap, ``2 * sigmoid(.)`` (1 at the start), scaling each moved read; arguments
    as DeformableConvolution's."""
    _reads_per_tap = 3          # dy, dx and the mask's logit
    _op = "ModulatedDeformableConvolution"

    def _alias(self):
        return "modulated_deformable_conv"

    def _moves(self, F, offset):
        split = self._offset_split_index
        moves = F.slice_axis(offset, axis=1, begin=0, end=split)
        mask = F.sigmoid(F.slice_axis(offset, axis=1, begin=split, end=None)) * 2
        return [moves, mask]
