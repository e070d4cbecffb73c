"""Optimizer states (and optimizers) as bytes, without pickle.

Lesson: 13-optimizers.  MXNet's ``Updater.get_states`` pickles its states and
optimizer, and ``set_states`` unpickles whatever it is given, which can run
arbitrary code from a file.  minimx writes an ``nd.save`` file instead: the
state arrays under the names ``"0"``, ``"1"``, ... and, under
``__minimx_states__``, a uint8 array holding UTF-8 JSON that describes the
nesting (dicts, tuples, lists, numbers, strings, ``{"array": i}``) and any
optimizer or LR scheduler as its class name plus its attributes.  Reading it
back parses JSON and array bytes only; an object's class must be an
``Optimizer`` or ``LRScheduler`` subclass already defined in this process.
MXNet's pickled ``.states`` files are therefore not readable by minimx.
"""
import json

import numpy as np

from ..base import FileFormatError, MXNetError
from ..lr_scheduler import LRScheduler
from ..ndarray import NDArray, array
from ..ndarray import utils as nd_utils
from .optimizer import Optimizer

__all__ = ["dumps", "loads"]

META_NAME = "__minimx_states__"
FORMAT = "minimx-optimizer-states/1"
RESTORABLE_BASES = (Optimizer, LRScheduler)


def dumps(value):
    """The bytes of ``value``: nested dicts/tuples/lists of NDArrays, numbers, strings,
    None, optimizers and LR schedulers."""
    arrays = []
    meta = json.dumps({"format": FORMAT, "value": _describe(value, arrays, "states")})
    meta_array = array(np.frombuffer(meta.encode("utf-8"), dtype=np.uint8), dtype=np.uint8)
    names = [str(position) for position in range(len(arrays))] + [META_NAME]
    return nd_utils.encode(arrays + [meta_array], names)


def loads(payload):
    """The value that ``dumps`` turned into ``payload``; arrays come back on cpu(0)."""
    if bytes(payload[:1]) == b"\x80":
        raise FileFormatError("these optimizer states were pickled (by MXNet); minimx never "
                              "unpickles data, so it cannot read them. Save the states again "
                              "from minimx, or move the weights with nd.save/nd.load.")
    entries = nd_utils.load_frombuffer(payload)
    if not isinstance(entries, dict) or META_NAME not in entries:
        raise FileFormatError("not a minimx optimizer-state file: the entry "
                              f"{META_NAME!r} is missing")
    meta = json.loads(entries.pop(META_NAME).asnumpy().tobytes().decode("utf-8"))
    if meta.get("format") != FORMAT:
        raise FileFormatError(f"optimizer states in format {meta.get('format')!r}; "
                              f"this minimx reads {FORMAT!r}")
    return _rebuild(meta["value"], entries)


# -- writing ------------------------------------------------------------------------------------
def _describe(value, arrays, where):
    """The JSON description of ``value``, appending its NDArrays to ``arrays``;
    ``where`` names the value in error messages."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, NDArray):
        arrays.append(value)
        return {"array": len(arrays) - 1}
    if isinstance(value, list):
        return [_describe(item, arrays, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, tuple):
        return {"tuple": [_describe(item, arrays, f"{where}[{i}]")
                          for i, item in enumerate(value)]}
    if isinstance(value, dict):
        return {"dict": [[_describe(key, arrays, f"{where} key"),
                          _describe(item, arrays, f"{where}[{key!r}]")]
                         for key, item in value.items()]}
    if isinstance(value, RESTORABLE_BASES):
        return _describe_object(value, arrays, where)
    raise MXNetError(f"cannot save {where}: a {type(value).__name__} is not one of the types "
                     "minimx saves without pickle (NDArray, number, str, None, list, tuple, "
                     "dict, Optimizer, LRScheduler)")


def _describe_object(obj, arrays, where):
    getter = getattr(obj, "__getstate__", None)
    attrs = getter() if getter is not None else vars(obj)
    if not isinstance(attrs, dict):
        raise MXNetError(f"cannot save {where}: {type(obj).__name__}.__getstate__ returned "
                         f"a {type(attrs).__name__}, not a dict of attributes")
    return {"object": _class_name(type(obj)),
            "attrs": _describe(attrs, arrays, f"{where}.{type(obj).__name__}")}


def _class_name(cls):
    return f"{cls.__module__}:{cls.__qualname__}"


# -- reading ------------------------------------------------------------------------------------
def _rebuild(description, arrays):
    if isinstance(description, list):
        return [_rebuild(item, arrays) for item in description]
    if not isinstance(description, dict):
        return description
    if "array" in description:
        return arrays[str(description["array"])]
    if "tuple" in description:
        return tuple(_rebuild(item, arrays) for item in description["tuple"])
    if "dict" in description:
        return {_rebuild(key, arrays): _rebuild(item, arrays)
                for key, item in description["dict"]}
    if "object" in description:
        return _rebuild_object(description["object"], _rebuild(description["attrs"], arrays))
    raise FileFormatError(f"unexpected entry {description!r} in an optimizer-state file")


def _rebuild_object(class_name, attrs):
    """An instance of a loaded Optimizer/LRScheduler subclass, without calling __init__."""
    cls = _loaded_classes().get(class_name)
    if cls is None:
        raise MXNetError(f"the saved states hold a {class_name}, which is not an Optimizer or "
                         "LRScheduler class defined in this process; define or import it "
                         "before loading the states")
    obj = cls.__new__(cls)
    setter = getattr(obj, "__setstate__", None)
    if setter is not None:
        setter(attrs)
    else:
        obj.__dict__.update(attrs)
    return obj


def _loaded_classes():
    """Every subclass of the restorable bases, by ``module:qualname``."""
    found, pending = {}, list(RESTORABLE_BASES)
    while pending:
        cls = pending.pop()
        found[_class_name(cls)] = cls
        pending.extend(cls.__subclasses__())
    return found
