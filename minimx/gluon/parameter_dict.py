"""``ParameterDict``: the parameters of a Block (and its children), by full name.

Lesson: 09-gluon.  Mirrors ``ParameterDict`` in
``python/mxnet/gluon/parameter.py``.  Names are the dict's prefix plus the
local name (``'dense0_' + 'weight'``).  A dict created with ``shared=other``
hands out ``other``'s Parameter objects, which is how two Blocks share
weights.  ``save`` / ``load`` use MXNet's ``.params`` format (``nd.save`` of a
name -> array dict), so files move between MXNet 1.x and minimx.
"""
import re
from collections import OrderedDict

import numpy as np

from .. import initializer, ndarray
from ..base import InvalidParameterError, ParameterMismatchError
from .parameter import Constant, Parameter, zero_gradients

__all__ = ["ParameterDict", "select_params"]


def select_params(params, select=None):
    """The (name, Parameter) pairs of ``params`` whose name matches ``select``.

    ``select`` is a regular expression matched at the start of the name
    (``re.match``, as ``Block.collect_params('.*weight')`` does); None or ''
    selects everything.  ``params`` is a ParameterDict or a dict.
    """
    if not select:
        return OrderedDict(params.items())
    pattern = re.compile(select)
    return OrderedDict((name, param) for name, param in params.items() if pattern.match(name))


def _brief_list(names, limit=7):
    """``'a', 'b', ..., 'z'``: at most ``limit`` names, for error messages."""
    names = [repr(name) for name in names]
    if len(names) > limit:
        names = names[:limit // 2] + ["..."] + names[-(limit // 2):]
    return ", ".join(names)


class ParameterDict:
    """An ordered dict of Parameters whose names all start with ``prefix``.

    Parameters
    ----------
    prefix : str, default ''
        Prepended to the names given to ``get``.
    shared : ParameterDict, optional
        ``get`` looks here before creating a new Parameter (parameter sharing).

    Examples
    --------
    >>> params = mx.gluon.ParameterDict('net_')
    >>> params.get('weight', shape=(2, 3))
    Parameter net_weight (shape=(2, 3), dtype=<class 'numpy.float32'>)
    """

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        title = f"{self._prefix} " if self._prefix else ""
        content = "\n".join(f"  {param}" for param in self.values())
        return f"{title}(\n{content}\n)"

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        """The prefix ``get`` prepends to names."""
        return self._prefix

    # -- creating and finding ----------------------------------------------------------------
    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``: found here, in ``shared``, or created with kwargs.

        When it exists already, each keyword must agree with it: a shape may
        fill in its unknown (0) dimensions, an attribute that is None is set.
        """
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            existing = getattr(param, key, None)
            if existing is None:
                setattr(param, key, value)
            elif not _agrees(param, key, value, existing):
                raise InvalidParameterError(
                    f"Cannot retrieve Parameter '{name}' because desired attribute does not "
                    f"match with stored for attribute '{key}': desired '{value}' vs stored "
                    f"'{existing}'.")
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name``: found, shared, or created from ``value``."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise InvalidParameterError(f"No constant named '{name}'. Please specify value "
                                            f"if you want to create a new constant.")
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise InvalidParameterError(f"Parameter '{name}' already exists but it is not "
                                            f"a constant.")
            value = value.asnumpy() if isinstance(value, ndarray.NDArray) else np.asarray(value)
            stored = param.value.asnumpy()
            if stored.shape != value.shape or not (stored == value).all():
                raise InvalidParameterError(f"Constant '{name}' already exists but its value "
                                            f"doesn't match the new value")
        return param

    def update(self, other):
        """Add all Parameters of ``other`` (a ParameterDict or dict) to this one."""
        for name, param in other.items():
            if name in self._params and self._params[name] is not param:
                raise InvalidParameterError(
                    f"Cannot update self with other because they have different Parameters "
                    f"with the same name '{name}'")
        for name, param in other.items():
            self._params[name] = param

    def select(self, select=None):
        """A ParameterDict (same prefix) of the Parameters whose names match ``select``."""
        selected = ParameterDict(self._prefix)
        selected.update(select_params(self, select))
        return selected

    # -- acting on every Parameter -------------------------------------------------------------
    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initialise every Parameter; each one's own ``init`` overrides ``init``."""
        if verbose and hasattr(init, "set_verbosity"):
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set every gradient buffer to 0, those of every Parameter together
        (``parameter.zero_gradients``: one operation per device)."""
        zero_gradients([gradient for param in self.values() for gradient in param._grad or ()])

    def reset_ctx(self, ctx):
        """Move every Parameter to other context(s)."""
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self):
        """All contexts any Parameter is initialised on."""
        contexts = []
        for param in self.values():
            contexts.extend(ctx for ctx in param.list_ctx() if ctx not in contexts)
        return contexts

    def setattr(self, name, value):
        """Set attribute ``name`` on every Parameter, e.g. ``setattr('grad_req', 'null')``."""
        for param in self.values():
            setattr(param, name, value)

    # -- files ---------------------------------------------------------------------------------
    def save(self, filename, strip_prefix=""):
        """Write every Parameter (averaged over contexts) to ``filename``.

        ``strip_prefix`` is removed from each name; every name must start with it.
        """
        arrays = {}
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise InvalidParameterError(
                    f"Prefix '{strip_prefix}' is to be striped before saving, but Parameter's "
                    f"name '{param.name}' does not start with '{strip_prefix}'. This may be "
                    f"because your Block shares parameters from other Blocks or you forgot to "
                    f"use 'with name_scope()' when creating child blocks.")
            arrays[param.name[len(strip_prefix):]] = param._reduce()
        ndarray.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix="", cast_dtype=False, dtype_source="current"):
        """Read Parameters from a ``.params`` file (``restore_prefix`` is prepended to names).

        Parameters
        ----------
        allow_missing : bool
            Leave Parameters that the file lacks as they are, instead of failing.
        ignore_extra : bool
            Skip arrays of the file that match no Parameter, instead of failing.
        cast_dtype, dtype_source :
            Convert a saved dtype that differs: to the Parameter's ('current') or
            the Parameter to the saved one ('saved').
        """
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise InvalidParameterError(
                        f"restore_prefix is '{restore_prefix}' but Parameters name '{name}' "
                        f"does not start with '{restore_prefix}'")
        loaded = ndarray.load(filename)
        self.load_dict(loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename,
                       cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False,
                  restore_prefix="", filename=None, cast_dtype=False, dtype_source="current"):
        """Like ``load``, from a dict name -> NDArray (``arg:``/``aux:`` prefixes are dropped)."""
        source = f"file: {filename}" if filename else "param_dict"
        if not isinstance(param_dict, dict):
            raise InvalidParameterError(f"{source} holds arrays without names; Parameters can "
                                        f"only be loaded from a dict of named arrays")
        arrays = {restore_prefix + _strip_arg_aux(name): value
                  for name, value in param_dict.items()}
        self._check_names(arrays, allow_missing, ignore_extra, restore_prefix, source)
        for name, value in arrays.items():
            if name in self._params:
                self._params[name]._load_init(value, ctx, cast_dtype=cast_dtype,
                                              dtype_source=dtype_source)

    def _check_names(self, arrays, allow_missing, ignore_extra, restore_prefix, source):
        strip = len(restore_prefix)
        missing = [name[strip:] for name in self.keys() if name not in arrays]
        if missing and not allow_missing:
            raise ParameterMismatchError(
                f"Parameter(s) {_brief_list(missing)} missing in {source}, which contains "
                f"parameters: {_brief_list(name[strip:] for name in arrays)}. Set "
                f"allow_missing=True to ignore. Please make sure source and target networks "
                f"have the same prefix.")
        extra = [name[strip:] for name in arrays if name not in self._params]
        if extra and not ignore_extra:
            raise ParameterMismatchError(
                f"Parameter(s) {_brief_list(extra)} loaded from {source} not present in "
                f"ParameterDict, choices are: {_brief_list(self.keys())}. Set ignore_extra to "
                f"True to ignore. Please make sure source and target networks have the same "
                f"prefix.")


def _agrees(param, key, value, existing):
    """Whether ``get(..., key=value)`` agrees with a stored attribute (shapes may merge)."""
    if key == "shape":
        return _merge_shape(param, value, existing)
    if key == "dtype":
        return np.dtype(value) == np.dtype(existing)
    return value is None or value == existing


def _merge_shape(param, wanted, existing):
    """Fill unknown (0) dimensions of either shape from the other; False on a conflict."""
    wanted = (wanted,) if isinstance(wanted, int) else tuple(wanted)
    if len(wanted) != len(existing):
        return False
    if any(a != b and a > 0 and b > 0 for a, b in zip(wanted, existing)):
        return False
    param._shape = tuple(a if a > 0 else b for a, b in zip(wanted, existing))
    return True


def _strip_arg_aux(name):
    return name[4:] if name.startswith(("arg:", "aux:")) else name
