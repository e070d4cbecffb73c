"""The NumPy 1 names that MXNet 1.9.1's test files call on *host* NumPy.

MXNet's tests were written against NumPy 1.x.  A few of them compute their expected values
with names NumPy 2 removed: ``np.round_`` (an alias of ``np.round``), the
``interpolation=`` keyword of ``percentile``/``quantile`` (now ``method=``) and ``nonzero``
of a 0-d array (NumPy 1 treated it as 1-d).  Run under NumPy 2, such a test fails before it
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


def apply():
    if int(numpy.__version__.split(".")[0]) < 2:
        return
    if not hasattr(numpy, "round_"):
        numpy.round_ = numpy.round
    numpy.percentile = _accepting_interpolation(numpy.percentile)
    numpy.quantile = _accepting_interpolation(numpy.quantile)
    numpy.nonzero = _nonzero_of_0d_as_1d(numpy.nonzero)
