"""Optimizers against their update formulas in numpy, and against MXNet 1.9.1.

Each case runs a few steps of one optimizer on a small weight, under three
settings: plain, with weight decay + gradient rescaling + clipping, and with a
FactorScheduler.  The numpy rules below are written from the published update
formulas (MXNet's documentation of each optimizer), in float64.  The peer test
runs the same cases in MXNet 1.9.1 (``mxnet_optimizer_runner.py``).
"""
import json
import pathlib
import subprocess
import warnings

import numpy as np
import pytest

import minimx as mx
from minimx import nd

RUNNER = pathlib.Path(__file__).with_name("mxnet_optimizer_runner.py")
STEPS = 4
SHAPE = (2, 3)


# -- the update formulas in numpy ---------------------------------------------------------------
def clip(x, bound):
    return np.clip(x, -bound, bound) if bound else x


def ref_sgd(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g, o.clip_gradient)
    if not o.momentum:
        return w - lr * (g + wd * w)
    s["mom"] = o.momentum * s.get("mom", 0.0) - lr * (g + wd * w)
    return w + s["mom"]


def ref_nag(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g, o.clip_gradient)
    step = lr * (g + wd * w)
    if not o.momentum:
        return w - step
    mom = o.momentum * s.get("mom", 0.0)
    w = w + o.momentum * (mom - step) - step
    # MXNet 1.9.1's in-place kernel adds the decay of the already updated weight
    s["mom"] = mom - lr * (g + wd * w)
    return w


def ref_signum(o, w, g, s, lr, wd, t):
    if not o.momentum:
        return (1 - lr * wd) * w - lr * np.sign(g)
    # MXNet's state holds minus the usual momentum average
    average = o.momentum * -s.get("mom", 0.0) + (1 - o.momentum) * (
        clip(o.rescale_grad * g, o.clip_gradient) + wd * w)
    s["mom"] = -average
    return (1 - lr * o.wd_lh) * w - lr * np.sign(average)


def ref_dcasgd(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g, o.clip_gradient)
    previous = s.get("previous", s["w0"])
    s["previous"] = w
    step = -lr * (g + wd * w + o.lamda * g * g * (w - previous))
    if o.momentum:
        s["mom"] = step = o.momentum * s.get("mom", 0.0) + step
    return w + step


def ref_adagrad(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g, o.clip_gradient)
    s["history"] = s.get("history", 0.0) + g * g
    return w - lr * (g / np.sqrt(s["history"] + o.float_stable_eps) + wd * w)


def ref_rmsprop(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g + wd * w, o.clip_gradient)
    s["n"] = o.gamma1 * s.get("n", 0.0) + (1 - o.gamma1) * g * g
    if not o.centered:
        w = w - lr * g / np.sqrt(s["n"] + o.epsilon)
    else:
        s["mean"] = o.gamma1 * s.get("mean", 0.0) + (1 - o.gamma1) * g
        rms = np.sqrt(s["n"] - s["mean"] ** 2 + o.epsilon)
        s["delta"] = o.gamma2 * s.get("delta", 0.0) - lr * g / rms
        w = w + s["delta"]
    return clip(w, o.clip_weights)


def ref_adadelta(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g, o.clip_gradient)
    s["acc_g"] = o.rho * s.get("acc_g", 0.0) + (1 - o.rho) * g * g
    delta = np.sqrt(s.get("acc_delta", 0.0) + o.epsilon) / np.sqrt(s["acc_g"] + o.epsilon) * g
    s["acc_delta"] = o.rho * s.get("acc_delta", 0.0) + (1 - o.rho) * delta * delta
    return w - delta - wd * w


def _moments(o, g, s):
    s["m"] = o.beta1 * s.get("m", 0.0) + (1 - o.beta1) * g
    s["v"] = o.beta2 * s.get("v", 0.0) + (1 - o.beta2) * g * g
    return s["m"], s["v"]


def ref_adam(o, w, g, s, lr, wd, t):
    m, v = _moments(o, clip(o.rescale_grad * g + wd * w, o.clip_gradient), s)
    m_hat, v_hat = m / (1 - o.beta1 ** t), v / (1 - o.beta2 ** t)
    # MXNet adds epsilon to sqrt(v), before the bias correction of v
    return w - lr * m_hat / (np.sqrt(v_hat) + o.epsilon / np.sqrt(1 - o.beta2 ** t))


def ref_adamax(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g + wd * w, o.clip_gradient)
    s["m"] = o.beta1 * s.get("m", 0.0) + (1 - o.beta1) * g
    s["u"] = np.maximum(o.beta2 * s.get("u", 0.0), np.abs(g))
    return w - lr / (1 - o.beta1 ** t) * s["m"] / s["u"]


def ref_nadam(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g + wd * w, o.clip_gradient)
    mu = [o.beta1 * (1 - 0.5 * 0.96 ** (k * o.schedule_decay)) for k in (t, t + 1)]
    s["prod"] = s.get("prod", 1.0) * mu[0]
    m, v = _moments(o, g, s)
    m_bar = (1 - mu[0]) * g / (1 - s["prod"]) + mu[1] * m / (1 - s["prod"] * mu[1])
    return w - lr * m_bar / (np.sqrt(v / (1 - o.beta2 ** t)) + o.epsilon)


def ref_lamb(o, w, g, s, lr, wd, t):
    m, v = _moments(o, clip(o.rescale_grad * g, o.clip_gradient), s)
    if o.bias_correction:
        m, v = m / (1 - o.beta1 ** t), v / (1 - o.beta2 ** t)
    direction = m / (np.sqrt(v) + o.epsilon) + wd * w
    r1 = np.linalg.norm(w)
    r1 = max(r1, o.lower_bound) if o.lower_bound else r1
    r1 = min(r1, o.upper_bound) if o.upper_bound else r1
    r2 = np.linalg.norm(direction)
    trust = r1 / r2 if r1 > 0 and r2 > 0 else 1.0
    return w - lr * trust * direction


def ref_ftrl(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g, o.clip_gradient)
    n = s.get("n", 0.0)
    s["z"] = s.get("z", 0.0) + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
    s["n"] = n + g * g
    z = s["z"]
    return (np.sign(z) * o.lamda1 - z) / ((o.beta + np.sqrt(s["n"])) / lr + wd) * (
        np.abs(z) > o.lamda1)


def ref_ftml(o, w, g, s, lr, wd, t):
    g = clip(o.rescale_grad * g + wd * w, o.clip_gradient)
    s["v"] = o.beta2 * s.get("v", 0.0) + (1 - o.beta2) * g * g
    d = (1 - o.beta1 ** t) / lr * (np.sqrt(s["v"] / (1 - o.beta2 ** t)) + o.epsilon)
    s["z"] = o.beta1 * s.get("z", 0.0) + (1 - o.beta1) * g - (d - o.beta1 * s.get("d", 0.0)) * w
    s["d"] = d
    return -s["z"] / d


def _momentum_sgd(o, w, g, s, lr, wd, momentum):
    """SGD with momentum as MXNet's kernels: ``mom = momentum * mom - lr * (g + wd * w)``."""
    s["mom"] = momentum * s.get("mom", 0.0) - lr * (clip(o.rescale_grad * g, o.clip_gradient)
                                                   + wd * w)
    return w + s["mom"]


def ref_lars(o, w, g, s, lr, wd, t):
    """lr * eta * |w| / (rescale * |g| + wd * |w| + eps); momentum scaled by lr_t / lr_t-1."""
    w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g) * o.rescale_grad
    layer_lr = lr * o.eta * w_norm / (g_norm + wd * w_norm + o.eps)
    momentum = o.momentum * (lr / s.get("last_lr", lr) if o.momentum_correction else 1.0)
    s["last_lr"] = lr
    return _momentum_sgd(o, w, g, s, layer_lr, wd, momentum)


def ref_lbsgd(o, w, g, s, lr, wd, t):
    """Sum batch_scale gradients, then one step with their mean at a warmed-up rate."""
    s["cum"] = s.get("cum", 0.0) + g
    if t % o.batch_scale:
        return w
    g, s["cum"] = s["cum"] / o.batch_scale, 0.0
    warmup = o.warmup_epochs * o.updates_per_epoch
    if o.warmup_strategy == "lars":
        w2, g2 = np.sum(w * w), np.sum(g * g)
        mult = np.clip(np.sqrt(w2 / (g2 + wd * w2)), 0.01, 100)
    elif t >= warmup:
        mult = o.batch_scale
    else:
        mult = 1 + (o.batch_scale - 1) * t / warmup
    return _momentum_sgd(o, w, g, s, lr * mult, wd, o.momentum)


REFERENCES = {"sgd": ref_sgd, "nag": ref_nag, "signum": ref_signum, "dcasgd": ref_dcasgd,
              "adagrad": ref_adagrad, "rmsprop": ref_rmsprop, "adadelta": ref_adadelta,
              "adam": ref_adam, "adamax": ref_adamax, "nadam": ref_nadam, "lamb": ref_lamb,
              "ftrl": ref_ftrl, "ftml": ref_ftml,
              "lars": ref_lars, "lbsgd": ref_lbsgd}

OPTIMIZERS = [
    ("sgd", {}), ("sgd", {"momentum": 0.9}), ("nag", {}), ("nag", {"momentum": 0.9}),
    ("signum", {}), ("signum", {"momentum": 0.0}), ("signum", {"wd_lh": 0.05}),
    ("dcasgd", {}), ("dcasgd", {"momentum": 0.9}), ("adagrad", {}), ("rmsprop", {}),
    ("rmsprop", {"centered": True, "clip_weights": 0.8}), ("adadelta", {}), ("adam", {}),
    ("adamax", {}), ("nadam", {}), ("lamb", {}),
    ("lamb", {"bias_correction": False, "lower_bound": 0.5, "upper_bound": 1.5}),
    ("lamb", {"lower_bound": 5.0}), ("ftrl", {}), ("ftml", {}),
    ("lars", {}), ("lars", {"momentum": 0.9}), ("lars", {"momentum": 0.9, "eta": 0.05, "eps": 0.1}),
    ("lars", {"momentum": 0.9, "momentum_correction": False}),
    ("lbsgd", {}), ("lbsgd", {"momentum": 0.9}),
    ("lbsgd", {"momentum": 0.9, "batch_scale": 2, "warmup_epochs": 1, "updates_per_epoch": 3}),
    ("lbsgd", {"momentum": 0.9, "warmup_strategy": "lars"}),
]
LR, SCHEDULE_STEP, SCHEDULE_FACTOR = 0.05, 2, 0.5
SETTINGS = {
    "plain": {"learning_rate": LR},
    "decay": {"learning_rate": LR, "wd": 0.1, "rescale_grad": 0.5, "clip_gradient": 0.3},
    # learning_rate too: optimizers with their own default rate (Adam's 0.001, ...) would
    # otherwise overwrite the scheduler's base_lr, in MXNet as in minimx
    "scheduled": {"learning_rate": LR, "lr_scheduler": {"scheduler": ["FactorScheduler", {
        "step": SCHEDULE_STEP, "factor": SCHEDULE_FACTOR, "base_lr": LR}]}},
}
CASES = [(name, extra, setting) for name, extra in OPTIMIZERS for setting in SETTINGS]


def case_id(case):
    name, extra, setting = case
    options = ",".join(f"{key}={value}" for key, value in extra.items())
    return f"{name}[{options}]-{setting}"


def case_kwargs(extra, setting):
    """Constructor kwargs of a case (the scheduler spec made into a minimx scheduler)."""
    kwargs = {**SETTINGS[setting], **extra}
    if "lr_scheduler" in kwargs:
        class_name, scheduler_kwargs = kwargs["lr_scheduler"]["scheduler"]
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, class_name)(**scheduler_kwargs)
    return kwargs


def scheduled_lr(setting, t):
    """The learning rate at update ``t`` (from 1): FactorScheduler's documented formula."""
    if setting == "scheduled":
        return LR * SCHEDULE_FACTOR ** ((t - 1) // SCHEDULE_STEP)
    return LR


def case_inputs(seed):
    rng = np.random.default_rng(seed)
    weight = rng.standard_normal(SHAPE).astype(np.float32)
    grads = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(STEPS)]
    return weight, grads


def run_minimx(optimizer, weight, grads, index=0, dtype=np.float32):
    """The weight after each step (numpy), updating through update_multi_precision."""
    array = nd.array(weight, dtype=dtype)
    state = optimizer.create_state_multi_precision(index, array)
    history = []
    for grad in grads:
        optimizer.update_multi_precision(index, array, nd.array(grad, dtype=dtype), state)
        history.append(array.asnumpy())
    return history


def run_numpy(name, optimizer, setting, weight, grads):
    reference, state = REFERENCES[name], {"w0": weight.astype(np.float64)}
    w, history = weight.astype(np.float64), []
    for t, grad in enumerate(grads, start=1):
        # LBSGD reads the rate before counting the update, so it sees the previous count
        lr = scheduled_lr(setting, max(t - 1, 1) if name == "lbsgd" else t)
        w = reference(optimizer, w, grad.astype(np.float64), state, lr, optimizer.wd, t)
        history.append(w)
    return history


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_update_matches_formula(case, minimx_seed):
    name, extra, setting = case
    weight, grads = case_inputs(minimx_seed)
    got = run_minimx(mx.optimizer.create(name, **case_kwargs(extra, setting)), weight, grads)
    expected = run_numpy(name, mx.optimizer.create(name, **case_kwargs(extra, setting)),
                         setting, weight, grads)
    for step, (mine, theirs) in enumerate(zip(got, expected), start=1):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{case_id(case)} after step {step}")


# -- against MXNet 1.9.1 ------------------------------------------------------------------------
PEER_EXTRA = [  # float16 weights through a float32 master copy, and multipliers by index
    ("sgd", {"momentum": 0.9, "multi_precision": True}, "decay", "float16"),
    ("nag", {"momentum": 0.9, "multi_precision": True}, "plain", "float16"),
    ("adam", {"multi_precision": True}, "decay", "float16"),
    ("lars", {"momentum": 0.9, "multi_precision": True}, "decay", "float16"),
    ("lbsgd", {"momentum": 0.9, "multi_precision": True}, "decay", "float16"),
]
# Not compared: LAMB with multi_precision, whose float32 master copy MXNet 1.9.1 never
# updates (every step restarts from the initial weight); minimx updates it.


# MXNet 1.9.1's DCASGD with momentum tests ``if mom:`` on a multi-element NDArray and fails.
NOT_IN_MXNET = {("dcasgd", 0.9)}


def peer_records(seed):
    records, arrays = [], {}
    rows = [(n, e, s, "float32") for n, e, s in CASES
            if (n, e.get("momentum")) not in NOT_IN_MXNET] + PEER_EXTRA
    for position, (name, extra, setting, dtype) in enumerate(rows):
        key = f"c{position}"
        weight, grads = case_inputs(seed + position)
        arrays[f"{key}_w0"] = weight
        arrays.update({f"{key}_g{step}": grad for step, grad in enumerate(grads)})
        records.append({"key": key, "name": name, "kwargs": {**SETTINGS[setting], **extra},
                        "dtype": dtype, "steps": STEPS, "id": case_id((name, extra, setting)),
                        "lr_mult": {"0": 1.5} if setting == "decay" else {},
                        "wd_mult": {"0": 2.0} if setting == "decay" else {}})
    return records, arrays


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python, tmp_path_factory):
    folder = tmp_path_factory.mktemp("mxnet_optimizers")
    records, arrays = peer_records(1234)
    (folder / "cases.json").write_text(json.dumps(records))
    np.savez(folder / "inputs.npz", **arrays)
    finished = subprocess.run([mxnet_python, str(RUNNER), str(folder / "cases.json"),
                               str(folder / "inputs.npz"), str(folder / "out.npz")],
                              capture_output=True, text=True, timeout=300)
    if finished.stdout.strip().splitlines()[-1:] != ["done"]:
        pytest.fail(f"the MXNet optimizer runner failed:\n{finished.stderr[-3000:]}")
    return records, arrays, dict(np.load(folder / "out.npz"))


@pytest.mark.mxnet
def test_optimizers_match_mxnet(mxnet_results):
    records, arrays, results = mxnet_results
    failures = []
    for record in records:
        key, dtype = record["key"], record["dtype"]
        optimizer = mx.optimizer.create(record["name"], **case_kwargs(
            {k: v for k, v in record["kwargs"].items() if k != "lr_scheduler"},
            "scheduled" if "lr_scheduler" in record["kwargs"] else "plain"))
        optimizer.set_lr_mult({int(k): v for k, v in record["lr_mult"].items()})
        optimizer.set_wd_mult({int(k): v for k, v in record["wd_mult"].items()})
        grads = [arrays[f"{key}_g{step}"] for step in range(STEPS)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = run_minimx(optimizer, arrays[f"{key}_w0"], grads, dtype=dtype)
        tolerance = 2e-3 if dtype == "float16" else 2e-5
        for step, mine in enumerate(got, start=1):
            theirs = results[f"{key}_w{step}"]
            if mine.dtype != theirs.dtype or not np.allclose(mine, theirs, rtol=tolerance,
                                                             atol=tolerance):
                failures.append(f"{record['id']} ({dtype}) step {step}: minimx {mine.ravel()} "
                                f"vs MXNet {theirs.ravel()}")
                break
    assert not failures, "\n".join(failures)
