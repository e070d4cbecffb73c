"""``mx.np``: MXNet's NumPy-compatible interface, a second frontend over the same operators.

Lesson: 03-two-frontends-one-engine.  Mirrors ``python/mxnet/numpy/``.

The design (JAX's ``jax.numpy`` over ``lax``, not MXNet's second operator tree):

- ``np.ndarray`` (``multiarray.py``) is a subclass of ``nd.NDArray``: the same chunk and
  engine var, the same tape entry, the same contexts.  The dispatcher gives every result
  the class of its first input, so an operation on np arrays returns np arrays and the
  engine, the tape, hybridize and the views never learn which frontend called them.
  ``NDArray.as_np_ndarray()`` and ``np.ndarray.as_nd_ndarray()`` share the buffer.
- Every ``np`` function is a thin wrapper in one adapter layer (``adapter.py`` and the
  tables of ``ufuncs.py``, ``reductions.py``, ...) that calls a *registered operator*
  through ``nd``'s dispatcher with NumPy's names, keywords and semantics translated once:
  zero-dimensional results (a full reduction, a vector ``dot``, ``x[i, j]``), ``bool``
  comparisons, ``size=`` for ``shape=``, float32 by default, NumPy's reshape.  Where no
  operator existed one was declared in ``minimx/op/numpy_*.py`` (``_np_cumsum``,
  ``_npi_solve``, ``_npi_einsum``, ``_npi_svd``), with its gradient and test hints like
  every other.
- Value-dependent shapes (``nonzero``, ``unique``, boolean-mask indexing) wait for their
  input: a sync point (``value_shapes.py``).  The functions MXNet 1.9.1 hands to host NumPy
  are handed there too (``fallback.py``), and are sync points as well.
- Names deliberately left out raise an error that names them and says why
  (``_LEFT_OUT``).
"""
import numpy as onp

from . import fallback, fallback_linalg, linalg, methods, random  # noqa: F401
from .fallback import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .creation import __all__ as _creation
from .manipulation import *  # noqa: F401,F403
from .manipulation import __all__ as _manipulation
from .multiarray import ndarray
from .products import *  # noqa: F401,F403
from .products import __all__ as _products
from .reductions import *  # noqa: F401,F403
from .reductions import __all__ as _reductions
from .series import *  # noqa: F401,F403
from .series import __all__ as _series
from .shaping import *  # noqa: F401,F403
from .shaping import __all__ as _shaping
from .ufuncs import *  # noqa: F401,F403
from .ufuncs import __all__ as _ufuncs
from .host import host_function
from .value_shapes import (argwhere, flatnonzero, may_share_memory, nonzero, shares_memory,
                           unique)
from .adapter import AxisError

# NumPy's constants and dtypes, as MXNet's ``np`` re-exports them
pi, e, inf, nan, newaxis, euler_gamma = onp.pi, onp.e, onp.inf, onp.nan, None, onp.euler_gamma
PZERO, NZERO = 0.0, -0.0
DTYPES = ("float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64",
          "bool_")
float16, float32, float64 = onp.float16, onp.float32, onp.float64
int8, uint8, int16, int32, int64, bool_ = (onp.int8, onp.uint8, onp.int16, onp.int32,
                                           onp.int64, onp.bool_)
bool = onp.bool_  # noqa: A001 (MXNet's np.bool)
dtype, finfo, iinfo = onp.dtype, onp.finfo, onp.iinfo
set_printoptions, get_printoptions = onp.set_printoptions, onp.get_printoptions
integer, floating, number = onp.integer, onp.floating, onp.number



def shape(a):
    """The shape of ``a`` (an array, or anything NumPy makes an array of)."""
    return a.shape if isinstance(a, ndarray) else onp.shape(a)


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # noqa: A002
    """Counts of ``a`` in ``bins`` (int64) and the bin edges: the ``_histogram`` operator."""
    if weights is not None or density or normed:
        raise NotImplementedError("histogram: weights, density and normed are not supported")
    from .adapter import call_np, operand
    a = operand(a)
    if isinstance(bins, ndarray):
        return tuple(call_np("_histogram", a, bins))
    low, high = range if range is not None else (float(a.min()), float(a.max()))
    return tuple(call_np("_histogram", a, bin_cnt=bins, range=(low, high)))


# read a text file on the host into an array (MXNet 1.9.1 reads it with NumPy too)
genfromtxt = host_function("genfromtxt")


def copy(a):
    """A copy of ``a`` (a new buffer; MXNet's ``_npi_copy``)."""
    from .adapter import operand
    return operand(a).copy()


def real(val):
    """The real part: ``val`` itself, MXNet's arrays being real."""
    from .adapter import operand
    return operand(val)


# NumPy 1 names MXNet 1.9.1 serves (by its operators or its host fallback) that NumPy 2
# dropped or renamed: kept here under both names, computed by what they alias
def product(a, axis=None, dtype=None, out=None, keepdims=False):
    return prod(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)  # noqa: F405


def sometrue(a, axis=None, out=None, keepdims=False):
    return any(a, axis, out, keepdims)


def alltrue(a, axis=None, out=None, keepdims=False):
    return all(a, axis, out, keepdims)


def row_stack(tup):
    return vstack(tup)  # noqa: F405


def msort(a):
    """``a`` sorted along its first axis."""
    return sort(a, axis=0)  # noqa: F405


def in1d(ar1, ar2, assume_unique=False, invert=False):
    """Whether each element of the flattened ``ar1`` is in ``ar2`` (bool, 1-D)."""
    return isin(ar1, ar2, assume_unique=assume_unique, invert=invert).reshape(-1)  # noqa: F405


trapz = host_function("trapezoid" if hasattr(onp, "trapezoid") else "trapz")


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001 (NumPy's name)
    from .adapter import operand
    return ndarray.any(operand(a), axis, out, keepdims)


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001 (NumPy's name)
    from .adapter import operand
    return ndarray.all(operand(a), axis, out, keepdims)

__all__ = ["ndarray", "any", "all", "genfromtxt", "copy", "real", "product", "sometrue",
           "alltrue", "row_stack", "msort", "in1d", "trapz", "shape", "histogram", "random", "linalg", "nonzero", "flatnonzero",
           "argwhere", "unique",
           "shares_memory", "may_share_memory",
           "shares_memory", "may_share_memory",
           "pi", "e", "inf", "nan", "newaxis", "euler_gamma", "PZERO", "NZERO", "dtype",
           "finfo", "iinfo", "AxisError", "set_printoptions", "get_printoptions", *DTYPES, "bool",
           *_creation, *_manipulation, *_products, *_reductions, *_series, *_shaping,
           *_ufuncs,
           *fallback.__all__]

# names left out on purpose, and why
_LEFT_OUT = {
    "fft": "minimx has no FFT operator (MXNet 1.9.1's np has none either)",
    "ma": "masked arrays are not part of MXNet's np",
    "median": "MXNet 1.9.1's np has no median; np.quantile(a, 0.5) or np.percentile(a, 50) "
              "computes it",
    "complex64": "MXNet has no complex dtypes",
    "complex128": "MXNet has no complex dtypes",
}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    why = _LEFT_OUT.get(name, "it is not implemented in minimx yet")
    raise AttributeError(f"mx.np.{name} is not available: {why}")
