"""Name scopes for Blocks: ``dense0_``, ``hybridsequential0_dense1_``, ...

Lesson: 09-gluon.  Mirrors ``_BlockScope`` in ``python/mxnet/gluon/block.py``.
A Block made at top level takes a globally counted prefix (``dense0_``); one
made inside ``with parent.name_scope():`` takes ``parent.prefix + dense<k>_``,
counting per parent, and its parameters join the parent's sharing.
"""
import threading

from .. import name as naming

__all__ = ["BlockScope", "make_prefix"]

_local = threading.local()


class BlockScope:
    """The scope of one Block while ``with block.name_scope():`` is active."""

    def __init__(self, block):
        self.block = block
        self.counter = {}
        self._previous = None
        self._name_scope = None

    def __enter__(self):
        if self.block._empty_prefix:
            return self            # a block made with prefix='' adds nothing to names
        self._previous = getattr(_local, "scope", None)
        _local.scope = self
        self._name_scope = naming.Prefix(self.block.prefix)   # symbols made inside share it
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc_info):
        if self.block._empty_prefix:
            return
        self._name_scope.__exit__(*exc_info)
        _local.scope = self._previous


def make_prefix(prefix, params, hint):
    """The (prefix, ParameterDict) of a new Block whose class alias is ``hint``."""
    from .parameter import ParameterDict
    current = getattr(_local, "scope", None)
    if current is None:
        if prefix is None:
            prefix = naming.current().get(None, hint) + "_"
        shared = params
        return prefix, ParameterDict(params.prefix if params is not None else prefix, shared)
    if prefix is None:
        count = current.counter.get(hint, 0)
        current.counter[hint] = count + 1
        prefix = f"{hint}{count}_"
    parent = current.block.params
    if params is None:
        params = ParameterDict(parent.prefix + prefix, parent._shared)
    else:
        params = ParameterDict(params.prefix, params)
    return current.block.prefix + prefix, params
