"""Every operator of minimx, one declaration each, grouped in families.

Lesson: 07-symbolic-programming.  ``list_ops()`` returns them all; the frontends
(``minimx.ndarray``, ``minimx.symbol``) are generated from this registry.
"""
# each import registers one family of operators
from . import arithmetic, compare, creation, getitem  # noqa: F401
from . import elemwise, logexp, trig, rounding, activations, reduce  # noqa: F401
from . import shape, join_split, slicing, broadcast, rearrange  # noqa: F401
from . import indexing, linalg, linalg_products, linalg_factor, linalg_shapes  # noqa: F401
from . import histogram, checks, image_ops, image_color  # noqa: F401
from . import nn, normalization, conv, adaptive_pooling, upsampling, resize, spatial  # noqa: F401
from . import deformable_conv  # noqa: F401
from . import attention, correlation, pdf, im2col  # noqa: F401
from . import output, rnn, sequence  # noqa: F401
from . import random, random_multivariate  # noqa: F401
from . import ctc, detection, box_coding, roi  # noqa: F401
from . import optimizer_updates, adamw_updates  # noqa: F401
from . import numpy_ops, numpy_elemwise, numpy_rearrange, numpy_series, numpy_shaping  # noqa: F401
from . import error_function, numpy_insert_delete, numpy_linalg, numpy_einsum, numpy_tensordot  # noqa: F401
from . import control_flow  # noqa: F401
from . import storage_ops  # noqa: F401
from .registry import OPS, OpDef, Param, TestHints, get_op, list_ops, register_op

__all__ = ["OPS", "OpDef", "Param", "TestHints", "get_op", "list_ops", "register_op"]
