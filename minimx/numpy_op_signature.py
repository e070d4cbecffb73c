"""``mxnet.numpy_op_signature``: from an operator's registered name to its ``np`` function.

Lesson: 02-ndarray-and-context.  MXNet names the operators behind ``mx.np`` ``_np_<name>``
(``_np_random_<name>`` for ``np.random``) and behind ``mx.npx`` ``_npx_<name>``;
``_get_builtin_op`` finds the Python function for such a name (None for other names).
"""
from . import numpy as _np
from . import numpy_extension as _npx

__all__ = []

_SUBMODULES = ("random", "linalg")


def _get_builtin_op(op_name):
    for prefix, root in (("_np_", _np), ("_npx_", _npx)):
        if op_name.startswith(prefix):
            name, module = op_name[len(prefix):], root
            for submodule in _SUBMODULES:
                if root is _np and name.startswith(submodule + "_"):
                    name, module = name[len(submodule) + 1:], getattr(root, submodule)
            function = getattr(module, name, None)
            if function is None:
                raise ValueError(f"Cannot find operator {name} in module {module.__name__}")
            return function
    return None
