"""Initializers that write known values: Zero, One, Constant, Bilinear, LSTMBias.

Lesson: 09-gluon.  Mirrors the deterministic classes of
``python/mxnet/initializer.py``.  Bilinear fills a Deconvolution kernel so the
layer starts as bilinear upsampling; LSTMBias opens the forget gate.
"""
import numbers

import numpy as np

from .base import Initializer, alias, register

__all__ = ["Zero", "One", "Constant", "Bilinear", "LSTMBias", "bilinear_kernel"]


@register
@alias("zeros")
class Zero(Initializer):
    """Fill weights with 0 (names: ``'zero'``, ``'zeros'``)."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias("ones")
class One(Initializer):
    """Fill weights with 1 (names: ``'one'``, ``'ones'``)."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    """Fill weights with ``value``: a number, or an array of the weight's shape.

    Examples
    --------
    >>> w = nd.zeros((2,))
    >>> mx.init.Constant(0.5)(mx.init.InitDesc('w_weight'), w)
    >>> w.asnumpy()
    array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        value = self.value
        if hasattr(value, "as_in_context"):
            value = value.as_in_context(arr.context)
        elif not isinstance(value, numbers.Number):
            value = np.asarray(value)
        arr[:] = value

    def dumps(self):
        """``'["constant", {"value": ...}]'``; an array value is written as nested lists, and
        (as MXNet's) kept so in the keyword arguments from then on, which JSON then takes."""
        value = self._kwargs["value"]
        if not isinstance(value, numbers.Number):
            value = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
            self._kwargs["value"] = value.tolist()
        return super().dumps()


def bilinear_kernel(shape):
    """The bilinear upsampling kernel of a 4-D weight ``shape``, as float32 numpy.

    Each (height, width) slice is the outer product of a triangle over rows
    and one over columns, both sized from the width, as MXNet computes it.
    """
    height, width = shape[2], shape[3]
    factor = np.ceil(width / 2.0)
    centre = (2 * factor - 1 - factor % 2) / (2.0 * factor)
    rows = 1 - np.abs(np.arange(height) / factor - centre)
    columns = 1 - np.abs(np.arange(width) / factor - centre)
    kernel = np.outer(rows, columns).astype(np.float32)
    return np.broadcast_to(kernel, tuple(shape)).copy()


@register
class Bilinear(Initializer):
    """Fill a 4-D Deconvolution weight so the layer performs bilinear upsampling."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = bilinear_kernel(arr.shape)


@register
class LSTMBias(Initializer):
    """Zero an LSTM bias except the forget gate's quarter, set to ``forget_bias``.

    The four gates are stacked in the order input, forget, cell, output, so the
    forget gate's entries are the second quarter.  Jozefowicz et al. (2015)
    recommend ``forget_bias=1.0``.
    """

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        num_hidden = arr.shape[0] // 4
        values = np.zeros(arr.shape, dtype=np.float32)
        values[num_hidden:2 * num_hidden] = self.forget_bias
        arr[:] = values
