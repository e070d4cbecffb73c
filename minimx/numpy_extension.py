"""``mx.npx``: MXNet's operators that NumPy has no name for, on ``np`` arrays.

Lesson: 03-two-frontends-one-engine.  Mirrors ``python/mxnet/numpy_extension/``.  Each function
in ``OPERATORS`` is the generated ``nd`` function of a registered operator (same inputs and
parameters, MXNet's ``npx`` name) whose results are ``np`` arrays; the rest are the
process-wide helpers MXNet keeps here (devices, ``waitall``, ``save``/``load``, ``seed``,
the ``set_np`` switches) and ``reshape`` with npx's own special codes.  ``npx.image`` is
``nd.image``'s operators on ``np`` arrays (MXNet's ``_npx__image_*`` names of them).
"""
import numbers
import types

from . import engine
from .context import cpu, current_context, gpu, num_gpus
from .ndarray import op as _nd_op
from .ndarray import utils as _nd_utils
from .numpy import extension_random as random  # noqa: F401 (npx.random)
from .numpy.adapter import call_np, operand
from .numpy.multiarray import as_np
from .random_state import seed
from . import util as _util
from .util import is_np_array, is_np_shape, reset_np, set_np, use_np

# npx's name -> the registered operator
OPERATORS = {
    "relu": "relu", "sigmoid": "sigmoid", "softmax": "softmax", "log_softmax": "log_softmax",
    "activation": "Activation", "leaky_relu": "LeakyReLU",
    "batch_dot": "batch_dot", "batch_flatten": "Flatten", "one_hot": "one_hot",
    "pick": "pick", "topk": "topk", "sequence_mask": "SequenceMask", "embedding": "Embedding",
    "fully_connected": "FullyConnected", "convolution": "Convolution",
    "deconvolution": "Deconvolution", "pooling": "Pooling", "batch_norm": "BatchNorm",
    "layer_norm": "LayerNorm", "instance_norm": "InstanceNorm", "group_norm": "GroupNorm",
    "dropout": "Dropout", "rnn": "RNN", "smooth_l1": "smooth_l1",
    "stop_gradient": "BlockGrad", "slice": "slice",
    "gather_nd": "gather_nd", "scatter_nd": "scatter_nd", "broadcast_like": "broadcast_like",
    "reshape_like": "reshape_like", "shape_array": "shape_array",
    "gamma": "gamma", "gammaln": "gammaln", "erf": "erf", "erfinv": "erfinv",
    "constraint_check": "_npx_constraint_check",
    # detection (MXNet's _npx_ aliases; d2l's rcnn and ssd pages call them)
    "roi_pooling": "ROIPooling", "multibox_prior": "_contrib_MultiBoxPrior",
    "multibox_target": "_contrib_MultiBoxTarget",
    "multibox_detection": "_contrib_MultiBoxDetection",
    "arange_like": "_contrib_arange_like",
}
# names of MXNet's npx that minimx leaves out, and why
_LEFT_OUT = {
    "masked_softmax": "no masked softmax operator yet (softmax with length= covers sequences)",
}

__all__ = ["set_np", "reset_np", "is_np_array", "is_np_shape", "use_np", "num_gpus", "gpu",
           "cpu", "current_context", "current_device", "waitall", "save", "load", "seed",
           "reshape", "nonzero", "image", *OPERATORS]


def _npx_function(name, nd_function):
    def function(*args, **kwargs):
        return as_np(nd_function(*args, **kwargs))
    function.__name__ = function.__qualname__ = name
    function.__module__ = __name__
    function.__doc__ = nd_function.__doc__
    function.__signature__ = nd_function.__signature__
    return function


def _image_namespace(prefix="_image_"):
    """``npx.image``: one function per ``_image_<name>`` operator of the registry (the
    operators of ``nd.image``: ``to_tensor``, ``normalize``, ``resize``, the flips and the
    colour jitters), returning ``np`` arrays; ``OPERATORS`` maps each name to its operator,
    as this module's own does (``sym.npx.image`` is built from it)."""
    namespace = types.ModuleType(f"{__name__}.image", _image_namespace.__doc__)
    namespace.OPERATORS = {name[len(prefix):]: name for name in dir(_nd_op)
                           if name.startswith(prefix)}
    namespace.__all__ = sorted(namespace.OPERATORS)
    _serve_operators(vars(namespace), namespace.OPERATORS)
    return namespace


def _serve_operators(module_globals, operators):
    """Each function of ``operators`` (name -> registered operator) made on first use."""
    _util.serve_on_first_use(module_globals, operators,
                             lambda name: _npx_function(name, getattr(_nd_op, operators[name])))


image = _image_namespace()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    why = _LEFT_OUT.get(name, "it is not implemented in minimx yet")
    raise AttributeError(f"mx.npx.{name} is not available: {why}")


_serve_operators(globals(), OPERATORS)      # after __getattr__, which answers the others


def current_device():
    return current_context()


def waitall():
    """Block until every pushed operation has finished."""
    engine.wait_all()


def save(file, arr):
    """Save an array, a list or a dict of arrays (MXNet's format, NumPy shapes)."""
    from .util import np_shape
    with np_shape(True):
        _nd_utils.save(file, arr)


def load(file):
    """Load what ``save`` wrote; arrays come back as ``np`` arrays."""
    from .util import np_shape
    with np_shape(True):
        loaded = _nd_utils.load(file)
    if isinstance(loaded, dict):
        return {key: as_np(value) for key, value in loaded.items()}
    return as_np(loaded)


def nonzero(a):
    """The indices of ``a``'s non-zero elements as one ``(N, a.ndim)`` int64 array (NumPy's
    ``transpose(nonzero(a))``; a 0-d ``a`` counts as one element, so ``(N, 1)``).  Its shape
    depends on the values: it waits for ``a`` (and a graph cannot hold it)."""
    from .numpy.value_shapes import argwhere
    a = operand(a)
    return argwhere(a.reshape((1,)) if a.ndim == 0 else a)


def reshape(a, newshape, reverse=False, order="C"):
    """Reshape with npx's codes: -1 infer, -2 copy this axis, -3 drop this axis (size 1),
    -4 copy all remaining axes, -5 merge two axes, -6 split one axis in two (the next two
    values, one may be -1).  The ``_npx_reshape`` operator, on arrays and on Symbols."""
    newshape = (newshape,) if isinstance(newshape, numbers.Integral) else tuple(newshape)
    return call_np("_npx_reshape", operand(a), newshape=newshape, reverse=reverse, order=order)
