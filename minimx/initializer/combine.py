"""Initializers that choose by name: Mixed (regular expressions) and Load (saved arrays).

Lesson: 09-gluon.  Mirrors ``Mixed`` and ``Load`` in
``python/mxnet/initializer.py``.  In MXNet they are plain callables; here they
are Initializers too, so ``net.initialize(mx.init.Mixed(...))`` works in Gluon
as well as in ``Module.init_params``.  A Parameter's own ``init`` still wins.
"""
import re

from ..base import InvalidParameterError, InvalidShapeError, MXNetError
from .base import InitDesc, Initializer, create

__all__ = ["Mixed", "Load"]


class _ChooseByName(Initializer):
    """Dispatch on the array's name rather than on its suffix."""

    def __call__(self, desc, arr):
        own_init = desc.attrs.get("__init__") if isinstance(desc, InitDesc) else None
        if own_init and own_init is not self:
            super().__call__(desc, arr)
        else:
            self._init_by_name(_without_own_init(desc), arr)

    def _init_weight(self, desc, arr):
        self._init_by_name(_without_own_init(desc), arr)

    def dumps(self):
        raise MXNetError(f"{type(self).__name__} cannot be written as JSON; use it directly")


def _without_own_init(desc):
    """The same description minus ``__init__`` (so the chosen initializer's rules apply)."""
    if not isinstance(desc, InitDesc):
        return desc
    attrs = {key: value for key, value in desc.attrs.items() if key != "__init__"}
    return InitDesc(str(desc), attrs, desc.global_init)


class Mixed(_ChooseByName):
    """Use the initializer of the first pattern that matches the name (``re.match``).

    Examples
    --------
    >>> init = mx.init.Mixed(['.*bias', '.*'], [mx.init.Zero(), mx.init.One()])
    >>> w = nd.zeros((2,))
    >>> init(mx.init.InitDesc('fc_weight'), w)
    >>> w.asnumpy()
    array([1., 1.], dtype=float32)
    """

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise InvalidParameterError(f"Mixed: {len(patterns)} patterns but "
                                        f"{len(initializers)} initializers")
        super().__init__()
        self.map = [(re.compile(pattern), create(init))
                    for pattern, init in zip(patterns, initializers)]

    def _init_by_name(self, desc, arr):
        for pattern, init in self.map:
            if pattern.match(desc):
                init(desc, arr)
                return
        raise InvalidParameterError(
            f"Parameter name {desc} did not match any pattern of Mixed "
            f"({', '.join(p.pattern for p, _ in self.map)}); add a '.*' pattern at the end "
            f"with a default initializer")


class Load(_ChooseByName):
    """Copy arrays from a dict (or an ``nd.save`` file) by name; others use ``default_init``.

    Names saved as ``arg:name`` or ``aux:name`` (Module checkpoints) match ``name``.
    """

    def __init__(self, param, default_init=None, verbose=False):
        super().__init__()
        if isinstance(param, str):
            from ..ndarray import load
            param = load(param)
        if not isinstance(param, dict):
            raise InvalidParameterError("Load: expected a file name or a dict of NDArrays, "
                                        f"got {type(param).__name__}")
        self.param = {_strip_arg_aux(name): value for name, value in param.items()}
        self.default_init = default_init
        self.verbose = verbose

    def _init_by_name(self, desc, arr):
        name = str(desc)
        if name in self.param:
            saved = self.param[name]
            if tuple(arr.shape) != tuple(saved.shape):
                raise InvalidShapeError(
                    f"Parameter {name} cannot be initialized from loading. Shape mismatch, "
                    f"target {tuple(arr.shape)} vs loaded {tuple(saved.shape)}")
            arr[:] = saved.as_in_context(arr.context)
            source = "loading"
        elif self.default_init is not None:
            self.default_init(desc, arr)
            source = "default"
        else:
            raise InvalidParameterError(f"Cannot initialize {name}: not found in the loaded "
                                        f"arrays and no default initializer was given")
        if self.verbose:
            import logging
            logging.info("Initialized %s by %s", name, source)


def _strip_arg_aux(name):
    return name[4:] if name.startswith(("arg:", "aux:")) else name
