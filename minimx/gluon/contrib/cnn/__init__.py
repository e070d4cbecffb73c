"""``mx.gluon.contrib.cnn``: deformable convolution.  Mirrors
``python/mxnet/gluon/contrib/cnn/`` (ModulatedDeformableConvolution, which needs the
``contrib.ModulatedDeformableConvolution`` operator, is not part of minimx yet)."""
from .conv_layers import DeformableConvolution

__all__ = ["DeformableConvolution"]
