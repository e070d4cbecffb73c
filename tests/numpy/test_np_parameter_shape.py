"""``Parameter.shape`` marks an unknown size 0 under MXNet's legacy shapes and -1 under
NumPy's (``npx.set_np()``, where 0 is a size), as MXNet 1.9.1's, before and after the
first call completes it."""
import json
import pathlib
import subprocess
import sys

import minimx

PROGRAM = """
import json
from {package} import gluon, np, npx
shapes = []
for np_mode in (True, False):
    if np_mode:
        npx.set_np()
    dense, conv = gluon.nn.Dense(3), gluon.nn.Conv2D(4, 3)
    shapes += [dense.weight.shape, dense.bias.shape, conv.weight.shape,
               gluon.nn.BatchNorm().gamma.shape, gluon.Parameter('a', shape=(0, 5)).shape,
               gluon.Parameter('b', shape=(-1, 5)).shape]
    if np_mode:
        dense.initialize()
        dense(np.ones((2, 7)))
        shapes.append(dense.weight.shape)
        npx.reset_np()
print(json.dumps([list(s) for s in shapes]))
"""


def _shapes(python, package, cwd=None):
    done = subprocess.run([python, "-c", PROGRAM.format(package=package)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_parameter_shapes_match_mxnet(mxnet_python):
    root = pathlib.Path(minimx.__file__).resolve().parent.parent
    mine = _shapes(sys.executable, "minimx", cwd=root)
    assert mine == _shapes(mxnet_python, "mxnet")
    assert mine[0] == [3, -1] and mine[7] == [3, 0]
