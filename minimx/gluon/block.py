"""Block: the base of every Gluon layer and model, run imperatively.

Lesson: 09-gluon.  Mirrors ``Block`` in ``python/mxnet/gluon/block.py``.  A
Block owns Parameters and child Blocks (registered by assigning them as
attributes), gives them names from its prefix, and computes ``forward``.
"""
import re
import warnings
from collections import OrderedDict

from ..base import InvalidParameterError, MXNetError, ParameterMismatchError
from .block_scope import BlockScope, make_prefix

__all__ = ["Block"]


def _load_arrays(filename):
    """The arrays of a parameter file.  Under NumPy shape semantics a file saved outside them
    loads too, as in MXNet 1.9.1 (the legacy shapes are a subset of NumPy's): course code
    loads pretrained weights saved by ``nd.save`` into a ``npx.set_np()`` network."""
    from .. import ndarray as nd
    from ..base import ShapeSemanticsError
    from ..util import is_np_shape, np_shape
    try:
        return nd.load(filename)
    except ShapeSemanticsError:
        if not is_np_shape():
            raise
    with np_shape(False):
        return nd.load(filename)


class Block:
    """Base class of layers and models: subclass it and write ``forward``.

    Examples
    --------
    >>> class Twice(mx.gluon.Block):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> Twice()(nd.ones((2,))).asnumpy()
    array([2., 2.], dtype=float32)
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = make_prefix(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def _alias(self):
        return self.__class__.__name__.lower()

    # -- naming and registration --------------------------------------------------------------
    @property
    def prefix(self):
        """The prefix of this Block's parameter and child names, e.g. ``dense0_``."""
        return self._prefix

    @property
    def name(self):
        return self._name

    @property
    def params(self):
        """This Block's own ParameterDict (not its children's; see ``collect_params``)."""
        return self._params

    def name_scope(self):
        """``with self.name_scope():`` makes children and symbols created inside use the prefix."""
        return self._scope

    def __setattr__(self, name, value):
        from .parameter import Parameter
        if hasattr(self, "_children"):
            existing = self.__dict__.get(name)
            if isinstance(existing, (Block, Parameter)) and not isinstance(value, type(existing)):
                raise TypeError(f"changing attribute '{name}' from {type(existing).__name__} "
                                f"to {type(value).__name__} is not allowed")
            if isinstance(value, Block):
                self.register_child(value, name)
            elif isinstance(value, Parameter):
                self._reg_params[name] = value
        super().__setattr__(name, value)

    def register_child(self, block, name=None):
        """Make ``block`` a child (its parameters become part of this Block's)."""
        self._children[name or str(len(self._children))] = block
        return block

    def register_forward_pre_hook(self, hook):
        """Call ``hook(block, inputs)`` before every forward; ``handle.detach()`` removes it."""
        return _HookHandle(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """Call ``hook(block, inputs, outputs)`` after every forward."""
        return _HookHandle(self._forward_hooks, hook)

    # -- parameters ------------------------------------------------------------------------------
    def collect_params(self, select=None):
        """A ParameterDict of this Block's and all descendants' parameters.

        ``select`` is a regular expression (or ``|``-joined ones) the names must match:
        ``net.collect_params('.*weight|.*bias')``.
        """
        from .parameter import ParameterDict
        collected = ParameterDict(self._params.prefix)
        pattern = None if select is None else re.compile(select)
        for block in self._walk():
            block._warn_of_unregistered_blocks()
            for name, param in block.params.items():
                if pattern is None or pattern.match(name):
                    collected._params[name] = param
        return collected

    def _warn_of_unregistered_blocks(self):
        """Blocks kept in a list, tuple or dict attribute are not children (their parameters
        are not collected): warn, as MXNet does, naming the attribute."""
        def holds_block(value):
            if isinstance(value, Block):
                return True
            items = value.values() if isinstance(value, dict) else value
            return isinstance(value, (list, tuple, dict)) and any(holds_block(v) for v in items)

        for name, value in vars(self).items():
            if isinstance(value, (list, tuple, dict)) and not name.startswith("_") and \
                    holds_block(value):
                warnings.warn(f"'{name}' of {type(self).__name__} is a container with Blocks. "
                              f"Blocks inside a list, tuple or dict are not registered "
                              f"automatically: register them with register_child() or use "
                              f"nn.Sequential/nn.HybridSequential instead.", stacklevel=3)

    def _walk(self):
        yield self
        for child in self._children.values():
            yield from child._walk()

    def _collect_params_with_prefix(self, prefix=""):
        """{structural name ('0.weight', 'fc1.bias'): Parameter}, the keys of save_parameters."""
        if prefix:
            prefix += "."
        result = {prefix + name: param for name, param in self._reg_params.items()}
        for name, child in self._children.items():
            result.update(child._collect_params_with_prefix(prefix + name))
        return result

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialise every parameter (shapes still unknown wait for the first forward)."""
        from ..initializer import Uniform
        self.collect_params().initialize(init if init is not None else Uniform(), ctx, verbose,
                                         force_reinit)

    def save_parameters(self, filename, deduplicate=False):
        """Write the parameters to ``filename`` in MXNet's .params format, keyed '0.weight'..."""
        from .. import ndarray as nd
        params = self._collect_params_with_prefix()
        if deduplicate:     # a shared parameter is saved once, under its last name (as MXNet)
            last_name = {id(param): name for name, param in params.items()}
            params = {last_name[id(param)]: param for param in params.values()}
        nd.save(filename, {name: param._reduce() for name, param in params.items()})

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current"):
        """Load parameters written by ``save_parameters`` (by minimx or MXNet 1.x)."""
        loaded = _load_arrays(filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:      # a parameter-free block's (empty) file
            return
        if isinstance(loaded, list):
            raise MXNetError(f"load_parameters: {filename} holds unnamed arrays, not parameters")
        legacy = loaded and not any("." in key for key in loaded)
        if legacy:                                              # an old save_params file
            loaded = _match_full_names(self, loaded)
        names_of = {}       # a shared parameter loads from any of its names (dedup'd files)
        for name, param in params.items():
            names_of.setdefault(id(param), []).append(name)
        missing = [name for name, param in params.items()
                   if not any(other in loaded for other in names_of[id(param)])]
        if missing and not allow_missing:
            raise ParameterMismatchError(
                f"load_parameters: {filename} lacks parameters {missing} (pass "
                f"allow_missing=True to keep their current values)")
        extra = [name for name in loaded if name not in params]
        if extra and not ignore_extra:
            # MXNet: an assert for a file of full names, a ValueError for structural names
            kind = ParameterMismatchError if legacy else InvalidParameterError
            raise kind(f"load_parameters: {filename} has parameters {extra} that this Block "
                       f"does not have (pass ignore_extra=True to skip them)")
        for name, value in loaded.items():
            if name in params:
                params[name]._load_init(value, ctx, cast_dtype=cast_dtype,
                                        dtype_source=dtype_source)

    def save(self, prefix):
        """Write the structure (``<prefix>-model.json``, with traced graphs of hybridized
        blocks) and the parameters (``<prefix>-model.params``); see ``model_file.py``."""
        from .model_file import save_model
        save_model(self, prefix)

    def load(self, prefix):
        """Load what ``save`` wrote into this block, built as it was when saved."""
        from .model_file import load_model
        load_model(self, prefix)

    def save_params(self, filename):
        """Deprecated MXNet name: writes the parameters by their full names, less this
        Block's prefix (the format before ``save_parameters``; ``load_params`` and
        ``SymbolBlock`` read it)."""
        warnings.warn("save_params is deprecated. Please use save_parameters.",
                      DeprecationWarning, stacklevel=2)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated MXNet name of ``load_parameters``."""
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def cast(self, dtype):
        """Convert every parameter (and child) to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self._params.values():
            param.cast(dtype)

    def apply(self, fn):
        """Call ``fn(block)`` on every child (depth first), then on this Block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def hybridize(self, active=True, **kwargs):
        """Plain Blocks cannot be compiled, but their HybridBlock children can."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def zero_grad(self):
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        self.collect_params().reset_ctx(ctx)

    # -- running ---------------------------------------------------------------------------------
    def __call__(self, *args):
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args)          # the common case, kept cheap
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, args)
        out = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, out)
        return out

    def forward(self, *args):
        raise NotImplementedError(f"{type(self).__name__} must define forward")

    def summary(self, *inputs):
        """Print each layer's output shape and parameter count for ``inputs``.  A hybridized
        block runs as one graph, whose layers no hook sees: it is refused (an
        ``AssertionError``, as MXNet's)."""
        if getattr(self, "_active", False):
            raise AssertionError(f"{self.name}: summary() cannot look inside a hybridized "
                                 f"block; call it before hybridize()")
        from .summary import print_summary
        print_summary(self, inputs)

    def __repr__(self):
        children = "\n".join(f"  ({key}): " + repr(child).replace("\n", "\n  ")
                             for key, child in self._children.items())
        return f"{type(self).__name__}(\n{children}\n)"   # MXNet's "Name(\n\n)" when empty


def _match_full_names(block, loaded):
    """Map an old ``save_params`` file to structural names.  Its names are the parameters'
    full names ('dense0_weight'), or those names without the block's own prefix (MXNet saved
    ``strip_prefix=block.prefix``, as its model-store files are: 'conv0_weight' for a
    ResNet whose prefix is 'resnetv20_')."""
    by_full_name = {param.name: key for key, param in block._collect_params_with_prefix().items()}

    def structural(name):
        return by_full_name.get(name, by_full_name.get(block.prefix + name, name))

    return {structural(name): value for name, value in loaded.items()}


class _HookHandle:
    """Returned by ``register_forward_hook``: ``handle.detach()`` removes the hook."""

    _next_id = 0

    def __init__(self, hooks, hook):
        self._hooks = hooks
        self._id = _HookHandle._next_id
        _HookHandle._next_id += 1
        hooks[self._id] = hook

    def detach(self):
        self._hooks.pop(self._id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.detach()
