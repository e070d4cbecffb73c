"""A mask written as a Python list of bools (a mask when it is the whole key of a read; in
a tuple or an assignment MXNet 1.9.1 reads its items as integers), scalar ``True``/``False``
among the indices of an assignment, and np blocks whose outputs mix legacy and np arrays (a
TypeError), each against MXNet 1.9.1.
"""
import subprocess

import pytest

import minimx as mx
from minimx import gluon, np

from np_graph_helpers import ask_mxnet_json, np_mode  # noqa: F401 (a fixture)

# name -> statements over x (a 2x3x3 int32 array of 0..17); the result is x[...] or x itself
CASES = {
    "get-list-mask": "result = x[[True, False]]",
    "get-nested-list-mask": "result = x[0, [[True, False, True], [False, False, True], "
                            "[True, True, False]]]",
    "get-tuple-list-mask": "result = x[1, [False, True, True]]",
    "set-list-mask": "x[[False, True]] = 7; result = x",
    "set-true-scalars": "x[0, True, True, np.array([[False, True, True], [False, True, False], "
                        "[True, False, False]])] = 7; result = x",
    "set-false-scalar": "x[False, 1] = 8; result = x",
}

MXNET_SCRIPT = """
import json, sys
from mxnet import np, npx
npx.set_np()
results = {}
for name, source in json.loads(sys.stdin.read()).items():
    x = np.arange(18, dtype='int32').reshape(2, 3, 3)
    names = {"np": np, "x": x}
    exec(source, names)
    results[name] = [list(names["result"].shape), names["result"].asnumpy().tolist()]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python):
    return ask_mxnet_json(mxnet_python, MXNET_SCRIPT, CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_mask_lists_and_bool_scalars_match_mxnet(np_mode, mxnet_results, name):
    names = {"np": np, "x": np.arange(18, dtype="int32").reshape(2, 3, 3)}
    exec(CASES[name], names)   # noqa: S102
    result = names["result"]
    assert [list(result.shape), result.asnumpy().tolist()] == mxnet_results[name]


MIXED = """
class Mixed(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x.as_nd_ndarray() + x.as_nd_ndarray(), F.np.multiply(x, x)
"""


@pytest.mark.parametrize("hybridize", [False, True])
def test_mixed_legacy_and_np_outputs_are_a_type_error(np_mode, mxnet_python, hybridize):
    script = ("from mxnet import gluon, np, npx\nnpx.set_np()\n" + MIXED +
              f"net = Mixed()\nnet.hybridize({hybridize})\n"
              "try:\n    net(np.ones((2, 3)))\nexcept TypeError:\n    print('TypeError')\n")
    done = subprocess.run([mxnet_python, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "TypeError"
    names = {"gluon": gluon}
    exec(MIXED, names)   # noqa: S102
    net = names["Mixed"]()
    net.hybridize(hybridize)
    with pytest.raises(TypeError, match="numpy"):
        net(np.ones((2, 3)))


def test_legacy_outputs_outside_np_mode_are_fine():
    names = {"gluon": gluon}
    exec(MIXED.replace("F.np.multiply(x, x)", "x.as_nd_ndarray()"), names)   # noqa: S102
    out = names["Mixed"]()(mx.nd.ones((2, 3)).as_np_ndarray())
    assert all(type(o) is mx.nd.NDArray for o in out)
