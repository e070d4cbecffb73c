"""Run one of MXNet 1.9.1's ``example/sparse`` programs unchanged, from a fixed start.

``python example_driver.py SCRIPT ARGS...`` under MXNet, or under
``python -m minimx.compat example_driver.py SCRIPT ARGS...``: the only change is that
``mx.initializer.Normal`` draws from numpy with a seed made from the parameter's name, so
both libraries start from the same weights and the programs' printed metrics can be
compared figure by figure.
"""
import os
import runpy
import sys
import zlib

import numpy as np

import mxnet as mx


def _seeded_normal(self, name, arr):
    values = np.random.RandomState(zlib.crc32(str(name).encode())).normal(0, self.sigma,
                                                                          arr.shape)
    arr[:] = mx.nd.array(values.astype(np.float32))


mx.initializer.Normal._init_weight = _seeded_normal
script = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(script))
runpy.run_path(script, run_name="__main__")
