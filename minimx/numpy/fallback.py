"""Functions MXNet 1.9.1 hands to official NumPy on the host, and minimx does too.

Lesson: 05-lazy-evaluation.  Mirrors ``python/mxnet/numpy/fallback.py``: for these names
MXNet has no operator; it waits for the inputs, calls NumPy on the host copies and makes
arrays of the results on the first input's device (``host.py``).  Each call is a sync point
and records no gradient.  The list is MXNet's, less the names today's NumPy no longer has.
"""
import numpy as onp

from .host import host_function

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
)

__all__ = [name for name in FALLBACK if hasattr(onp, name)]
globals().update({name: host_function(name) for name in __all__})
