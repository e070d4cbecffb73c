"""The initializer protocol: ``InitDesc`` names an array, ``Initializer`` fills it.

Lesson: 09-gluon.  Mirrors ``python/mxnet/initializer.py``.  An
initializer is called as ``init(desc, arr)``.  When ``desc`` carries an
``__init__`` attribute (a Parameter's or Variable's own initializer) that one
fills the array; otherwise the name's suffix decides: ``*weight`` gets
``_init_weight``, ``*bias`` and ``*beta`` zeros, ``*gamma`` ones.  Every class
is registered by its lower-case name, so ``create('xavier')`` and the JSON
written by ``dumps()`` give the initializer back.
"""
import json
import logging
import math
import warnings

from ..base import InvalidParameterError, InvalidTypeError
from ..registry import Registry

__all__ = ["InitDesc", "Initializer", "register", "alias", "create"]


class InitDesc(str):
    """The name of an array to initialise, with its attributes.

    Parameters
    ----------
    name : str
        The array's name (``'fc1_weight'``); the suffix selects the fill.
    attrs : dict of str to str, optional
        Attributes, as ``Symbol.attr_dict()`` gives them; ``'__init__'`` names
        an initializer that overrides the suffix rule.
    global_init : Initializer, optional
        The initializer the call started from.
    """

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super().__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc


class Initializer:
    """Base class: subclasses define ``_init_weight(desc, arr)``, which writes into ``arr``.

    The keyword arguments given to ``__init__`` are kept for ``dumps()``.
    """

    # (name suffix, method) in the order MXNet tries them for an InitDesc
    _SUFFIX_RULES = (("weight", "_init_weight"), ("bias", "_init_bias"),
                     ("gamma", "_init_gamma"), ("beta", "_init_beta"),
                     ("min", "_init_zero"), ("max", "_init_one"))
    # the longer list used when called with a plain string name
    _LEGACY_RULES = (("bias", "_init_bias"), ("gamma", "_init_gamma"),
                     ("beta", "_init_beta"), ("weight", "_init_weight"),
                     ("moving_mean", "_init_zero"), ("moving_var", "_init_one"),
                     ("moving_inv_var", "_init_zero"), ("moving_avg", "_init_zero"),
                     ("min", "_init_zero"), ("max", "_init_one"))

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log a statistic of each array filled (default: its root mean square)."""
        self._verbose = verbose
        self._print_func = print_func or _root_mean_square
        return self

    def dumps(self):
        """This initializer as JSON: ``'["name", {kwargs}]'``, readable by ``create``."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        """Fill ``arr`` (an NDArray) for the array described by ``desc``."""
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        own_init = desc.attrs.get("__init__", "")
        if own_init:
            create(own_init)._init_weight(desc, arr)
            self._verbose_print(desc, own_init, arr)
            return
        for suffix, method in self._SUFFIX_RULES:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        """The older call ``init(name, arr)`` with a plain string name."""
        warnings.warn("calling an initializer with init(str, NDArray) is deprecated; use "
                      "init(mx.init.InitDesc(name), arr)", DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise InvalidTypeError(f"initializer: name must be a string, got {name!r}")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        else:
            self._init_by_suffix(name, arr)

    def _init_by_suffix(self, name, arr):
        for suffix, method in self._LEGACY_RULES:
            if name.endswith(suffix):
                getattr(self, method)(name, arr)
                return
        self._init_default(name, arr)

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    # -- the fills the suffix rules choose -----------------------------------------------
    def _init_weight(self, desc, arr):
        raise NotImplementedError(f"{type(self).__name__} must define _init_weight")

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    _init_bias = _init_beta = _init_zero
    _init_gamma = _init_one

    def _init_bilinear(self, _, arr):
        from .fixed import bilinear_kernel
        arr[:] = bilinear_kernel(arr.shape)

    def _init_loc_bias(self, _, arr):
        if arr.shape[0] != 6:
            raise InvalidParameterError(f"stn_loc bias must have 6 elements, got {arr.shape}")
        arr[:] = [1.0, 0, 0, 0, 1.0, 0]      # the identity affine transform

    def _init_default(self, name, _):
        raise InvalidParameterError(
            f"Unknown initialization pattern for {name}. Default initialization is limited "
            f"to names ending in 'weight', 'bias', 'gamma' (1.0) and 'beta' (0.0); give the "
            f"array its own initializer (Parameter(init=...) or "
            f"mx.sym.Variable(init=mx.init.*)) for other names")

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__

    def __repr__(self):
        args = ", ".join(f"{key}={value!r}" for key, value in self._kwargs.items())
        return f"{type(self).__name__}({args})"


def _root_mean_square(arr):
    from .. import ndarray
    return str((ndarray.norm(arr) / math.sqrt(arr.size)).asscalar())


REGISTRY = Registry(Initializer, "initializer")


def register(klass):
    """Class decorator: make ``klass`` creatable by its lower-case name.

    Examples
    --------
    >>> @mx.init.register
    ... class Halves(mx.init.Initializer):
    ...     def _init_weight(self, _, arr):
    ...         arr[:] = 0.5
    >>> type(mx.init.create('halves')).__name__
    'Halves'
    """
    return REGISTRY.register(klass)


def alias(*names):
    """Class decorator adding other names, e.g. ``@alias('zeros')``."""
    return REGISTRY.alias(*names)


def create(spec, *args, **kwargs):
    """An initializer from an instance, a registered name, or ``dumps()`` JSON.

    Examples
    --------
    >>> mx.init.create('["normal", {"sigma": 0.5}]').sigma
    0.5
    """
    return REGISTRY.create(spec, *args, **kwargs)
