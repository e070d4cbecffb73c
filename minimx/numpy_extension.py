"""``mx.npx``: MXNet's operators that NumPy has no name for, on ``np`` arrays.

Lesson: 03-two-frontends-one-engine.  Mirrors ``python/mxnet/numpy_extension/``.  Each function
in ``OPERATORS`` is the generated ``nd`` function of a registered operator (same inputs and
parameters, MXNet's ``npx`` name) whose results are ``np`` arrays; the rest are the
process-wide helpers MXNet keeps here (devices, ``waitall``, ``save``/``load``, ``seed``,
the ``set_np`` switches) and ``reshape`` with npx's own special codes.
"""
import numbers

from . import engine
from .context import cpu, current_context, gpu, num_gpus
from .ndarray import op as _nd_op
from .ndarray import utils as _nd_utils
from .numpy import extension_random as random  # noqa: F401 (npx.random)
from .numpy.multiarray import as_np
from .random_state import seed
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
}
# names of MXNet's npx that minimx leaves out, and why
_LEFT_OUT = {
    "masked_softmax": "no masked softmax operator yet (softmax with length= covers sequences)",
    "arange_like": "no arange_like operator yet",
}

__all__ = ["set_np", "reset_np", "is_np_array", "is_np_shape", "use_np", "num_gpus", "gpu",
           "cpu", "current_context", "current_device", "waitall", "save", "load", "seed",
           "reshape", *OPERATORS]


def _npx_function(name, nd_function):
    def function(*args, **kwargs):
        return as_np(nd_function(*args, **kwargs))
    function.__name__ = function.__qualname__ = name
    function.__module__ = __name__
    function.__doc__ = nd_function.__doc__
    function.__signature__ = nd_function.__signature__
    return function


for _name, _op_name in OPERATORS.items():
    globals()[_name] = _npx_function(_name, getattr(_nd_op, _op_name))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    why = _LEFT_OUT.get(name, "it is not implemented in minimx yet")
    raise AttributeError(f"mx.npx.{name} is not available: {why}")


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


def reshape(a, newshape, reverse=False, order="C"):
    """Reshape with npx's codes: -1 infer, -2 copy this axis, -3 drop this axis (size 1),
    -4 copy all remaining axes, -5 merge two axes, -6 split one axis in two (the next two
    values, one may be -1)."""
    newshape = (newshape,) if isinstance(newshape, numbers.Integral) else tuple(newshape)
    shape = a.shape[::-1] if reverse else a.shape
    target = _npx_target(tuple(shape), newshape[::-1] if reverse else newshape)
    return a.reshape(target[::-1] if reverse else target)


def _npx_target(shape, codes):
    target, axis, index = [], 0, 0
    while index < len(codes):
        code = codes[index]
        if code >= 0 or code == -1:
            target.append(code)
            axis += 1
        elif code == -2:
            target.append(shape[axis])
            axis += 1
        elif code == -3:
            if shape[axis] != 1:
                raise ValueError(f"npx.reshape: -3 drops an axis of size 1, axis {axis} of "
                                 f"shape {shape} has size {shape[axis]}")
            axis += 1
        elif code == -4:
            target.extend(shape[axis:])
            axis = len(shape)
        elif code == -5:
            target.append(shape[axis] * shape[axis + 1])
            axis += 2
        elif code == -6:
            first, second = codes[index + 1], codes[index + 2]
            first = shape[axis] // second if first == -1 else first
            second = shape[axis] // first if second == -1 else second
            target.extend((first, second))
            axis, index = axis + 1, index + 2
        else:
            raise ValueError(f"npx.reshape: unknown code {code} in {codes}")
        index += 1
    return tuple(target)
