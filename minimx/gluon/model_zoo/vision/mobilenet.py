"""MobileNet v1 (Howard et al., 2017) and v2 (Sandler et al., 2018): depthwise-separable
convolutions, and (v2) inverted residual blocks with linear bottlenecks.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/vision/mobilenet.py``.
``multiplier`` scales every layer's channels.
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ._loading import load_pretrained

__all__ = ["MobileNet", "MobileNetV2", "RELU6", "LinearBottleneck", "get_mobilenet",
           "get_mobilenet_v2", "mobilenet1_0", "mobilenet0_75", "mobilenet0_5",
           "mobilenet0_25", "mobilenet_v2_1_0", "mobilenet_v2_0_75", "mobilenet_v2_0_5",
           "mobilenet_v2_0_25"]


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True,
              relu6=False):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels,
              relu6=relu6)
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """Expand by ``t`` (1x1), depthwise 3x3, project to ``channels`` (1x1, no activation);
    the input is added back when the shape allows (stride 1, same channels)."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                      num_group=in_channels * t, relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet v1: a 3x3/2 stem and 13 depthwise-separable layers."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1,
                          stride=2)
                dw_channels = [int(c * multiplier) for c in
                               [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]]
                channels = [int(c * multiplier) for c in
                            [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2]
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet v2: a 3x3/2 stem, 17 linear bottlenecks, a 1x1 to 1280 channels, and a
    1x1 convolution as the classifier."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                in_group = [int(c * multiplier) for c in
                            [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3]
                out_group = [int(c * multiplier) for c in
                             [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320]]
                expansions = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for in_c, c, t, s in zip(in_group, out_group, expansions, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t,
                                                       stride=s))
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _multiplier_name(multiplier):
    """MXNet's spelling in file names: 1.0 -> '1.0', 0.75 -> '0.75', 0.5 -> '0.5'."""
    return f"{multiplier:.2f}".rstrip("0").rstrip(".") if multiplier != 1.0 else "1.0"


def get_mobilenet(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v1 with channel ``multiplier`` (1.0, 0.75, 0.5 or 0.25)."""
    return load_pretrained(MobileNet(multiplier, **kwargs),
                           f"mobilenet{_multiplier_name(multiplier)}", pretrained, ctx, root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v2 with channel ``multiplier`` (1.0, 0.75, 0.5 or 0.25)."""
    return load_pretrained(MobileNetV2(multiplier, **kwargs),
                           f"mobilenetv2_{_multiplier_name(multiplier)}", pretrained, ctx, root)


def mobilenet1_0(**kwargs):
    """MobileNet v1, multiplier 1.0."""
    return get_mobilenet(1.0, **kwargs)


def mobilenet0_75(**kwargs):
    """MobileNet v1, multiplier 0.75."""
    return get_mobilenet(0.75, **kwargs)


def mobilenet0_5(**kwargs):
    """MobileNet v1, multiplier 0.5."""
    return get_mobilenet(0.5, **kwargs)


def mobilenet0_25(**kwargs):
    """MobileNet v1, multiplier 0.25."""
    return get_mobilenet(0.25, **kwargs)


def mobilenet_v2_1_0(**kwargs):
    """MobileNet v2, multiplier 1.0."""
    return get_mobilenet_v2(1.0, **kwargs)


def mobilenet_v2_0_75(**kwargs):
    """MobileNet v2, multiplier 0.75."""
    return get_mobilenet_v2(0.75, **kwargs)


def mobilenet_v2_0_5(**kwargs):
    """MobileNet v2, multiplier 0.5."""
    return get_mobilenet_v2(0.5, **kwargs)


def mobilenet_v2_0_25(**kwargs):
    """MobileNet v2, multiplier 0.25."""
    return get_mobilenet_v2(0.25, **kwargs)
