"""LR schedulers against their closed forms, the seed's subclass, and MXNet 1.9.1."""
import json
import logging
import math
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import nd

sched = mx.lr_scheduler


def rates(scheduler, updates):
    return [scheduler(n) for n in updates]


@settings(max_examples=25, deadline=None)
@given(step=st.integers(1, 6), factor=st.floats(0.1, 1.0), base_lr=st.floats(0.01, 1.0))
def test_factor_scheduler_closed_form(step, factor, base_lr):
    stop = base_lr * 0.05
    scheduler = sched.FactorScheduler(step, factor, stop_factor_lr=stop, base_lr=base_lr)
    for n in range(0, 30):
        expected = base_lr * factor ** max(0, (n - 1) // step)
        assert scheduler(n) == pytest.approx(max(expected, stop))


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(st.integers(1, 30), min_size=1, max_size=4, unique=True),
       factor=st.floats(0.1, 1.0))
def test_multifactor_scheduler_closed_form(steps, factor):
    steps = sorted(steps)
    scheduler = sched.MultiFactorScheduler(steps, factor, base_lr=1.0)
    for n in range(0, 40):
        passed = sum(n > s for s in steps)
        assert scheduler(n) == pytest.approx(factor ** passed)


@pytest.mark.parametrize("pwr", [1, 2, 0.5])
def test_poly_scheduler_closed_form(pwr):
    scheduler = sched.PolyScheduler(max_update=20, base_lr=0.5, pwr=pwr, final_lr=0.1,
                                    warmup_steps=4, warmup_begin_lr=0.1)
    for n in range(0, 30):
        if n < 4:
            expected = 0.1 + 0.4 * n / 4
        else:
            expected = 0.1 + 0.4 * (1 - (min(n, 20) - 4) / 16) ** pwr
        assert scheduler(n) == pytest.approx(expected)


def test_cosine_scheduler_closed_form():
    scheduler = sched.CosineScheduler(max_update=10, base_lr=1.0, final_lr=0.2,
                                      warmup_steps=2, warmup_mode="constant",
                                      warmup_begin_lr=0.05)
    for n in range(0, 15):
        if n < 2:
            expected = 0.05
        else:
            expected = 0.2 + 0.8 * (1 + math.cos(math.pi * (min(n, 10) - 2) / 8)) / 2
        assert scheduler(n) == pytest.approx(expected)


def test_linear_warmup_then_factor():
    scheduler = sched.FactorScheduler(step=2, factor=0.5, base_lr=1.0, warmup_steps=4,
                                      warmup_begin_lr=0.2)
    # the factor steps count from update 0, warm-up included (as in MXNet)
    assert rates(scheduler, range(8)) == pytest.approx([0.2, 0.4, 0.6, 0.8, 0.5, 0.25, 0.25,
                                                        0.125])


@pytest.mark.parametrize("make, message", [
    (lambda: sched.LRScheduler(warmup_mode="cubic"), "warmup_mode"),
    (lambda: sched.LRScheduler(base_lr=0.1, warmup_begin_lr=0.2), "warmup_begin_lr"),
    (lambda: sched.LRScheduler(warmup_steps=-1), "warmup_steps"),
    (lambda: sched.FactorScheduler(step=0), "step"),
    (lambda: sched.FactorScheduler(step=2, factor=1.5), "factor"),
    (lambda: sched.MultiFactorScheduler([5, 3]), "increasing"),
    (lambda: sched.MultiFactorScheduler([0, 3]), "at least 1"),
    (lambda: sched.PolyScheduler(max_update=0), "max_update"),
    (lambda: sched.CosineScheduler(max_update=0), "max_update"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_base_class_must_be_overridden():
    with pytest.raises(NotImplementedError):
        sched.LRScheduler()(3)


def test_create_by_name():
    scheduler = sched.create("factorscheduler", step=3, factor=0.5)
    assert isinstance(scheduler, sched.FactorScheduler) and scheduler.step == 3


# The seed's example (section 8.1): a user subclass that keeps its rate in self.base_lr.
class FactorScheduler(mx.lr_scheduler.LRScheduler):
    def __init__(self, step, factor=1, stop_factor_lr=1e-8):
        super(FactorScheduler, self).__init__()
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: learning rate arrived at %0.5e",
                             num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to 0.5e",
                             num_update, self.base_lr)
        return self.base_lr


def test_seed_subclass_drives_an_optimizer():
    scheduler = FactorScheduler(step=2, factor=0.5)
    assert scheduler.base_lr == 0.01               # LRScheduler's default
    optimizer = mx.optimizer.SGD(lr_scheduler=scheduler)
    updater = mx.optimizer.get_updater(optimizer)
    weight, seen = nd.zeros((1,)), []
    for _ in range(6):
        before = weight.asscalar()
        updater(0, nd.ones((1,)), weight)
        seen.append(before - weight.asscalar())
    assert seen == pytest.approx([0.01, 0.01, 0.005, 0.005, 0.0025, 0.0025])
    assert optimizer.learning_rate == pytest.approx(0.0025)


# -- against MXNet 1.9.1 ------------------------------------------------------------------------
MXNET_CASES = [
    ("FactorScheduler", {"step": 3, "factor": 0.7, "stop_factor_lr": 0.003, "base_lr": 0.05}),
    ("FactorScheduler", {"step": 2, "factor": 0.5, "base_lr": 0.1, "warmup_steps": 5,
                         "warmup_begin_lr": 0.01}),
    ("MultiFactorScheduler", {"step": [4, 9, 15], "factor": 0.3, "base_lr": 0.2}),
    ("MultiFactorScheduler", {"step": [6, 8], "factor": 0.5, "warmup_steps": 3,
                              "warmup_mode": "constant", "warmup_begin_lr": 0.001}),
    ("PolyScheduler", {"max_update": 20, "base_lr": 0.3, "pwr": 2, "final_lr": 0.01}),
    ("PolyScheduler", {"max_update": 25, "pwr": 1, "warmup_steps": 5}),
    ("CosineScheduler", {"max_update": 30, "base_lr": 0.5, "final_lr": 0.05}),
    ("CosineScheduler", {"max_update": 12, "warmup_steps": 4, "warmup_begin_lr": 0.002}),
]
UPDATES = list(range(0, 40))
MXNET_CODE = """
import json, sys
import mxnet as mx
out = []
for name, kwargs in json.loads(sys.argv[1]):
    scheduler = getattr(mx.lr_scheduler, name)(**kwargs)
    out.append([scheduler(n) for n in json.loads(sys.argv[2])])
print(json.dumps(out))
"""


@pytest.mark.mxnet
def test_schedulers_match_mxnet(mxnet_python):
    finished = subprocess.run([mxnet_python, "-c", MXNET_CODE, json.dumps(MXNET_CASES),
                               json.dumps(UPDATES)], capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr[-2000:]
    expected = json.loads(finished.stdout.strip().splitlines()[-1])
    for (name, kwargs), theirs in zip(MXNET_CASES, expected):
        mine = rates(getattr(sched, name)(**kwargs), UPDATES)
        assert mine == pytest.approx(theirs, rel=1e-12), f"{name}({kwargs})"
