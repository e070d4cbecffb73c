"""The NumPy 1 names that MXNet 1.9.1's test files call on *host* NumPy.

MXNet's tests were written against NumPy 1.x.  A few of them compute their expected values
with names NumPy 2 removed: ``np.round_`` (an alias of ``np.round``), the
``interpolation=`` keyword of ``percentile``/``quantile`` (now ``method=``), ``nonzero``
of a 0-d array (NumPy 1 treated it as 1-d) and ``unique``'s flat inverse for ``axis=None``
(NumPy 2 gives it the input's shape).  Run under NumPy 2, such a test fails before it
looks at minimx's answer.  With ``--numpy1-names`` (tools/run_mxnet_tests.py),
``mxsuite_plugin`` calls ``apply()``, which puts those three back with NumPy 1's meaning, so the test checks minimx again; the
runner reports figures with and without it.  It adds names and keywords only: every call
NumPy 2 accepts behaves as before.
"""
import functools

import numpy


def _accepting_interpolation(function):
    @functools.wraps(function)
    def wrapped(*args, interpolation=None, **kwargs):
        if interpolation is not None:
            kwargs.setdefault("method", interpolation)
        return function(*args, **kwargs)
    return wrapped


def _nonzero_of_0d_as_1d(function):
    @functools.wraps(function)
    def wrapped(a):
        return function(numpy.atleast_1d(a) if numpy.ndim(a) == 0 else a)
    return wrapped


def _flat_inverse(function):
    @functools.wraps(function)
    def wrapped(ar, return_index=False, return_inverse=False, return_counts=False,
                axis=None, **kwargs):
        found = function(ar, return_index, return_inverse, return_counts, axis, **kwargs)
        if return_inverse and axis is None:
            position = 1 + bool(return_index)
            found = found[:position] + (found[position].reshape(-1),) + found[position + 1:]
        return found
    return wrapped


def apply():
    if int(numpy.__version__.split(".")[0]) < 2:
        return
    if not hasattr(numpy, "round_"):
        numpy.round_ = numpy.round
    numpy.percentile = _accepting_interpolation(numpy.percentile)
    numpy.quantile = _accepting_interpolation(numpy.quantile)
    numpy.nonzero = _nonzero_of_0d_as_1d(numpy.nonzero)
    numpy.unique = _flat_inverse(numpy.unique)
