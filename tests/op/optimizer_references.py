"""Numpy references of the fused optimizer updates (minimx/op/optimizer_updates.py).

Each function takes ``(np, weight, grad, *states, **params)`` and returns the new weight
followed by the new states, written from MXNet's update formulas element by element
(``_rescale`` is the shared ``clip(rescale_grad * grad)``).  ``FULL`` maps an operator
name to its function; ``OUTPUT_REFERENCES`` keeps only the visible output (the weight)
for the generated registry tests.
"""
import functools


def _rescale(np, grad, rescale_grad=1.0, clip_gradient=-1.0, plus=0.0):
    g = rescale_grad * grad + plus
    return np.clip(g, -clip_gradient, clip_gradient) if clip_gradient >= 0 else g


def sgd(np, weight, grad, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient)
    return (weight - lr * (g + wd * weight),)


def sgd_mom(np, weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
            clip_gradient=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient)
    mom = momentum * mom - lr * wd * weight - lr * g
    return weight + mom, mom


def nag_mom(np, weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
            clip_gradient=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient)
    decayed = momentum * mom
    new_weight = weight - lr * (g + wd * weight) + momentum * (
        decayed - lr * (g + wd * weight))
    return new_weight, decayed - lr * (g + wd * new_weight)


def mp_sgd(np, weight, grad, weight32, **params):
    new32, = sgd(np, weight32, grad.astype(np.float32), **params)
    return new32.astype(weight.dtype), new32


def mp_sgd_mom(np, weight, grad, mom, weight32, **params):
    new32, mom = sgd_mom(np, weight32, grad.astype(np.float32), mom, **params)
    return new32.astype(weight.dtype), mom, new32


def mp_nag_mom(np, weight, grad, mom, weight32, **params):
    new32, mom = nag_mom(np, weight32, grad.astype(np.float32), mom, **params)
    return new32.astype(weight.dtype), mom, new32


def signsgd(np, weight, grad, lr, wd=0.0, rescale_grad=1.0):
    grad = rescale_grad * grad         # MXNet's kernel ignores it: tests pass a positive one
    return (weight - lr * wd * weight - lr * np.sign(grad),)


def signum(np, weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
           clip_gradient=-1.0, wd_lh=0.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient)
    mom = momentum * mom - (1 - momentum) * wd * weight - (1 - momentum) * g
    return weight - lr * wd_lh * weight + lr * np.sign(mom), mom


def adam(np, weight, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0,
         rescale_grad=1.0, clip_gradient=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient, plus=wd * weight)
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g ** 2
    return weight - lr * mean / (np.sqrt(var) + epsilon), mean, var


def rmsprop(np, weight, grad, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
            clip_gradient=-1.0, clip_weights=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient, plus=wd * weight)
    n = gamma1 * n + (1 - gamma1) * g ** 2
    new_weight = weight - lr * g / np.sqrt(n + epsilon)
    if clip_weights >= 0:
        new_weight = np.clip(new_weight, -clip_weights, clip_weights)
    return new_weight, n


def rmspropalex(np, weight, grad, n, g_avg, delta, lr, gamma1=0.95, gamma2=0.9,
                epsilon=1e-8, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, clip_weights=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient, plus=wd * weight)
    n = gamma1 * n + (1 - gamma1) * g ** 2
    g_avg = gamma1 * g_avg + (1 - gamma1) * g
    delta = gamma2 * delta - lr * g / np.sqrt(n - g_avg ** 2 + epsilon)
    new_weight = weight + delta
    if clip_weights >= 0:
        new_weight = np.clip(new_weight, -clip_weights, clip_weights)
    return new_weight, n, g_avg, delta


def ftrl(np, weight, grad, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0,
         clip_gradient=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_gradient)
    z = z + g - (np.sqrt(n + g ** 2) - np.sqrt(n)) * weight / lr
    n = n + g ** 2
    new_weight = np.where(np.abs(z) > lamda1,
                          (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd), 0.0)
    return new_weight, z, n


def ftml(np, weight, grad, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.0,
         rescale_grad=1.0, clip_grad=-1.0):
    g = _rescale(np, grad, rescale_grad, clip_grad, plus=wd * weight)
    v = beta2 * v + (1 - beta2) * g ** 2
    d_t = (1 - beta1 ** t) / lr * (np.sqrt(v / (1 - beta2 ** t)) + epsilon)
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
    return -z / d_t, d_t, v, z


FULL = {"sgd_update": sgd, "sgd_mom_update": sgd_mom, "nag_mom_update": nag_mom,
        "mp_sgd_update": mp_sgd, "mp_sgd_mom_update": mp_sgd_mom,
        "mp_nag_mom_update": mp_nag_mom, "signsgd_update": signsgd,
        "signum_update": signum, "adam_update": adam, "rmsprop_update": rmsprop,
        "rmspropalex_update": rmspropalex, "ftrl_update": ftrl, "ftml_update": ftml}


def _many(single, per_weight):
    """The ``multi_`` operator of one-weight reference ``single``: inputs in groups of
    ``per_weight``, weight ``i`` updated with ``lrs[i]`` and ``wds[i]``; the new weights
    followed by every group's new states."""
    def multi(np, *inputs, lrs, wds, num_weights=1, **params):
        groups = [inputs[i:i + per_weight] for i in range(0, len(inputs), per_weight)]
        assert len(groups) == num_weights == len(lrs) == len(wds)
        results = [single(np, *group, lr=lr, wd=wd, **params)
                   for group, lr, wd in zip(groups, lrs, wds)]
        return (*(result[0] for result in results),
                *(state for result in results for state in result[1:]))
    return multi


def _master_copy_unless_float32(mp_single, single):
    """MXNet's multi_mp_ kernels update a float32 weight directly, its master copy unread."""
    def update(np, weight, grad, *states, **params):
        if weight.dtype != np.float32:
            return mp_single(np, weight, grad, *states, **params)
        *others, weight32 = states
        return (*single(np, weight, grad, *others, **params), weight32)
    return update


MULTI = {"multi_sgd_update": _many(sgd, 2), "multi_sgd_mom_update": _many(sgd_mom, 3),
         "multi_mp_sgd_update": _many(_master_copy_unless_float32(mp_sgd, sgd), 3),
         "multi_mp_sgd_mom_update": _many(_master_copy_unless_float32(mp_sgd_mom, sgd_mom), 4)}


def _first(function):
    @functools.wraps(function)        # keeps the signature: the tests pass the params it names
    def weight_only(np, *inputs, **params):
        return function(np, *inputs, **params)[0]
    return weight_only


def _weights(function):
    def new_weights(np, *inputs, num_weights=1, **params):
        return function(np, *inputs, num_weights=num_weights, **params)[:num_weights]
    return new_weights


OUTPUT_REFERENCES = {name: _first(function) for name, function in FULL.items()}
OUTPUT_REFERENCES.update({name: _weights(function) for name, function in MULTI.items()})
