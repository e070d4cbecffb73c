"""``sym.sparse``: MXNet's names for the operators of graphs on sparse storage.

Lesson: 13-optimizers (sparse gradients).  Mirrors ``python/mxnet/symbol/sparse.py``.  A
``sym.sparse.<name>`` node is the registered operator ``sym.<name>`` builds (one declaration
per operator): what makes it sparse is the storage type of its inputs -- a Variable's
``stype`` -- from which ``symbol/storage.py`` infers every node's, and the executor runs the
sparse kernels of ``op/sparse_kernels.py`` where they exist.
"""
from ..base import MXNetError

# MXNet's sym.sparse names whose operator has another registered name
_OPERATOR_OF = {"retain": "_sparse_retain", "_square_sum": "_square_sum"}

# the operators MXNet 1.9.1's sym.sparse lists (those with a sparse storage kernel or a
# storage-type rule of their own; any other runs densely, as MXNet's storage fallback)
NAMES = frozenset((
    "ElementWiseSum", "Embedding", "FullyConnected", "LinearRegressionOutput",
    "LogisticRegressionOutput", "MAERegressionOutput", "abs", "adagrad_update", "adam_update",
    "add_n", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "broadcast_add",
    "broadcast_div", "broadcast_minus", "broadcast_mul", "broadcast_plus", "broadcast_sub",
    "cast_storage", "cbrt", "ceil", "clip", "concat", "cos", "cosh", "degrees", "dot",
    "elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub", "exp", "expm1", "fix",
    "floor", "ftrl_update", "gamma", "gammaln", "log", "log10", "log1p", "log2", "make_loss",
    "mean", "negative", "norm", "radians", "relu", "retain", "rint", "round", "rsqrt",
    "sgd_mom_update", "sgd_update", "sigmoid", "sign", "sin", "sinh", "slice", "sqrt",
    "square", "stop_gradient", "sum", "tan", "tanh", "trunc", "where", "zeros_like"))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .. import symbol
    if name not in NAMES:
        raise AttributeError(f"module 'minimx.symbol.sparse' has no attribute {name!r}")
    operator = _OPERATOR_OF.get(name, name)
    found = getattr(symbol.op, operator, None)
    if found is None:
        raise MXNetError(f"sym.sparse.{name}: the operator {operator!r} is not in minimx")
    return found
