"""NumPy's element-wise functions (``np.exp``, ``np.add``, ``np.equal``, ...), from one table.

Lesson: 03-two-frontends-one-engine.  Each entry names the registered operator that computes a
NumPy function; the functions are generated from the tables, not written one by one.
Binary functions use ``nd``'s operand rule (two arrays: the broadcasting operator; an array
and a number: the scalar operator, which keeps the array's dtype, as MXNet 1.9.1's ``np``
does).  Comparisons and logical functions give ``bool`` arrays (NumPy's rule; ``nd`` gives
1.0/0.0 in the input's dtype): the operator's result is cast.  Numbers alone (Python's or
NumPy's scalars, no array among the operands) go to NumPy itself, as in MXNet 1.9.1's ``np``:
``np.sqrt(0.4)`` is NumPy's float64 0.6324555320336759, not a float32 array (``numpy_answer``).
"""
import numbers

import numpy as onp

from ..base import InvalidTypeError
from ..ndarray import arithmetic
from .adapter import as_operand_like, call_np, operand, promote, public
from .multiarray import as_np

__all__ = []

# NumPy's name -> the registered operator (one input, same shape)
UNARY = {
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "square": "square", "abs": "abs",
    "absolute": "abs", "fabs": "abs", "negative": "negative", "reciprocal": "reciprocal",
    "sign": "sign", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint",
    "fix": "fix", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "arcsin",
    "arccos": "arccos", "arctan": "arctan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "arcsinh", "arccosh": "arccosh", "arctanh": "arctanh", "degrees": "degrees",
    "rad2deg": "degrees", "radians": "radians", "deg2rad": "radians",
    "isnan": "_npi_isnan", "isinf": "_npi_isinf", "isfinite": "_npi_isfinite",
    "isposinf": "_npi_isposinf", "isneginf": "_npi_isneginf",
    "bitwise_not": "_npi_bitwise_not", "invert": "_npi_bitwise_not",
}
# NumPy's name -> a broadcasting operator of its own (a number operand becomes an array)
BINARY_OPERATORS = {
    "arctan2": "_npi_arctan2", "copysign": "_npi_copysign", "ldexp": "_npi_ldexp",
    "hypot": "broadcast_hypot", "lcm": "_npi_lcm", "bitwise_and": "_npi_bitwise_and",
    "bitwise_or": "_npi_bitwise_or", "bitwise_xor": "_npi_bitwise_xor",
    "mod": "broadcast_mod", "remainder": "broadcast_mod",
}
PREDICATES = ("isnan", "isinf", "isfinite", "isposinf", "isneginf")
def true_divide(x1, x2, out=None):
    """NumPy's ``/``: integers and bools divide as float32 (MXNet's default float type)."""
    def as_float(value):
        exact = hasattr(value, "dtype") and not onp.issubdtype(value.dtype, onp.floating)
        return value.astype(onp.float32) if exact else value
    if not any(hasattr(v, "dtype") and onp.issubdtype(v.dtype, onp.floating) for v in (x1, x2)):
        x1, x2 = as_float(x1), as_float(x2)
    return arithmetic.divide(x1, x2, out=out)


# NumPy's name -> nd's operand-rule function (array/array, array/number, number/array)
BINARY = {
    "add": arithmetic.add, "subtract": arithmetic.subtract, "multiply": arithmetic.multiply,
    "divide": true_divide, "true_divide": true_divide,
    "fmod": arithmetic.modulo, "power": arithmetic.power,
    "maximum": arithmetic.maximum,
    "minimum": arithmetic.minimum,
}
# NumPy's name -> nd's function; the result is cast to bool
COMPARISONS = {
    "equal": arithmetic.equal, "not_equal": arithmetic.not_equal,
    "greater": arithmetic.greater, "greater_equal": arithmetic.greater_equal,
    "less": arithmetic.lesser, "less_equal": arithmetic.lesser_equal,
    "logical_and": arithmetic.logical_and, "logical_or": arithmetic.logical_or,
    "logical_xor": arithmetic.logical_xor,
}


# NumPy's ufunc keywords MXNet 1.9.1 accepts, at the one value it supports
UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                  "subok": True}
_LEGAL_DTYPES = ("int8", "uint8", "int32", "int64", "float16", "float32", "float64")


def _is_legal(key, value):
    """Whether NumPy would understand ``key=value`` (so that minimx merely lacks it)."""
    if key == "casting":
        return value in ("no", "equiv", "safe", "same_kind", "unsafe")
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        return any(value == name or value is getattr(onp, name) for name in _LEGAL_DTYPES)
    if key == "subok":
        return isinstance(value, bool)
    return key == "where"


def _refuse_extras(name, kwargs):
    """MXNet's rule for ufunc keywords: an unknown keyword or a value NumPy would not
    understand is a TypeError; a NumPy value other than the default, NotImplementedError."""
    for key, value in kwargs.items():
        if key not in UFUNC_DEFAULTS:
            raise TypeError(f"{key} is an invalid keyword to function '{name}'")
        if isinstance(value, str) or value is None or isinstance(value, (bool, type)):
            differs = value != UFUNC_DEFAULTS[key]
        else:
            differs = True
        if differs and not _is_legal(key, value):
            raise TypeError(f"{key}={value} not understood for operator {name}")
        if differs:
            raise NotImplementedError(f"{key}={value} is not implemented yet for operator "
                                      f"{name}")


# unary functions that take a bool array (the others refuse it, as MXNet's np: their
# numpy kernels would give bool garbage, exp(True) == True)
BOOL_UNARY = (*PREDICATES, "bitwise_not", "invert")
# binary functions where a bool array meets a Python number as int64 (MXNet's np:
# ``mask + 1`` is [2, 1], not [True, True]; ``1.5 * mask`` is int64 [1, 0])
BOOL_AS_INT64 = ("add", "subtract", "multiply", "power", "maximum", "minimum", "fmod", "mod",
                 "remainder")


_NUMBERS = (numbers.Number, onp.generic)


def numpy_answer(operands, out):
    """True when NumPy itself computes the function: every operand is a number
    and no ``out`` array is given (MXNet 1.9.1's ``np`` hands such calls to NumPy, so the
    result is NumPy's scalar, float64 for Python floats, and NumPy's errors)."""
    return out is None and all(isinstance(x, _NUMBERS) for x in operands)


def refuse_bool(name, x):
    """MXNet's np refuses a bool array in arithmetic that has no meaning for it."""
    if getattr(x, "dtype", None) == onp.bool_:
        raise InvalidTypeError(f"np.{name}: a bool array is not supported (as in MXNet's "
                               f"np); cast it first, e.g. x.astype('float32')")


def _unary(name, op_name):
    def function(x, out=None, **kwargs):
        _refuse_extras(name, kwargs)
        if out is not None and name in PREDICATES and out.dtype != onp.bool_:
            raise TypeError(f"np.{name}: out must be a bool array, got {out.dtype}")
        if numpy_answer((x,), out):
            return getattr(onp, name)(x)
        x = operand(x)
        if name not in BOOL_UNARY:
            refuse_bool(name, x)
        return call_np(op_name, x, out=out)
    return public(function, name, f"``np.{name}(x)``: the ``{op_name}`` operator.")


def _bool_as_int64(x1, x2):
    """A bool array beside a Python number, as int64 (``BOOL_AS_INT64``)."""
    if isinstance(x2, _NUMBERS) and getattr(x1, "dtype", None) == onp.bool_:
        return x1.astype(onp.int64), x2
    if isinstance(x1, _NUMBERS) and getattr(x2, "dtype", None) == onp.bool_:
        return x1, x2.astype(onp.int64)
    return x1, x2


def _binary(name, nd_function, to_bool=False):
    def function(x1, x2, out=None, **kwargs):
        _refuse_extras(name, kwargs)
        if numpy_answer((x1, x2), out):
            return getattr(onp, name)(x1, x2)
        x1, x2 = promote(*_operands(x1, x2))
        if name in BOOL_AS_INT64:
            x1, x2 = _bool_as_int64(x1, x2)
        result = nd_function(x1, x2) if to_bool else nd_function(x1, x2, out=out)
        result = as_np(result)
        return result.astype(onp.bool_) if to_bool else result
    kind = "as bool" if to_bool else "with broadcasting"
    return public(function, name, f"``np.{name}(x1, x2)`` {kind}.")


def _binary_operator(name, op_name):
    def function(x1, x2, out=None, **kwargs):
        _refuse_extras(name, kwargs)
        if numpy_answer((x1, x2), out):
            return getattr(onp, name)(x1, x2)
        x1, x2 = _operands(x1, x2)
        if name in BOOL_AS_INT64:
            x1, x2 = _bool_as_int64(x1, x2)
        x1, x2 = promote(as_operand_like(x1, x2), as_operand_like(x2, x1))
        return call_np(op_name, x1, x2, out=out)
    return public(function, name, f"``np.{name}(x1, x2)``: the ``{op_name}`` operator.")


def _operands(x1, x2):
    """Host arrays and lists become arrays; Python numbers stay (the scalar operators)."""
    return _operand_of(x1), _operand_of(x2)


def _operand_of(value):
    return operand(value) if isinstance(value, (onp.ndarray, list, tuple)) else value


def logical_not(x, out=None, **kwargs):
    """``not x`` element-wise, as bool."""
    _refuse_extras("logical_not", kwargs)
    if numpy_answer((x,), out):
        return onp.logical_not(x)
    return call_np("logical_not", operand(x)).astype(onp.bool_)


def _install(namespace):
    for name, op_name in UNARY.items():
        namespace[name] = _unary(name, op_name)
    for name, nd_function in BINARY.items():
        namespace[name] = _binary(name, nd_function)
    for name, nd_function in COMPARISONS.items():
        namespace[name] = _binary(name, nd_function, to_bool=True)
    for name, op_name in BINARY_OPERATORS.items():
        namespace[name] = _binary_operator(name, op_name)
    __all__.extend([*UNARY, *BINARY, *COMPARISONS, *BINARY_OPERATORS, "logical_not",
                    "around", "round", "round_"])


def around(a, decimals=0, out=None):
    """Round to ``decimals`` decimals, halves to even: the ``_npi_around`` operator."""
    if numpy_answer((a,), out):
        return onp.around(a, decimals)
    return call_np("_npi_around", operand(a), decimals=decimals, out=out)


round = round_ = around  # noqa: A001 (NumPy's names)


_install(globals())
