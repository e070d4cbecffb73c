"""AdamW's fused updates: Adam with the weight decay taken out of the gradient.

Lesson: 13-optimizers.  Mirrors ``src/operator/contrib/adamw.cc`` (``_adamw_update``,
``_mp_adamw_update`` and their ``_multi_`` forms; ``nd.contrib.adamw_update`` & co. are
the Python wrappers in ``ndarray/contrib.py``).  With ``g = clip(rescale_grad * grad)``:
``mean = beta1 * mean + (1 - beta1) * g`` and ``var = beta2 * var + (1 - beta2) * g**2``
(in place), then ``weight - eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)``:
the decay acts on the weight directly instead of entering the moments as Adam's does.

``rescale_grad`` is an *input* (a one-element array), not a parameter, so that a loss
scaler can change it on the device without building a new operator.  When it is NaN, an
infinity or 0 the whole update is skipped: the states stay as they are and the result is
the weight unchanged (MXNet leaves its output unwritten, which with ``out=weight`` -- the
way an optimizer calls it -- is the same).
"""
import math

from .optimizer_updates import _PARAMS, UpdateOp, _float
from .params import Float32Tuple, Param
from .registry import TestHints, declare_op, register_op

__all__ = ["AdamWUpdate", "MPAdamWUpdate", "MultiAdamWUpdate", "MultiMPAdamWUpdate"]

_ADAMW_PARAMS = {name: _PARAMS[name] for name in ("lr", "beta1", "beta2", "epsilon", "wd",
                                                   "clip_gradient")}
_ADAMW_PARAMS["eta"] = _float(doc="the schedule's multiplier of the step")


def _scale(xp, rescale_grad):
    """The rescaling factor, or None when the update must be skipped."""
    value = float(rescale_grad.reshape(-1)[0])
    return value if math.isfinite(value) and value != 0 else None


def _adamw_step(xp, weight, grad, mean, var, scale, lr, eta, wd, op):
    """One AdamW step in ``weight``'s dtype; ``mean`` and ``var`` are updated in place."""
    dtype = weight.dtype.type
    g = grad * dtype(scale)
    if op.clip_gradient >= 0:
        g = xp.clip(g, -dtype(op.clip_gradient), dtype(op.clip_gradient))
    mean *= dtype(op.beta1)
    mean += dtype(1 - op.beta1) * g
    var *= dtype(op.beta2)
    var += dtype(1 - op.beta2) * g * g
    step = dtype(lr) * mean / (xp.sqrt(var) + dtype(op.epsilon)) + dtype(wd) * weight
    return weight - dtype(eta) * step


class AdamWBase(UpdateOp):
    """Shared shape rule: every input but ``rescale_grad`` has the weight's shape."""

    def infer_shape(self, weight, *others):
        *states, rescale = others
        if int(math.prod(rescale)) != 1:
            raise self.shape_error(f"rescale_grad must hold one value, got shape "
                                   f"{tuple(rescale)}")
        return UpdateOp.infer_shape(self, weight, *states)

    def infer_type(self, weight, *others):
        return weight


def _inputs(rng, shapes, dtype):
    """Positive moments (``var`` under a square root) and a rescaling factor of 2."""
    arrays = [rng.uniform(0.1, 1.0, size=shape) for shape in shapes[:-1]]
    return arrays + [rng.uniform(1.5, 2.5, size=shapes[-1])]


@register_op
class AdamWUpdate(AdamWBase):
    """AdamW step of one weight (``nd.contrib.adamw_update``)."""
    name = "_adamw_update"
    inputs = ("weight", "grad", "mean", "var", "rescale_grad")
    aux = ("mean", "var")
    params = _ADAMW_PARAMS
    test = TestHints(shapes=((3, 4),) * 4 + ((1,),), params={"lr": 0.1, "eta": 0.5, "wd": 0.1},
                     cases=(({"lr": 0.1, "eta": 0.9, "clip_gradient": 0.5},
                             ((3, 4),) * 4 + ((1,),)),), inputs=_inputs)

    def forward(self, xp, weight, grad, mean, var, rescale_grad):
        scale = _scale(xp, rescale_grad)
        if scale is None:
            return weight.copy()
        return _adamw_step(xp, weight, grad, mean, var, scale, self.lr, self.eta, self.wd, self)


@register_op
class MPAdamWUpdate(AdamWBase):
    """AdamW step of a float16 weight through its float32 master copy ``weight32``
    (``nd.contrib.mp_adamw_update``); the moments are float32 too."""
    name = "_mp_adamw_update"
    inputs = ("weight", "grad", "mean", "var", "weight32", "rescale_grad")
    aux = ("mean", "var", "weight32")
    params = _ADAMW_PARAMS
    test = TestHints(shapes=((3, 4),) * 5 + ((1,),), params={"lr": 0.1, "eta": 0.5, "wd": 0.1},
                     inputs=_inputs)

    def forward(self, xp, weight, grad, mean, var, weight32, rescale_grad):
        scale = _scale(xp, rescale_grad)
        if scale is None:
            return weight.copy()
        weight32[...] = _adamw_step(xp, weight32, grad.astype(weight32.dtype), mean, var, scale,
                                    self.lr, self.eta, self.wd, self)
        return weight32.astype(weight.dtype)


class MultiAdamWBase(UpdateOp):
    """``num_weights`` groups of inputs (``weight_i, grad_i, mean_i, var_i[, weight32_i]``)
    and one ``rescale_grad`` last; group ``i`` is updated as the one-weight operator
    ``single`` would with ``lrs[i]``, ``etas[i]`` and ``wds[i]``, into output ``i``."""

    variadic = True
    single = None
    master_copies = False   # mp_: a float32 weight is updated directly, its weight32 unread

    def check_params(self):
        for name in ("lrs", "wds", "etas"):
            given = len(getattr(self, name))
            if given != self.num_weights:
                raise self.param_error(f"{name} has {given} value(s), but num_weights is "
                                       f"{self.num_weights}")
        shared = {key: getattr(self, key) for key in ("beta1", "beta2", "epsilon",
                                                      "clip_gradient")}
        self._singles = tuple(self.single.create(lr=lr, eta=eta, wd=wd, **shared)
                              for lr, eta, wd in zip(self.lrs, self.etas, self.wds))
        self._plains = tuple(AdamWUpdate.create(lr=lr, eta=eta, wd=wd, **shared)
                             for lr, eta, wd in zip(self.lrs, self.etas, self.wds))
        self.aux = tuple(f"{name}_{i}" for i in range(self.num_weights)
                         for name in self.single.aux)

    def _stride(self):
        return len(self.single.inputs) - 1

    def list_inputs(self, num_args=None):
        names = self.single.inputs[:-1]
        count = self._stride() * self.num_weights if num_args is None else num_args - 1
        return tuple(f"{names[i % len(names)]}_{i // len(names)}"
                     for i in range(count)) + ("rescale_grad",)

    def list_outputs(self):
        return tuple(f"output{i}" for i in range(self.num_weights))

    def _groups(self, values):
        stride = self._stride()
        if len(values) != stride * self.num_weights + 1:
            raise self.shape_error(f"expected {stride * self.num_weights + 1} inputs ({stride} "
                                   f"per weight, num_weights={self.num_weights}, then "
                                   f"rescale_grad), got {len(values)}")
        *groups, rescale = values
        return [groups[i:i + stride] for i in range(0, len(groups), stride)], rescale

    def infer_shape(self, *shapes):
        groups, rescale = self._groups(shapes)
        return [single.infer_shape(*group, rescale)
                for single, group in zip(self._singles, groups)]

    def infer_type(self, *dtypes):
        groups, _ = self._groups(dtypes)
        for index, group in enumerate(groups):
            if group[0] != groups[0][0]:
                raise self.type_error(f"every weight must be {groups[0][0]} (one kernel runs "
                                      f"them all), but weight {index} is {group[0]}")
        return [group[0] for group in groups]

    def forward(self, xp, *arrays):
        groups, rescale = self._groups(arrays)
        if not self.master_copies:
            return tuple(single.forward(xp, *group, rescale)
                         for single, group in zip(self._singles, groups))
        # as MXNet's kernel: a float32 weight is its own master copy (weight32 is not read)
        return tuple(plain.forward(xp, *group[:-1], rescale)
                     if group[0].dtype == group[-1].dtype
                     else single.forward(xp, *group, rescale)
                     for single, plain, group in zip(self._singles, self._plains, groups))


_MULTI_PARAMS = {
    "lrs": Param(Float32Tuple, doc="the learning rate of each weight"),
    "wds": Param(Float32Tuple, doc="the weight decay of each weight"),
    "etas": Param(Float32Tuple, doc="the schedule multiplier of each weight"),
    **{name: _PARAMS[name] for name in ("beta1", "beta2", "epsilon", "clip_gradient")},
    "num_weights": Param(int, default=1, doc="how many weights this call updates"),
}


def _declare_multi(class_name, single, doc, master_copies=False):
    per_weight = len(single.inputs) - 1
    shapes = ((3, 4),) * per_weight + ((5,),) * per_weight + ((1,),)
    params = dict(num_weights=2, lrs=(0.1, 0.05), wds=(0.0, 0.1), etas=(1.0, 0.5))
    return declare_op(class_name, (MultiAdamWBase,), name="_multi_" + single.name[1:],
                      __doc__=doc, single=single, master_copies=master_copies,
                      aux=single.aux, params=_MULTI_PARAMS,
                      test=TestHints(shapes=shapes, params=params, inputs=_inputs))


MultiAdamWUpdate = _declare_multi(
    "MultiAdamWUpdate", AdamWUpdate,
    "``_adamw_update`` of ``num_weights`` weights in one call (``nd.contrib.multi_adamw_"
    "update``): inputs ``weight_i, grad_i, mean_i, var_i``, then ``rescale_grad``.")
MultiMPAdamWUpdate = _declare_multi(
    "MultiMPAdamWUpdate", MPAdamWUpdate,
    "``_mp_adamw_update`` of ``num_weights`` weights in one call (``nd.contrib.multi_mp_"
    "adamw_update``): inputs ``weight_i, grad_i, mean_i, var_i, weight32_i``, then "
    "``rescale_grad``; a float32 weight is updated directly.", master_copies=True)
