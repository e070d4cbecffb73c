"""``Block.save(prefix)`` / ``Block.load(prefix)``: a model's structure and parameters.

Lesson: 09-gluon.  Mirrors ``Block.save``/``Block.load`` of MXNet 1.9.1's
``gluon/block.py`` and writes its files: ``<prefix>-model.params`` (``save_parameters``)
and ``<prefix>-model.json``, a nested dict with one entry per block keyed by its class
name and its position in a depth-first walk (``dense1``: the second block visited,
a Dense).  Each entry holds the block's name when saved (``orig_name``), its children's
attribute names (``children``: name -> attribute), and for a hybridized HybridBlock the
traced graph (``inputs``, ``symbol`` as Symbol JSON, ``in_format``/``out_format``).

``load`` does not rebuild the architecture: the code builds the same blocks in the same
order, and ``load`` renames them (and their parameters) as they were when saved, restores
the traced graphs, then loads the parameters.  Formats are written as MXNet writes them
(``0`` one array, ``-1`` a left-out input, a list for a nested list), so the files of
either framework load in the other.
"""
import json

from .. import symbol as sym
from .hybrid_block import HybridBlock

__all__ = ["save_model", "load_model"]


def _format_to_json(fmt, output=False):
    if output and fmt == "single":
        return 0
    if fmt is None:
        return -1
    if isinstance(fmt, int):
        return fmt
    return [_format_to_json(item) for item in fmt[1]]


def _format_from_json(fmt, output=False, kind=tuple):
    """A format as minimx keeps it; the file does not say tuple or list: a call's
    arguments are a tuple (``kind``), nested groups lists."""
    if output and fmt == 0:
        return "single"
    if fmt == -1:
        return None
    if isinstance(fmt, int):
        return fmt
    return (kind, [_format_from_json(item, kind=list) for item in fmt])


def save_model(block, prefix):
    """Write ``<prefix>-model.json`` (the structure) and ``<prefix>-model.params``."""
    model, index = {}, [0]

    def describe(blk, structure):
        entry = {"orig_name": blk.name}
        structure[type(blk).__name__.lower() + str(index[0])] = entry
        if isinstance(blk, HybridBlock):
            entry["hybridized"] = bool(blk._cached_graph)
            if blk._cached_graph:
                inputs, out = blk._cached_graph
                entry["in_format"] = _format_to_json(blk._in_format)
                entry["out_format"] = _format_to_json(blk._out_format, output=True)
                entry["inputs"] = [var.tojson() for var in inputs]
                entry["symbol"] = out.tojson()
        entry["children"] = {}
        for attribute, child in blk._children.items():
            index[0] += 1
            entry["children"][child.name] = attribute
            describe(child, entry)

    describe(block, model)
    with open(prefix + "-model.json", "w") as stream:
        json.dump(model, stream)
    block.save_parameters(prefix + "-model.params")


def load_model(block, prefix):
    """Rename ``block`` and its children as saved, restore traced graphs, load parameters."""
    with open(prefix + "-model.json") as stream:
        model = json.load(stream)
    index = [0]

    def restore(blk, structure):
        key = type(blk).__name__.lower() + str(index[0])
        if key not in structure:
            raise KeyError(f"Block.load: {prefix}-model.json has no block {key!r} where this "
                           f"model has a {type(blk).__name__}; build the model as it was "
                           f"built when saved")
        entry = structure[key]
        blk._name = entry["orig_name"]
        if isinstance(blk, HybridBlock) and entry.get("hybridized"):
            blk._in_format = _format_from_json(entry["in_format"])
            blk._out_format = _format_from_json(entry["out_format"], output=True, kind=list)
            blk._cached_graph = ([sym.load_json(text) for text in entry["inputs"]],
                                 sym.load_json(entry["symbol"]))
            blk._active = True
        params = blk.params
        for old in list(params._params):
            params._params[blk.name + "_" + old[len(params._prefix):]] = \
                params._params.pop(old)
        for child in blk._children.values():
            index[0] += 1
            restore(child, entry)
        for attribute in list(blk._children):
            child = blk._children.pop(attribute)
            blk._children[entry["children"][child.name]] = child

    restore(block, model)
    block.load_parameters(prefix + "-model.params")
