"""``mx.operator``: operators written in Python by the user (MXNet's CustomOp API).

Lesson: 04-autograd, 08-executors.  Mirrors ``python/mxnet/operator.py``.
``prop.py`` holds what a user subclasses (``CustomOp``, ``CustomOpProp``) and
``register``; ``custom.py`` the one registry entry, ``Custom``, that runs any
registered Prop, so custom operators work in ``nd``, autograd, ``sym`` and
the Executor like built-in ones; ``frontend.py`` the ``nd.Custom`` and
``sym.Custom`` functions, attached to those modules below.
"""
from .. import ndarray, symbol
from . import example  # noqa: F401  (registers the op_type the registry tests use)
from .custom import Custom
from .frontend import ndarray_custom, symbol_custom
from .prop import CustomOp, CustomOpProp, register
from .numpy_op import NumpyOp, PythonOp
from .registry_info import OperatorArguments, get_all_registered_operators, get_operator_arguments

__all__ = ["CustomOp", "CustomOpProp", "register", "Custom", "NumpyOp", "PythonOp",
           "OperatorArguments",
           "get_all_registered_operators", "get_operator_arguments"]


def _attach(module, function):
    """Make ``function`` ``<module>.Custom`` and ``<module>.op.Custom``.

    ``ndarray`` and ``symbol`` are imported before this package (it builds on
    both), so their generated functions cannot include Custom.
    """
    module.Custom = function
    module.op.Custom = function
    if "Custom" not in module.__all__:
        module.__all__.append("Custom")


_attach(ndarray, ndarray_custom)
_attach(symbol, symbol_custom)
