"""``nd.contrib``: the operators MXNet keeps apart as contributions (``_contrib_<name>``).

Lesson: 10-data (the detection operators).  Mirrors ``python/mxnet/ndarray/contrib.py``.
Every ``_contrib_<name>`` operator of the registry is generated here as ``<name>``
(``MultiBoxPrior``, ``box_nms``, ``ROIAlign`` ...); the functions below are written by hand,
as MXNet writes them in Python.
"""
import math

from .ndarray import NDArray

__all__ = ["isinf", "isfinite", "isnan"]


def _check(data, name):
    if not isinstance(data, NDArray):
        raise TypeError(f"contrib.{name}: expected an NDArray, got {type(data).__name__}")


def isinf(data):
    """1 where ``data`` is +inf or -inf, else 0 (same dtype as ``data``)."""
    _check(data, "isinf")
    return data.abs() == math.inf


def isfinite(data):
    """1 where ``data`` is neither infinite nor NaN, else 0."""
    _check(data, "isfinite")
    is_data_not_nan = data == data
    is_data_not_infinite = data.abs() != math.inf
    return is_data_not_infinite * is_data_not_nan


def isnan(data):
    """1 where ``data`` is NaN, else 0."""
    _check(data, "isnan")
    return data != data
