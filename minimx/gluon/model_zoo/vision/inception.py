"""Inception v3 (Szegedy et al., 2015): blocks of parallel branches of factorized
convolutions, for 299x299 images.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/vision/inception.py``.  Each
block is a HybridConcurrent (branches concatenated on channels) named ``A1_``, ``B_``,
``C1_`` ... ; a branch is an optional pool and a chain of conv-BN-ReLU units.
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ._loading import load_pretrained

__all__ = ["Inception3", "inception_v3"]


def _basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001),
            nn.Activation("relu"))
    return out


_SETTING_NAMES = ("channels", "kernel_size", "strides", "padding")


def _branch(pool, *conv_settings):
    """``pool`` None, 'avg' (3x3/1, pad 1) or 'max' (3x3/2), then one conv unit per
    setting ``(channels, kernel_size, strides, padding)`` (None: the default)."""
    out = nn.HybridSequential(prefix="")
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in conv_settings:
        out.add(_basic_conv(**{name: value for name, value in zip(_SETTING_NAMES, setting)
                               if value is not None}))
    return out


def _block_a(pool_features, prefix):
    out = nn.HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (64, 1, None, None)))
        out.add(_branch(None, (48, 1, None, None), (64, 5, None, 2)))
        out.add(_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)))
        out.add(_branch("avg", (pool_features, 1, None, None)))
    return out


def _block_b(prefix):
    out = nn.HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (384, 3, 2, None)))
        out.add(_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)))
        out.add(_branch("max"))
    return out


def _block_c(channels_7x7, prefix):
    c = channels_7x7
    out = nn.HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (192, 1, None, None)))
        out.add(_branch(None, (c, 1, None, None), (c, (1, 7), None, (0, 3)),
                        (192, (7, 1), None, (3, 0))))
        out.add(_branch(None, (c, 1, None, None), (c, (7, 1), None, (3, 0)),
                        (c, (1, 7), None, (0, 3)), (c, (7, 1), None, (3, 0)),
                        (192, (1, 7), None, (0, 3))))
        out.add(_branch("avg", (192, 1, None, None)))
    return out


def _block_d(prefix):
    out = nn.HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (192, 1, None, None), (320, 3, 2, None)))
        out.add(_branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                        (192, (7, 1), None, (3, 0)), (192, 3, 2, None)))
        out.add(_branch("max"))
    return out


def _split_1x3_3x1(channels):
    """Two branches side by side: a 1x3 and a 3x1 convolution unit."""
    split = nn.HybridConcurrent(axis=1, prefix="")
    split.add(_branch(None, (channels, (1, 3), None, (0, 1))))
    split.add(_branch(None, (channels, (3, 1), None, (1, 0))))
    return split


def _block_e(prefix):
    out = nn.HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (320, 1, None, None)))
        branch_3x3 = nn.HybridSequential(prefix="")
        out.add(branch_3x3)
        branch_3x3.add(_branch(None, (384, 1, None, None)))
        branch_3x3.add(_split_1x3_3x1(384))
        branch_3x3dbl = nn.HybridSequential(prefix="")
        out.add(branch_3x3dbl)
        branch_3x3dbl.add(_branch(None, (448, 1, None, None), (384, 3, None, 1)))
        branch_3x3dbl.add(_split_1x3_3x1(384))
        out.add(_branch("avg", (192, 1, None, None)))
    return out


class Inception3(HybridBlock):
    """Inception v3 for 299x299 images."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_basic_conv(channels=32, kernel_size=3, strides=2),
                              _basic_conv(channels=32, kernel_size=3),
                              _basic_conv(channels=64, kernel_size=3, padding=1),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _basic_conv(channels=80, kernel_size=1),
                              _basic_conv(channels=192, kernel_size=3),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _block_a(32, "A1_"), _block_a(64, "A2_"), _block_a(64, "A3_"),
                              _block_b("B_"),
                              _block_c(128, "C1_"), _block_c(160, "C2_"),
                              _block_c(160, "C3_"), _block_c(192, "C4_"),
                              _block_d("D_"), _block_e("E1_"), _block_e("E2_"),
                              nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=None, root=None, **kwargs):
    """Inception v3; ``pretrained`` loads ``inceptionv3-*.params`` from ``root``."""
    return load_pretrained(Inception3(**kwargs), "inceptionv3", pretrained, ctx, root)
