"""The Optimizer base class: per-weight learning rates, weight decay and update counts.

Lesson: 13-optimizers.  Mirrors ``python/mxnet/optimizer/optimizer.py`` (the
``Optimizer`` class and its registry).  An optimizer turns ``(index, weight,
grad, state)`` into an in-place update of ``weight``.  The base class does the
bookkeeping every rule shares: it asks the LR scheduler for the current rate,
multiplies it by the weight's ``lr_mult`` (and ``wd`` by its ``wd_mult``),
rescales and clips the gradient, counts the updates of each weight, and keeps a
float32 master copy of float16 weights when ``multi_precision`` is on.  The
update rules themselves (sgd.py, adaptive.py, adam.py, ftrl.py) call MXNet's
fused update operators where MXNet has one (``nd.sgd_mom_update``,
``nd.adam_update``, ...: one engine push per weight; SGD's ``multi_sgd_update``:
one push for several), and are written with ``nd`` operations otherwise.
"""
import warnings

import numpy as np

from .. import ndarray as nd
from ..base import UnknownNameError
from ..registry import Registry
from ..util import is_np_array

__all__ = ["Optimizer", "register", "create"]


class Optimizer:
    """Base class of the optimizers; subclasses define ``create_state`` and ``update``.

    Parameters
    ----------
    rescale_grad : float
        Every gradient is multiplied by this first (often ``1 / batch_size``).
    param_idx2name : dict of int to str, optional
        Names of the weights by index.  Weights whose name ends neither in
        ``_weight`` nor ``_gamma`` (biases, ``beta``, ...) then get no weight decay.
    wd : float
        The weight decay (L2 regularisation) coefficient.
    clip_gradient : float, optional
        Clip the rescaled gradient into ``[-clip_gradient, clip_gradient]``.
    learning_rate : float, optional
        The learning rate; overrides ``lr_scheduler.base_lr``.  0.01 when neither is given.
    lr_scheduler : LRScheduler, optional
        Gives the learning rate as a function of the number of updates.
    sym : Symbol, optional
        Its variables' ``__lr_mult__`` / ``__wd_mult__`` attributes set the multipliers.
    begin_num_update : int
        The update count to start from.
    multi_precision : bool
        Update float16 weights through a float32 master copy.
    param_dict : dict of int to gluon.Parameter, optional
        Gluon parameters by index; their ``lr_mult`` / ``wd_mult`` take precedence.

    Examples
    --------
    >>> opt = mx.optimizer.create('sgd', learning_rate=0.1)
    >>> weight, grad = nd.ones((2,)), nd.ones((2,))
    >>> opt.update(0, weight, grad, opt.create_state(0, weight))
    >>> weight.asnumpy()
    array([0.9, 0.9], dtype=float32)
    """

    opt_registry = {}   # replaced below by the registry's own dict: name -> class

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            if lr_scheduler.base_lr != learning_rate:
                warnings.warn("learning rate from ``lr_scheduler`` has been overwritten by "
                              "``learning_rate`` in optimizer.", UserWarning, stacklevel=2)
                lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        # update counts per device id, then per weight index (see _set_current_context)
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self._current_device_id = 0
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        # weights per update call from an Updater (0: one at a time; SGD sets it)
        self.aggregate_num = 0
        # made in NumPy mode (npx.set_np()): the Updater accepts mx.np arrays
        self.allow_np_array = is_np_array()
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise TypeError(f"param_idx2name should be a dict of param indexes to names, "
                            f"got {type(param_idx2name).__name__}")
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- the learning rate --------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate (from the scheduler when there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the learning rate; an error when an LR scheduler decides it."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note "
                              "that set_learning_rate can mutate the value of the learning "
                              "rate of the optimizer only when the LRScheduler of the "
                              "optimizer is undefined.")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        """Removed: use ``set_lr_mult``."""
        raise DeprecationWarning("set_lr_scale is deprecated; use set_lr_mult")

    # -- per-weight multipliers ---------------------------------------------------------------
    def set_lr_mult(self, args_lr_mult):
        """Set learning-rate multipliers by weight name or index (``{name: mult}``).

        Multipliers from the ``sym`` variables' ``__lr_mult__`` come first; the
        entries of ``args_lr_mult`` override them.
        """
        self.lr_mult = self._multipliers_from_sym("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Set weight-decay multipliers by weight name or index (``{name: mult}``).

        Named weights (``param_idx2name``) not ending in ``_weight`` or ``_gamma``
        get 0 first: biases and BatchNorm's ``beta`` are not decayed.  Then come
        the ``sym`` variables' ``__wd_mult__``, then ``args_wd_mult``.
        """
        self.wd_mult = {name: 0.0 for name in self.idx2name.values()
                        if not name.endswith(("_weight", "_gamma"))}
        self.wd_mult.update(self._multipliers_from_sym("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _multipliers_from_sym(self, key):
        if not self.sym_info:
            return {}
        attrs, arg_names = self.sym_info
        return {name: float(attrs[name][key]) for name in arg_names
                if key in attrs.get(name, {})}

    def _get_lrs(self, indices):
        """The learning rate of each weight index: the scheduled rate times its lr_mult."""
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return [lr * self._multiplier(index, self.lr_mult, "lr_mult") for index in indices]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        """The weight decay of each weight index: ``wd`` times its wd_mult."""
        return [self.wd * self._multiplier(index, self.wd_mult, "wd_mult") for index in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def _multiplier(self, index, multipliers, attribute):
        """A Gluon parameter's own multiplier, else one set by index, else by name, else 1."""
        if index in self.param_dict:
            return getattr(self.param_dict[index], attribute)
        if index in multipliers:
            return multipliers[index]
        if index in self.idx2name:
            return multipliers.get(self.idx2name[index], 1.0)
        return 1.0

    # -- update counts ------------------------------------------------------------------------
    def _set_current_context(self, device_id):
        """Count updates separately per device (each device updates its own copy)."""
        self._all_index_update_counts.setdefault(device_id, {})
        self._index_update_count = self._all_index_update_counts[device_id]
        self._current_device_id = device_id

    def _update_count(self, index):
        """Count one more update of ``index`` (or of each index of a list)."""
        for idx in index if isinstance(index, (list, tuple)) else [index]:
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(count, self.num_update)

    def _begin_update(self, index):
        """Count the update of ``index``; returns its ``(lr, wd)``."""
        self._update_count(index)
        return self._get_lr(index), self._get_wd(index)

    # -- the gradient -------------------------------------------------------------------------
    def _clip(self, array):
        """``array`` clipped into ``[-clip_gradient, clip_gradient]``; None, 0 or a negative
        bound turn clipping off (as in MXNet's update kernels)."""
        if self.clip_gradient is not None and self.clip_gradient > 0:
            return nd.clip(array, -self.clip_gradient, self.clip_gradient)
        return array

    def _rescaled_grad(self, grad):
        """``clip(rescale_grad * grad)``: the gradient most rules start from."""
        return self._clip(grad * self.rescale_grad)

    def _fused_args(self):
        """``rescale_grad`` and ``clip_gradient`` as the fused update operators take them
        (``nd.sgd_update`` & co.: a negative ``clip_gradient`` turns clipping off)."""
        clip = self.clip_gradient
        return {"rescale_grad": self.rescale_grad,
                "clip_gradient": clip if clip is not None and clip > 0 else -1.0}

    # -- states and updates -------------------------------------------------------------------
    def create_state(self, index, weight):
        """The auxiliary state of one weight (momentum, moments, ...); None when stateless."""
        return None

    def create_state_multi_precision(self, index, weight):
        """``create_state``, plus a float32 master copy for a float16 weight when
        ``multi_precision`` is on: then the state is ``(master_copy, state)``."""
        if self._uses_master_copy(weight):
            master_copy = weight.astype(np.float32)
            return (master_copy, self.create_state(index, master_copy))
        self._warn_float16(weight)
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update ``weight`` in place from ``grad`` and ``state`` (created by create_state)."""
        raise NotImplementedError(f"{type(self).__name__} must define update()")

    def update_multi_precision(self, index, weight, grad, state):
        """``update``, through the float32 master copy for float16 weights when
        ``multi_precision`` is on.  Lists of indices, weights, ... update each in turn."""
        if isinstance(index, (list, tuple)):
            for one in zip(index, weight, grad, state):
                self.update_multi_precision(*one)
            return
        if self._uses_master_copy(weight):
            master_copy, inner_state = state
            self.update(index, master_copy, grad.astype(np.float32), inner_state)
            nd.cast(master_copy, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    def _uses_master_copy(self, weight):
        return self.multi_precision and weight.dtype == np.float16

    def _warn_float16(self, weight):
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of "
                          f"the {type(self).__name__} optimizer", stacklevel=3)

    def _zeros_like(self, weight, dtype=None):
        """A zero state array with the weight's shape and device (and dtype by default)."""
        return nd.zeros(weight.shape, weight.context, dtype=dtype or weight.dtype)

    # -- copying --------------------------------------------------------------------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        del state["param_dict"]         # Gluon parameters are not part of the optimizer
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}
        # the counts of the current device are one entry of the per-device table
        device_id = state.get("_current_device_id", 0)
        self._index_update_count = self._all_index_update_counts.setdefault(device_id, {})


_registry = Registry(Optimizer, "optimizer", unknown=UnknownNameError)   # MXNet: ValueError
Optimizer.opt_registry = _registry.classes
Optimizer.register = staticmethod(_registry.register)
Optimizer.create_optimizer = staticmethod(_registry.create)
register = _registry.register
create = _registry.create
