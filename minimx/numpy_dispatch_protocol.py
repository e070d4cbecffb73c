"""``mxnet.numpy_dispatch_protocol``: official NumPy functions called on ``np`` arrays.

Lesson: 02-ndarray-and-context.  NumPy's ``__array_function__`` (NEP 18) and
``__array_ufunc__`` (NEP 13) protocols let ``numpy.sum(x)`` call ``mx.np.sum(x)`` when ``x``
is an ``mx.np.ndarray`` (``np.ndarray.__array_function__`` in ``numpy/multiarray.py`` does
the lookup).  The lists name the functions and ufuncs that MXNet 1.9.1 dispatches and
minimx computes with its own operators; any other NumPy function called on an ``np`` array
runs on host copies (a sync point) and its array results come back as ``np`` arrays.
"""
import functools

from . import numpy as _np

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol"]


def with_array_function_protocol(function):
    """Run ``function`` (a test) where NumPy has ``__array_function__`` (NumPy >= 1.17:
    every NumPy minimx supports)."""
    @functools.wraps(function)
    def run(*args, **kwargs):
        return function(*args, **kwargs)
    return run


with_array_ufunc_protocol = with_array_function_protocol


# The NumPy functions and ufuncs MXNet 1.9.1 dispatches to its own implementations (MXNet's
# inventory; names only).  minimx dispatches those of them it computes with its own operators;
# a NumPy function outside the lists, called on an np array, runs on host copies.
MXNET_ARRAY_FUNCTIONS = (
    "all", "any", "sometrue", "argmin", "argmax", "around", "round", "round_", "argsort", "sort",
    "append", "broadcast_arrays", "broadcast_to", "clip", "concatenate", "copy", "cumsum", "diag",
    "diagonal", "diagflat", "dot", "expand_dims", "fix", "flip", "flipud", "fliplr", "inner",
    "insert", "max", "amax", "mean", "min", "amin", "nonzero", "ones_like", "atleast_1d",
    "atleast_2d", "atleast_3d", "prod", "product", "ravel", "repeat", "reshape", "roll", "split",
    "array_split", "hsplit", "vsplit", "dsplit", "squeeze", "stack", "std", "sum", "swapaxes",
    "take", "tensordot", "tile", "transpose", "unique", "unravel_index", "diag_indices_from",
    "delete", "var", "vdot", "vstack", "column_stack", "hstack", "dstack", "zeros_like",
    "linalg.norm", "linalg.cholesky", "linalg.inv", "linalg.solve", "linalg.tensorinv",
    "linalg.tensorsolve", "linalg.pinv", "linalg.eigvals", "linalg.eig", "linalg.eigvalsh",
    "linalg.eigh", "shape", "trace", "tril", "meshgrid", "outer", "einsum", "polyval",
    "shares_memory", "may_share_memory", "quantile", "percentile", "diff", "ediff1d", "resize",
    "where", "full_like", "bincount", "empty_like", "nan_to_num", "isnan", "isfinite", "isposinf",
    "isneginf", "isinf", "pad",
)
MXNET_ARRAY_UFUNCS = (
    "abs", "fabs", "add", "arctan2", "copysign", "degrees", "hypot", "lcm", "ldexp", "subtract",
    "multiply", "true_divide", "negative", "power", "mod", "matmul", "absolute", "rint", "sign",
    "exp", "log", "log2", "log10", "expm1", "sqrt", "square", "cbrt", "reciprocal", "invert",
    "bitwise_not", "remainder", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos",
    "arctan", "arcsinh", "arccosh", "arctanh", "maximum", "minimum", "ceil", "trunc", "floor",
    "bitwise_and", "bitwise_xor", "bitwise_or", "logical_not", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal",
)


def _own(module, name):
    function = module
    for part in name.split("."):
        function = getattr(function, part, None)
    return callable(function) and not getattr(function, "on_host", False)


_NUMPY_ARRAY_FUNCTION_LIST = [name for name in MXNET_ARRAY_FUNCTIONS if _own(_np, name)]
_NUMPY_ARRAY_UFUNC_LIST = [name for name in MXNET_ARRAY_UFUNCS if _own(_np, name)]
