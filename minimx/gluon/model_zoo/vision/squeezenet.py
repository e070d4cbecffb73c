"""SqueezeNet (Iandola et al., 2016): "fire" modules squeeze to few channels, then expand
with 1x1 and 3x3 convolutions side by side.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/vision/squeezenet.py``.
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ._loading import load_pretrained

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


def _conv_relu(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


def _fire(squeeze, expand1x1, expand3x3):
    out = nn.HybridSequential(prefix="")
    out.add(_conv_relu(squeeze, 1))
    paths = nn.HybridConcurrent(axis=1, prefix="")
    paths.add(_conv_relu(expand1x1, 1), _conv_relu(expand3x3, 3, 1))
    out.add(paths)
    return out


class SqueezeNet(HybridBlock):
    """SqueezeNet ``version`` '1.0' or '1.1' (1.1: a 3x3 stem and earlier pooling)."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: version must be '1.0' or '1.1', got {version!r}")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if version == "1.0":
                self.features.add(nn.Conv2D(96, kernel_size=7, strides=2),
                                  nn.Activation("relu"), _pool(),
                                  _fire(16, 64, 64), _fire(16, 64, 64), _fire(32, 128, 128),
                                  _pool(),
                                  _fire(32, 128, 128), _fire(48, 192, 192),
                                  _fire(48, 192, 192), _fire(64, 256, 256),
                                  _pool(), _fire(64, 256, 256))
            else:
                self.features.add(nn.Conv2D(64, kernel_size=3, strides=2),
                                  nn.Activation("relu"), _pool(),
                                  _fire(16, 64, 64), _fire(16, 64, 64), _pool(),
                                  _fire(32, 128, 128), _fire(32, 128, 128), _pool(),
                                  _fire(48, 192, 192), _fire(48, 192, 192),
                                  _fire(64, 256, 256), _fire(64, 256, 256))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"),
                            nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=None, root=None, **kwargs):
    """SqueezeNet 1.0 or 1.1."""
    return load_pretrained(SqueezeNet(version, **kwargs), f"squeezenet{version}", pretrained,
                           ctx, root)


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0."""
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1."""
    return get_squeezenet("1.1", **kwargs)
