"""Functions whose result's *shape* depends on the input's *values*: sync points.

Lesson: 03-two-frontends-one-engine, 05-lazy-evaluation.  Everywhere else minimx knows a
result's shape when the call is made, from the input shapes alone, and returns at
once.  ``nonzero``, ``unique``, ``argwhere`` and boolean-mask indexing cannot: how many
elements are true, or distinct, is known only after the input is computed.  So these
functions wait for their input (as ``asnumpy`` does), compute on the host, and hand the
result back as a new array, as MXNet 1.9.1 does.  They record no gradient (their results are
indices and distinct values).
"""
import numpy as onp

from ..engine.events import VALUE_DEPENDENT, sync_reason
from ..ndarray import NDArray
from .adapter import operand

__all__ = ["wait_for_values", "nonzero", "flatnonzero", "argwhere", "unique", "shares_memory",
           "may_share_memory"]


def wait_for_values(array, reason=VALUE_DEPENDENT):
    """The host value of ``array``, waiting for it: the sync point of a value-dependent shape
    (the engine's sync observers -- the queue view -- see ``reason``)."""
    if not isinstance(array, NDArray):
        return onp.asarray(array)
    with sync_reason(reason):
        return array.asnumpy()


def _to_array(value, like):
    from .creation import array
    return array(value, dtype=value.dtype, ctx=like.context)


def nonzero(a):
    """The indices of the non-zero elements, one int64 array per axis (waits for ``a``)."""
    a = operand(a)
    return tuple(_to_array(index, a) for index in onp.nonzero(wait_for_values(a)))


def flatnonzero(a):
    a = operand(a)
    return _to_array(onp.flatnonzero(wait_for_values(a)), a)


def argwhere(a):
    a = operand(a)
    return _to_array(onp.argwhere(wait_for_values(a)), a)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted distinct values (and, if asked, indices, inverse and counts); waits for
    ``ar``."""
    ar = operand(ar)
    found = onp.unique(wait_for_values(ar), return_index, return_inverse, return_counts, axis)
    if not isinstance(found, tuple):
        return _to_array(found, ar)
    if return_inverse and axis is None:     # flat, as numpy 1 and MXNet (numpy 2.0: ar's shape)
        position = 1 + bool(return_index)
        found = found[:position] + (found[position].reshape(-1),) + found[position + 1:]
    return tuple(_to_array(part, ar) for part in found)


def shares_memory(a, b, max_work=None):
    """Whether arrays ``a`` and ``b`` overlap in one buffer (waits for both: a buffer exists
    once the operation writing it has run)."""
    if not (isinstance(a, NDArray) and isinstance(b, NDArray)) or a._chunk is not b._chunk:
        return False
    a.wait_to_read()
    b.wait_to_read()
    return bool(onp.shares_memory(a._read(), b._read()))


may_share_memory = shares_memory
