"""``_SVRGOptimizer``: the default optimizer for weights, plain assignment for the
accumulated full gradients (keys whose name has "_full").

Mirrors ``python/mxnet/contrib/svrg_optimization/svrg_optimizer.py``.  A KVStore holding
both kinds of keys gets this one optimizer: a push to a weight's key runs the default
optimizer (e.g. SGD), a push to ``<name>_full`` stores the pushed (summed) gradient.
"""
import inspect

from ... import optimizer as opt

__all__ = ["_SVRGOptimizer", "_AssignmentOptimizer"]


@opt.register
class _AssignmentOptimizer(opt.Optimizer):
    """``weight[:] = grad``: the KVStore keeps what was pushed."""

    def update(self, index, weight, grad, state):
        weight[:] = grad


_BASE_PARAMS = set(inspect.signature(opt.Optimizer.__init__).parameters) - {"self"}


@opt.register
class _SVRGOptimizer(opt.Optimizer):
    """Routes each update by its parameter's name: ``"_full"`` names to assignment, the
    others to ``default_optimizer`` (a name, created with ``kwargs``, or an Optimizer)."""

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**{key: value for key, value in kwargs.items()
                            if key in _BASE_PARAMS})
        self.default_opt = (opt.create(default_optimizer, **kwargs)
                            if isinstance(default_optimizer, str) else default_optimizer)
        self.aux_opt = opt.create(_AssignmentOptimizer.__name__)

    def _name_of(self, index):
        return str(self.idx2name.get(index, index))

    def _for(self, index):
        return self.aux_opt if "_full" in self._name_of(index) else self.default_opt

    def create_state(self, index, weight):
        return self._for(index).create_state(index, weight)

    def update(self, index, weight, grad, state):
        self._for(index).update(index, weight, grad, state)
