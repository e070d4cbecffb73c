"""``mx.init`` (also ``mx.initializer``): how parameters get their first values.

Lesson: 09-gluon.  Mirrors ``python/mxnet/initializer.py``, in five
parts: ``base`` (InitDesc, Initializer, the registry), ``fixed`` (known
values), ``random_fills`` (random draws scaled by shape), ``combine``
(choosing an initializer by name) and ``fused_rnn`` (a fused RNN's flat parameters).
"""
from .base import InitDesc, Initializer, alias, create, register
from .combine import Load, Mixed
from .fixed import Bilinear, Constant, LSTMBias, One, Zero
from .fused_rnn import FusedRNN
from .random_fills import MSRAPrelu, Normal, Orthogonal, Uniform, Xavier

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Zero", "One",
           "Constant", "Uniform", "Normal", "Xavier", "MSRAPrelu", "Orthogonal", "Bilinear",
           "LSTMBias", "FusedRNN", "Mixed", "Load"]
