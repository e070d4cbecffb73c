"""The ``np.ndarray`` methods that are ``np`` functions (``x.sum()`` is ``np.sum(x)``).

Lesson: 03-two-frontends-one-engine.  ``nd.NDArray``'s methods are generated from the operator
registry with ``nd``'s semantics; these take their place on ``np.ndarray`` so that a method
and the function of the same name agree (a full ``x.sum()`` is zero-dimensional).
"""
import numpy as onp

from . import linalg, manipulation, products, reductions, ufuncs, value_shapes
from .multiarray import ndarray

__all__ = ["install", "METHODS"]

METHODS = {
    **{name: getattr(reductions, name) for name in
       ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "std", "var", "cumsum")},
    **{name: getattr(manipulation, name) for name in
       ("squeeze", "expand_dims", "swapaxes", "flip", "ravel", "repeat", "tile",
        "broadcast_to", "argsort")},
    "nonzero": value_shapes.nonzero,
    "dot": products.dot,
    "round": ufuncs.around,             # x.round(decimals): np.around, halves to even
    # MXNet's method names its bounds min and max (np.clip: a_min, a_max)
    "clip": lambda a, min=None, max=None, out=None: manipulation.clip(a, min, max, out=out),
}


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return manipulation.transpose(self, axes or None)


def _flatten(self, order="C"):
    """A flat copy, as NumPy's and MXNet's ``flatten`` (``ravel`` and ``reshape(-1)`` may
    share the buffer; a write into a flattened array must not reach the original)."""
    return self.reshape(-1, order=order).copy()


def _truth(count_of, holds):
    """``any``/``all``: whether ``holds`` of the count of elements where ``count_of`` (a
    sum, so an empty array gives NumPy's False for ``any`` and True for ``all``)."""
    def method(self, axis=None, out=None, keepdims=False):
        counted = reductions.sum(count_of(self).astype(onp.float32), axis=axis,
                                 keepdims=keepdims)
        result = holds(counted)
        if out is not None:
            out[...] = result
            return out
        return result
    return method


def install():
    # a Python function is a method already (``x.sum(axis=1)`` calls ``sum(x, axis=1)``):
    # no wrapper between the call and the np function
    for name, function in METHODS.items():
        setattr(ndarray, name, function)
    ndarray.transpose = _transpose
    ndarray.flatten = _flatten
    ndarray.any = _truth(lambda x: x != 0, lambda count: count > 0)
    ndarray.all = _truth(lambda x: x == 0, lambda count: count == 0)
    ndarray.norm = linalg.norm


install()
