"""``mx.gluon.contrib.cnn``: deformable convolutions (v1 and the modulated v2).  Mirrors
``python/mxnet/gluon/contrib/cnn/``."""
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]
