"""What a Symbol refuses: everything that needs values, which only an NDArray holds.

Lessons: 07-symbolic-programming, 10-hybridize.  A Symbol describes a computation that has
not run, so ``if x.sum() > 0:``, ``x.asnumpy()`` or ``x += 1`` inside a ``hybrid_forward``
being traced cannot work; they raise ``NotImplementedForSymbol`` naming the function, as
MXNet does (python/mxnet/symbol/symbol.py).  ``**=`` and ``%=`` make a new Symbol, as there.
"""
from ..base import NotImplementedForSymbol

__all__ = ["NDArrayOnly"]


class NDArrayOnly:
    """The NDArray methods that a Symbol (the subclass) has but refuses."""

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    def __iadd__(self, other):
        raise NotImplementedForSymbol(self.__iadd__, "+=", other)

    def __isub__(self, other):
        raise NotImplementedForSymbol(self.__isub__, "-=", other)

    def __imul__(self, other):
        raise NotImplementedForSymbol(self.__imul__, "*=", other)

    def __itruediv__(self, other):
        raise NotImplementedForSymbol(self.__itruediv__, "/=", other)

    def wait_to_read(self):
        raise NotImplementedForSymbol(self.wait_to_read, None)

    def asnumpy(self):
        raise NotImplementedForSymbol(self.asnumpy, None)

    def asscalar(self):
        raise NotImplementedForSymbol(self.asscalar, None)

    def copy(self):
        raise NotImplementedForSymbol(self.copy, None)

    def as_in_context(self, *args):
        raise NotImplementedForSymbol(self.as_in_context, None)

    def detach(self):
        raise NotImplementedForSymbol(self.detach, None)

    def backward(self, *args, **kwargs):
        raise NotImplementedForSymbol(self.backward, None)
