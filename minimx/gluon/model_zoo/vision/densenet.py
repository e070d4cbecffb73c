"""DenseNet (Huang et al., 2016): every layer of a block sees all earlier layers' outputs.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/vision/densenet.py``.  A dense
layer is a HybridConcurrent of the identity and the new features (concatenated on the
channel axis); transitions halve channels and resolution between blocks.
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ._loading import load_pretrained

__all__ = ["DenseNet", "densenet_spec", "get_densenet", "densenet121", "densenet161",
           "densenet169", "densenet201"]


def _dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential(prefix="")
    new_features.add(nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
                     nn.BatchNorm(), nn.Activation("relu"),
                     nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = nn.HybridConcurrent(axis=1, prefix="")
    out.add(nn.Identity(), new_features)
    return out


def _dense_block(count, bn_size, growth_rate, dropout, stage_index):
    block = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with block.name_scope():
        for _ in range(count):
            block.add(_dense_layer(growth_rate, bn_size, dropout))
    return block


def _transition(channels):
    out = nn.HybridSequential(prefix="")
    out.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(channels, kernel_size=1, use_bias=False),
            nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """DenseNet-BC: a 7x7 stem, dense blocks of ``block_config`` layers each adding
    ``growth_rate`` channels, transitions, and a classifier."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2,
                                        padding=3, use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            channels = num_init_features
            for index, count in enumerate(block_config):
                self.features.add(_dense_block(count, bn_size, growth_rate, dropout,
                                               index + 1))
                channels += count * growth_rate
                if index != len(block_config) - 1:
                    self.features.add(_transition(channels // 2))
                    channels //= 2
            self.features.add(nn.BatchNorm(), nn.Activation("relu"),
                              nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# depth -> (initial features, growth rate, layers per block)
densenet_spec = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """DenseNet with 121, 161, 169 or 201 layers."""
    if num_layers not in densenet_spec:
        raise ValueError(f"DenseNet: num_layers must be one of {sorted(densenet_spec)}, "
                         f"got {num_layers}")
    net = DenseNet(*densenet_spec[num_layers], **kwargs)
    return load_pretrained(net, f"densenet{num_layers}", pretrained, ctx, root)


def densenet121(**kwargs):
    """DenseNet-121."""
    return get_densenet(121, **kwargs)


def densenet161(**kwargs):
    """DenseNet-161."""
    return get_densenet(161, **kwargs)


def densenet169(**kwargs):
    """DenseNet-169."""
    return get_densenet(169, **kwargs)


def densenet201(**kwargs):
    """DenseNet-201."""
    return get_densenet(201, **kwargs)
