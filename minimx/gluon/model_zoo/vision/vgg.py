"""VGG (Simonyan and Zisserman, 2014): blocks of 3x3 convolutions, with or without
BatchNorm.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/vision/vgg.py``.
"""
from .... import initializer
from ... import nn
from ...hybrid_block import HybridBlock
from ._loading import load_pretrained

__all__ = ["VGG", "get_vgg", "vgg_spec", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn",
           "vgg13_bn", "vgg16_bn", "vgg19_bn"]

# layers: convolutions per block; filters: channels per block
vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


class VGG(HybridBlock):
    """VGG with ``len(layers)`` blocks, each ending in a 2x2 max pool, then two dense
    layers of 4096 with dropout."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise ValueError(f"VGG: layers {layers} and filters {filters} differ in length")
        with self.name_scope():
            self.features = self._make_features(layers, filters, batch_norm)
            self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                       bias_initializer="zeros"))
            self.features.add(nn.Dropout(rate=0.5))
            self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                       bias_initializer="zeros"))
            self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal",
                                   bias_initializer="zeros")

    @staticmethod
    def _make_features(layers, filters, batch_norm):
        featurizer = nn.HybridSequential(prefix="")
        for count, channels in zip(layers, filters):
            for _ in range(count):
                featurizer.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                         weight_initializer=initializer.Xavier(
                                             rnd_type="gaussian", factor_type="out",
                                             magnitude=2),
                                         bias_initializer="zeros"))
                if batch_norm:
                    featurizer.add(nn.BatchNorm())
                featurizer.add(nn.Activation("relu"))
            featurizer.add(nn.MaxPool2D(strides=2))
        return featurizer

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_vgg(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """VGG with 11, 13, 16 or 19 layers (``batch_norm=True`` for the ``_bn`` variants)."""
    if num_layers not in vgg_spec:
        raise ValueError(f"VGG: num_layers must be one of {sorted(vgg_spec)}, got {num_layers}")
    layers, filters = vgg_spec[num_layers]
    name = f"vgg{num_layers}{'_bn' if kwargs.get('batch_norm') else ''}"
    return load_pretrained(VGG(layers, filters, **kwargs), name, pretrained, ctx, root)


def vgg11(**kwargs):
    """VGG-11."""
    return get_vgg(11, **kwargs)


def vgg11_bn(**kwargs):
    """VGG-11 with BatchNorm after each convolution."""
    return get_vgg(11, batch_norm=True, **kwargs)


def vgg13(**kwargs):
    """VGG-13."""
    return get_vgg(13, **kwargs)


def vgg13_bn(**kwargs):
    """VGG-13 with BatchNorm after each convolution."""
    return get_vgg(13, batch_norm=True, **kwargs)


def vgg16(**kwargs):
    """VGG-16."""
    return get_vgg(16, **kwargs)


def vgg16_bn(**kwargs):
    """VGG-16 with BatchNorm after each convolution."""
    return get_vgg(16, batch_norm=True, **kwargs)


def vgg19(**kwargs):
    """VGG-19."""
    return get_vgg(19, **kwargs)


def vgg19_bn(**kwargs):
    """VGG-19 with BatchNorm after each convolution."""
    return get_vgg(19, batch_norm=True, **kwargs)
