"""SymbolBlock: a Gluon block made from a Symbol, e.g. a model exported by MXNet or minimx.

Lesson: 10-hybridize.  Mirrors ``SymbolBlock`` in ``python/mxnet/gluon/block.py``.
Every input of the graph that is not data becomes a Parameter (auxiliary
states get ``grad_req='null'``); calls run the graph as a CachedOp.
"""
from .. import ndarray as nd
from .. import symbol as sym
from ..base import MXNetError
from ..symbol import Symbol
from .hybrid_block import HybridBlock

__all__ = ["SymbolBlock"]


class SymbolBlock(HybridBlock):
    """Wrap ``outputs`` (a Symbol or list) computed from ``inputs`` (Variables) as a block."""

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix="", params=None)
        self._prefix = ""
        outputs = outputs if isinstance(outputs, Symbol) else sym.Group(list(outputs))
        inputs = [inputs] if isinstance(inputs, Symbol) else list(inputs)
        data_names = [var.name for var in inputs]
        unknown = [name for name in data_names if name not in outputs.list_inputs()]
        if unknown:
            raise MXNetError(f"SymbolBlock: inputs {unknown} are not inputs of the graph")
        auxiliary = set(outputs.list_auxiliary_states())
        for name in outputs.list_inputs():
            if name not in data_names:
                shared = params[name] if params is not None and name in params else None
                if shared is not None:
                    self._params._params[name] = shared
                else:
                    self._params.get(name, grad_req="null" if name in auxiliary else "write",
                                     allow_deferred_init=True)
        self._cached_graph = (inputs, outputs)
        # a list of one NDArray per output (``_flatten``'s format: the kind, then each item's)
        self._out_format = "single" if len(outputs) == 1 else (list, [0] * len(outputs))
        # as MXNet's: the parameters are this block's own, named without their common
        # prefix ('weight' for 'dense0_weight'), which is what save_parameters writes
        names = list(self._params.keys())
        common = _common_prefix(names)
        for name in names:
            self._reg_params[name[len(common):]] = self._params[name]

    def __repr__(self):     # MXNet's "SymbolBlock(\n<Symbol act> : 1 -> 1\n)"
        inputs, outputs = self._cached_graph
        return (f"{type(self).__name__}(\n{outputs!r} : {len(inputs)} -> "
                f"{len(outputs.list_outputs())}\n)")

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """A SymbolBlock from ``*-symbol.json`` and ``*.params`` files (minimx's or MXNet's)."""
        outputs = sym.load(symbol_file)
        names = [input_names] if isinstance(input_names, str) else list(input_names)
        block = SymbolBlock(outputs, [sym.var(name) for name in names])
        if param_file is not None:
            block._load_exported(param_file, ctx, allow_missing, ignore_extra)
        return block

    def _load_exported(self, param_file, ctx, allow_missing, ignore_extra):
        loaded = nd.load(param_file)
        if not isinstance(loaded, dict):
            raise MXNetError(f"{param_file}: expected named arrays (arg:/aux: keys)")
        values = {key.split(":", 1)[1] if key[:4] in ("arg:", "aux:") else key: value
                  for key, value in loaded.items()}
        params = self.collect_params()
        missing = [name for name in params if name not in values]
        if missing and not allow_missing:
            raise MXNetError(f"{param_file} lacks parameters {missing}")
        extra = [name for name in values if name not in params]
        if extra and not ignore_extra:
            raise MXNetError(f"{param_file} has parameters {extra} the graph does not use")
        for name, value in values.items():
            if name in params:
                params[name]._load_init(value, ctx)

    def forward(self, x, *args):
        if isinstance(x, Symbol):
            inputs, outputs = self._cached_graph
            return outputs(**{var.name: arg for var, arg in zip(inputs, (x, *args))})
        with x.context:
            return self._call_cached_op(x, *args)

    def _build_cache(self, *args):
        inputs, out = self._cached_graph
        from .cached_op import CachedOp
        data_names = [var.name for var in inputs]
        param_names = [name for name in out.list_inputs() if name not in data_names]
        params = self.collect_params()
        self._cached_op = CachedOp(out, data_names + param_names)
        self._cached_params = [params[name] for name in param_names]

    def _clear_cached_op(self):
        self._cached_op = None

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("SymbolBlock runs its graph directly")


def _common_prefix(names):
    """The longest prefix, ending at an ``_``, that every name has and none is only."""
    if not names:
        return ""
    prefix = names[0]
    for name in names[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    prefix = prefix[:prefix.rfind("_") + 1]
    return "" if any(name == prefix for name in names) else prefix
