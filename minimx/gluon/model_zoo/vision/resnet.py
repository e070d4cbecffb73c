"""ResNet v1 (He et al., 2015) and v2 (pre-activation, He et al., 2016).

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/vision/resnet.py``.  A stage is
a HybridSequential named ``stage<i>_`` of residual blocks; v1 blocks add the shortcut after
the last BatchNorm and then apply ReLU, v2 blocks normalize and activate first and add the
shortcut last.
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ._loading import load_pretrained

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "get_resnet", "resnet_spec",
           "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
           "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2"]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


class BasicBlockV1(HybridBlock):
    """Two 3x3 convolutions with BatchNorm; ReLU after adding the shortcut."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = None
        if downsample:
            self.downsample = nn.HybridSequential(prefix="")
            self.downsample.add(nn.Conv2D(channels, kernel_size=1, strides=stride,
                                          use_bias=False, in_channels=in_channels),
                                nn.BatchNorm())

    def hybrid_forward(self, F, x):
        residual = x
        x = self.body(x)
        if self.downsample is not None:
            residual = self.downsample(residual)
        return F.Activation(residual + x, act_type="relu")


class BottleneckV1(HybridBlock):
    """1x1 (a quarter of the channels), 3x3, 1x1 back to ``channels``; ReLU after the sum."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels // 4, 1, channels // 4),
                      nn.BatchNorm(), nn.Activation("relu"),
                      nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())
        self.downsample = None
        if downsample:
            self.downsample = nn.HybridSequential(prefix="")
            self.downsample.add(nn.Conv2D(channels, kernel_size=1, strides=stride,
                                          use_bias=False, in_channels=in_channels),
                                nn.BatchNorm())

    def hybrid_forward(self, F, x):
        residual = x
        x = self.body(x)
        if self.downsample is not None:
            residual = self.downsample(residual)
        return F.Activation(residual + x, act_type="relu")


class BasicBlockV2(HybridBlock):
    """BatchNorm and ReLU first, then two 3x3 convolutions; the shortcut is added last."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False,
                                    in_channels=in_channels) if downsample else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = F.Activation(self.bn2(x), act_type="relu")
        return self.conv2(x) + residual


class BottleneckV2(HybridBlock):
    """Pre-activation bottleneck: BN-ReLU-1x1, BN-ReLU-3x3, BN-ReLU-1x1, plus the shortcut."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False,
                                    in_channels=in_channels) if downsample else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type="relu"))
        x = self.conv3(F.Activation(self.bn3(x), act_type="relu"))
        return x + residual


def _make_stage(block, count, channels, stride, stage_index, in_channels):
    stage = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(count - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


class ResNetV1(HybridBlock):
    """ResNet v1: a 7x7/2 stem (3x3 with ``thumbnail``, for 32x32 images), stages, pooling."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError(f"ResNet: {len(layers)} stages need {len(layers) + 1} channel "
                             f"counts, got {channels}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                                  nn.BatchNorm(), nn.Activation("relu"),
                                  nn.MaxPool2D(3, 2, 1))
            for index, count in enumerate(layers):
                self.features.add(_make_stage(block, count, channels[index + 1],
                                              1 if index == 0 else 2, index + 1,
                                              channels[index]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet v2: the input is normalized first (BatchNorm without scale and shift), and
    a final BN-ReLU comes before the pooling."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError(f"ResNet: {len(layers)} stages need {len(layers) + 1} channel "
                             f"counts, got {channels}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                                  nn.BatchNorm(), nn.Activation("relu"),
                                  nn.MaxPool2D(3, 2, 1))
            in_channels = channels[0]
            for index, count in enumerate(layers):
                self.features.add(_make_stage(block, count, channels[index + 1],
                                              1 if index == 0 else 2, index + 1, in_channels))
                in_channels = channels[index + 1]
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(),
                              nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# depth -> (block kind, blocks per stage, channels: stem then each stage)
resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_NETS = {1: ResNetV1, 2: ResNetV2}
_BLOCKS = {1: {"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
           2: {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}}


def get_resnet(version, num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """ResNet ``version`` 1 or 2 with 18, 34, 50, 101 or 152 layers."""
    if num_layers not in resnet_spec:
        raise ValueError(f"ResNet: num_layers must be one of {sorted(resnet_spec)}, got "
                         f"{num_layers}")
    if version not in _NETS:
        raise ValueError(f"ResNet: version must be 1 or 2, got {version}")
    kind, layers, channels = resnet_spec[num_layers]
    net = _NETS[version](_BLOCKS[version][kind], layers, channels, **kwargs)
    return load_pretrained(net, f"resnet{num_layers}_v{version}", pretrained, ctx, root)


def resnet18_v1(**kwargs):
    """ResNet-18 v1."""
    return get_resnet(1, 18, **kwargs)


def resnet34_v1(**kwargs):
    """ResNet-34 v1."""
    return get_resnet(1, 34, **kwargs)


def resnet50_v1(**kwargs):
    """ResNet-50 v1."""
    return get_resnet(1, 50, **kwargs)


def resnet101_v1(**kwargs):
    """ResNet-101 v1."""
    return get_resnet(1, 101, **kwargs)


def resnet152_v1(**kwargs):
    """ResNet-152 v1."""
    return get_resnet(1, 152, **kwargs)


def resnet18_v2(**kwargs):
    """ResNet-18 v2."""
    return get_resnet(2, 18, **kwargs)


def resnet34_v2(**kwargs):
    """ResNet-34 v2."""
    return get_resnet(2, 34, **kwargs)


def resnet50_v2(**kwargs):
    """ResNet-50 v2."""
    return get_resnet(2, 50, **kwargs)


def resnet101_v2(**kwargs):
    """ResNet-101 v2."""
    return get_resnet(2, 101, **kwargs)


def resnet152_v2(**kwargs):
    """ResNet-152 v2."""
    return get_resnet(2, 152, **kwargs)
