"""Functions MXNet 1.9.1 hands to official NumPy on the host, and minimx does too.

Lesson: 04-lazy-evaluation.  Mirrors ``python/mxnet/numpy/fallback.py`` and
``fallback_linalg.py``: for these names MXNet has no operator; it waits for the inputs,
calls NumPy on the host copies and makes arrays of the results on the first input's device.
Each call is a sync point and records no gradient.  The lists are MXNet's (a name NumPy
itself no longer has is left out).
"""
import numpy as onp

from ..context import current_context
from ..ndarray import NDArray
from .value_shapes import wait_for_values

__all__ = ["FALLBACK", "FALLBACK_LINALG", "host_function"]

FALLBACK = (
    "allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "array_equal",
    "array_equiv", "choose", "compress", "corrcoef", "correlate", "count_nonzero", "cov",
    "digitize", "divmod", "extract", "float_power", "frexp", "heaviside", "histogram2d",
    "histogram_bin_edges", "histogramdd", "i0", "in1d", "interp", "intersect1d", "isclose",
    "isin", "ix_", "lexsort", "min_scalar_type", "modf", "msort", "nanargmax", "nanargmin",
    "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin", "nanpercentile", "nanprod",
    "nanquantile", "ndim", "partition", "piecewise", "packbits", "poly", "polyadd", "polydiv",
    "polyfit", "polyint", "polymul", "polysub", "positive", "promote_types", "ptp",
    "result_type", "rollaxis", "roots", "searchsorted", "select", "setdiff1d", "setxor1d",
    "signbit", "size", "spacing", "take_along_axis", "trapz", "tril_indices_from",
    "trim_zeros", "triu_indices_from", "union1d", "unpackbits", "unwrap", "vander",
    "genfromtxt",
)
FALLBACK_LINALG = ("cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr")


def host_function(name, namespace=onp):
    """``np.<name>`` computed by host NumPy: inputs waited for, results back as arrays."""
    host = getattr(namespace, name)

    def function(*args, **kwargs):
        ctx = next((a.context for a in _leaves(args, kwargs) if isinstance(a, NDArray)), None)
        result = host(*_to_host(args), **_to_host(kwargs))
        return _to_device(result, ctx or current_context())

    function.__name__ = function.__qualname__ = name
    function.__module__ = "minimx.numpy"
    function.__doc__ = (f"``np.{name}``: computed by host NumPy after waiting for the inputs "
                        f"(MXNet 1.9.1 falls back to NumPy for it too).")
    return function


def _leaves(args, kwargs):
    for value in (*args, *kwargs.values()):
        yield from (value if isinstance(value, (list, tuple)) else (value,))


def _to_host(value):
    if isinstance(value, NDArray):
        return wait_for_values(value)
    if isinstance(value, dict):
        return {key: _to_host(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(item) for item in value)
    return value


def _to_device(value, ctx):
    from .creation import array
    if isinstance(value, onp.ndarray) and value.dtype != object:
        return array(value, dtype=value.dtype, ctx=ctx)
    if isinstance(value, tuple):
        return tuple(_to_device(item, ctx) for item in value)
    if isinstance(value, list):
        return [_to_device(item, ctx) for item in value]
    return value


def install(namespace, names, host_namespace=onp):
    """Put the host functions of ``names`` into ``namespace`` (those NumPy has)."""
    for name in names:
        if hasattr(host_namespace, name):
            namespace[name] = host_function(name, host_namespace)
