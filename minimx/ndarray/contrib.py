"""``nd.contrib``: the operators MXNet keeps apart as contributions (``_contrib_<name>``).

Lesson: 11-data (the detection operators).  Mirrors ``python/mxnet/ndarray/contrib.py``.
Every ``_contrib_<name>`` operator of the registry is generated here as ``<name>``
(``MultiBoxPrior``, ``box_nms``, ``ROIAlign`` ...); the functions below are written by hand,
as MXNet writes them in Python.
"""
import math

import numpy as np

from .contrib_control_flow import cond, foreach, while_loop
from .ndarray import NDArray

__all__ = ["isinf", "isfinite", "isnan", "rand_zipfian", "getnnz", "adamw_update",
           "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update", "foreach",
           "while_loop", "cond"]


def _check(data, name):
    if not isinstance(data, NDArray):
        raise TypeError(f"contrib.{name}: expected an NDArray, got {type(data).__name__}")


def isinf(data):
    """1 where ``data`` is +inf or -inf, else 0 (same dtype as ``data``)."""
    _check(data, "isinf")
    return data.abs() == math.inf


def isfinite(data):
    """1 where ``data`` is neither infinite nor NaN, else 0."""
    _check(data, "isfinite")
    is_data_not_nan = data == data
    is_data_not_infinite = data.abs() != math.inf
    return is_data_not_infinite * is_data_not_nan


def isnan(data):
    """1 where ``data`` is NaN, else 0."""
    _check(data, "isnan")
    return data != data


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None, F=None):
    """Sampled-softmax candidates: ``num_sampled`` log-uniform classes in ``[0, range_max)``
    (P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)), with the expected counts of
    ``true_classes`` and of the sampled ones.  ``F`` is ``nd`` (default) or ``sym`` (the
    Symbol version, ``sym.contrib.rand_zipfian``, is this function with ``F = sym``)."""
    from .. import ndarray
    F = F or ndarray
    kwargs = {"ctx": ctx} if F is ndarray and ctx is not None else {}
    log_range = math.log(range_max + 1)
    rand = F.random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", **kwargs)
    sampled = F.cast(F.exp(rand) - 1, dtype="int64") % range_max

    def expected(classes):
        classes = F.cast(classes, dtype="float64")
        return F.cast((F.log(classes + 2) - F.log(classes + 1)) / log_range * num_sampled,
                      dtype="float32")

    return sampled, expected(true_classes), expected(sampled)


def getnnz(data, axis=None):
    """The number of stored entries of a CSRNDArray: all of them (``axis=None``) or per row
    (``axis=1``), as int64."""
    from .sparse_array import push_value
    if getattr(data, "stype", None) != "csr":
        raise TypeError(f"contrib.getnnz: expected a CSRNDArray, got storage type "
                        f"{getattr(data, 'stype', type(data).__name__)!r}")
    if axis not in (None, 1):
        raise ValueError(f"contrib.getnnz: axis must be None or 1, got {axis}")
    shape = (1,) if axis is None else (data.shape[0],)
    target = NDArray._empty(shape, np.int64, data.context)
    return push_value(lambda v: np.asarray(v.getnnz(axis=axis), np.int64).reshape(shape),
                      [data], target, "_contrib_getnnz")


# -- AdamW: the operators take rescale_grad as a one-element array (op/adamw_updates.py) ------
# (imperative only: MXNet 1.9.1 cannot compose these operators into a Symbol)
def _adamw_call(operator, arrays, rescale_grad, **kwargs):
    from .. import ndarray
    like = arrays[0]
    if isinstance(rescale_grad, NDArray):
        rescale = rescale_grad.as_in_context(like.context)
    else:
        rescale = ndarray.full(shape=(1,), val=rescale_grad, ctx=like.context)
    return getattr(ndarray._internal, operator)(*arrays, rescale, **kwargs)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW step of ``weight`` (``mean``, ``var`` updated in place); ``rescale_grad`` a
    number or a one-element array -- NaN, an infinity or 0 skips the update."""
    return _adamw_call("_adamw_update", (weight, grad, mean, var), rescale_grad, lr=lr,
                       eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                       clip_gradient=clip_gradient, out=out, name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                    **kwargs):
    """``adamw_update`` of a float16 ``weight`` through its float32 copy ``weight32``."""
    return _adamw_call("_mp_adamw_update", (weight, grad, mean, var, weight32), rescale_grad,
                       lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                       clip_gradient=clip_gradient, out=out, name=name, **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None,
                       name=None, size=0, **kwargs):
    """``adamw_update`` of every weight of the lists in one call (one push)."""
    arrays = [a for group in zip(weights, grads, mean, var) for a in group]
    return _adamw_call("_multi_adamw_update", arrays, rescale_grad, out=out,
                       num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas,
                       name=name, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          out=None, name=None, size=0, **kwargs):
    """``mp_adamw_update`` of every weight of the lists in one call (one push)."""
    arrays = [a for group in zip(weights, grads, mean, var, weights32) for a in group]
    return _adamw_call("_multi_mp_adamw_update", arrays, rescale_grad, out=out,
                       num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas,
                       name=name, **kwargs)
