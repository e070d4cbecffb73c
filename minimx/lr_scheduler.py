"""Learning-rate schedules: the learning rate as a function of the update count.

Lesson: 13-optimizers.  Mirrors ``python/mxnet/lr_scheduler.py``.  A scheduler
is a callable ``scheduler(num_update) -> lr``; the optimizer calls it with the
largest number of updates applied to any one weight so far.  Every schedule may
start with a warm-up of ``warmup_steps`` updates, either rising linearly from
``warmup_begin_lr`` to ``base_lr`` or holding ``warmup_begin_lr``.  Step
schedules (Factor, MultiFactor) keep their current rate in ``self.base_lr``, so
user subclasses that override ``__call__`` and rescale ``self.base_lr`` work.
"""
import logging
import math

from .registry import Registry

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler", "register", "create"]

WARMUP_MODES = ("linear", "constant")


class LRScheduler:
    """Base class of learning-rate schedulers; subclasses override ``__call__``.

    Parameters
    ----------
    base_lr : float
        The learning rate after warm-up.
    warmup_steps : int
        Number of updates spent warming up (0: none).
    warmup_begin_lr : float
        The learning rate at update 0 of the warm-up.
    warmup_mode : {'linear', 'constant'}
        Rise linearly to ``base_lr``, or hold ``warmup_begin_lr``.

    Examples
    --------
    >>> class Halving(mx.lr_scheduler.LRScheduler):
    ...     def __call__(self, num_update):
    ...         return self.base_lr / 2 ** (num_update // 10)
    >>> Halving(base_lr=1.0)(25)
    0.25
    """

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        if not isinstance(warmup_steps, int):
            raise TypeError(f"warmup_steps must be an int, got {warmup_steps!r}")
        if warmup_steps < 0:
            raise ValueError(f"warmup_steps must be 0 or more, got {warmup_steps}")
        if warmup_begin_lr > base_lr:
            raise ValueError(f"warmup_begin_lr ({warmup_begin_lr}) must not exceed base_lr "
                             f"({base_lr})")
        if warmup_mode not in WARMUP_MODES:
            raise ValueError(f"warmup_mode must be one of {WARMUP_MODES}, got {warmup_mode!r}")
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The learning rate at update ``num_update`` (< ``warmup_steps``) of the warm-up."""
        if num_update >= self.warmup_steps:
            raise ValueError(f"update {num_update} is past the {self.warmup_steps} warm-up steps")
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        rise = self.warmup_final_lr - self.warmup_begin_lr
        return self.warmup_begin_lr + rise * float(num_update) / float(self.warmup_steps)

    def __call__(self, num_update):
        """The learning rate once ``num_update`` updates have been applied to some weight."""
        raise NotImplementedError(f"{type(self).__name__} must override __call__")


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, never below ``stop_factor_lr``.

    After warm-up the rate is ``base_lr * factor ** floor((num_update - 1) / step)``:
    the first change comes at update ``step + 1``.

    Examples
    --------
    >>> schedule = mx.lr_scheduler.FactorScheduler(step=10, factor=0.5, base_lr=1.0)
    >>> [schedule(n) for n in (1, 10, 11, 21)]
    [1.0, 1.0, 0.5, 0.25]
    """

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError(f"step must be at least 1 update, got {step}")
        _check_factor(factor)
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0          # the update at which the current rate began

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: now learning rate arrived at %0.5e, will not change "
                             "in the future", num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update,
                             self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` each time ``num_update`` passes one of ``step``.

    Examples
    --------
    >>> schedule = mx.lr_scheduler.MultiFactorScheduler([5, 8], factor=0.1, base_lr=1.0)
    >>> [round(schedule(n), 6) for n in (5, 6, 9)]
    [1.0, 0.1, 0.01]
    """

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or not step:
            raise ValueError(f"step must be a non-empty list of update counts, got {step!r}")
        if any(later <= earlier for earlier, later in zip(step, step[1:])):
            raise ValueError(f"step must be strictly increasing, got {step}")
        if step[0] < 1:
            raise ValueError(f"every step must be at least 1 update, got {step}")
        _check_factor(factor)
        self.step = step
        self.cur_step_ind = 0   # the next entry of step still to pass
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """Warm-up, then ``final_lr + (base_lr - final_lr) * self.decay(t / T)`` until
    ``max_update`` (``t = num_update - warmup_steps``, ``T = max_update - warmup_steps``)."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                 warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        _check_max_update(max_update)
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def decay(self, progress):
        """The factor (1 at the start, 0 at the end) for ``progress`` in [0, 1]."""
        raise NotImplementedError()

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            decay = self.decay((num_update - self.warmup_steps) / self.max_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * decay
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """Polynomial decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates.

    After warm-up: ``final_lr + (base_lr - final_lr) * (1 - t / T) ** pwr`` with
    ``t = num_update - warmup_steps`` and ``T = max_update - warmup_steps``;
    ``final_lr`` from ``max_update`` on.

    Examples
    --------
    >>> schedule = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=1)
    >>> [schedule(n) for n in (0, 5, 10, 20)]
    [1.0, 0.5, 0.0, 0.0]
    """

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def decay(self, progress):
        return pow(1 - progress, self.power)


class CosineScheduler(_DecayToFinal):
    """Half a cosine from ``base_lr`` down to ``final_lr`` over ``max_update`` updates.

    After warm-up: ``final_lr + (base_lr - final_lr) * (1 + cos(pi * t / T)) / 2``
    with ``t`` and ``T`` as in ``PolyScheduler``.

    Examples
    --------
    >>> schedule = mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=1.0)
    >>> [round(schedule(n), 6) for n in (0, 5, 10)]
    [1.0, 0.5, 0.0]
    """

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)

    def decay(self, progress):
        return (1 + math.cos(math.pi * progress)) / 2


def _check_factor(factor):
    if factor > 1.0:
        raise ValueError(f"factor must be at most 1 (the rate only decreases), got {factor}")


def _check_max_update(max_update):
    if not isinstance(max_update, int):
        raise TypeError(f"max_update must be an int, got {max_update!r}")
    if max_update < 1:
        raise ValueError(f"max_update must be at least 1, got {max_update}")


_registry = Registry(LRScheduler, "lr scheduler")
register = _registry.register
create = _registry.create
for _scheduler in (FactorScheduler, MultiFactorScheduler, PolyScheduler, CosineScheduler):
    register(_scheduler)
