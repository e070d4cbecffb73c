"""Testing helpers under MXNet's names: tolerances, random data, gradient checks, seeds.

Lesson: 04-autograd (checking a gradient).  Mirrors ``python/mxnet/test_utils.py``
and the ``with_seed`` decorator of MXNet's ``tests/python/unittest/common.py``.

The gradient check compares autograd with float64 central differences along one
random direction, for one random head gradient (cotangent): two forward passes
check every element at once, as Chainer and JAX do.  ``numeric_grad`` gives the
full element-by-element numeric gradient when a test needs it.
"""
import bz2  # noqa: F401 - star-exported, as MXNet's module does
import contextlib
import functools
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os
import platform  # noqa: F401
import random as _py_random
import random as rnd  # noqa: F401
import struct  # noqa: F401
import sys  # noqa: F401
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
import zlib
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np
import numpy.testing as npt  # noqa: F401

from .. import autograd, engine
from .. import ndarray as nd
from ..base import MXNetError
from ..context import Context, current_context
from ..random_state import seed as _mx_seed
from .tolerances import (FLOAT_ATOLS, FLOAT_RTOLS, default_atols, default_dtype,
                         default_numeric_eps, default_rtols, effective_dtype, get_atol,
                         get_etol, get_rtol, get_tolerance, get_tols)

# Like MXNet's module, this one has no __all__: ``from mxnet.test_utils import *`` hands
# test files every public name here, the modules it imports included (``np``, ``mx``, ``sys``
# ...), and MXNet's tests rely on it.

_GRAD_RTOLS = {"float16": 1e-1, "float32": 1e-2, "float64": 1e-5}
_GRAD_ATOLS = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-8}
_test_context = None


# -- the context tests run on ----------------------------------------------------------------
def default_context():
    """The context tests run on: ``set_default_context``'s, else ``MINIMX_TEST_CTX``
    (``cpu``, ``gpu`` or ``gpu:1``), else the current context."""
    if _test_context is not None:
        return _test_context
    text = os.environ.get("MINIMX_TEST_CTX", "").strip()
    if text:
        device_type, _, device_id = text.partition(":")
        return Context(device_type, int(device_id or 0))
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the default context of this thread and of ``default_context()``."""
    global _test_context
    _test_context = ctx
    Context._default.value = ctx


# -- comparing arrays ------------------------------------------------------------------------
def _as_numpy(value):
    if isinstance(value, nd.NDArray):
        return value.asnumpy()
    return np.asarray(value)


def _tolerance(arrays, given, table):
    """``given``, or the loosest default over the arrays' dtypes (0 for integers)."""
    if given is not None:
        return given
    return max(table.get(np.dtype(a.dtype).name, 0.0) for a in arrays)




def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """True when ``|a - b| <= atol + rtol * |b|`` everywhere (``numpy.allclose``)."""
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    rtol = _tolerance((a, b), rtol, FLOAT_RTOLS)
    atol = _tolerance((a, b), atol, FLOAT_ATOLS)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Raise an AssertionError naming the worst element unless ``a`` and ``b`` are close.

    ``a`` and ``b`` may be NDArrays or numpy arrays.  Default tolerances depend on
    the dtypes (``default_rtols()``); integer arrays must be equal.
    """
    a, b = _as_numpy(a), _as_numpy(b)
    rtol = _tolerance((a, b), rtol, FLOAT_RTOLS)
    atol = _tolerance((a, b), atol, FLOAT_ATOLS)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError(f"shapes differ: {names[0]} {a.shape}, {names[1]} {b.shape}")
    try:
        a_full, b_full = np.broadcast_arrays(a, b)
    except ValueError:
        raise AssertionError(f"shapes cannot be compared: {names[0]} {a.shape}, "
                             f"{names[1]} {b.shape}") from None
    if np.allclose(a_full, b_full, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a64, b64 = a_full.astype(np.float64), b_full.astype(np.float64)
    difference = np.where(a64 == b64, 0.0, np.abs(a64 - b64))
    if equal_nan:
        difference = np.where(np.isnan(a64) & np.isnan(b64), 0.0, difference)
    difference = np.where(np.isnan(difference), np.inf, difference)
    violation = difference / (atol + rtol * np.abs(b64) + 1e-300)
    index = np.unravel_index(int(np.argmax(violation)), violation.shape)
    count = int(np.sum(violation > 1))
    raise AssertionError(
        f"{names[0]} and {names[1]} differ: {count} of {violation.size} elements exceed "
        f"rtol={rtol:g}, atol={atol:g}.\nLargest error {violation[index]:.3g} x tolerance "
        f"at index {tuple(int(i) for i in index)}: {names[0]}={a_full[index]}, "
        f"{names[1]}={b_full[index]}\n{names[0]}: {np.array2string(a, threshold=20)}\n"
        f"{names[1]}: {np.array2string(b, threshold=20)}")


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """``assert_almost_equal`` with numpy's ``assert_allclose`` defaults (NaNs match)."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def same(a, b):
    """True when ``a`` and ``b`` (NDArrays or numpy arrays) have equal shapes and values."""
    return bool(np.array_equal(_as_numpy(a), _as_numpy(b)))


def assert_exception(f, exception_type, *args, **kwargs):
    """Check that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise {exception_type.__name__}")


# -- random shapes and arrays ----------------------------------------------------------------
def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-D shape with sizes up to ``dim0`` and ``dim1``."""
    low = 0 if allow_zero_size else 1
    return int(np.random.randint(low, dim0 + 1)), int(np.random.randint(low, dim1 + 1))


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-D shape with sizes up to ``dim0``, ``dim1`` and ``dim2``."""
    low = 0 if allow_zero_size else 1
    return tuple(int(np.random.randint(low, d + 1)) for d in (dim0, dim1, dim2))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape of ``num_dim`` axes, each of size up to ``dim``."""
    low = 0 if allow_zero_size else 1
    return tuple(int(d) for d in np.random.randint(low, dim + 1, size=num_dim))


def random_arrays(*shapes):
    """Standard normal float32 numpy arrays, one per shape (one array if one shape)."""
    arrays = [np.random.randn(*shape).astype(np.float32) for shape in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray (standard normal); ``density`` < 1 sets a fraction of it to 0.
    A sparse ``stype`` gives ``rand_sparse_ndarray``'s array."""
    if stype != "default":
        from .sparse import rand_sparse_ndarray
        return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                                   modifier_func=modifier_func,
                                   shuffle_csr_indices=shuffle_csr_indices,
                                   distribution=distribution, ctx=ctx)[0]
    values = np.random.randn(*shape)
    if density is not None:
        values *= np.random.uniform(size=shape) < density
    if modifier_func is not None:
        values = np.vectorize(modifier_func)(values)
    return nd.array(values, ctx=ctx or default_context(), dtype=dtype)


# -- functions under test: a callable over NDArrays, or (later) a Symbol ----------------------
_CALLABLE_ADAPTERS = []


def register_callable_adapter(predicate, adapter):
    """Teach the checks below to accept another kind of function.

    The checks run a Python callable over NDArrays.  The symbol layer calls
    ``register_callable_adapter(is_symbol, adapter)`` so that they accept a
    Symbol too; ``adapter(symbol, location, aux_states)`` returns ``(function,
    location, aux_states)``, with ``function(**arrays)`` running the graph on
    NDArrays (recorded by autograd) and ``location`` a dict of input arrays.
    """
    _CALLABLE_ADAPTERS.append((predicate, adapter))


def _input_value(value):
    """A numpy array for an input given as NDArray, numpy array or (float) nested list."""
    if isinstance(value, (nd.NDArray, np.ndarray)):
        return _as_numpy(value)
    return np.asarray(value, dtype=np.float64)


class _Subject:
    """A function under test and its inputs: ``keys`` (positions or names) and values."""

    def __init__(self, function, location, aux_states, ctx):
        for predicate, adapter in _CALLABLE_ADAPTERS:
            if predicate(function):
                function, location, aux_states = adapter(function, location, aux_states)
                break
        if not callable(function):
            raise TypeError(f"expected a callable over NDArrays, got {type(function).__name__}")
        self.function = function
        self.ctx = ctx or default_context()
        if isinstance(location, dict):
            self.keys = list(location)
            values = list(location.values())
        else:
            self.keys = list(range(len(location)))
            values = list(location)
        self.values = [_input_value(v) for v in values]
        aux_states = aux_states or []
        if isinstance(aux_states, dict):
            self.aux = {key: _input_value(v) for key, v in aux_states.items()}
        else:
            self.aux = {len(self.keys) + i: _input_value(v) for i, v in enumerate(aux_states)}

    def grad_keys(self, grad_nodes):
        """The keys to differentiate: all (None), those listed, or, for MXNet's dict form
        ``{key: grad_req}``, those whose grad_req is not ``'null'`` (MXNet compares a 'null'
        input's gradient with nothing: its gradient array is left alone)."""
        if grad_nodes is None:
            return list(self.keys)
        unknown = [key for key in grad_nodes if key not in self.keys]
        if unknown:
            raise ValueError(f"grad_nodes {unknown} are not inputs; inputs are {self.keys}")
        if not isinstance(grad_nodes, dict):
            return list(grad_nodes)
        invalid = {key: req for key, req in grad_nodes.items()
                   if req not in ("write", "add", "null")}
        if invalid:
            raise ValueError(f"grad_nodes: invalid grad_req {invalid}; expected 'write', "
                             f"'add' or 'null'")
        return [key for key, req in grad_nodes.items() if req != "null"]

    def arrays(self, values, dtype, keep=()):
        """NDArrays for ``values`` (float inputs cast to ``dtype``) plus the aux states."""
        arrays = {}
        for key, value in [*zip(self.keys, values), *self.aux.items()]:
            is_float = np.issubdtype(value.dtype, np.floating)
            target = dtype if is_float and key not in keep else value.dtype
            arrays[key] = nd.array(value, ctx=self.ctx, dtype=target)
        return arrays

    def call(self, arrays):
        positional = [arrays[key] for key in sorted(k for k in arrays if isinstance(k, int))]
        named = {key: value for key, value in arrays.items() if not isinstance(key, int)}
        result = self.function(*positional, **named)
        return list(result) if isinstance(result, (list, tuple)) else [result]


def _train_scope(train):
    return autograd.train_mode() if train else autograd.predict_mode()


def _run_backward(subject, grad_keys, dtype, head_grads=None, train=True, grad_req="write"):
    """Forward under ``record`` and backward with ``head_grads`` (random normal if None).

    Returns ``(outputs, grads, head_grads)`` as numpy arrays (``grads`` by key).
    """
    arrays = subject.arrays(subject.values, dtype)
    for key in grad_keys:
        arrays[key].attach_grad()
    with autograd.record(train_mode=train):
        outputs = subject.call(arrays)
    if head_grads is None:
        head_grads = [np.random.normal(size=o.shape) for o in outputs]
    heads = [nd.array(g, ctx=subject.ctx, dtype=o.dtype) for g, o in zip(head_grads, outputs)]
    if grad_keys and grad_req != "null":
        autograd.backward(outputs, heads)
    grads = {key: arrays[key].grad.asnumpy() for key in grad_keys} if grad_req != "null" else {}
    return [o.asnumpy() for o in outputs], grads, [_as_numpy(g) for g in head_grads]


def _objective(subject, values, dtype, head_grads, train):
    """``sum_k <head_grads[k], f(values)[k]>`` in float64, and the outputs' dtypes."""
    with _train_scope(train):
        outputs = subject.call(subject.arrays(values, dtype))
    total = 0.0
    for output, head in zip(outputs, head_grads):
        total += float(np.vdot(head.astype(np.float64), output.asnumpy().astype(np.float64)))
    return total, [np.dtype(o.dtype) for o in outputs]


def _numeric_dtype(subject, head_grads, train, fallback):
    """float64 when the function runs in float64 end to end, else ``fallback``."""
    try:
        _, dtypes = _objective(subject, subject.values, np.float64, head_grads, train)
    except MXNetError:
        return np.dtype(fallback)
    if all(d == np.float64 for d in dtypes):
        return np.dtype(np.float64)
    return np.dtype(fallback)


def _shifted(subject, directions, step):
    return [value + step * directions[key] if key in directions else value
            for key, value in zip(subject.keys, subject.values)]


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=np.float64, out_grads=None, ctx=None):
    """The gradient of ``sum(out_grads * f(location))`` by central differences, per element.

    ``executor``: a callable over NDArrays (or what an adapter accepts).
    ``out_grads`` defaults to ones.  Runs in ``dtype`` (float64: accurate); costs
    two forward passes per element, so keep the inputs small.  Returns a list, or
    a dict when ``location`` is one.
    """
    subject = _Subject(executor, location, aux_states, ctx)
    if out_grads is None:
        with _train_scope(use_forward_train):
            outputs = subject.call(subject.arrays(subject.values, dtype))
        out_grads = [np.ones(o.shape) for o in outputs]
    out_grads = [_as_numpy(g) for g in out_grads]
    grads = []
    for position, key in enumerate(subject.keys):
        base = subject.values[position].astype(np.float64)
        grad = np.zeros(base.shape)
        for index in np.ndindex(base.shape):
            values = list(subject.values)
            results = []
            for step in (eps, -eps):
                moved = base.copy()
                moved[index] += step
                values[position] = moved
                results.append(_objective(subject, values, dtype, out_grads,
                                          use_forward_train)[0])
            grad[index] = (results[0] - results[1]) / (2 * eps)
        grads.append(grad)
    return dict(zip(subject.keys, grads)) if isinstance(location, dict) else grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=np.float32, out_grads=None):
    """Check autograd's gradient of ``sym`` against central differences.

    ``sym``: a callable taking NDArrays and returning an NDArray or a list of them
    (a Symbol once the symbol layer registers its adapter).  ``location``: the
    input values, a list (positional) or a dict (keywords).  ``grad_nodes``: the
    keys to differentiate (default: all).  The gradient is computed in ``dtype``
    with random head gradients ``out_grads`` (``grad_nodes`` may also be MXNet's dict
    ``{key: 'write'|'add'|'null'}``: a 'null' input is not checked, and 'add', accumulating
    into a zero gradient, is checked as 'write'); central differences run in float64
    when the function supports it.  One random direction ``d`` checks every
    element: ``<grad, d>`` must match ``(L(x + eps d) - L(x - eps d)) / 2 eps``.
    """
    subject = _Subject(sym, location, aux_states, ctx)
    keys = subject.grad_keys(grad_nodes)
    for key in keys:                 # an input differentiated holds reals, as in MXNet
        position = subject.keys.index(key)
        if not np.issubdtype(subject.values[position].dtype, np.floating):
            subject.values[position] = subject.values[position].astype(dtype)
    dtype_name = np.dtype(dtype).name
    outputs, grads, heads = _run_backward(subject, keys, dtype, out_grads, use_forward_train)
    directions = {key: np.random.normal(size=subject.values[subject.keys.index(key)].shape)
                  for key in keys}
    numeric_dtype = _numeric_dtype(subject, heads, use_forward_train, dtype)
    exact = numeric_dtype == np.float64
    eps = numeric_eps or (1e-4 if exact else 1e-2)
    rtol = rtol if rtol is not None else _GRAD_RTOLS.get(dtype_name, 1e-2) * (1 if exact else 10)
    atol = atol if atol is not None else _GRAD_ATOLS.get(dtype_name, 1e-4) * (1 if exact else 10)

    def directional(selected):
        plus = _objective(subject, _shifted(subject, selected, eps), numeric_dtype, heads,
                          use_forward_train)[0]
        minus = _objective(subject, _shifted(subject, selected, -eps), numeric_dtype, heads,
                           use_forward_train)[0]
        return (plus - minus) / (2 * eps)

    terms = {key: grads[key].astype(np.float64) * directions[key] for key in keys}
    analytic = sum(float(t.sum()) for t in terms.values())
    numeric = directional(directions)
    scale = max(abs(numeric), sum(float(np.abs(t).sum()) for t in terms.values()))
    if abs(analytic - numeric) <= atol + rtol * scale:
        return
    lines = [f"gradient check failed (numeric in {numeric_dtype.name}, eps={eps:g}): "
             f"autograd gives <grad, d> = {analytic:.6g}, central differences give "
             f"{numeric:.6g}; tolerance {atol:g} + {rtol:g} * {scale:.3g}"]
    for key in keys:
        part = directional({key: directions[key]})
        lines.append(f"  input {key!r}: autograd {float(terms[key].sum()):.6g}, "
                     f"numeric {part:.6g}")
    raise AssertionError("\n".join(lines))


def _consistency_config(entry):
    config = {"ctx": default_context(), "engine": engine.get_engine().name, "dtype": None}
    if isinstance(entry, Context):
        config["ctx"] = entry
    elif isinstance(entry, str):
        config["engine"] = entry
    else:
        config.update(entry)
        types = config.get("type_dict")
        if not config.get("dtype") and isinstance(types, dict) and types:
            config["dtype"] = next(iter(types.values()))
    return config


def check_consistency(sym, ctx_list=None, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, rtol=None, atol=None, raise_on_err=True,
                      ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Run ``sym`` under several configurations and check they agree.

    ``ctx_list`` entries are a Context, an engine name (``'NaiveEngine'``), or a
    dict with ``ctx``, ``engine`` and ``dtype``; the default compares the
    NaiveEngine with the ThreadedEngine.  ``arg_params`` holds the inputs (a list
    or dict).  The first configuration (or ``ground_truth``) is the reference.
    Returns one ``{'outputs': [...], 'grads': {...}}`` per configuration.
    """
    if is_symbol(sym) or (isinstance(sym, (list, tuple)) and sym and is_symbol(sym[0])):
        return check_symbol_consistency(sym, ctx_list, scale, grad_req, arg_params, aux_params,
                                        rtol, atol, raise_on_err, ground_truth, equal_nan,
                                        use_uniform, rand_type)
    if arg_params is None:
        raise ValueError("check_consistency on a callable needs arg_params (its inputs)")
    configs = [_consistency_config(e) for e in ctx_list or ("NaiveEngine", "ThreadedEngine")]
    subject = _Subject(sym, arg_params, aux_params, None)
    subject.values = [v * scale if np.issubdtype(v.dtype, np.floating) else v
                      for v in subject.values]
    keys = subject.keys if grad_req != "null" else []
    seed_value, heads, results = np.random.randint(2**31), None, []
    for config in configs:
        subject.ctx = config["ctx"]
        dtype = config["dtype"] or "float32"
        with engine.engine_type(config["engine"]):
            _mx_seed(int(seed_value))
            outputs, grads, heads = _run_backward(subject, keys, dtype, heads,
                                                  grad_req=grad_req)
        results.append({"outputs": outputs, "grads": grads, "config": config})
    reference = ground_truth or results[0]
    errors = []
    for result in results:
        pairs = [(f"output {i}", o, reference["outputs"][i])
                 for i, o in enumerate(result["outputs"])]
        pairs += [(f"grad {k!r}", g, reference["grads"][k]) for k, g in result["grads"].items()]
        for label, value, expected in pairs:
            try:
                assert_almost_equal(value, expected, rtol, atol, equal_nan=equal_nan,
                                    names=(f"{label} {result['config']}", "reference"))
            except AssertionError as error:
                errors.append(str(error))
    if errors and raise_on_err:
        raise AssertionError("\n".join(errors))
    return results


# -- seeds ---------------------------------------------------------------------------------------
def choose_seed(name=None):
    """The seed for a test: ``MINIMX_TEST_SEED`` if set (``random``: a fresh one each
    run), else one derived from ``name`` so every run repeats, else a fresh one."""
    text = os.environ.get("MINIMX_TEST_SEED", "").strip()
    if text and text != "random":
        return int(text)
    if name is None or text == "random":
        return _py_random.SystemRandom().randrange(2**31)
    return zlib.crc32(name.encode()) % 2**31


@contextlib.contextmanager
def random_seed(seed=None):
    """Seed numpy, Python's ``random`` and ``mx.random`` for the body (fresh if None).

    numpy's and Python's states are restored afterwards; ``mx.random`` is then
    reseeded from a number drawn from (a copy of) the restored numpy state.
    """
    seed = _py_random.SystemRandom().randrange(2**31) if seed is None else int(seed)
    numpy_state, python_state = np.random.get_state(), _py_random.getstate()
    np.random.seed(seed)
    _py_random.seed(seed)
    _mx_seed(seed)
    try:
        yield seed
    finally:
        np.random.set_state(numpy_state)
        _py_random.setstate(python_state)
        follower = np.random.RandomState()
        follower.set_state(numpy_state)          # draws without moving numpy's own state
        _mx_seed(int(follower.randint(2**31)))


def with_seed(seed=None):
    """Decorator: run a test under ``random_seed`` and print the seed if it fails.

    Use as ``@with_seed()`` or ``@with_seed(1234)``; rerun a failure with
    ``MINIMX_TEST_SEED=<seed>``.
    """
    if callable(seed):                       # used bare: @with_seed
        return with_seed()(seed)

    def decorator(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            name = f"{test.__module__}.{test.__qualname__}"
            value = seed if seed is not None else choose_seed(name)
            with random_seed(value):
                try:
                    return test(*args, **kwargs)
                except BaseException:
                    print(f"*** {name} failed with seed {value}; reproduce with "
                          f"MINIMX_TEST_SEED={value}")
                    raise
        return wrapper

    return decorator


# -- Symbols: checked through an Executor, or (numeric gradient) op by op --------------------
from .symbol_consistency import check_symbol_consistency  # noqa: E402
from .symbolic import (check_symbolic_backward, check_symbolic_forward,  # noqa: E402
                       is_symbol, symbol_adapter)

register_callable_adapter(is_symbol, symbol_adapter)

# -- the rest of MXNet's test_utils ---------------------------------------------------------
mx = sys.modules[__name__.split(".")[0]]   # the package itself, star-exported as in MXNet
from ..ndarray import NDArray, array  # noqa: E402,F401
from ..runtime import Features  # noqa: E402,F401
from ..util import use_np  # noqa: E402,F401
from ..symbol import Symbol  # noqa: E402,F401
from .comparisons import *  # noqa: E402,F401,F403
from .data import *  # noqa: E402,F401,F403
from .environment import *  # noqa: E402,F401,F403
from .matrices import *  # noqa: E402,F401,F403
from .sparse import *  # noqa: E402,F401,F403
from .statistics import *  # noqa: E402,F401,F403
