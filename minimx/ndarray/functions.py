"""``nd`` functions MXNet writes in Python over its operators.

Lesson: 02-ndarray-and-context.  Mirrors the helpers of ``python/mxnet/ndarray/ndarray.py``
of the same names: ``moveaxis``, ``linspace``, ``split_v2``, ``histogram``, ``onehot_encode``,
and ``from_numpy``.  (``nd.CachedOp``, a Symbol run as one operation, is Gluon's
``CachedOp``; ``gluon/cached_op.py`` puts it here.)
"""
import numpy as np

from ..base import normalize_dtype
from ..op.registry import get_op
from .ndarray import Chunk, NDArray
from .register import call

__all__ = ["moveaxis", "linspace", "split_v2", "histogram", "cumsum", "onehot_encode",
           "from_numpy"]


def moveaxis(tensor, source, destination):
    """``tensor`` with axes ``source`` moved to ``destination`` (ints or lists of them)."""
    ndim = tensor.ndim
    sources = [source] if isinstance(source, int) else list(source)
    targets = [destination] if isinstance(destination, int) else list(destination)
    if len(sources) != len(targets):
        raise ValueError(f"moveaxis: source {source} and destination {destination} differ in "
                         f"length")
    for axis in sources + targets:
        if not -ndim <= axis < ndim:
            raise ValueError(f"moveaxis: axis {axis} is out of range for an array of "
                             f"{ndim} dimensions")
    sources = [s % ndim for s in sources]
    targets = [d % ndim for d in targets]
    if len(set(sources)) != len(sources) or len(set(targets)) != len(targets):
        raise ValueError(f"moveaxis: source {source} and destination {destination} must "
                         f"not repeat an axis")
    order = [axis for axis in range(ndim) if axis not in sources]
    for target, axis in sorted(zip(targets, sources)):
        order.insert(target, axis)
    return tensor.transpose(order)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    return call("_linspace", start=start, stop=stop, num=num, endpoint=endpoint, ctx=ctx,
                dtype=normalize_dtype(dtype).name)


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """A list of parts of ``ary`` along ``axis``: ``indices_or_sections`` equal parts, or
    the parts between the given positions (as numpy's split)."""
    params = get_op("_split_v2").params_for(indices_or_sections)
    parts = call("_split_v2", ary, axis=axis, squeeze_axis=squeeze_axis, **params)
    return parts if isinstance(parts, list) else [parts]


def histogram(a, bins=10, range=None):
    """``(counts, edges)`` of ``a``'s values, as ``numpy.histogram``: ``bins`` equal bins
    over ``range``, or the bins between the edges of an array ``bins``.  A count of bins
    without ``range`` spans the values' minimum to maximum, as MXNet does (with its
    warning, and as it, counts in float32 then: it makes an array of NumPy's counts): a sync
    point, the values must be known."""
    if range is None and not isinstance(bins, NDArray):
        import warnings
        warnings.warn("range is not specified, using numpy's result to ensure consistency "
                      "with numpy", stacklevel=2)
        params, extra = get_op("_histogram").params_for(
            bins, (float(a.min().asscalar()), float(a.max().asscalar())))
        counts, edges = call("_histogram", a, *extra, **params)
        return counts.astype(np.float32), edges
    params, extra = get_op("_histogram").params_for(bins, range)
    return tuple(call("_histogram", a, *extra, **params))


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along ``axis`` (of the flattened array when None), in ``dtype`` if
    given: the ``_np_cumsum`` operator, as MXNet's ``nd.cumsum``."""
    if dtype is not None:
        a = a.astype(normalize_dtype(dtype).name)
    return call("_np_cumsum", a.reshape(-1) if axis is None else a,
                axis=0 if axis is None else axis, out=out)


def onehot_encode(indices, out):
    """Write the one-hot rows of ``indices`` into ``out`` (rows x classes); returns ``out``."""
    from . import op
    op.one_hot(indices, depth=out.shape[1], dtype=out.dtype, out=out)
    return out


def from_numpy(ndarray, zero_copy=True):
    """An NDArray over ``ndarray``'s buffer.  With ``zero_copy`` (a C-contiguous array of a
    dtype minimx knows) no copy is made and, as in MXNet, the numpy array becomes
    read-only: only the NDArray may change the buffer from then on."""
    from .creation import array
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy array, got {type(ndarray).__name__}")
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags.c_contiguous:
        raise ValueError("from_numpy: zero_copy needs a C-contiguous array; pass "
                         "zero_copy=False or numpy.ascontiguousarray(...) ")
    normalize_dtype(ndarray.dtype)
    if not ndarray.flags.writeable:
        try:                              # read-only since an earlier from_numpy: share again
            ndarray.flags.writeable = True
        except ValueError:                # a read-only view of someone else's memory
            return array(ndarray, dtype=ndarray.dtype)
    own = ndarray.view()                 # stays writable for the NDArray ...
    ndarray.flags.writeable = False      # ... while the caller's array becomes read-only
    from ..context import cpu
    return NDArray(Chunk(cpu(), own), own.shape, own.dtype)
