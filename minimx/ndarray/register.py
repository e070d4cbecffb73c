"""Generate ``nd.<op>`` functions from the operator registry.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/ndarray/register.py``, but builds
real closures with a ``__signature__`` and ``__doc__`` instead of generating
source text and ``exec``-ing it: ``help(nd.FullyConnected)`` and tracebacks
point at real code.
"""
import inspect

from ..base import InvalidParameterError, is_attribute_key
from ..op import get_op
from ..op.registry import params_key
from .dispatch import invoke
from .ndarray import NDArray

__all__ = ["make_function", "call", "split_arguments", "signature_of"]

_FRONTEND_KEYWORDS = ("out", "name", "ctx")


def split_arguments(op_cls, args, kwargs):
    """Sort a call's arguments into input NDArrays and parameters.

    Positional arguments fill the inputs in order, then the parameters in
    declaration order, as MXNet's generated functions do.
    """
    params = dict(kwargs)
    if op_cls.variadic:
        inputs = list(args)
        if "num_args" in op_cls.params:
            params.setdefault("num_args", len(inputs))
        return inputs, params
    names = op_cls.inputs
    given = dict(zip(names, args))
    extra = args[len(names):]           # parameters given by position (most calls: none)
    for name, value in zip(list(op_cls.params) if extra else (), extra):
        if name in params:
            raise InvalidParameterError(f"operator {op_cls.name}: '{name}' given twice")
        if isinstance(value, NDArray):
            raise InvalidParameterError(
                f"operator {op_cls.name}: takes {len(names)} input(s) {tuple(names)}, but an "
                f"NDArray was given in the place of parameter '{name}'")
        params[name] = value
    if len(args) > len(names) + len(op_cls.params):
        raise InvalidParameterError(
            f"operator {op_cls.name}: too many positional arguments ({len(args)})")
    for name in names:
        if name in params:
            given[name] = params.pop(name)
    return given, params


def _ordered_inputs(op, given):
    inputs = []
    for name in op.list_inputs():
        value = given.get(name)
        if value is None:
            raise InvalidParameterError(f"operator {op.name}: input '{name}' is missing")
        inputs.append(value)
    extra = set(given) - set(op.list_inputs())
    if extra and any(given[name] is not None for name in extra):
        raise InvalidParameterError(
            f"operator {op.name}: unexpected input(s) {sorted(extra)} for these parameters")
    return inputs


def call(op_name, *args, out=None, ctx=None, **kwargs):
    """Call a registered operator by name: ``call('broadcast_add', a, b)``."""
    return _call(get_op(op_name), args, kwargs, out, ctx)


def _call(op_cls, args, kwargs, out, ctx):
    stype = None
    if kwargs:
        # the storage type of the result (cast_storage's own parameter)
        stype = kwargs.get("stype") if "stype" in op_cls.params else kwargs.pop("stype", None)
        # graph attributes (``__layout__``) mean nothing to an imperative call
        for key in kwargs:
            if is_attribute_key(key):
                kwargs = {key: value for key, value in kwargs.items()
                          if not is_attribute_key(key)}
                break
    given, params = split_arguments(op_cls, args, kwargs)
    op = _instance(op_cls, params)
    inputs = given if op_cls.variadic else _ordered_inputs(op, given)
    if op_cls.variadic and "num_args" in op_cls.params and op.num_args != len(inputs):
        raise InvalidParameterError(
            f"operator {op_cls.name}: num_args={op.num_args}, but {len(inputs)} input(s) given")
    result = invoke(op, inputs, out=out, ctx=ctx)
    if stype is not None and isinstance(result, NDArray) and result.stype != stype:
        from .sparse_array import cast_storage
        result = cast_storage(result, stype)
    return result


# (operator class, its parameters as the call gave them, in that order) -> the instance.
# ``OpDef.create`` keys its cache on the parameters sorted by name; a program calls an
# operator from the same line again and again (a layer's ``F.Convolution(x, w, b,
# **self._kwargs)``), always in the same order, so this lookup skips the sort.
_BY_CALL_ORDER = {}
_BY_CALL_ORDER_LIMIT = 4096


def _instance(op_cls, params):
    """``op_cls.create(**params)``, found by the call's own order of the parameters."""
    if not params:
        return op_cls.create()
    key = (op_cls, params_key(params.items()))
    try:
        instance = _BY_CALL_ORDER.get(key)
    except TypeError:                   # an unhashable value (a list): not kept here either
        return op_cls.create(**params)
    if instance is None:
        if len(_BY_CALL_ORDER) >= _BY_CALL_ORDER_LIMIT:
            _BY_CALL_ORDER.clear()
        instance = _BY_CALL_ORDER[key] = op_cls.create(**params)
    return instance


def signature_of(op_cls):
    """The Python signature of the generated function: inputs, parameters, out/name."""
    kind = inspect.Parameter
    if op_cls.variadic:
        parameters = [kind("data", kind.VAR_POSITIONAL)]
        param_kind = kind.KEYWORD_ONLY
    else:
        parameters = [kind(name, kind.POSITIONAL_OR_KEYWORD, default=None)
                      for name in op_cls.inputs]
        param_kind = kind.POSITIONAL_OR_KEYWORD
    for name, declared in op_cls.params.items():
        if op_cls.variadic and name == "num_args":
            continue
        default = kind.empty if declared.required else declared.default
        if param_kind is kind.POSITIONAL_OR_KEYWORD and default is kind.empty:
            default = None
        parameters.append(kind(name, param_kind, default=default))
    parameters += [kind(name, kind.KEYWORD_ONLY, default=None) for name in _FRONTEND_KEYWORDS]
    return inspect.Signature(parameters)


def _docstring(op_cls):
    lines = [inspect.cleandoc(op_cls.__doc__ or op_cls.name), "", "Parameters", "----------"]
    for name in ("*data",) if op_cls.variadic else op_cls.inputs:
        lines += [f"{name} : NDArray", "    input"]
    for name, declared in op_cls.params.items():
        default = "required" if declared.required else f"default {declared.default!r}"
        lines += [f"{name} : {declared.type_name}, {default}"]
        if declared.doc:
            lines.append(f"    {declared.doc}")
    lines += ["out : NDArray, optional", "    the array to write the result into", "",
              "Returns", "-------", "NDArray or list of NDArrays"]
    return "\n".join(lines)


def make_function(op_cls, public_name=None, module="minimx.ndarray"):
    """Build the ``nd`` function for one operator declaration."""

    def function(*args, out=None, name=None, ctx=None, **kwargs):
        return _call(op_cls, args, kwargs, out, ctx)

    function.__name__ = function.__qualname__ = public_name or op_cls.name
    function.__module__ = module
    function.__doc__ = _docstring(op_cls)
    function.__signature__ = signature_of(op_cls)
    function.op = op_cls
    return function


def make_method(function):
    """An NDArray method calling ``function`` with the array as its first input."""

    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def is_ndarray(value):
    return isinstance(value, NDArray)
