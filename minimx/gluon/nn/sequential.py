"""Sequential and HybridSequential: run children one after another.

Lesson: 09-gluon.  Mirrors ``Sequential``/``HybridSequential`` in
``python/mxnet/gluon/nn/basic_layers.py``.
"""
import warnings

from ..block import Block
from ..hybrid_block import HybridBlock

__all__ = ["Sequential", "HybridSequential"]


class _Stack:
    """What both containers share: ``add``, indexing, ``len`` and running the children."""

    def _run_children(self, x, args):
        """Feed ``x`` through the children; a child returning several values passes them on."""
        for block in self._children.values():
            x = block(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                x, *args = x
        return x

    def add(self, *blocks):
        """Append blocks; they run in the order added."""
        for block in blocks:
            self.register_child(block)
        return self

    def __getitem__(self, key):
        children = list(self._children.values())
        if isinstance(key, slice):
            stack = type(self)(prefix=self.prefix)
            with stack.name_scope():
                stack.add(*children[key])
            return stack
        return children[key]

    def __len__(self):
        return len(self._children)


class Sequential(_Stack, Block):
    """Blocks applied in sequence: ``net.add(nn.Dense(10), nn.Dense(2))``."""

    def forward(self, x, *args):
        return self._run_children(x, args)

    def hybridize(self, active=True, **kwargs):
        """Hybridize every child; warns, as MXNet, when all of them could be one graph."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are "
                          f"HybridBlocks. Consider using HybridSequential for the best "
                          f"performance.", stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_Stack, HybridBlock):
    """HybridBlocks applied in sequence; hybridize it to compile the whole stack."""

    def hybrid_forward(self, F, x, *args):
        return self._run_children(x, args)
