"""AlexNet (Krizhevsky et al., 2012): five convolutions, three dense layers.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/vision/alexnet.py``.
"""
from ... import nn
from ...hybrid_block import HybridBlock
from ._loading import load_pretrained

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """AlexNet for 224x224 images; ``classes`` outputs."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                self.features.add(
                    nn.Conv2D(64, kernel_size=11, strides=4, padding=2, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Conv2D(384, kernel_size=3, padding=1, activation="relu"),
                    nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                    nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Flatten(),
                    nn.Dense(4096, activation="relu"), nn.Dropout(0.5),
                    nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=None, root=None, **kwargs):
    """AlexNet; ``pretrained`` loads ``alexnet-*.params`` from ``root``."""
    return load_pretrained(AlexNet(**kwargs), "alexnet", pretrained, ctx, root)
