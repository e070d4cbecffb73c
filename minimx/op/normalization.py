"""Normalisation layers: batch, layer, instance, group and L2 normalisation, and LRN.

Lesson: 09-gluon.  Mirrors ``src/operator/nn/batch_norm.cc``,
``layer_norm.cc``, ``instance_norm.cc``, ``group_norm.cc``,
``l2_normalization.cc`` and ``lrn.cc``.
Each one standardises ``x`` with statistics over some axes (``_moments``) and
shares one gradient formula (``_normalize_grad``).  BatchNorm shows auxiliary
states: its moving statistics are inputs that the operator updates in place, and (as
MXNet's CPU operator does) its *backward* pass updates them, not its forward pass.
"""
import math

import numpy

from ..backend import to_numpy
from .common import channel_view, sum_in_order
from .meeting import meet
from .params import Choice, Optional, Param
from .registry import OpDef, TestHints, register_op


# -- normalisation -----------------------------------------------------------------------------
def _normalize_grad(xp, grad_xhat, xhat, invstd, axes):
    """Gradient through ``xhat = (x - mean(x)) * invstd`` with statistics over ``axes``."""
    # the two means are sums of many terms: accumulated in float64, as MXNet's kernels
    # accumulate in a wider type (AccReal); the elementwise part stays in the input's dtype
    dtype = grad_xhat.dtype
    mean_grad = grad_xhat.mean(axis=axes, keepdims=True, dtype="float64").astype(dtype)
    mean_proj = (grad_xhat * xhat).mean(axis=axes, keepdims=True, dtype="float64").astype(dtype)
    return (grad_xhat - mean_grad - xhat * mean_proj) * invstd


def _channel_axis(op, shape):
    """``op.axis`` as a position in ``shape`` (negative counts from the end).  As in MXNet,
    an axis outside the data is refused here, in shape inference, rather than wrapped
    around: BatchNorm(axis=1) on a 1-d batch would otherwise get one gamma per sample."""
    ndim = len(shape)
    if not -ndim <= op.axis < ndim:
        raise op.shape_error(f"channel axis {op.axis} is out of range for data of shape "
                             f"{tuple(shape)}")
    return op.axis % ndim


def _mxnet_sum(xp, values, axes):
    """MXNet's sum reducer (``broadcast::Reduce`` with ``mshadow_op::sum``), ``axes`` kept
    as size 1: each output adds its terms one by one in row-major order, compensated
    (Kahan), in double, then rounds to the dtype.  For float32 terms numpy's float64 sum
    gives the same float32 (the two double sums differ far below float32's last bit);
    float64 terms are added as MXNet adds them, one slice of terms at a time."""
    if values.dtype != "float64":
        return values.sum(axis=axes, keepdims=True, dtype="float64").astype(values.dtype)
    kept = [a for a in range(values.ndim) if a not in axes]
    size = math.prod(values.shape[a] for a in kept)
    terms = xp.ascontiguousarray(xp.transpose(values, list(axes) + kept)).reshape(-1, size)
    total, added, term, residual = (xp.zeros(size, values.dtype) for _ in range(4))
    for row in terms:                   # (in place: a loop of small steps, float64 only)
        xp.subtract(row, residual, out=term)
        xp.add(total, term, out=added)
        xp.subtract(added, total, out=residual)
        residual -= term                # the part of ``term`` that ``added`` lost
        total, added = added, total
    return total.reshape([1 if a in axes else n for a, n in enumerate(values.shape)])


def _moments(data, axes):
    mean = data.mean(axis=axes, keepdims=True)
    return mean, ((data - mean) ** 2).mean(axis=axes, keepdims=True)


# BatchNorm works on ``data`` viewed as (before, channels, after): per-channel sums are
# then ``einsum`` reductions that make no temporaries, and the normalisation is one affine
# map per channel, ``x * a + b`` (two passes over a large activation instead of six).
def _as_channels(data, axis):
    shape = data.shape
    return data.reshape(math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]))


def _statistics_dtype(dtype):
    """The dtype BatchNorm's statistics and affine part are computed in: float32 for
    float16 data (as MXNet's AccReal; its parameters, statistics and mean/var outputs are
    float32 then), the data's own dtype otherwise."""
    return "float32" if str(dtype) == "float16" else str(dtype)


def _per_channel(xp, vector, x3):
    """A per-channel vector as a ``(1, channels, after)`` plane, each value repeated along
    its channel's row: broadcast against ``x3`` only along the first axis, numpy then runs
    one long contiguous loop per ``before`` index, instead of one loop per row of ``after``
    values with a ``(1, channels, 1)`` view (NCHW rows are short: 16 values at 4x4).
    ``x * a + b`` at batch 64, one core: 64x64x24x24 1.41 -> 0.83 ms, 64x512x3x3 0.25 ->
    0.08 ms; the same values and operations, so the results do not change."""
    return xp.repeat(vector, x3.shape[2]).reshape(1, -1, x3.shape[2])


def _channel_dot(xp, a3, b3):
    """Per channel, the sum of ``a3 * b3``.  With long rows (128 values or more after the
    channel axis) one BLAS dot product per (before, channel) row, then a sum over ``before``:
    16x8x784 float32 19 -> 11 us, 64x64x196 121 -> 83 us; shorter rows stay with
    ``einsum`` (64x128x49: 82 vs 131 us, channels-last: 0.13 vs 1.4 ms).  A float32 sum in
    another order: equal within float32 rounding (tests/op/test_batch_norm_sums.py)."""
    before, channels, after = a3.shape
    if after < 128:
        return xp.einsum("pcq,pcq->c", a3, b3)
    rows = xp.matmul(a3[:, :, None, :], b3[:, :, :, None])
    return rows.reshape(before, channels).sum(axis=0)


def _channel_moments(xp, x3):
    """Per-channel mean and variance of ``x3``, and ``x3 - mean`` (a new buffer: the
    forward pass normalises it in place)."""
    count = x3.shape[0] * x3.shape[2]
    mean = xp.einsum("pcq->c", x3) / count
    centered = x3 - _per_channel(xp, mean, x3)
    return mean, _channel_dot(xp, centered, centered) / count, centered


def _affine(xp, x3, scale, shift):
    """``x3 * scale + shift`` per channel, in one new buffer."""
    result = x3 * _per_channel(xp, scale, x3)
    result += _per_channel(xp, shift, x3)
    return result


def _float16_affine(xp, x3, mean, invstd, gamma, beta):
    """MXNet 1.9.1's CPU output for float16 data: ``((x - mean) * invstd) * gamma + beta``
    (no ``* gamma`` when ``gamma`` is None), each step done in float32 and rounded to float16
    (mshadow's half-precision arithmetic); equal to MXNet's bit for bit."""
    steps = [(xp.subtract, mean), (xp.multiply, invstd)]
    steps += [] if gamma is None else [(xp.multiply, gamma)]
    result = x3
    for operation, vector in steps + [(xp.add, beta)]:
        result = operation(result.astype("float32"), _per_channel(xp, vector, x3))
        result = result.astype("float16")
    return result


def _rounded(array):
    """``array`` rounded to float16, as float32 again: one step of MXNet's half arithmetic."""
    return array.astype("float16").astype("float32")


def _float16_data_grad(xp, centered, g3, k, grad_mean, scale):
    """MXNet 1.9.1's CPU data gradient for float16 data, with batch statistics:
    ``((g - mean(g)) - centered * k) * scale``, each step rounded to float16; ``centered``
    is ``x - mean`` already rounded, ``k`` is ``invstd * mean(g * xhat)``."""
    normal = _rounded(centered * _per_channel(xp, k, centered))
    result = _rounded(_rounded(g3 - _per_channel(xp, grad_mean, g3)) - normal)
    return (result * _per_channel(xp, scale, g3)).astype("float16")


# -- BatchNorm's training step on float32/float64 data, with fewer Python-level steps -------------
# The general ``BatchNorm.forward``/``backward`` below is the reference: it handles float16,
# parameters of another dtype, the moving statistics and SyncBatchNorm's meetings, at the
# cost of some thirty small numpy calls and dtype checks per call (``str(dtype)`` alone
# costs 2-3 us).  For the common case -- training with batch statistics, data and parameters
# of one float32 or float64 dtype -- the two functions below do the same array operations
# in the same order (so the results are the reference's, bit for bit:
# tests/op/test_batch_norm_fast.py), with the per-channel vectors made planes in one
# ``repeat``.  16x8x28x28 float32 (the executor benchmark's layer), one core, interleaved
# best of 40 on a busy machine: forward 82-85 -> 70-72 us, backward 112-113 -> 103-113 us
# (the rest is six passes over the activation, which numpy cannot fuse).
FAST_PATH = True        # tests turn it off to run the reference path


def _fast_dtype(data, gamma, beta):
    """Whether the fast training path applies: float32/float64 data, parameters alike."""
    dtype = data.dtype
    return dtype.char in "fd" and gamma.dtype == dtype and beta.dtype == dtype


def _planes(xp, vectors, after):
    """Per-channel ``vectors`` (a sequence of ``(C,)`` arrays) as ``(k, 1, C, after)``
    planes, as ``_per_channel`` makes each of them."""
    stacked = xp.stack(vectors)
    return xp.repeat(stacked, after, axis=1).reshape(len(vectors), 1, stacked.shape[1], after)


def _fast_train_forward(xp, x3, gamma, beta, eps, fix_gamma):
    """``(output3, mean, invstd)`` for ``x3`` ``(before, C, after)`` with batch statistics."""
    count = x3.shape[0] * x3.shape[2]
    mean = xp.einsum("pcq->c", x3)
    mean /= count
    centered = x3 - _per_channel(xp, mean, x3)
    var = _channel_dot(xp, centered, centered)
    var /= count
    var += eps
    invstd = 1 / xp.sqrt(var)
    scale, shift = _planes(xp, (invstd if fix_gamma else gamma * invstd, beta), x3.shape[2])
    centered *= scale
    centered += shift
    return centered, mean, invstd


def _fast_train_backward(xp, g3, x3, gamma, mean, invstd, fix_gamma):
    """``(grad_data3, grad_gamma, grad_beta)`` with batch statistics (the reference's
    ``g * a + c + x * b`` per channel)."""
    count = x3.shape[0] * x3.shape[2]
    scale = invstd if fix_gamma else gamma * invstd
    sum_g = xp.einsum("pcq->c", g3)
    sum_g_xhat = invstd * (_channel_dot(xp, g3, x3) - mean * sum_g)
    x_factor = -scale * invstd * sum_g_xhat / count
    a, c, b = _planes(xp, (scale, -scale * sum_g / count - x_factor * mean, x_factor),
                      x3.shape[2])
    grad = g3 * a
    grad += c
    grad += x3 * b
    return grad, xp.zeros_like(gamma) if fix_gamma else sum_g_xhat, sum_g


@register_op
class BatchNorm(OpDef):
    """Batch normalisation over every axis but ``axis`` (the channels).

    While training, the batch statistics normalise ``data``.  Otherwise (or
    with ``use_global_stats``) the moving statistics (auxiliary states) are used.
    The moving statistics move towards a batch's statistics when the gradient
    flows back through that batch's call, in training mode:
    ``moving = moving * momentum + batch * (1 - momentum)``.  A training-mode
    forward with no backward through it leaves them as they are; two forwards
    and one backward through the first move them by the first batch only; a
    second backward through the same call (``retain_graph``) moves them again.
    This is where MXNet 1.9.1's CPU operator updates them (its cuDNN one on a GPU
    updates them in the forward pass instead).  With
    ``fix_gamma`` (MXNet's default) gamma is taken as 1 and gets no gradient.
    The hidden outputs are the mean and ``1 / sqrt(var + eps)`` used.
    """
    name = "BatchNorm"
    family = "normalization"
    inputs = ("data", "gamma", "beta", "moving_mean", "moving_var")
    outputs = ("output", "mean", "var")
    named_outputs = True            # bn_mean, bn_var
    input_init_hints = {"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'}
    aux = ("moving_mean", "moving_var")
    params = {
        "eps": Param(float, default=1e-3, doc="added to the variance"),
        "momentum": Param(float, default=0.9, doc="decay of the moving statistics"),
        "fix_gamma": Param(bool, default=True, doc="treat gamma as 1"),
        "use_global_stats": Param(bool, default=False, doc="use the moving statistics always"),
        "output_mean_var": Param(bool, default=False, doc="also return mean and inverse std"),
        "axis": Param(int, default=1, doc="the channel axis"),
        "cudnn_off": Param(bool, default=False, doc="ignored"),
        "min_calib_range": Param(Optional(float), default=None, doc="ignored"),
        "max_calib_range": Param(Optional(float), default=None, doc="ignored"),
    }
    # the moving statistics are saved as the arrays themselves: backward updates them
    saves = ("data", "gamma", "mean", "var", "moving_mean", "moving_var")
    # inputs in [0.1, 1]: the moving variance must be positive
    test = TestHints(shapes=((3, 2, 2), (2,), (2,), (2,), (2,)), params={"fix_gamma": False},
                     low=0.1, high=1.0,
                     cases=(({}, ((4, 3), (3,), (3,), (3,), (3,))),
                            ({"axis": -1, "fix_gamma": False},
                             ((2, 3, 2), (2,), (2,), (2,), (2,)))))

    def shaped_like_output(self):
        return (0,)

    def num_visible(self):
        return 3 if self.output_mean_var else 1

    def check_input_stypes(self, stypes):
        """As MXNet 1.9.1's: sparse inputs only with ``fix_gamma=False``."""
        if self.fix_gamma and any(stype != "default" for stype in stypes):
            raise self.param_error(f"fix_gamma=True is not supported for sparse inputs "
                                   f"(storage types {list(stypes)}); pass fix_gamma=False "
                                   f"or dense arrays")

    def infer_input_shapes(self, data, *others):
        channels = (data[_channel_axis(self, data)],) if data else None
        return [data] + [shape or channels for shape in others]

    def infer_shape(self, data, gamma, beta, moving_mean, moving_var):
        channels = (data[_channel_axis(self, data)],)
        for name, shape in zip(self.inputs[1:], (gamma, beta, moving_mean, moving_var)):
            if tuple(shape) != channels:
                raise self.shape_error(f"{name} must have shape {channels} for data "
                                       f"{tuple(data)}, got {tuple(shape)}")
        return [data, channels, channels]

    def infer_type(self, data, *others):
        return [data] + [_statistics_dtype(data)] * 2

    def _uses_batch_stats(self, is_train):
        return is_train and not self.use_global_stats

    # whether this operator's training step may take ``_fast_train_forward``/``_backward``
    # (not the subclasses whose third output or statistics differ)
    _fast_kind = True

    def _fast(self, is_train, data, gamma, beta):
        return FAST_PATH and self._fast_kind and is_train and not self.use_global_stats and \
            _fast_dtype(data, gamma, beta)

    def forward(self, xp, data, gamma, beta, moving_mean, moving_var, is_train=False):
        if self._fast(is_train, data, gamma, beta):
            output, mean, invstd = _fast_train_forward(
                xp, _as_channels(data, _channel_axis(self, data.shape)), gamma, beta, self.eps,
                self.fix_gamma)
            return output.reshape(data.shape), mean, invstd
        # float16 data: the statistics from one float32 copy, as MXNet's (the float32 and
        # float64 paths make no copy)
        wide = _statistics_dtype(data.dtype)
        data3 = _as_channels(data, _channel_axis(self, data.shape))
        x3 = data3.astype(wide, copy=False)
        centered = None
        if self._uses_batch_stats(is_train):
            mean, var, centered = self._batch_moments(xp, x3)
        else:
            mean, var = moving_mean, moving_var
        invstd = self._invstd(xp, var, data.dtype)
        scale = invstd if self.fix_gamma else gamma * invstd
        if str(data.dtype) == "float16":
            output = _float16_affine(xp, data3, mean, invstd, None if self.fix_gamma else gamma,
                                     beta)
        elif centered is None or centered.dtype != xp.result_type(centered, scale, beta):
            # (parameters of a wider dtype than the data: the affine part in theirs)
            output = _affine(xp, x3, scale, beta - mean * scale)
        else:
            # ``(x - mean) * scale + beta`` in the buffer the variance was computed from: one
            # new activation-sized array instead of two (the affine part of 16x8x28x28,
            # float32: 28 -> 20 us); equal to ``x * scale + (beta - mean * scale)`` within
            # float32 rounding (tests/op/test_batch_norm_sums.py)
            output = centered
            output *= _per_channel(xp, scale.astype(output.dtype, copy=False), x3)
            output += _per_channel(xp, beta, x3)
        output = output.reshape(data.shape)
        return (output.astype(data.dtype, copy=False), mean.astype(wide),
                self._hidden_var(var, invstd).astype(wide))

    def _hidden_var(self, var, invstd):
        """What the third output holds: ``1 / sqrt(var + eps)`` here."""
        return invstd

    def _invstd(self, xp, var, data_dtype):
        """``1 / sqrt(var + eps)``.  For float16 data MXNet 1.9.1's CPU kernel adds ``eps``
        in float16 (``var`` and ``eps`` both rounded to float16, and the sum too), then
        takes the root in float32: with ``var`` near 8, ``eps=1e-3`` is lost entirely."""
        if str(data_dtype) == "float16":
            var = (var.astype("float16") + xp.float16(self.eps)).astype(var.dtype)
            return 1 / xp.sqrt(var)
        return 1 / xp.sqrt(var + self.eps)

    def _batch_moments(self, xp, x3):
        """The batch's per-channel mean and variance (SyncBatchNorm: of the whole batch
        over its devices), and ``x3 - mean`` as a new buffer (None if not worked out)."""
        return _channel_moments(xp, x3)

    def _batch_sums(self, xp, count, sum_g, sum_g_xhat):
        """The backward pass's per-channel sums and element count, for the gradient of the
        data (SyncBatchNorm: over every device's part of the batch)."""
        return count, sum_g, sum_g_xhat

    def _move(self, moving, batch):
        """``moving = moving * momentum + batch * (1 - momentum)``, in place."""
        moving[...] = moving * self.momentum + batch.astype(moving.dtype) * (1 - self.momentum)

    def backward(self, xp, out_grad, *unused, data, gamma, mean, var, moving_mean, moving_var,
                 is_train=False):
        """With batch statistics, ``grad_x = gamma * invstd * (g - mean(g) - xhat *
        mean(g * xhat))``, written as ``g * a + x * b + c`` per channel; the sums it needs
        (of ``g`` and of ``g * x``) give the gamma and beta gradients too.

        ``is_train`` is the backward pass's mode (``backward(train_mode=...)``); in
        training mode the moving statistics move towards the saved batch statistics."""
        invstd = var                                   # the hidden output holds 1 / std
        if self._uses_batch_stats(is_train):
            self._move(moving_mean, mean)
            self._move(moving_var, 1 / (invstd * invstd) - self.eps)
        axis = _channel_axis(self, data.shape)
        if self._fast(is_train, data, gamma, gamma) and out_grad.dtype == data.dtype:
            grad, grad_gamma, grad_beta = _fast_train_backward(
                xp, _as_channels(out_grad, axis), _as_channels(data, axis), gamma, mean, invstd,
                self.fix_gamma)
            return grad.reshape(data.shape), grad_gamma, grad_beta, None, None
        wide = _statistics_dtype(data.dtype)
        x3 = _as_channels(data, axis).astype(wide, copy=False)
        g3 = _as_channels(out_grad, axis).astype(wide, copy=False)
        scale = invstd if self.fix_gamma else gamma * invstd
        sum_g = xp.einsum("pcq->c", g3)
        half = str(data.dtype) == "float16"
        if half:
            # MXNet's float16 kernel: ``x - mean`` and each product with g rounded to float16
            centered = _rounded(x3 - _per_channel(xp, mean, x3))
            sum_g_xhat = invstd * xp.einsum("pcq->c", _rounded(centered * g3))
        else:
            sum_g_xhat = invstd * (_channel_dot(xp, g3, x3) - mean * sum_g)
        grad_gamma = xp.zeros_like(gamma) if self.fix_gamma else sum_g_xhat
        if self._uses_batch_stats(is_train):
            count, all_g, all_g_xhat = self._batch_sums(xp, x3.shape[0] * x3.shape[2], sum_g,
                                                        sum_g_xhat)
            x_factor = -scale * invstd * all_g_xhat / count
            if half:
                return (_float16_data_grad(xp, centered, g3, invstd * all_g_xhat / count,
                                           all_g / count, scale).reshape(data.shape),
                        grad_gamma, sum_g, None, None)
            grad_data = _affine(xp, g3, scale, -scale * all_g / count - x_factor * mean)
            grad_data += x3 * _per_channel(xp, x_factor, x3)
        else:
            grad_data = g3 * _per_channel(xp, scale, g3)
        return (grad_data.reshape(data.shape).astype(data.dtype, copy=False), grad_gamma, sum_g,
                None, None)


class VarianceOutputBatchNorm(BatchNorm):
    """BatchNorm whose third output is the batch variance itself (BatchNorm's is
    ``1 / sqrt(var + eps)``), with the channels on axis 1: the older and the synchronised
    operators."""
    axis = 1
    _fast_kind = False

    def _hidden_var(self, var, invstd):
        return var

    def _invstd(self, xp, var, data_dtype):
        return 1 / xp.sqrt(var + self.eps)

    def backward(self, xp, out_grad, *unused, data, gamma, mean, var, moving_mean, moving_var,
                 is_train=False):
        invstd = 1 / xp.sqrt(var + self.eps)
        return super().backward(xp, out_grad, *unused, data=data, gamma=gamma, mean=mean,
                                var=invstd.astype(var.dtype), moving_mean=moving_mean,
                                moving_var=moving_var, is_train=is_train)


_V1_PARAMS = {key: value for key, value in BatchNorm.params.items()
              if key in ("eps", "momentum", "fix_gamma", "use_global_stats", "output_mean_var")}


@register_op
class BatchNormV1(VarianceOutputBatchNorm):
    """``BatchNorm_v1``: MXNet's first BatchNorm, kept for old programs -- channels on axis
    1, no ``axis`` parameter, and the third output is the batch variance."""
    name = "BatchNorm_v1"
    params = _V1_PARAMS
    test = TestHints(shapes=((3, 2, 2), (2,), (2,), (2,), (2,)), params={"fix_gamma": False},
                     low=0.1, high=1.0, cases=(({}, ((4, 3), (3,), (3,), (3,), (3,))),))


@register_op
class SyncBatchNorm(VarianceOutputBatchNorm):
    """``contrib.SyncBatchNorm``: BatchNorm whose batch statistics are those of the whole
    batch split over ``ndev`` devices (``key`` names the layer the devices share).

    It is called once per device.  In training mode each call hands its part's per-channel
    count, mean and variance to the meeting ``key`` (``op/meeting.py``) and normalises with
    the whole batch's mean and variance; its backward meets again to share the sums the
    data's gradient needs (gamma's and beta's gradients stay the device's own, which the
    Trainer adds up).  Each device's moving statistics move towards the whole batch's.
    MXNet averages the devices' means, which is the whole batch's mean when the parts are
    of one size; here parts of different sizes count by their sizes.  The channel axis is
    1, and the third output is the batch variance (BatchNorm's is ``1 / sqrt(var + eps)``).
    """
    name = "_contrib_SyncBatchNorm"
    params = {**_V1_PARAMS,
              "ndev": Param(int, default=1, doc="how many devices share the statistics"),
              "key": Param(str, doc="the name the devices' calls share")}
    test = TestHints(shapes=((3, 2, 2), (2,), (2,), (2,), (2,)), params={"fix_gamma": False,
                                                                         "key": "bn"},
                     low=0.1, high=1.0)

    @property
    def meets(self):
        return self.ndev > 1

    def _meet(self, phase, xp, values, combine):
        """Hand this device's per-channel ``values`` to the other calls of this phase and
        key; returns ``combine``'s arrays, on this call's device, in the data's dtype."""
        dtype = values[-1].dtype
        mine = [to_numpy(value).astype("float64") for value in values]
        combined = meet((phase, self.key), self.ndev, mine, combine,
                        f"{self.name} {phase} (key {self.key!r}, ndev={self.ndev})")
        return [xp.asarray(value).astype(dtype) for value in combined]

    def _batch_moments(self, xp, x3):
        mean, var, centered = _channel_moments(xp, x3)
        if self.ndev == 1:
            return mean, var, centered
        count = xp.asarray(float(x3.shape[0] * x3.shape[2]))
        # centered on this part's mean, not the whole batch's: the forward pass recentres
        return (*self._meet("forward", xp, (count, mean, var), _whole_batch_moments), None)

    def _batch_sums(self, xp, count, sum_g, sum_g_xhat):
        if self.ndev == 1:
            return count, sum_g, sum_g_xhat
        return self._meet("backward", xp, (xp.asarray(float(count)), sum_g, sum_g_xhat),
                          _sums)


def _whole_batch_moments(parts):
    """Mean and variance of the union of ``parts``, each ``(count, mean, variance)``."""
    total = sum(count for count, _, _ in parts)
    mean = sum(count * part_mean for count, part_mean, _ in parts) / total
    var = sum(count * (part_var + (part_mean - mean) ** 2) for count, part_mean, part_var
              in parts) / total
    return mean, var


def _sums(parts):
    """The element-wise sums of ``parts``, each a tuple of arrays."""
    return [sum(values) for values in zip(*parts)]


@register_op
class LayerNorm(OpDef):
    """Normalise along ``axis`` for each sample, then scale by gamma and shift by beta.

    Hidden outputs: the mean and the standard deviation (``sqrt(var + eps)``).
    """
    name = "LayerNorm"
    inputs = ("data", "gamma", "beta")
    outputs = ("output", "mean", "std")
    named_outputs = True
    params = {
        "axis": Param(int, default=-1, doc="the axis to normalise over"),
        "eps": Param(float, default=1e-5, doc="added to the variance"),
        "output_mean_var": Param(bool, default=False, doc="also return mean and std"),
    }
    saves = ("data", "gamma", "mean", "std")
    test = TestHints(shapes=((2, 3, 4), (4,), (4,)), cases=(({"axis": 1}, ((2, 3), (3,), (3,))),))

    def shaped_like_output(self):
        return (0,)

    def num_visible(self):
        return 3 if self.output_mean_var else 1

    def infer_input_shapes(self, data, gamma=None, beta=None):
        channels = (data[_channel_axis(self, data)],) if data else None
        return [data, gamma or channels, beta or channels]

    def infer_shape(self, data, gamma, beta):
        axis = _channel_axis(self, data)
        for name, shape in (("gamma", gamma), ("beta", beta)):
            if tuple(shape) != (data[axis],):
                raise self.shape_error(f"{name} must have shape ({data[axis]},), got {shape}")
        reduced = tuple(1 if a == axis else size for a, size in enumerate(data))
        return [data, reduced, reduced]

    def forward(self, xp, data, gamma, beta):
        axis = _channel_axis(self, data.shape)
        if data.dtype not in ("float32", "float64"):
            mean, var = _moments(data, axis)
            std = xp.sqrt(var + self.eps)
            xhat = (data - mean) / std
            output = xhat * channel_view(gamma, data.ndim, axis) + channel_view(
                beta, data.ndim, axis)
            return output.astype(data.dtype), mean, std
        # MXNet's eps is a float parameter: float64 gets float32's 1e-5, 9.99999975e-06
        kind, count = data.dtype.type, data.shape[axis]
        eps = kind(numpy.float32(self.eps))
        gamma, beta = channel_view(gamma, data.ndim, axis), channel_view(beta, data.ndim, axis)
        if axis == data.ndim - 1:
            # LayerNormCPUKernel (the last axis): sums added one by one in the dtype, then
            # ``(x - mean) * gamma / sigma + beta``.  numpy's float32 sum is a pairwise one
            # (the same where the sum is exact); a one-by-one float32 sum would cost more
            # than the whole layer, so only float64 follows it
            if data.dtype == "float64":
                mean = sum_in_order(xp, data, axis) / kind(count)
                centered = data - mean
                squares = sum_in_order(xp, centered * centered, axis)
            else:
                mean = data.sum(axis=axis, keepdims=True) / kind(count)
                centered = data - mean
                squares = (centered * centered).sum(axis=axis, keepdims=True)
            std = xp.sqrt(squares / kind(count) + eps)
            return centered * gamma / std + beta, mean, std
        # LayerNormComputeGeneral: MXNet's sum reducer, then (x - mean) / std * gamma + beta
        mean = _mxnet_sum(xp, data, (axis,)) / kind(count)
        centered = data - mean
        std = xp.sqrt(_mxnet_sum(xp, centered * centered, (axis,)) / kind(count) + eps)
        return centered / std * gamma + beta, mean, std

    def backward(self, xp, out_grad, *unused, data, gamma, mean, std):
        axis = _channel_axis(self, data.shape)
        others = tuple(a for a in range(data.ndim) if a != axis)
        xhat = (data - mean) / std
        if data.dtype not in ("float32", "float64"):
            grad_xhat = out_grad * channel_view(gamma, data.ndim, axis)
            grad_data = _normalize_grad(xp, grad_xhat, xhat, 1 / std, axis)
            return grad_data, (out_grad * xhat).sum(axis=others), out_grad.sum(axis=others)
        # LayerNormGradComputeGeneral, step by step in its order (each step rounds):
        # g = ograd * gamma / std;  dx = g - sum(g) / C + xhat * (sum(g * xhat) / -C)
        kind, count = data.dtype.type, data.shape[axis]
        grad_beta = _mxnet_sum(xp, out_grad, others).reshape(-1)
        grad_gamma = _mxnet_sum(xp, xhat * out_grad, others).reshape(-1)
        scaled = out_grad * channel_view(gamma, data.ndim, axis) / std
        grad_data = scaled - _mxnet_sum(xp, scaled, (axis,)) / kind(count)
        grad_data += xhat * (_mxnet_sum(xp, scaled * xhat, (axis,)) / kind(-count))
        return grad_data, grad_gamma, grad_beta


@register_op
class InstanceNorm(OpDef):
    """Normalise each sample's each channel over its spatial axes; gamma/beta per channel."""
    name = "InstanceNorm"
    inputs = ("data", "gamma", "beta")
    named_outputs = True
    params = {"eps": Param(float, default=1e-3, doc="added to the variance")}
    saves = ("data", "gamma")
    test = TestHints(shapes=((2, 3, 4), (3,), (3,)))

    def shaped_like_output(self):
        return (0,)

    def infer_input_shapes(self, data, gamma=None, beta=None):
        channels = None if data is None else (data[1],)
        return [data, gamma or channels, beta or channels]

    def infer_shape(self, data, gamma, beta):
        if len(data) < 3:
            raise self.shape_error(f"data must have at least 3 axes (N, C, ...), got {data}")
        return data

    def _normalized(self, xp, data):
        axes = tuple(range(2, data.ndim))
        mean, var = _moments(data, axes)
        invstd = 1 / xp.sqrt(var + self.eps)
        return (data - mean) * invstd, invstd, axes

    def forward(self, xp, data, gamma, beta):
        xhat, _, _ = self._normalized(xp, data)
        return xhat * channel_view(gamma, data.ndim, 1) + channel_view(beta, data.ndim, 1)

    def backward(self, xp, out_grad, data, gamma):
        xhat, invstd, axes = self._normalized(xp, data)
        others = (0,) + axes
        grad_xhat = out_grad * channel_view(gamma, data.ndim, 1)
        return (_normalize_grad(xp, grad_xhat, xhat, invstd, axes),
                (out_grad * xhat).sum(axis=others), out_grad.sum(axis=others))


@register_op
class GroupNorm(OpDef):
    """Split the channels (axis 1) into ``num_groups`` groups and normalise each group of
    each sample over its channels and spatial positions; gamma and beta hold one value
    per group.  The hidden outputs are the mean and ``sqrt(var + eps)``, shaped
    ``(N, num_groups)``."""
    name = "GroupNorm"
    inputs = ("data", "gamma", "beta")
    outputs = ("output", "mean", "std")
    named_outputs = True            # gn_output, gn_mean, gn_std
    params = {
        "num_groups": Param(int, default=1, doc="number of channel groups"),
        "eps": Param(float, default=1e-5, doc="added to the variance"),
        "output_mean_var": Param(bool, default=False, doc="also return mean and std"),
    }
    saves = ("data", "gamma", "mean", "std")
    test = TestHints(shapes=((2, 4, 3), (2,), (2,)), params={"num_groups": 2},
                     cases=(({"num_groups": 3, "eps": 0.1, "output_mean_var": True},
                             ((2, 6, 2, 2), (3,), (3,))),))

    def num_visible(self):
        return 3 if self.output_mean_var else 1

    def infer_input_shapes(self, data, gamma=None, beta=None):
        return [data, gamma or (self.num_groups,), beta or (self.num_groups,)]

    def infer_shape(self, data, gamma, beta):
        if len(data) < 3:
            raise self.shape_error(f"data must have at least 3 axes (N, C, ...), got {data}")
        if data[1] % self.num_groups:
            raise self.shape_error(f"{data[1]} channels do not split into {self.num_groups} "
                                   f"groups")
        for name, shape in (("gamma", gamma), ("beta", beta)):
            if tuple(shape) != (self.num_groups,):
                raise self.shape_error(f"{name} must have shape ({self.num_groups},), "
                                       f"got {tuple(shape)}")
        statistics = (data[0], self.num_groups)
        return [data, statistics, statistics]

    def _grouped(self, array):
        return array.reshape(array.shape[0], self.num_groups, -1)

    def forward(self, xp, data, gamma, beta):
        grouped = self._grouped(data)
        mean, var = _moments(grouped, 2)
        std = xp.sqrt(var + self.eps)
        output = (grouped - mean) / std * gamma[:, None] + beta[:, None]
        return (output.reshape(data.shape).astype(data.dtype), mean[..., 0].astype(data.dtype),
                std[..., 0].astype(data.dtype))

    def backward(self, xp, out_grad, *unused, data, gamma, mean, std):
        std = std[..., None]
        xhat = (self._grouped(data) - mean[..., None]) / std
        grad = self._grouped(out_grad)
        grad_data = _normalize_grad(xp, grad * gamma[:, None], xhat, 1 / std, 2)
        return (grad_data.reshape(data.shape), (grad * xhat).sum(axis=(0, 2)),
                grad.sum(axis=(0, 2)))


@register_op
class L2Normalization(OpDef):
    """Divide by the L2 norm ``sqrt(sum(x**2) + eps)`` taken per ``instance`` (all axes
    but the first), per ``channel`` (axis 1) or per ``spatial`` position set (axes 2...)."""
    name = "L2Normalization"
    params = {
        "eps": Param(float, default=1e-10, doc="added under the square root"),
        "mode": Param(Choice("channel", "instance", "spatial"), default="instance"),
    }
    saves = ("data", "output")
    test = TestHints(shapes=((2, 3, 2),),
                     cases=(({"mode": "channel"}, ((2, 3, 2),)),
                            ({"mode": "spatial"}, ((2, 3, 2),))))

    def shaped_like_output(self):
        return (0,)

    def _axes(self, ndim):
        if self.mode == "instance":
            return tuple(range(1, ndim))
        return (1,) if self.mode == "channel" else tuple(range(2, ndim))

    def _norm(self, xp, data):
        return xp.sqrt((data * data).sum(axis=self._axes(data.ndim), keepdims=True) + self.eps)

    def forward(self, xp, data):
        return data / self._norm(xp, data)

    def backward(self, xp, out_grad, data, output):
        inner = (out_grad * output).sum(axis=self._axes(data.ndim), keepdims=True)
        return (out_grad - output * inner) / self._norm(xp, data)


def _channel_window_sum(xp, values, size):
    """Sum over a window of ``size`` neighbouring channels (axis 1), centred, zero-padded."""
    half = size // 2
    pad = [(0, 0)] * values.ndim
    pad[1] = (half, size - 1 - half)
    padded = xp.pad(values, pad)
    channels = values.shape[1]
    return sum(padded[:, offset:offset + channels] for offset in range(size))


@register_op
class LRN(OpDef):
    """Local response normalisation across ``nsize`` neighbouring channels:
    ``x / (knorm + alpha / nsize * sum(x**2))**beta``."""
    name = "LRN"
    params = {
        "alpha": Param(float, default=1e-4),
        "beta": Param(float, default=0.75),
        "knorm": Param(float, default=2.0),
        "nsize": Param(int, doc="window size in channels (odd)"),
    }
    saves = ("data",)
    test = TestHints(shapes=((2, 4, 2, 1),), params={"nsize": 3, "alpha": 0.5})

    def shaped_like_output(self):
        return (0,)

    def _scale(self, xp, data):
        return self.knorm + self.alpha / self.nsize * _channel_window_sum(
            xp, data * data, self.nsize)

    def forward(self, xp, data):
        return data * self._scale(xp, data) ** -self.beta

    def backward(self, xp, out_grad, data):
        scale = self._scale(xp, data)
        through_scale = out_grad * data * (-self.beta) * scale ** (-self.beta - 1)
        spread = _channel_window_sum(xp, through_scale, self.nsize)
        return out_grad * scale ** -self.beta + spread * 2 * self.alpha / self.nsize * data
