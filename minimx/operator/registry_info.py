"""What the operator registry holds, as MXNet's ``mx.operator`` lists it:
``get_all_registered_operators()`` and ``get_operator_arguments(name)``.

Lesson: 07-symbolic-programming.  Mirrors the two functions of ``python/mxnet/operator.py``
(which ask the C library); here they read the declarations in ``op/registry.py``.
"""
from collections import namedtuple

from ..op.params import REQUIRED
from ..op.registry import OPS, get_op

__all__ = ["OperatorArguments", "get_all_registered_operators", "get_operator_arguments"]

OperatorArguments = namedtuple("OperatorArguments", ["narg", "names", "types"])

_KIND_NAMES = {"an int": "int", "a float": "float", "a bool": "boolean", "a string": "string"}


def get_all_registered_operators():
    """The name of every registered operator and alias, sorted."""
    return sorted(OPS)


def _type_text(param):
    choices = getattr(param.parse_value, "choices", None)
    if choices is not None:
        kind = "{" + ", ".join(repr(choice) for choice in sorted(choices)) + "}"   # as dmlc
    else:
        kind = _KIND_NAMES.get(param.type_name, param.type_name)
    if param.default is REQUIRED:
        return f"{kind}, required"
    default = param.default
    if isinstance(default, bool):
        default = int(default)
    shown = f"'{default}'" if isinstance(default, str) else default
    return f"{kind}, optional, default={shown}"


def get_operator_arguments(op_name):
    """The inputs and parameters of operator ``op_name``: names, MXNet-style type texts and
    their count (inputs are ``NDArray-or-Symbol``, a variadic op's ``NDArray-or-Symbol[]``)."""
    op_cls = get_op(op_name)
    if op_cls.variadic:
        names, types = ["data"], ["NDArray-or-Symbol[]"]
    else:
        names = list(op_cls.inputs)
        types = ["NDArray-or-Symbol"] * len(names)
    for name, param in op_cls.params.items():
        names.append(name)
        types.append(_type_text(param))
    return OperatorArguments(len(names), names, types)
