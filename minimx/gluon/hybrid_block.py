"""HybridBlock: a Block written once for both ``nd`` and ``sym``, compiled by ``hybridize()``.

Lesson: 10-hybridize.  Mirrors ``HybridBlock`` in ``python/mxnet/gluon/block.py``.
``hybrid_forward(F, x, ..., **params)`` receives ``F = nd`` when run
imperatively and ``F = sym`` while being traced.  After ``hybridize()`` the
next call traces it once into a Symbol and builds a CachedOp; every later call
runs the cached graph, so the Python body of ``hybrid_forward`` does not run
again (a ``print`` inside it prints only once).

What cannot be hybridized: code that needs values (``if x.sum() > 0``,
``x.asnumpy()``, ``x.shape`` of intermediate results), in-place writes, and
Python loops whose length depends on data.
"""
import re
import warnings

from .. import ndarray as nd
from .. import symbol as sym
from ..base import InvalidShapeError
from ..numpy.multiarray import as_np, ndarray as np_ndarray
from ..util import is_np_array
from ..ndarray import NDArray
from ..symbol import Symbol
from ..symbol.numpy import ValueShapedError, _Symbol as NpSymbol, tracing_with
from .block import Block
from .cached_op import CachedOp
from .parameter import DeferredInitializationError, Parameter

__all__ = ["HybridBlock"]


class HybridBlock(Block):
    """A Block whose computation is written as ``hybrid_forward(F, x, ...)``.

    Examples
    --------
    >>> class AddOne(mx.gluon.HybridBlock):
    ...     def hybrid_forward(self, F, x):
    ...         return x + 1
    >>> block = AddOne(); block.hybridize()
    >>> block(nd.zeros((2,))).asnumpy()
    array([1., 1.], dtype=float32)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix, params)
        self._active = False
        self._flags = {}
        self._cached_graph = ()
        self._cached_op = None
        self._cached_params = []
        self._param_cache = None      # (ctx, _cached_params, Parameter.data_version, arrays)
        self._value_shaped = None     # why the graph cannot be cached (runs imperatively)

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError(
                f"Children of HybridBlock must also be HybridBlock, but {block!r} has type "
                f"{type(block)}. If you are using Sequential, please try HybridSequential "
                f"instead.")
        super().register_child(block, name)
        self._clear_cached_op()
        return block

    def hybridize(self, active=True, static_alloc=False, static_shape=False, **kwargs):
        """Compile on the next call: trace ``hybrid_forward`` once, then run the cached graph.

        ``static_alloc``/``static_shape`` are accepted for MXNet compatibility; minimx
        always reuses its plan per input shape.
        """
        self._active = active
        self._flags = dict(static_alloc=static_alloc, static_shape=static_shape, **kwargs)
        self._clear_cached_op()
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape,
                          **kwargs)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._value_shaped = None

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, op_name, array)`` on every operator output of the cached
        graph (``monitor_all``: on every operator input too), as MXNet's op hooks; works on
        hybridized blocks, whose graph then runs node by node."""
        self._op_hook = (callback, monitor_all)
        if self._cached_op is not None:
            self._cached_op.op_hook = self._op_hook
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    # -- inspection (lessons, the views) ------------------------------------------------------
    def cached_graph(self):
        """The Symbol ``hybridize()`` traced this block into, or None before the first call
        (or when the block is not hybridized)."""
        return self._cached_graph[1] if self._cached_graph else None

    def cached_plans(self):
        """The plans the cached graph has run with so far (``executor.plan.PlanInfo``, one per
        input signature and mode, oldest first); empty before the first hybridized call."""
        return [] if self._cached_op is None else self._cached_op.plans()

    def infer_shape(self, *args):
        """Complete the parameter shapes from the input arrays (deferred initialisation)."""
        self._deferred_infer_shape(*args)

    # -- tracing ---------------------------------------------------------------------------------
    def _get_graph(self, *args):
        """(input Variables, output Symbol) of ``hybrid_forward`` traced with ``F = sym``.

        Arguments may be nested lists (an RNN's states); each array in them becomes one
        variable, ``data`` or ``data0``, ``data1``, ... in order, as MXNet names them.
        """
        if not self._cached_graph:
            flat, self._in_format = _flatten(args)
            names = ["data"] if len(flat) == 1 else [f"data{i}" for i in range(len(flat))]
            inputs = [sym.var(name) for name in names]
            params = {name: param.var() for name, param in self._reg_params.items()}
            if is_np_array():       # F.np / F.npx: the graph's values are np Symbols
                inputs = [var.as_np_ndarray() for var in inputs]
                params = {name: var.as_np_ndarray() for name, var in params.items()}
            # np Symbols know the shapes of this call's arrays while tracing; a graph that
            # read one is retraced for other shapes (see symbol/numpy.py)
            arrays = {name: a for name, a in zip(names, flat) if isinstance(a, NDArray)}
            with self.name_scope(), tracing_with(arrays) as trace:
                out = self.hybrid_forward(sym, *_regroup(inputs, self._in_format), **params)
            self._traced_for = _signature(flat) if trace.read else None
            if isinstance(out, Symbol):
                self._out_format = "single"
            else:
                out, self._out_format = _flatten(out)
                _check_same_symbol_kind(out)
                out = sym.Group(out)
            self._cached_graph = (inputs, out)
        return self._cached_graph

    def _deferred_infer_shape(self, *args):
        inputs, out = self._get_graph(*args)
        shapes = {var.name: arg.shape for var, arg in zip(inputs, _flatten(args)[0])}
        arg_shapes, _, aux_shapes = out.infer_shape_partial(**shapes)
        inferred = dict(zip(out.list_arguments(), arg_shapes))
        inferred.update(zip(out.list_auxiliary_states(), aux_shapes))
        for name, param in self.collect_params().items():
            shape = inferred.get(name)
            if shape:
                param.shape = shape

    def _finish_deferred_init(self, *args):
        try:
            self._deferred_infer_shape(*args)
        except Exception as error:
            raise InvalidShapeError(f"{self.name}: deferred initialisation failed because shape "
                                    f"inference failed: {error}") from error
        for param in self.collect_params().values():
            param._finish_deferred_init()

    # -- running ---------------------------------------------------------------------------------
    def forward(self, x, *args):
        """Run ``hybrid_forward`` with ``F = nd`` (or the cached graph once hybridized);
        with a Symbol input, return the Symbol it builds."""
        if not args and isinstance(x, NDArray):
            flat, first = (x,), x        # one array, the common call: nothing to look through
        else:
            # as MXNet's: inputs may be nested lists, and None for an optional input left
            # out; the first array among them decides the mode and the context
            flat = _flatten((x,) + args)[0]
            first = next((item for item in flat if isinstance(item, (NDArray, Symbol))), None)
            if any(isinstance(item, Symbol) for item in flat) and any(
                    isinstance(item, NDArray) for item in flat):
                raise ValueError(f"{type(self).__name__}: the inputs mix Symbols and "
                                 f"NDArrays; give all of one kind")
            if isinstance(first, Symbol):
                params = {name: param.var() for name, param in self._reg_params.items()}
                with self.name_scope():
                    return self.hybrid_forward(sym, x, *args, **params)
            if first is None:
                raise ValueError(f"{type(self).__name__}: there must be at least one NDArray "
                                 f"or Symbol among the inputs, got {type(x).__name__}")
        if self._active and self._value_shaped is None:
            for item in flat:
                if not isinstance(item, NDArray):
                    raise ValueError(
                        f"{type(self).__name__}: when hybridized, the inputs must be (nested "
                        f"lists of) NDArrays, but got {item!r} of type {type(item).__name__}")
                if item.context != first.context:
                    raise ValueError(f"{type(self).__name__}: when hybridized, every input "
                                     f"must be on one context, got {first.context} and "
                                     f"{item.context}")
            try:
                return self._call_cached_op(x, *args)
            except ValueShapedError as error:
                self._run_imperatively_from_now(error)
        ctx = first.context
        with ctx:
            try:
                params = {name: p.data(ctx) for name, p in self._reg_params.items()}
            except DeferredInitializationError:
                self._finish_deferred_init(x, *args)
                params = {name: p.data(ctx) for name, p in self._reg_params.items()}
            try:
                out = self.hybrid_forward(nd, x, *args, **params)
            except InvalidShapeError as error:
                if getattr(error, "names_layer", False):
                    raise
                raise _unfit_input_error(self, error, first.shape) from error
        if is_np_array():
            _check_np_outputs(out)
        return out

    def _run_imperatively_from_now(self, error):
        """The trace met a function whose result's shape depends on values (``np.unique``,
        ``np.bincount``, a boolean mask): no graph can be planned ahead, so the block runs
        ``hybrid_forward`` with ``F = nd`` on every call (until ``hybridize()`` again), op by
        op as MXNet's CachedOp runs a graph of dynamic shapes; the results are the same."""
        self._clear_cached_op()
        self._value_shaped = str(error)
        warnings.warn(f"{self.name}: the hybridized graph cannot be planned ahead ({error}); "
                      f"the block runs imperatively", stacklevel=4)

    def _call_cached_op(self, *args):
        arrays, fmt = _flatten(args)        # None inputs left out, lists flattened
        traced_for = getattr(self, "_traced_for", None)
        if traced_for is not None and traced_for != _signature(arrays):
            self._clear_cached_op()         # the graph read shapes: trace these ones
        traced = getattr(self, "_in_format", None)       # a SymbolBlock traces nothing
        if self._cached_graph and traced is not None and _trimmed(fmt) != _trimmed(traced):
            raise ValueError(f"{type(self).__name__}: the inputs' structure (which are None, "
                             f"which are lists) differs from the call the graph was traced "
                             f"with; call hybridize() again to trace a new one")
        ctx = arrays[0].context
        if self._cached_op is None:
            with ctx:
                self._build_cache(*args)
        params = self._param_arrays(ctx)
        if params is None:
            try:
                params = [param.data(ctx) for param in self._cached_params]
            except DeferredInitializationError:
                with ctx:
                    self._finish_deferred_init(*args)
                params = [param.data(ctx) for param in self._cached_params]
            # A Parameter replaces its whole ``_data`` list whenever its arrays change
            # (initialize, cast, load, reset_ctx), which bumps ``Parameter.data_version``:
            # comparing that one number per call proves the cache still right without
            # ``param.data(ctx)``'s context lookups (the largest per-call cost).
            self._param_cache = (ctx, self._cached_params, Parameter.data_version, params)
        data = arrays if len(self._cached_data) == len(arrays) else \
            [arrays[i] for i in self._cached_data]
        try:
            out = self._cached_op(*data, *params, default_ctx=ctx)
        except InvalidShapeError as error:
            raise _unfit_input_error(_failing_layer(self, error.node_name), error,
                                     arrays[0].shape, network=self) from error
        if is_np_array():           # a block traced in np mode returns np arrays
            out = as_np(out)
        if self._out_format == "single":
            return out
        return _regroup(out if isinstance(out, list) else [out], self._out_format)

    def _param_arrays(self, ctx):
        """The cached parameter arrays for ``ctx``, or None when they may be stale."""
        cache = self._param_cache
        # a rebuilt CachedOp comes with a new _cached_params list
        if (cache is None or cache[0] is not ctx or cache[1] is not self._cached_params
                or cache[2] != Parameter.data_version):
            return None
        return cache[3]

    def _build_cache(self, *args):
        self._cache_graph(*self._get_graph(*args))

    def _cache_graph(self, inputs, out):
        """The CachedOp of graph ``out`` over the data ``inputs`` and this block's parameters.
        As MXNet's, it takes only the inputs the graph uses: a data input no computation
        reads (a sampler's shape-only use of it, a constant result) is left out of each
        call, with MXNet's warning."""
        data_names = [var.name for var in inputs]
        used = out.list_inputs()
        params = self.collect_params()
        param_names = [name for name in used if name not in data_names]
        unknown = [name for name in param_names if name not in params]
        if unknown:
            raise ValueError(f"{self.name}: the traced graph uses inputs {unknown} that are "
                             f"neither data nor parameters of this block")
        self._cached_data = [i for i, name in enumerate(data_names) if name in used]
        if len(self._cached_data) < len(data_names):
            unused = ", ".join(f"{i}-th" for i, name in enumerate(data_names)
                               if name not in used)
            warnings.warn(f"The {unused} input to HybridBlock is not used by any computation. "
                          f"Is this intended?", stacklevel=6)
        self._cached_op = CachedOp(out, [data_names[i] for i in self._cached_data] +
                                   param_names)
        self._cached_op.op_hook = getattr(self, "_op_hook", None)
        self._cached_params = [params[name] for name in param_names]

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward")

    # -- export ---------------------------------------------------------------------------------
    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (as MXNet's export does).

        The block must have been hybridized and run once.  Returns the two file names.
        """
        if not self._cached_graph:
            raise RuntimeError("Please first call block.hybridize() and then run forward with "
                               "this block at least once before calling export.")
        out = self._cached_graph[1]
        symbol_file, params_file = f"{path}-symbol.json", f"{path}-{epoch:04d}.params"
        out.save(symbol_file)
        arguments, auxiliary = set(out.list_arguments()), set(out.list_auxiliary_states())
        arrays = {}
        for name, param in self.collect_params().items():
            if name in arguments:
                arrays[f"arg:{name}"] = param._reduce()
            elif name in auxiliary:
                arrays[f"aux:{name}"] = param._reduce()
        nd.save(params_file, arrays)
        return symbol_file, params_file


def _failing_layer(block, node_name):
    """The block (``block`` or a descendant) whose prefix begins the failing node's name:
    the most specific one (``net.dense1_`` for node ``dense1_fwd``)."""
    found, todo = block, [block]
    while todo and node_name:
        current = todo.pop()
        todo.extend(current._children.values())
        if node_name.startswith(current.prefix) and len(current.prefix) > len(found.prefix):
            found = current
    return found


def _unfit_input_error(layer, error, input_shape, network=None):
    """An InvalidShapeError naming the layer, its mismatched Parameter(s) and both shapes."""
    text = error.detail or str(error)
    named = [p for key, p in layer._reg_params.items() if re.search(rf"\b{key}\b", text)]
    params = named or list(layer._reg_params.values())
    held = ", ".join(f"Parameter '{p.name}' has shape {p.shape}" for p in params)
    where = f"network '{network.name}'" if network is not None and network is not layer else ""
    given = f"{where} input" if where else "input"
    error = InvalidShapeError(
        f"{type(layer).__name__} layer '{layer.name}' cannot take the {given} of shape "
        f"{tuple(input_shape)}: {held or 'it has no Parameters'}; {text}. The Parameters were "
        f"initialised for another input shape: give inputs of that shape, or build (or "
        f"re-initialize) the network for the new one.")
    error.names_layer = True
    return error


def _check_np_outputs(out):
    """In np mode a block returns np arrays: a legacy NDArray among its outputs is a
    TypeError, as MXNet's."""
    for item in _flatten(out)[0]:
        if isinstance(item, NDArray) and not isinstance(item, np_ndarray):
            raise TypeError(f"Block's output ndarrays/symbols must be of type "
                            f"`mxnet.numpy.ndarray` or `mxnet.symbol.numpy._Symbol`, while got "
                            f"output type {type(item)}")


def _check_same_symbol_kind(outputs):
    """A graph's outputs are all np Symbols or all legacy ones (MXNet's TypeError): one
    graph gives one kind of array."""
    if len({isinstance(item, NpSymbol) for item in outputs}) > 1:
        raise TypeError("Found both classic symbol (mx.sym.Symbol) and numpy symbol "
                        "(mx.sym.np._Symbol) in outputs: a graph's outputs must be of one kind; "
                        "convert them with as_np_ndarray() or as_nd_ndarray()")


def _flatten(args):
    """(flat list of arrays or Symbols, format) of a nested list/tuple of them.

    The format is ``0`` for one array, ``None`` for None (an optional input left out),
    else ``(type, [formats of the items])``.
    """
    if args is None:
        return [], None
    if not isinstance(args, (list, tuple)):
        return [args], 0
    flat, formats = [], []
    for item in args:
        items, fmt = _flatten(item)
        flat.extend(items)
        formats.append(fmt)
    return flat, (type(args), formats)


def _trimmed(fmt):
    """A call's format without trailing None arguments: ``f(x)`` and ``f(x, None)`` are one
    call (a default left as it is)."""
    kind, formats = fmt
    formats = list(formats)
    while formats and formats[-1] is None:
        formats.pop()
    return kind, formats


def _regroup(flat, fmt):
    """Rebuild the nested structure ``fmt`` (from ``_flatten``) out of ``flat``."""
    def take(position, fmt):
        if fmt is None:
            return None, position
        if fmt == 0:
            return flat[position], position + 1
        kind, formats = fmt
        items = []
        for item_fmt in formats:
            item, position = take(position, item_fmt)
            items.append(item)
        return kind(items), position
    return take(0, fmt)[0]


def _signature(arrays):
    """The shapes and dtypes of a call's arrays (what a shape-reading trace depends on)."""
    return tuple((a.shape, a.dtype) for a in arrays if isinstance(a, NDArray))
