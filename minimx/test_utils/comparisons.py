"""More ways tests compare results: tuples of arrays, shared memory, optimizers, reductions.

Lesson: 13-optimizers (``compare_optimizer``).  Mirrors the helpers of the same names in
``python/mxnet/test_utils.py``.
"""
import time

import numpy as np

from .. import autograd
from .. import ndarray as nd
# (this module is imported at the end of the package's __init__, after these exist)
from . import assert_almost_equal, default_context, rand_ndarray, same
from .tolerances import get_etol, get_tols

__all__ = ["same_array", "compare_ndarray_tuple", "compare_optimizer", "np_reduce",
           "collapse_sum_like", "assert_almost_equal_ignore_nan",
           "assert_almost_equal_with_err", "same_symbol_structure", "simple_forward",
           "check_speed", "check_gluon_hybridize_consistency", "assign_each", "assign_each2"]


def same_array(array1, array2):
    """Whether two NDArrays share one buffer: a change through one shows in the other."""
    array1[:] += 1
    shared = same(array1.asnumpy(), array2.asnumpy())
    array1[:] -= 1
    return shared and same(array1.asnumpy(), array2.asnumpy())


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """Compare two (nested) tuples of NDArrays element by element (None matches None)."""
    if t1 is None or t2 is None:
        assert t1 is None and t2 is None, f"{t1!r} and {t2!r}: only one is None"
        return
    if isinstance(t1, (tuple, list)):
        assert isinstance(t2, (tuple, list)) and len(t1) == len(t2), (t1, t2)
        for a, b in zip(t1, t2):
            compare_ndarray_tuple(a, b, rtol, atol)
        return
    assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default",
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """Give both optimizers the same weights and gradients; their states (if
    ``compare_states``) and updated weights must agree.  ``ntensors`` > 1 updates a list
    of weights at once (the aggregated update path).  With a sparse ``w_stype`` or
    ``g_stype``, ``opt2`` gets the sparse arrays and ``opt1`` dense copies of them (a
    sparse weight is stored whole: density 1), as MXNet's."""
    shapes = shape if ntensors > 1 and isinstance(shape, list) else [shape] * ntensors
    w2 = [rand_ndarray(s, w_stype, dtype=dtype, density=None if w_stype == "default" else 1)
          for s in shapes]
    g2 = [rand_ndarray(s, g_stype, dtype=dtype) for s in shapes]
    w1 = [w.copyto(default_context()).tostype("default") for w in w2]
    g1 = [g.copyto(default_context()).tostype("default") for g in g2]
    s1 = [opt1.create_state_multi_precision(i, w) for i, w in enumerate(w1)]
    s2 = [opt2.create_state_multi_precision(i, w) for i, w in enumerate(w2)]
    if compare_states:
        compare_ndarray_tuple(tuple(s1), tuple(s2), rtol, atol)
    if ntensors == 1:
        opt1.update_multi_precision(0, w1[0], g1[0], s1[0])
        opt2.update_multi_precision(0, w2[0], g2[0], s2[0])
    else:
        indices = list(range(ntensors))
        opt1.update_multi_precision(indices, w1, g1, s1)
        opt2.update_multi_precision(indices, w2, g2, s2)
    if compare_states:
        compare_ndarray_tuple(tuple(s1), tuple(s2), rtol, atol)
    for a, b in zip(w1, w2):
        assert_almost_equal(a, b, rtol=rtol, atol=atol)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """``numpy_reduce_func`` over ``axis`` (None, an int or a tuple), one axis at a time."""
    if axis is None:
        axis = tuple(range(dat.ndim))
    elif isinstance(axis, int):
        axis = (axis,)
    result = dat
    for one in sorted((a % dat.ndim for a in axis), reverse=True):
        result = numpy_reduce_func(result, axis=one)
    if keepdims:
        shape = list(dat.shape)
        for one in axis:
            shape[one % dat.ndim] = 1
        result = np.asarray(result).reshape(shape)
    return result


def collapse_sum_like(a, shape):
    """Sum the numpy array ``a`` down to ``shape`` (undoing a broadcast)."""
    shape = tuple(shape)
    extra = a.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(extra + i for i, size in enumerate(shape)
                                       if size == 1 and a.shape[extra + i] != 1)
    return a.sum(axis=axes, keepdims=True).reshape(shape) if axes else a.reshape(shape)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """``assert_almost_equal`` where a NaN on either side counts as a match."""
    a = np.copy(a.asnumpy() if hasattr(a, "asnumpy") else a)
    b = np.copy(b.asnumpy() if hasattr(b, "asnumpy") else b)
    nans = np.logical_or(np.isnan(a), np.isnan(b))
    a[nans], b[nans] = 0, 0
    assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"),
                                 equal_nan=False, mismatches=(10, 10)):
    """``assert_almost_equal`` that lets a share ``etol`` of the elements miss."""
    a_np = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    b_np = b.asnumpy() if hasattr(b, "asnumpy") else np.asarray(b)
    rtol, atol = get_tols(a_np, b_np, rtol, atol)
    close = np.isclose(a_np, b_np, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if 1 - np.mean(close) > get_etol(etol):
        assert_almost_equal(a_np, b_np, rtol=rtol, atol=atol, names=names,
                            equal_nan=equal_nan)


def same_symbol_structure(sym1, sym2):
    """Whether two Symbols have the same operators wired the same way (names aside)."""
    import json
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    if len(nodes1) != len(nodes2):
        return False
    return all(a["op"] == b["op"] and [i[:2] for i in a["inputs"]] ==
               [i[:2] for i in b["inputs"]] for a, b in zip(nodes1, nodes2))


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Bind ``sym`` to the numpy ``inputs`` and run forward: numpy output(s)."""
    ctx = ctx or default_context()
    arrays = {name: nd.array(value, ctx=ctx) for name, value in inputs.items()}
    outputs = sym.bind(ctx, args=arrays).forward(is_train=is_train)
    results = [output.asnumpy() for output in outputs]
    return results[0] if len(results) == 1 else results


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Seconds per iteration of ``sym``: forward and backward (``typ='whole'``) or
    forward only (``'forward'``), averaged over ``N`` runs after a warm-up."""
    ctx = ctx or default_context()
    grad_req = grad_req or "write"
    if location is None:
        executor = sym.simple_bind(ctx=ctx, grad_req=grad_req, **kwargs)
        location = {name: np.random.normal(size=arr.shape, scale=1.0)
                    for name, arr in executor.arg_dict.items()}
    else:
        executor = sym.simple_bind(ctx=ctx, grad_req=grad_req,
                                   **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        executor.arg_dict[name][:] = value
    if typ not in ("whole", "forward"):
        raise ValueError(f"check_speed: typ must be 'whole' or 'forward', got {typ!r}")

    def step():
        outputs = executor.forward(is_train=typ == "whole")
        if typ == "whole":
            executor.backward([nd.ones_like(o) for o in outputs])
        nd.waitall()

    step()
    start = time.perf_counter()
    for _ in range(N):
        step()
    return (time.perf_counter() - start) / N


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1e-4, atol=1e-4):
    """The block ``net_builder()`` makes gives the same outputs (and input gradients) run
    imperatively and hybridized; ``numpy_func(*data)`` is the expected output when given."""
    import os
    import tempfile
    results = []
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net.params")
        for hybridize in (False, True):
            results.append(_run_block(net_builder, data_l, path, hybridize))
    (out, grads), (hybrid_out, hybrid_grads) = results
    assert_almost_equal(out, hybrid_out, rtol=rtol, atol=atol)
    if numpy_func is not None:
        assert_almost_equal(out, numpy_func(*[d.asnumpy() for d in data_l]), rtol=rtol,
                            atol=atol)
    if test_grad:
        for a, b in zip(grads, hybrid_grads):
            assert_almost_equal(a, b, rtol=rtol, atol=atol)


def _run_block(net_builder, data_l, path, hybridize):
    """Outputs and input gradients of a fresh ``net_builder()`` block; the second build
    loads the first one's parameters from ``path``."""
    net = net_builder()
    net.initialize()
    inputs = [data.copy() for data in data_l]
    net(*inputs)                                  # finish deferred initialisation
    if hybridize:
        net.load_parameters(path)
        net.hybridize()
    else:
        net.save_parameters(path)
    for data in inputs:
        data.attach_grad()
    with autograd.record():
        out = net(*inputs)
    out.backward()
    return out.asnumpy(), [data.grad.asnumpy() for data in inputs]


def assign_each(the_input, function):
    """``function`` applied to each element of a numpy array."""
    return np.vectorize(function)(the_input) if function is not None else the_input


def assign_each2(input1, input2, function):
    """``function`` applied to each pair of elements of two numpy arrays."""
    return np.vectorize(function)(input1, input2) if function is not None else input1
