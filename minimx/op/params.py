"""Operator parameters: declaration, parsing (also from strings) and formatting.

Lesson: 07-symbolic-programming.  Symbol JSON stores every attribute as a string, so each
parser accepts the Python value *and* its string form ("(3, 3)", "True",
"None").  Nothing is evaluated: strings are parsed by hand.
"""
import re

import numpy as np

from ..base import InvalidParameterError, normalize_dtype

__all__ = ["Param", "AtLeast", "REQUIRED", "Shape", "Axis", "DType", "FloatTuple", "Float32",
           "Float32Tuple", "Choice", "Optional"]

REQUIRED = object()
_NONE_STRINGS = {"None", "none", ""}


class Param:
    """One declared parameter: its parser, default and documentation.

    ``kind`` is ``int``, ``float``, ``bool``, ``str`` or a parser from this
    module (``Shape``, ``Axis``, ``DType``, ``FloatTuple``, ``Choice(...)``,
    ``Optional(...)``).
    """

    def __init__(self, kind, default=REQUIRED, doc=""):
        self.parse_value = _PARSERS.get(kind, kind)
        fallback = getattr(kind, "__name__", str(kind))
        self.type_name = getattr(self.parse_value, "type_name", fallback)
        self.default = default
        self.doc = doc

    @property
    def required(self):
        return self.default is REQUIRED

    def parse(self, value, op_name, param_name):
        try:
            return self.parse_value(value)
        except (TypeError, ValueError) as error:
            raise InvalidParameterError(
                f"operator {op_name}: parameter '{param_name}' expects {self.type_name}, "
                f"got {value!r} ({error})") from None


def _parse_int(value):
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, (bool, np.bool_)) or float(value) != int(value):
        raise ValueError("not an integer")
    return int(value)


def _parse_float(value):
    return float(value.strip()) if isinstance(value, str) else float(value)


def _parse_bool(value):
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        raise ValueError("expected True or False")
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return bool(value)
    raise ValueError("expected a bool")


def _parse_str(value):
    if not isinstance(value, str):
        raise ValueError("expected a string")
    return value


def _int_items(text):
    text = text.strip()
    if not re.fullmatch(r"[\(\[]?\s*(-?\d+\s*(,\s*-?\d+\s*)*,?)?\s*[\)\]]?", text):
        raise ValueError("expected integers such as (2, 3)")
    return tuple(int(item) for item in re.findall(r"-?\d+", text))


def Shape(value):
    """A tuple of ints: ``(2, 3)``, ``[2, 3]``, ``3`` or the string ``"(2, 3)"``."""
    if isinstance(value, str):
        return _int_items(value)
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    return tuple(_parse_int(item) for item in value)


Shape.type_name = "a shape (tuple of ints)"


def dims_text(text):
    """``"3x3"`` from a shape parameter stored as text, ``"(3, 3)"`` (for captions)."""
    return "x".join(re.findall(r"\d+", str(text)))


def Axis(value):
    """None, an int, or a tuple of ints (``()`` means every axis, as None)."""
    if value is None or (isinstance(value, str) and value.strip() in _NONE_STRINGS):
        return None
    if isinstance(value, str):
        items = _int_items(value)
        return items[0] if len(items) == 1 and "(" not in value and "[" not in value else items
    if isinstance(value, (int, np.integer)):
        return int(value)
    return tuple(_parse_int(item) for item in value)


Axis.type_name = "an axis (None, int or tuple of ints)"


def DType(value):
    """A dtype name such as ``'float32'``; None stays None."""
    if value is None or (isinstance(value, str) and value.strip() in _NONE_STRINGS):
        return None
    return normalize_dtype(value).name


DType.type_name = "a dtype name"


def FloatTuple(value):
    """A tuple of floats, e.g. ``(0.5, 1.0)``."""
    if isinstance(value, str):
        items = re.findall(r"-?\d+\.?\d*(?:[eE][-+]?\d+)?|-?inf|nan", value)
        return tuple(float(item) for item in items)
    if isinstance(value, (int, float, np.number)):
        return (float(value),)
    return tuple(float(item) for item in value)


FloatTuple.type_name = "a tuple of floats"


def Float32(value):
    """A float kept to 32 bits, as MXNet's C++ ``float`` fields keep it: ``lr=0.1`` is
    0.100000001490116..., the value an update of float64 weights then uses."""
    return float(np.float32(_parse_float(value)))


Float32.type_name = "a float"


def Float32Tuple(value):
    """A tuple of floats each kept to 32 bits, as MXNet's ``Tuple<float>`` fields keep them
    (the learning rates ``lrs`` of ``multi_sgd_update``)."""
    return tuple(Float32(item) for item in FloatTuple(value))


Float32Tuple.type_name = "a tuple of floats"


def AtLeast(bound):
    """A float no smaller than ``bound`` (MXNet's lower bound on a parameter)."""
    def parse(value):
        number = _parse_float(value)
        if number < bound:
            raise ValueError(f"should be greater equal to {bound}")
        return number
    parse.type_name = f"a float >= {bound}"
    return parse


def Choice(*choices):
    """A string from a fixed set, e.g. ``Choice('max', 'avg', 'sum')``."""

    def parse(value):
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}")
        return value

    parse.type_name = "one of " + ", ".join(map(repr, choices))
    parse.choices = choices
    return parse


def Optional(kind):
    """``kind`` or None (the strings ``'None'`` and ``''`` mean None)."""
    inner = _PARSERS.get(kind, kind)

    def parse(value):
        if value is None or (isinstance(value, str) and value.strip() in _NONE_STRINGS):
            return None
        return inner(value)

    parse.type_name = "None or " + getattr(inner, "type_name", getattr(kind, "__name__", "?"))
    return parse


_PARSERS = {int: _parse_int, float: _parse_float, bool: _parse_bool, str: _parse_str}
for _kind, _name in ((int, "an int"), (float, "a float"), (bool, "a bool"), (str, "a string")):
    _PARSERS[_kind].type_name = _name
