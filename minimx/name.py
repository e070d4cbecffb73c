"""Automatic names for symbols: ``fullyconnected0``, ``fullyconnected1``, ... and prefixes.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/name.py``.  The current manager is
per thread; ``with mx.name.Prefix('net_'):`` prepends a prefix to every name
made inside.
"""
import threading

__all__ = ["NameManager", "Prefix", "current"]

_local = threading.local()


class NameManager:
    """Gives each unnamed symbol ``<hint><count>``, counting per hint."""

    def __init__(self):
        self._counter = {}
        self._previous = []

    def get(self, name, hint):
        """``name`` if given, else a fresh name from ``hint``."""
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return f"{hint}{count}"

    def __enter__(self):
        self._previous.append(current())
        _local.manager = self
        return self

    def __exit__(self, *exc_info):
        _local.manager = self._previous.pop()


class Prefix(NameManager):
    """A NameManager that puts ``prefix`` before every name, given or made."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


def current():
    """The NameManager in force for this thread."""
    manager = getattr(_local, "manager", None)
    if manager is None:
        manager = _local.manager = NameManager()
    return manager
