"""Generate ``sym.<op>`` functions from the operator registry (the same declarations as ``nd``).

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/symbol/register.py`` without
generating source text: each function is a closure over the OpDef class.
"""
from ..ndarray.register import make_method, signature_of
from .symbol import compose_op

__all__ = ["make_function", "make_method"]


def make_function(op_cls, public_name=None):
    """The ``sym`` function for one operator: composes a node instead of computing."""
    function_name = public_name or op_cls.name
    hint = function_name.lower()

    def function(*args, **kwargs):
        return compose_op(op_cls, args, kwargs, hint)

    function.__name__ = function.__qualname__ = function_name
    function.__module__ = "minimx.symbol"
    function.__doc__ = ((op_cls.__doc__ or op_cls.name)
                        + "\n\nReturns a Symbol (nothing is computed).")
    function.__signature__ = signature_of(op_cls)
    function.op = op_cls
    return function
