"""Run one of MXNet 1.9.1's ``example/sparse`` programs unchanged, from a fixed start.

``python example_driver.py SCRIPT ARGS...`` under MXNet, or under
``python -m minimx.compat example_driver.py SCRIPT ARGS...``: the only change is that
``mx.initializer.Normal`` and ``Xavier`` draw from numpy with a seed made from the
parameter's name, so both libraries start from the same weights and the programs' printed metrics can be
compared figure by figure.
"""
import os
import runpy
import sys
import zlib

import numpy as np

import mxnet as mx


def _draws(name):
    return np.random.RandomState(zlib.crc32(str(name).encode()))


def _seeded_normal(self, name, arr):
    arr[:] = mx.nd.array(_draws(name).normal(0, self.sigma, arr.shape).astype(np.float32))


def _seeded_xavier(self, name, arr):
    """Xavier's scale (from the weight's fans), its draws from the seeded numpy."""
    shape = arr.shape
    kernel = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
    fan_in, fan_out = shape[1] * kernel, shape[0] * kernel
    factor = {"in": fan_in, "out": fan_out, "avg": (fan_in + fan_out) / 2.0}[self.factor_type]
    scale = np.sqrt(self.magnitude / factor)
    draws = (_draws(name).uniform(-scale, scale, shape) if self.rnd_type == "uniform" else
             _draws(name).normal(0, scale, shape))
    arr[:] = mx.nd.array(draws.astype(np.float32))


mx.initializer.Normal._init_weight = _seeded_normal
mx.initializer.Xavier._init_weight = _seeded_xavier
script = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(script))
runpy.run_path(script, run_name="__main__")
