"""References for the AdamW updates (minimx/op/adamw_updates.py), written from MXNet's
documented rule: the new weights only (the visible outputs); the updated moments are
compared with MXNet in tests/optimizer/test_adamw_updates.py."""
import math


def adamw(np, weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
          epsilon=1e-8, wd=0.0, clip_gradient=-1.0):
    scale = float(rescale_grad.reshape(-1)[0])
    if not math.isfinite(scale) or scale == 0:
        return weight.copy()
    g = grad.astype(np.float64) * scale
    if clip_gradient >= 0:
        g = np.clip(g, -clip_gradient, clip_gradient)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    return weight - eta * (lr * m / (np.sqrt(v) + epsilon) + wd * weight)


def mp_adamw(np, weight, grad, mean, var, weight32, rescale_grad, **params):
    return adamw(np, weight32, grad, mean, var, rescale_grad, **params).astype(weight.dtype)


def _many(single, per_weight):
    def multi(np, *inputs, lrs, wds, etas, num_weights=1, **params):
        *arrays, rescale = inputs
        groups = [arrays[i:i + per_weight] for i in range(0, len(arrays), per_weight)]
        assert len(groups) == num_weights == len(lrs) == len(wds) == len(etas)
        return tuple(single(np, *group, rescale, lr=lr, wd=wd, eta=eta, **params)
                     for group, lr, wd, eta in zip(groups, lrs, wds, etas))
    return multi


def _master_copy_unless_float32(np, weight, grad, mean, var, weight32, rescale_grad, **params):
    if weight.dtype == weight32.dtype:
        return adamw(np, weight, grad, mean, var, rescale_grad, **params)
    return mp_adamw(np, weight, grad, mean, var, weight32, rescale_grad, **params)


ADAMW_REFERENCES = {"_adamw_update": adamw, "_mp_adamw_update": mp_adamw,
                    "_multi_adamw_update": _many(adamw, 4),
                    "_multi_mp_adamw_update": _many(_master_copy_unless_float32, 5)}
