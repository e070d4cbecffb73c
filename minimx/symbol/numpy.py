"""``mx.sym.np`` and ``mx.sym.npx``: the NumPy frontend's functions composing graph nodes.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/symbol/numpy/``, without a second
set of functions: ``sym.np.exp`` *is* ``mx.np.exp``, from the same adapter tables.  The
adapter (``minimx/numpy/adapter.py``) asks its operand how to call an operator: an
``np.ndarray`` computes through ``nd``'s dispatcher, an np Symbol (``_Symbol`` here, what
``Symbol.as_np_ndarray()`` gives) composes a node (``_np_compose``).  So a HybridBlock in np
mode (after ``npx.set_np()``) traces ``F.np.*`` / ``F.npx.*`` into a graph, and the CachedOp
runs it under NumPy's shape rules.

Shapes while tracing: a Symbol built by hand (``sym.var('x').as_np_ndarray()``) does not
know its shape, and the adapter's rules that only need the *kind* of result are said
shape-free (a full reduction is zero-dimensional; an ``axis`` reduction drops its axes).  A
HybridBlock, though, is traced with the arrays of its first call: inside ``tracing_with``
an np Symbol's ``shape``, ``ndim``, ``size`` and ``dtype`` are inferred from those arrays,
so ``tensordot``, ``moveaxis``, ``hstack``, ``linalg.det`` ... work in a graph.  As JAX's
``jit``, a graph that read a shape is specialised to the input shapes and dtypes it was
traced with, and the block traces again when they change (``Trace.read``).  Without a
trace, a function that needs the shape raises an error naming it.

What a graph cannot do:
- Functions whose result shape depends on the values (``nonzero``, ``unique``, ``bincount``,
  the host-NumPy fallbacks) cannot be a node: they raise ``ValueShapedError``, saying why.
  A HybridBlock that meets one while tracing runs imperatively instead, as MXNet's CachedOp
  runs a graph of dynamic shapes op by op.
- Indexing by arrays, masks, ``None`` or ``Ellipsis`` raises an IndexError, as MXNet's.
"""
import threading
import types

import numpy as onp

from .. import numpy as _np
from ..numpy.adapter import composing
from .. import numpy_extension as _npx
from ..base import MXNetError
from ..op import get_op
from ..util import serve_on_first_use
from . import inference
from .symbol import Symbol, compose_op

__all__ = ["np", "npx", "_Symbol", "as_np_symbol", "Trace", "tracing_with", "ValueShapedError",
           "SymbolIndexError"]


class Trace:
    """The shapes and dtypes (by variable name) of the arrays a graph is traced with;
    ``read`` becomes True once the traced code asked a Symbol for its shape or dtype."""

    def __init__(self, shapes, dtypes):
        self.shapes, self.dtypes, self.read = dict(shapes), dict(dtypes), False


_TRACES = threading.local()


class tracing_with:  # noqa: N801 (a context manager, used as ``with tracing_with(...)``)
    """``with tracing_with({name: array}) as trace:`` np Symbols know their shapes inside."""

    def __init__(self, arrays):
        self.trace = Trace({name: a.shape for name, a in arrays.items()},
                           {name: a.dtype for name, a in arrays.items()})

    def __enter__(self):
        _TRACES.stack = getattr(_TRACES, "stack", []) + [self.trace]
        return self.trace

    def __exit__(self, *exc):
        _TRACES.stack = _TRACES.stack[:-1]


def _current_trace():
    stack = getattr(_TRACES, "stack", None)
    return stack[-1] if stack else None


class SymbolIndexError(MXNetError, IndexError):
    """An index a Symbol cannot take (MXNet raises an IndexError)."""


class ValueShapedError(MXNetError):
    """A graph asked for a function whose result's shape depends on the values of its input
    (``unique``, ``nonzero``, ``bincount``, ...) or that NumPy computes on the host: no
    node can say its shape before the graph runs.  A HybridBlock whose trace raises it runs
    imperatively instead (``gluon/hybrid_block.py``)."""


# the names whose result shape depends on the values, or that compute on the host
_VALUE_SHAPED = {"nonzero", "flatnonzero", "argwhere", "unique", "genfromtxt",
                 "shares_memory", "may_share_memory", "histogram", "bincount",
                 *_np.fallback.__all__}
# the creation functions without array inputs (their operator calls compose nodes)
_CREATION = {"zeros", "ones", "full", "empty", "arange", "linspace", "eye", "identity",
             "logspace", "indices", "hanning", "hamming", "blackman"}


class _Symbol(Symbol):
    """A Symbol whose operations follow ``mx.np`` (MXNet's ``mx.sym.np._Symbol``)."""

    def as_np_ndarray(self):
        return self

    def _np_compose(self, op_name, inputs, params):
        """Compose the node of registered operator ``op_name`` (the adapter's call)."""
        return _compose_node(op_name, inputs, params)

    @property
    def shape(self):
        """The shape, inferred from the arrays the graph is traced with (``tracing_with``)."""
        trace = _current_trace()
        if trace is not None and len(self._entries) == 1:
            _, shapes = inference.infer_shapes(self._entries, trace.shapes)
            shape = shapes.get(self._entries[0])
            if shape is not None and all(size >= 0 for size in shape):
                trace.read = True
                return tuple(shape)
        raise MXNetError("an np Symbol does not know its shape outside a HybridBlock's trace; "
                         "this function needs the shape of its operand, so it cannot be "
                         "used on this Symbol (call it on arrays, or in a hybridized block)")

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(onp.prod(self.shape))

    @property
    def dtype(self):
        """The dtype inferred from the arrays the graph is traced with, else None."""
        trace = _current_trace()
        if trace is None or len(self._entries) != 1:
            return None
        _, dtypes = inference.infer_types(self._entries, trace.dtypes)
        dtype = dtypes.get(self._entries[0])
        if dtype is not None:
            trace.read = True
        return dtype

    @property
    def context(self):
        """None: a graph's device is chosen when it runs."""
        return None

    def __getitem__(self, index):
        """An output of a multi-output Symbol, or NumPy's basic indexing by integers and
        slices, which needs no shape: ``slice`` keeps each indexed axis, ``_np_squeeze``
        drops the integer-indexed ones (``()`` when every axis goes)."""
        if isinstance(index, str) or (isinstance(index, int) and len(self) > 1):
            return as_np_symbol(Symbol.__getitem__(self, index))
        key = index if isinstance(index, tuple) else (index,)
        if not all(isinstance(k, (int, slice)) and not isinstance(k, bool) for k in key):
            raise SymbolIndexError(f"sym.np indexing: only integers and slices (and tuples of "
                                   f"them) index a Symbol, got {index!r} (None and Ellipsis "
                                   f"need its shape; an array's or a mask's result depends "
                                   f"on values)")
        begin, end, step, dropped = [], [], [], []
        for axis, k in enumerate(key):
            if isinstance(k, slice):
                begin.append(k.start), end.append(k.stop), step.append(k.step)
            else:
                begin.append(k), end.append(None if k == -1 else k + 1), step.append(None)
                dropped.append(axis)
        result = self._np_compose("slice", [self], {"begin": tuple(begin), "end": tuple(end),
                                                    "step": tuple(step)})
        if dropped:
            result = self._np_compose("_np_squeeze", [result], {"axis": tuple(dropped)})
        return result

    def split_v2(self, indices_or_sections, axis=0, squeeze_axis=False):
        """The parts as a list of np Symbols (``np.split``'s operator call)."""
        parts = Symbol.split_v2(self, indices_or_sections, axis, squeeze_axis)
        return [as_np_symbol(Symbol.__getitem__(parts, i)) for i in range(len(parts))]

    def __iter__(self):
        return (as_np_symbol(Symbol.__getitem__(self, i)) for i in range(len(self)))


def _compose_node(op_name, inputs, params):
    """The np Symbol of a node of registered operator ``op_name``."""
    params = {key: value for key, value in params.items()
              if key not in ("ctx", "out") or value is not None}
    if params.pop("out", None) is not None:
        raise MXNetError(f"sym.np: {op_name}: out= cannot name a Symbol")
    params.pop("ctx", None)
    return as_np_symbol(compose_op(get_op(op_name), tuple(inputs), params,
                                   _name_hint(op_name)))


def _name_hint(op_name):
    """A node's name hint: the operator's name without MXNet's NumPy prefixes, as MXNet's
    ``mx.sym.np`` names its nodes (``_npi_tensordot`` makes ``tensordot0``)."""
    name = op_name.lower()
    for prefix in ("_npi_", "_npx_", "_np_"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name.lstrip("_")


def _refuse(name, why="it needs the operand's shape, which a Symbol does not know"):
    raise MXNetError(f"sym.np.{name} cannot be used on Symbols: {why}")


def as_np_symbol(symbol):
    """``symbol`` (or a list of them) as np Symbols over the same graph entries."""
    if isinstance(symbol, (list, tuple)):
        return type(symbol)(as_np_symbol(item) for item in symbol)
    return _Symbol(symbol._entries) if isinstance(symbol, Symbol) else symbol


def _method_of(function):
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)
    method.__name__ = function.__name__
    return method


def _install_operators():
    """``+``, ``*``, ``==``, ... and the methods of ``np.ndarray`` that are np functions."""
    dunders = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
               "mod": "mod", "pow": "power", "eq": "equal", "ne": "not_equal",
               "gt": "greater", "ge": "greater_equal", "lt": "less", "le": "less_equal"}
    for short, name in dunders.items():
        function = getattr(_np, name)
        setattr(_Symbol, f"__{short}__", lambda self, other, f=function: f(self, other))
        if short in ("add", "sub", "mul", "truediv", "mod", "pow"):
            setattr(_Symbol, f"__r{short}__", lambda self, other, f=function: f(other, self))
    _Symbol.T = property(lambda self: _np.transpose(self))
    _Symbol.__neg__ = lambda self: _np.negative(self)
    _Symbol.__abs__ = lambda self: _np.abs(self)
    _Symbol.__hash__ = Symbol.__hash__
    for name, function in _np.methods.METHODS.items():
        setattr(_Symbol, name, _method_of(function))
    _Symbol.astype = lambda self, dtype, copy=True: as_np_symbol(Symbol.astype(self, dtype))
    _Symbol.reshape = _reshape
    _Symbol.flatten = lambda self, order="C": _reshape(self, -1, order=order)


def _reshape(self, *shape, order="C", **kwargs):
    """NumPy's reshape of a Symbol: the ``_np_reshape`` operator (no shape needed)."""
    if "newshape" in kwargs or "shape" in kwargs:
        shape = (kwargs.pop("newshape", None) or kwargs.pop("shape"),)
    if kwargs:
        raise TypeError(f"reshape: unexpected arguments {sorted(kwargs)}")
    shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    return _compose_node("_np_reshape", [self], {"newshape": tuple(shape), "order": order})


def _creation(name, source=_np):
    """``sym.np.<name>`` of a creation function: its operator calls compose nodes."""
    array_function = getattr(source, name)

    def function(*args, **kwargs):
        with composing(_compose_node):
            return array_function(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = array_function.__doc__
    return function


def _value_shaped(name):
    def function(*args, **kwargs):
        raise ValueShapedError(f"sym.np.{name} cannot be used on Symbols: its result's shape "
                               f"depends on the values of its input (or NumPy computes it on "
                               f"the host), which a graph cannot know before it runs")
    function.__name__ = function.__qualname__ = name
    return function


def _npx_operator(name, op_name):
    """``npx.<name>`` on Symbols: the ``sym`` function of the operator ``npx`` names."""
    from . import op
    sym_function = getattr(op, op_name)

    def function(*args, **kwargs):
        return as_np_symbol(sym_function(*args, **kwargs))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = sym_function.__doc__
    return function


def _namespace(module_name, source, names, compose_all=False):
    namespace = types.ModuleType(module_name, source.__doc__)
    operators = getattr(source, "OPERATORS", {})
    for name in names:
        if name in operators and not compose_all:
            continue                    # made on first use (below), as npx's own
        value = getattr(source, name)
        if compose_all and callable(value):
            value = _creation(name, source)
        elif name in _VALUE_SHAPED:
            value = _value_shaped(name)
        elif name in _CREATION:
            value = _creation(name)
        setattr(namespace, name, value)
    if hasattr(source, "random"):       # sym.np.random: the samplers compose nodes
        namespace.random = _namespace(f"{module_name}.random", source.random,
                                      source.random.__all__, compose_all=True)
    if hasattr(source, "image"):        # sym.npx.image: the image operators' nodes
        namespace.image = _namespace(f"{module_name}.image", source.image, source.image.__all__)
    namespace._Symbol = _Symbol
    if hasattr(source, "__getattr__"):     # a missing name: the frontend's reason
        namespace.__getattr__ = source.__getattr__
    served = {} if compose_all else {name: operators[name] for name in names
                                     if name in operators}
    serve_on_first_use(vars(namespace), served,
                       lambda name: _npx_operator(name, served[name]))
    return namespace


_install_operators()
np = _namespace("minimx.symbol.numpy", _np, _np.__all__)
npx = _namespace("minimx.symbol.numpy_extension", _npx, _npx.__all__)
