"""One registry helper for the pluggable families: optimizers, metrics, initializers,
lr schedulers.

Lesson: 12-training-with-module, 13-optimizers.  Mirrors ``python/mxnet/registry.py``: each
family gets ``register`` (a class decorator), ``alias`` and ``create``, where
``create`` accepts an instance, a registered name (case-insensitive), or the
JSON form ``'["name", {"arg": value}]'`` that ``dumps()`` writes (parsed with
``json``, never evaluated).
"""
import json

from .base import MXNetError, NotRegisteredError

__all__ = ["Registry"]


class Registry:
    """The classes of one family (``base_class`` subclasses), by lower-case name."""

    def __init__(self, base_class, family, unknown=NotRegisteredError):
        self.base_class = base_class
        self.family = family
        self.classes = {}
        self.unknown = unknown      # the error for a name nothing is registered under

    def register(self, cls, name=None):
        """Class decorator: ``@registry.register`` adds ``cls`` under its lower-case name."""
        if not (isinstance(cls, type) and issubclass(cls, self.base_class)):
            raise MXNetError(f"can only register subclasses of {self.base_class.__name__} as "
                             f"{self.family}, got {cls!r}")
        self.classes[(name or cls.__name__).lower()] = cls
        return cls

    def alias(self, *names):
        """Class decorator adding other names: ``@registry.alias('acc')``."""
        def decorate(cls):
            for name in names:
                self.register(cls, name)
            return cls
        return decorate

    def create(self, spec, *args, **kwargs):
        """An instance from an instance, a name, or ``'["name", {kwargs}]'``."""
        if isinstance(spec, self.base_class):
            if args or kwargs:
                raise NotRegisteredError(f"{self.family}: cannot pass arguments with an "
                                         f"instance")
            return spec
        if isinstance(spec, str) and spec.lstrip().startswith("["):
            try:
                name, parsed = json.loads(spec)
            except (ValueError, TypeError) as error:
                raise MXNetError(f"{self.family}: cannot parse {spec!r} ({error})") from None
            kwargs = {**parsed, **kwargs}
            spec = name
        if not isinstance(spec, str):
            raise NotRegisteredError(f"{self.family}: expected a name or an instance, got "
                                     f"{spec!r}")
        cls = self.classes.get(spec.lower())
        if cls is None:
            raise self.unknown(f"unknown {self.family} {spec!r}; registered: "
                               f"{', '.join(sorted(self.classes))}")
        return cls(*args, **kwargs)
