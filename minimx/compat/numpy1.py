"""numpy 1's one-element conversions, for MXNet 1.x code running on numpy 2.

Lesson: 01-overview.  MXNet 1.9.1 needs numpy < 2, so the code written for it (courses,
*Dive into Deep Learning*'s MXNet editions) relied on numpy 1 letting ``float()``, ``int()``
and ``complex()`` -- and so ``'%f' %``, ``'%d' %``, ``math.exp()`` -- take any array of
exactly one element.  MXNet's full reductions return shape ``(1,)``, so such code formats
``loss.mean().asnumpy()`` as a number.  numpy 2 refuses that ("only 0-dimensional arrays
can be converted to Python scalars"); numpy 1.25 and 1.26 warned first, 1.23.5 (the numpy
MXNet 1.9.1 is tested with) said nothing.

``Numpy1Array`` brings back exactly numpy 1.23.5's rule and no more: its ``float``/``int``/
``complex`` convert the only element (``.item()``) of an array of size 1, silently, and
refuse other sizes with numpy 1's words.  Everything numpy 1 refused stays refused: an index
(``operator.index``, ``range(a)``), ``round(a)``, a format spec (``'{:.3f}'.format(a)``).
``minimx.compat`` makes ``NDArray.asnumpy()`` return its copies as this type on numpy 2 only
(``install_as_mxnet()``, ``python -m minimx.compat``, ``%load_ext minimx.compat``); plain
``import minimx`` never does.

It is only the arrays ``asnumpy()`` hands to the user's code, not ``np.asarray(x)`` of an
NDArray (numpy makes that a plain array anyway).  Arithmetic on one keeps the type (so
``'%f' % (a / n)`` works as on numpy 1); a reduction to a single value gives a numpy scalar,
as for a plain array; ``repr`` and ``pickle`` show and store a plain ``array``.
"""
import warnings

import numpy as np

__all__ = ["Numpy1Array", "numpy_refuses_one_element_arrays"]


class Numpy1Array(np.ndarray):
    """A numpy array that converts to a Python number when it holds one element (numpy 1)."""

    def __float__(self):
        return float(self._only_element("size-1"))

    def __int__(self):
        return int(self._only_element("size-1"))

    def __complex__(self):
        return complex(self._only_element("length-1"))

    def _only_element(self, words):
        if self.size != 1:
            raise TypeError(f"only {words} arrays can be converted to Python scalars")
        return self.item()

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A result of one value is a numpy scalar, as for a plain array."""
        if return_scalar:
            return array[()]
        return super().__array_wrap__(array, context, return_scalar)

    def __repr__(self):
        return repr(self.view(np.ndarray))

    def __reduce__(self):
        return self.view(np.ndarray).__reduce__()


def numpy_refuses_one_element_arrays():
    """Whether the installed numpy refuses ``float()`` of an array of shape ``(1,)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # numpy 1.25, 1.26
        try:
            float(np.zeros(1))
        except TypeError:
            return True
    return False
