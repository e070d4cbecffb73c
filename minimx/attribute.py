"""``mx.AttrScope``: attributes attached to every symbol created inside a ``with`` block.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/attribute.py``
(e.g. ``with mx.AttrScope(ctx_group='dev1'):``).
"""
import threading
from collections import defaultdict

__all__ = ["AttrScope", "current"]

_local = threading.local()


class AttrScope:
    """Attributes (strings) given to every symbol made in this scope."""

    # how many control-flow bodies of each name were traced (``sym.contrib.foreach`` names
    # its body ``foreach0``, ``foreach1``...); MXNet's tests reset it
    _subgraph_names = defaultdict(int)

    def __init__(self, **attrs):
        for key, value in attrs.items():
            if not isinstance(value, str):
                raise ValueError(f"AttrScope: attribute {key!r} must be a string, got {value!r}")
        self._attrs = attrs
        self._previous = []

    def get(self, attrs):
        """The scope's attributes updated with ``attrs`` (which win)."""
        merged = dict(self._attrs)
        merged.update(attrs or {})
        return merged

    def __enter__(self):
        outer = current()
        self._previous.append(outer)
        merged = AttrScope(**outer.get(self._attrs))
        _local.scope = merged
        return self

    def __exit__(self, *exc_info):
        _local.scope = self._previous.pop()


def current():
    scope = getattr(_local, "scope", None)
    if scope is None:
        scope = _local.scope = AttrScope()
    return scope
