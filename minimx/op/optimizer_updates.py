"""Fused optimizer updates: one operator computes a whole update step of one weight.

Lesson: 13-optimizers.  Mirrors ``src/operator/optimizer_op.cc`` and
``optimizer_op-inl.h`` (``sgd_update``, ``adam_update``, ...).  Each operator
returns the new weight (call it with ``out=weight``) and updates the optimizer
states (momentum, moments, ...) in place: the states are declared ``aux``, so
the engine orders every write to them.  One update is then one engine push
instead of one per arithmetic step.  Throughout, ``g = clip(rescale_grad * grad,
clip_gradient)``; a negative ``clip_gradient`` turns clipping off.  The
``mp_`` variants keep a float32 master copy (``weight32``) of a float16 weight.
The ``multi_`` variants (``multi_sgd_update``, ...) update many weights in one call,
one engine push for all of them, each weight as MXNet's multi kernel computes it (for
``multi_sgd_update`` a different expression from ``sgd_update``'s, see the SGD steps).
"""
from ..base import InvalidShapeError
from .params import REQUIRED, Float32, Float32Tuple, Param
from .registry import OpDef, TestHints, declare_op, register_op
from .rounding import mxnet_sign

__all__ = []


def _float(default=REQUIRED, doc=""):
    """A parameter that MXNet declares as a C++ ``float``: the given value and the default
    are both rounded to 32 bits, so float64 weights are updated with MXNet's numbers."""
    return Param(Float32, default if default is REQUIRED else Float32(default), doc=doc)


_PARAMS = {
    "lr": _float(doc="the learning rate"),
    "momentum": _float(default=0.0, doc="decay of the momentum"),
    "beta1": _float(default=0.9, doc="decay of the first moment"),
    "beta2": _float(default=0.999, doc="decay of the second moment"),
    "gamma1": _float(default=0.95, doc="decay of the moving averages"),
    "gamma2": _float(default=0.9, doc="momentum of the step"),
    "epsilon": _float(default=1e-8, doc="added for numerical stability"),
    "lamda1": _float(default=0.01, doc="the L1 regularisation coefficient"),
    "beta": _float(default=1.0, doc="added to sqrt(n) in the per-coordinate rate"),
    "wd": _float(default=0.0, doc="weight decay (L2 regularisation)"),
    "rescale_grad": _float(default=1.0, doc="the gradient is multiplied by this first"),
    "clip_gradient": _float(default=-1.0,
                           doc="clip the rescaled gradient to [-c, c]; negative: no clipping"),
    "clip_weights": _float(default=-1.0,
                          doc="clip the new weight to [-c, c]; negative: no clipping"),
    "wd_lh": _float(default=0.0, doc="decoupled weight decay, applied to the weight"),
    "lazy_update": Param(bool, default=True,
                         doc="with a row_sparse gradient, update only the rows it holds (of "
                             "the weight and the states); see sparse_kernels.lazy_row_update"),
}


def _params(*names):
    return {name: _PARAMS[name] for name in names}


def _hints(shapes, params, low=-1.0, high=1.0):
    """The default case plus one with weight decay, rescaling and clipping."""
    extra = dict(params, wd=0.1, rescale_grad=2.0, clip_gradient=0.5)
    return TestHints(shapes=shapes, params=params, cases=((extra, shapes),), low=low, high=high)


def _scalars(array, *values):
    """``values`` as scalars of ``array``'s dtype (MXNet's kernels cast their ``float``
    parameters to ``DType`` and compute in it)."""
    kind = array.dtype.type
    return [kind(value) for value in values]


class UpdateOp(OpDef):
    """Shared shape rules and gradient preparation of the update operators."""

    differentiable = False
    has_gradient = False          # MXNet registers no gradient for an update
    outputs = ("output",)

    def infer_shape(self, weight, *others):
        for name, shape in zip(self.inputs[1:], others):
            if tuple(shape) != tuple(weight):
                raise self.shape_error(f"{name} must have the weight's shape {tuple(weight)}, "
                                       f"got {tuple(shape)}")
        return weight

    def _clip(self, xp, values):
        if self.clip_gradient >= 0:
            return xp.clip(values, -self.clip_gradient, self.clip_gradient)
        return values

    def _rescaled(self, xp, grad, scale=1.0):
        """``scale * clip(rescale_grad * grad)``, computed into one new array; without
        clipping ``(rescale_grad * scale) * grad``, the scalar product first and in the
        gradient's dtype, as MXNet's kernels take ``lr * rescale_grad``."""
        rescale, scale = _scalars(grad, self.rescale_grad, scale)
        if self.clip_gradient < 0:
            return grad * (rescale * scale)
        g = grad * rescale
        xp.clip(g, -self.clip_gradient, self.clip_gradient, out=g)
        g *= scale
        return g

    def _clip_weights(self, xp, weight):
        if self.clip_weights >= 0:
            return xp.clip(weight, -self.clip_weights, self.clip_weights)
        return weight


# -- SGD and its momentum variants ---------------------------------------------------------------
# The SGD steps run once per weight per batch.  Each follows its MXNet kernel's expression term
# for term, in the weight's dtype (``_scalars``): ``a * b - c * d`` rounds differently from
# ``a * (b - c / a * d)``, and a training run compounds a last bit per step into a different
# curve.  So ``(1 - lr * wd) * w - (lr * rescale) * g`` (``sgd_update``) and ``w + (0 - lr * wd
# * w - lr * rescale * g)`` (``multi_sgd_update``, which MXNet's SGD optimizer calls) are two
# steps here, as there.  Without clipping the scalar product ``lr * rescale_grad`` comes first.
# Without weight decay the decay term is 0 and left out: the same bits for every finite
# weight (``1 * w`` is ``w``, ``w + (0 - x)`` is ``w - x``), two passes over the weight fewer
# (an MLP Trainer step, 535K weights: 12 % slower with them).  Only an infinite weight tells:
# MXNet's ``0 * inf`` makes it NaN, here it stays infinite.
def _sgd_step(op, xp, weight, grad):
    """``sgd_update``'s kernel: ``(1 - lr * wd) * weight - lr * g``."""
    one, lr, wd = _scalars(weight, 1, op.lr, op.wd)
    step = op._rescaled(xp, grad, op.lr)
    if op.wd == 0:
        return xp.subtract(weight, step, out=step)
    new_weight = weight * (one - lr * wd)
    new_weight -= step
    return new_weight


def _multi_sgd_step(op, xp, weight, grad):
    """``multi_sgd_update``'s kernel without momentum: ``weight + (0 - lr * wd * weight - lr
    * g)``, its momentum term ``0 * 0`` and all."""
    zero, lr, wd = _scalars(weight, 0, op.lr, op.wd)
    if op.wd == 0:
        step = op._rescaled(xp, grad, op.lr)
        return xp.subtract(weight, step, out=step)
    step = weight * (lr * wd)
    xp.subtract(zero, step, out=step)
    step -= op._rescaled(xp, grad, op.lr)
    return weight + step


def _sgd_mom_step(op, xp, weight, grad, mom):
    """``mom = momentum * mom - lr * wd * weight - lr * g``; returns ``weight + mom``."""
    momentum, lr, wd = _scalars(weight, op.momentum, op.lr, op.wd)
    mom *= momentum
    if op.wd != 0:
        mom -= weight * (lr * wd)
    mom -= op._rescaled(xp, grad, op.lr)
    return weight + mom


def _nag_step(op, xp, weight, grad, mom):
    """``nag_mom_update``'s kernel: ``mom = momentum * mom``, then ``new = weight - mom +
    (momentum + 1) * (mom - lr * (g + wd * weight))`` and ``mom -= lr * (g + wd * new)``: the
    kernel writes the weight before it reads it again (``out=weight``)."""
    one, momentum, lr, wd = _scalars(weight, 1, op.momentum, op.lr, op.wd)
    g = op._rescaled(xp, grad)
    mom *= momentum
    decayed = weight * wd
    decayed += g
    decayed *= lr
    new_weight = weight - mom
    new_weight += (momentum + one) * (mom - decayed)
    decayed = new_weight * wd
    decayed += g
    decayed *= lr
    mom -= decayed
    return new_weight


@register_op
class SGDUpdate(UpdateOp):
    """SGD step: ``weight - lr * (g + wd * weight)``."""
    name = "sgd_update"
    inputs = ("weight", "grad")
    params = _params("lr", "wd", "rescale_grad", "clip_gradient", "lazy_update")
    test = _hints(((3, 4), (3, 4)), {"lr": 0.1})

    def forward(self, xp, weight, grad):
        return _sgd_step(self, xp, weight, grad)


@register_op
class SGDMomUpdate(UpdateOp):
    """SGD step with momentum: ``mom = momentum * mom - lr * (g + wd * weight)``, then
    ``weight + mom``; ``mom`` is updated in place."""
    name = "sgd_mom_update"
    inputs = ("weight", "grad", "mom")
    aux = ("mom",)
    params = _params("lr", "momentum", "wd", "rescale_grad", "clip_gradient", "lazy_update")
    test = _hints(((3, 4),) * 3, {"lr": 0.1, "momentum": 0.9})

    def forward(self, xp, weight, grad, mom):
        return _sgd_mom_step(self, xp, weight, grad, mom)


@register_op
class NAGMomUpdate(UpdateOp):
    """Nesterov momentum step: ``mom = momentum * mom``, then
    ``weight + momentum * mom - (1 + momentum) * lr * (g + wd * weight)``, and
    ``mom -= lr * (g + wd * new_weight)`` in place."""
    name = "nag_mom_update"
    inputs = ("weight", "grad", "mom")
    aux = ("mom",)
    params = _params("lr", "momentum", "wd", "rescale_grad", "clip_gradient")
    test = _hints(((3, 4),) * 3, {"lr": 0.1, "momentum": 0.9})

    def forward(self, xp, weight, grad, mom):
        return _nag_step(self, xp, weight, grad, mom)


class MultiPrecisionUpdate(UpdateOp):
    """The update runs on the float32 master copy ``weight32`` (updated in place); the
    result is that copy in the weight's dtype."""

    step = None

    def infer_type(self, weight, *others):
        return weight

    def forward(self, xp, weight, grad, *states):
        *others, weight32 = states
        new_weight32 = self.step(xp, weight32, grad.astype(weight32.dtype), *others)
        weight32[...] = new_weight32
        return new_weight32.astype(weight.dtype)


@register_op
class MPSGDUpdate(MultiPrecisionUpdate):
    """``sgd_update`` through the float32 master copy ``weight32``."""
    name = "mp_sgd_update"
    inputs = ("weight", "grad", "weight32")
    aux = ("weight32",)
    params = _params("lr", "wd", "rescale_grad", "clip_gradient", "lazy_update")
    test = _hints(((3, 4),) * 3, {"lr": 0.1})
    step = _sgd_step


@register_op
class MPSGDMomUpdate(MultiPrecisionUpdate):
    """``sgd_mom_update`` through the float32 master copy ``weight32``."""
    name = "mp_sgd_mom_update"
    inputs = ("weight", "grad", "mom", "weight32")
    aux = ("mom", "weight32")
    params = _params("lr", "momentum", "wd", "rescale_grad", "clip_gradient", "lazy_update")
    test = _hints(((3, 4),) * 4, {"lr": 0.1, "momentum": 0.9})
    step = _sgd_mom_step


@register_op
class MPNAGMomUpdate(MultiPrecisionUpdate):
    """``nag_mom_update`` through the float32 master copy ``weight32``."""
    name = "mp_nag_mom_update"
    inputs = ("weight", "grad", "mom", "weight32")
    aux = ("mom", "weight32")
    params = _params("lr", "momentum", "wd", "rescale_grad", "clip_gradient")
    test = _hints(((3, 4),) * 4, {"lr": 0.1, "momentum": 0.9})
    step = _nag_step


# -- many weights in one call -------------------------------------------------------------------
# MXNet's optimizers hand a Trainer's weights to these a few at a time (the Updater groups them,
# MXNET_OPTIMIZER_AGGREGATION_SIZE at most per call): one engine push updates them all.
class MultiUpdate(UpdateOp):
    """``num_weights`` groups of inputs (``weight_0, grad_0, [states_0], weight_1, ...``),
    each updated by the one-weight operator ``single`` with its own ``lrs[i]`` and
    ``wds[i]``; output ``i`` is the new weight ``i`` (call it with ``out=weights``)."""

    variadic = True
    single = None           # the one-weight operator class every group goes through
    plain = None            # mp_ variants: the operator for float32 weights (no master copy)

    def check_params(self):
        for name in ("lrs", "wds"):
            given = len(getattr(self, name))
            if given != self.num_weights:
                raise self.param_error(f"{name} has {given} value(s), but num_weights is "
                                       f"{self.num_weights}")
        shared = {key: getattr(self, key) for key in self.params
                  if key in self.single.params and key not in ("lr", "wd")}
        self._singles = tuple(self.single.create(lr=lr, wd=wd, **shared)
                              for lr, wd in zip(self.lrs, self.wds))
        if self.plain is not None:
            self._plains = tuple(self.plain.create(lr=lr, wd=wd, **shared)
                                 for lr, wd in zip(self.lrs, self.wds))
        self.aux = tuple(f"{name}_{i}" for i in range(self.num_weights)
                         for name in self.single.aux)

    def list_inputs(self, num_args=None):
        names = self.single.inputs
        count = len(names) * self.num_weights if num_args is None else num_args
        return tuple(f"{names[i % len(names)]}_{i // len(names)}" for i in range(count))

    def list_outputs(self):
        return tuple(f"output{i}" for i in range(self.num_weights))

    def _groups(self, values):
        stride = len(self.single.inputs)
        if len(values) != stride * self.num_weights:
            raise self.shape_error(f"expected {stride * self.num_weights} inputs "
                                   f"({stride} per weight, num_weights={self.num_weights}), "
                                   f"got {len(values)}")
        return [values[i:i + stride] for i in range(0, len(values), stride)]

    def infer_shape(self, *shapes):
        results = []
        for index, (single, group) in enumerate(zip(self._singles, self._groups(shapes))):
            try:
                results.append(single.infer_shape(*group))
            except InvalidShapeError as error:
                raise self.shape_error(f"weight {index}: {error}") from None
        return results

    def infer_type(self, *dtypes):
        return [single.infer_type(*group)
                for single, group in zip(self._singles, self._groups(dtypes))]

    def forward(self, xp, *arrays):
        groups = self._groups(arrays)
        if self.plain is None:
            return tuple(single.forward(xp, *group) for single, group in zip(self._singles, groups))
        # as MXNet's kernel: a float32 weight is its own master copy (weight32 is not read)
        return tuple(plain.forward(xp, *group[:-1]) if group[0].dtype == group[-1].dtype
                     else single.forward(xp, *group)
                     for single, plain, group in zip(self._singles, self._plains, groups))


_MULTI_PARAMS = {
    "lrs": Param(Float32Tuple, doc="the learning rate of each weight"),
    "wds": Param(Float32Tuple, doc="the weight decay of each weight"),
    "rescale_grad": _PARAMS["rescale_grad"], "clip_gradient": _PARAMS["clip_gradient"],
    "num_weights": Param(int, default=1, doc="how many weights this call updates"),
}
_MULTI_MOM_PARAMS = dict(_MULTI_PARAMS, momentum=_PARAMS["momentum"])


def _declare_multi(class_name, single, plain=None, doc=""):
    """Declare the ``multi_`` operator of one-weight operator ``single``: its states are
    ``aux`` as ``single``'s, its parameters ``lrs``/``wds`` in place of ``lr``/``wd``;
    tested on two weights of different shapes, and with clipping and rescaling."""
    momentum = "momentum" in single.params
    per_weight = len(single.inputs)
    shapes = ((3, 4),) * per_weight + ((5,),) * per_weight
    params = dict(num_weights=2, lrs=(0.1, 0.05), wds=(0.0, 0.1),
                  **({"momentum": 0.9} if momentum else {}))
    extra = dict(params, rescale_grad=2.0, clip_gradient=0.5)
    return declare_op(class_name, (MultiUpdate,), name="multi_" + single.name,
                      __doc__=doc, single=single, plain=plain, aux=single.aux,
                      params=_MULTI_MOM_PARAMS if momentum else _MULTI_PARAMS,
                      test=TestHints(shapes=shapes, params=params, cases=((extra, shapes),)))


class _SGDAsInMulti(SGDUpdate):
    """One weight of ``multi_sgd_update``: MXNet's multi kernel, ``_multi_sgd_step``."""

    def forward(self, xp, weight, grad):
        return _multi_sgd_step(self, xp, weight, grad)


class _MPSGDAsInMulti(MPSGDUpdate):
    """One float16 weight of ``multi_mp_sgd_update``: the same kernel on the master copy."""

    step = _multi_sgd_step


MultiSGDUpdate = _declare_multi(
    "MultiSGDUpdate", _SGDAsInMulti,
    doc="``sgd_update`` of ``num_weights`` weights in one call: inputs ``weight_i, grad_i``.")
MultiSGDMomUpdate = _declare_multi(
    "MultiSGDMomUpdate", SGDMomUpdate,
    doc="``sgd_mom_update`` of ``num_weights`` weights in one call: inputs ``weight_i, "
        "grad_i, mom_i``; every ``mom_i`` is updated in place.")
# As in MXNet, the mp_ variants update a weight that is float32 itself directly (the
# ``plain`` operator) and leave its ``weight32_i`` alone.
MultiMPSGDUpdate = _declare_multi(
    "MultiMPSGDUpdate", _MPSGDAsInMulti, plain=_SGDAsInMulti,
    doc="``mp_sgd_update`` of ``num_weights`` weights in one call: inputs ``weight_i, "
        "grad_i, weight32_i`` (the float32 master copies, updated in place; a float32 "
        "weight is updated directly).")
MultiMPSGDMomUpdate = _declare_multi(
    "MultiMPSGDMomUpdate", MPSGDMomUpdate, plain=SGDMomUpdate,
    doc="``mp_sgd_mom_update`` of ``num_weights`` weights in one call: inputs ``weight_i, "
        "grad_i, mom_i, weight32_i``; ``mom_i`` and ``weight32_i`` are updated in place (a "
        "float32 weight directly).")


@register_op
class SignSGDUpdate(UpdateOp):
    """signSGD step: ``(1 - lr * wd) * weight - lr * sign(grad)``."""
    name = "signsgd_update"
    inputs = ("weight", "grad")
    params = _params("lr", "wd", "rescale_grad", "clip_gradient")
    test = _hints(((3, 4), (3, 4)), {"lr": 0.1})

    def forward(self, xp, weight, grad):
        one, lr, wd = _scalars(weight, 1, self.lr, self.wd)
        new_weight = weight * (one - lr * wd)
        new_weight -= lr * mxnet_sign(xp, grad)
        return new_weight


@register_op
class SignumUpdate(UpdateOp):
    """Signum step: ``mom = momentum * mom - (1 - momentum) * (wd * weight + g)``, then
    ``(1 - lr * wd_lh) * weight + lr * sign(mom)``; ``mom`` is updated in place."""
    name = "signum_update"
    inputs = ("weight", "grad", "mom")
    aux = ("mom",)
    params = _params("lr", "momentum", "wd", "rescale_grad", "clip_gradient", "wd_lh")
    test = _hints(((3, 4),) * 3, {"lr": 0.1, "momentum": 0.9, "wd_lh": 0.01})

    def forward(self, xp, weight, grad, mom):
        one, momentum, lr, wd, wd_lh, rescale = _scalars(
            weight, 1, self.momentum, self.lr, self.wd, self.wd_lh, self.rescale_grad)
        rest = one - momentum
        mom *= momentum
        mom -= weight * (rest * wd)
        if self.clip_gradient < 0:
            mom -= grad * (rest * rescale)
        else:
            mom -= rest * self._rescaled(xp, grad)
        new_weight = weight * (one - lr * wd_lh)
        new_weight += lr * mxnet_sign(xp, mom)
        return new_weight


# -- adaptive rates ------------------------------------------------------------------------------
@register_op
class AdamUpdate(UpdateOp):
    """Adam step without bias correction (the optimizer folds it into ``lr``).

    With ``g = clip(rescale_grad * grad + wd * weight)``: ``mean = beta1 * mean +
    (1 - beta1) * g``, ``var = beta2 * var + (1 - beta2) * g**2`` (both in place),
    and the new weight is ``weight - lr * mean / (sqrt(var) + epsilon)``.
    """
    name = "adam_update"
    inputs = ("weight", "grad", "mean", "var")
    aux = ("mean", "var")
    params = _params("lr", "beta1", "beta2", "epsilon", "wd", "rescale_grad", "clip_gradient",
                     "lazy_update")
    test = _hints(((3, 4),) * 4, {"lr": 0.1}, low=0.1, high=1.0)

    def forward(self, xp, weight, grad, mean, var):
        g = self._clip(xp, self.rescale_grad * grad + self.wd * weight)
        mean *= self.beta1
        mean += (1 - self.beta1) * g
        var *= self.beta2
        var += (1 - self.beta2) * g * g
        return weight - self.lr * mean / (xp.sqrt(var) + self.epsilon)


@register_op
class RMSPropUpdate(UpdateOp):
    """RMSProp step (Tieleman and Hinton): with ``g = clip(rescale_grad * grad + wd *
    weight)``, ``n = gamma1 * n + (1 - gamma1) * g**2`` in place and the new weight
    ``weight - lr * g / sqrt(n + epsilon)``, clipped to ``clip_weights``."""
    name = "rmsprop_update"
    inputs = ("weight", "grad", "n")
    aux = ("n",)
    params = _params("lr", "gamma1", "epsilon", "wd", "rescale_grad", "clip_gradient",
                     "clip_weights")
    test = _hints(((3, 4),) * 3, {"lr": 0.1, "clip_weights": 1.0}, low=0.1, high=1.0)

    def forward(self, xp, weight, grad, n):
        one, gamma1, lr, epsilon = _scalars(weight, 1, self.gamma1, self.lr, self.epsilon)
        g = self._clip(xp, self.rescale_grad * grad + self.wd * weight)
        n *= gamma1                                 # (as MXNet's kernel groups them)
        n += (one - gamma1) * (g * g)
        return self._clip_weights(xp, weight - lr * (g / xp.sqrt(n + epsilon)))


@register_op
class RMSPropAlexUpdate(UpdateOp):
    """Centered RMSProp step (Graves): with ``g = clip(rescale_grad * grad + wd * weight)``,
    in place ``n = gamma1 * n + (1 - gamma1) * g**2``, ``g_avg = gamma1 * g_avg +
    (1 - gamma1) * g`` and ``delta = gamma2 * delta - lr * g / sqrt(n - g_avg**2 +
    epsilon)``; the new weight is ``weight + delta``, clipped to ``clip_weights``."""
    name = "rmspropalex_update"
    inputs = ("weight", "grad", "n", "g", "delta")
    aux = ("n", "g", "delta")
    params = _params("lr", "gamma1", "gamma2", "epsilon", "wd", "rescale_grad",
                     "clip_gradient", "clip_weights")
    # n starts above g_avg**2 (as it does from zeros), so the square root is real
    test = _hints(((3, 4),) * 5, {"lr": 0.1}, low=0.1, high=0.3)

    def forward(self, xp, weight, grad, n, g_avg, delta):
        g = self._clip(xp, self.rescale_grad * grad + self.wd * weight)
        n *= self.gamma1
        n += (1 - self.gamma1) * g * g
        g_avg *= self.gamma1
        g_avg += (1 - self.gamma1) * g
        delta *= self.gamma2
        delta -= self.lr * g / xp.sqrt(n - g_avg * g_avg + self.epsilon)
        return self._clip_weights(xp, weight + delta)


@register_op
class FtrlUpdate(UpdateOp):
    """FTRL-Proximal step: in place ``z += g - (sqrt(n + g**2) - sqrt(n)) * weight / lr``
    and ``n += g**2``; the new weight is ``(sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr
    + wd)`` where ``abs(z) > lamda1``, else 0."""
    name = "ftrl_update"
    inputs = ("weight", "grad", "z", "n")
    aux = ("z", "n")
    params = _params("lr", "lamda1", "beta", "wd", "rescale_grad", "clip_gradient")
    test = _hints(((3, 4),) * 4, {"lr": 0.1}, low=0.1, high=1.0)

    def forward(self, xp, weight, grad, z, n):
        g = self._rescaled(xp, grad)
        z += g - (xp.sqrt(n + g * g) - xp.sqrt(n)) * weight / self.lr
        n += g * g
        shrunk = (xp.sign(z) * self.lamda1 - z) / ((self.beta + xp.sqrt(n)) / self.lr + self.wd)
        return shrunk * (xp.abs(z) > self.lamda1)


@register_op
class FtmlUpdate(UpdateOp):
    """FTML step at update ``t``, with ``g = clip(rescale_grad * grad + wd * weight,
    clip_grad)``: ``v = beta2 * v + (1 - beta2) * g**2``, ``d_t = (1 - beta1**t) / lr *
    (sqrt(v / (1 - beta2**t)) + epsilon)``, ``z = beta1 * z + (1 - beta1) * g - (d_t -
    beta1 * d) * weight``, ``d = d_t`` (all in place); the new weight is ``-z / d_t``."""
    name = "ftml_update"
    inputs = ("weight", "grad", "d", "v", "z")
    aux = ("d", "v", "z")
    params = {"lr": _PARAMS["lr"],
              "beta1": _float(default=0.6, doc="decay of the gradient average"),
              "beta2": _float(default=0.999, doc="decay of the squared average"),
              # a C++ double in MXNet's FTMLParam, unlike the other fields
              "epsilon": Param(float, default=1e-8, doc="added for numerical stability"),
              "t": Param(int, doc="the number of this update (from 1)"),
              "wd": _PARAMS["wd"], "rescale_grad": _PARAMS["rescale_grad"],
              "clip_grad": _float(default=-1.0,
                                 doc="clip the gradient to [-c, c]; negative: no clipping")}
    test = TestHints(shapes=((3, 4),) * 5, params={"lr": 0.1, "t": 2}, low=0.1, high=1.0,
                     cases=(({"lr": 0.05, "t": 3, "wd": 0.1, "rescale_grad": 2.0,
                              "clip_grad": 0.5}, ((3, 4),) * 5),))

    def forward(self, xp, weight, grad, d, v, z):
        # MXNet's kernel term for term, in the weight's dtype (its powers are powf's)
        one, lr, beta1, beta2, epsilon, t = _scalars(
            weight, 1, self.lr, self.beta1, self.beta2, self.epsilon, self.t)
        g = grad * self.rescale_grad + self.wd * weight
        if self.clip_grad >= 0:
            g = xp.clip(g, -self.clip_grad, self.clip_grad)
        v *= beta2
        v += (one - beta2) * (g * g)
        d_t = (one - beta1 ** t) / lr * (xp.sqrt(v / (one - beta2 ** t)) + epsilon)
        z *= beta1
        z += (one - beta1) * g
        z -= (d_t - beta1 * d) * weight
        d[...] = d_t
        return -z / d_t
