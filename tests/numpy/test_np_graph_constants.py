"""Hybridized np blocks whose graph is (partly) a constant: ``np.full`` / ``np.broadcast_to``
to a zero-size shape, and samplers that read their array parameters only for the shape, so
the graph uses none of the block's inputs.  As MXNet 1.9.1's CachedOp, the block then runs
the graph without those inputs (with MXNet's warning), on the inputs' context.
"""
import warnings

import numpy as onp
import pytest

import minimx as mx
from minimx import gluon, np

from np_graph_helpers import ask_mxnet_json, defined, np_mode  # noqa: F401 (np_mode)

BLOCKS = """
class Full(gluon.HybridBlock):
    def __init__(self, shape, dtype=None):
        super().__init__()
        self._shape, self._dtype = shape, dtype

    def hybrid_forward(self, F, a):
        return F.np.full(self._shape, a, dtype=self._dtype)


class BroadcastTo(gluon.HybridBlock):
    def __init__(self, shape):
        super().__init__()
        self._shape = shape

    def hybrid_forward(self, F, x):
        return F.np.broadcast_to(x, self._shape)


class Ones(gluon.HybridBlock):
    def hybrid_forward(self, F, x, y):
        return F.np.ones((2,)) + y


class Beta(gluon.HybridBlock):
    def __init__(self, size, dtype):
        super().__init__()
        self._size, self._dtype = size, dtype

    def hybrid_forward(self, F, a, b):
        return F.np.random.beta(a, b, size=self._size, dtype=self._dtype)
"""

# name -> (block expression, input arrays expression)
CASES = {
    "full-empty": ("Full((0, 3), 'int32')", "[np.array([1.0, 2.0, 3.0])]"),
    "full-row": ("Full((2, 3), 'float64')", "[np.array([1.0, 2.0, 3.0])]"),
    "full-scalar-empty": ("Full((3, 0), None)", "[np.array(2.0)]"),
    "broadcast-empty": ("BroadcastTo((2, 4, 0))", "[np.ones((1, 0))]"),
    "broadcast-keep": ("BroadcastTo((3, 4, -2))", "[np.ones((5,))]"),
    "beta-empty": ("Beta((4, 0, 5), 'float64')", "[np.array([1.0]), np.array([1.0])]"),
    "beta-shape": ("Beta((2, 3), 'float64')", "[np.array([1.0]), np.array([1.0])]"),
    "unused-input": ("Ones()", "[np.zeros((3,)), np.array([1.0, 2.0])]"),
}

MXNET_SCRIPT = """
import json, sys, warnings
import numpy as onp
from mxnet import gluon, np, npx
npx.set_np()
{blocks}
results = {{}}
for name, (block, inputs) in json.loads(sys.stdin.read()).items():
    net = eval(block)
    net.hybridize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = net(*eval(inputs))
    results[name] = {{"shape": list(out.shape), "dtype": str(out.dtype),
                      "value": out.asnumpy().tolist() if not name.startswith("beta") else None,
                      "warnings": [str(w.message) for w in caught
                                   if "not used by any computation" in str(w.message)]}}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def namespace():
    return defined(BLOCKS)


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python):
    return ask_mxnet_json(mxnet_python, MXNET_SCRIPT.format(blocks=BLOCKS), CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_constant_graphs_match_mxnet(np_mode, namespace, mxnet_results, name):
    block, inputs = CASES[name]
    net = eval(block, namespace)   # noqa: S307
    net.hybridize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = net(*eval(inputs, namespace))   # noqa: S307
    wanted = mxnet_results[name]
    assert type(out) is np.ndarray
    assert list(out.shape) == wanted["shape"] and str(out.dtype) == wanted["dtype"]
    if wanted["value"] is not None:
        assert out.asnumpy().tolist() == wanted["value"]
    else:
        assert ((out.asnumpy() > 0) & (out.asnumpy() < 1)).all()
    assert [str(w.message) for w in caught
            if "not used by any computation" in str(w.message)] == wanted["warnings"]


@pytest.mark.parametrize("hybridize", [False, True])
def test_zero_size_broadcast_is_recorded(np_mode, namespace, hybridize):
    """A broadcast to a zero-size shape is an operator call like any other: recorded, its
    gradient (all zeros: nothing reads the input) reaches the input."""
    net = namespace["BroadcastTo"]((2, 4, 0))
    net.hybridize(hybridize)
    x = np.ones((1, 1))
    x.attach_grad()
    with mx.autograd.record():
        out = net(x)
    out.backward()
    assert out.shape == (2, 4, 0)
    assert x.grad.asnumpy().tolist() == [[0.0]]


def test_unused_input_graph_runs_on_the_inputs_context(np_mode):
    class Ones(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.ones((2,))
    net = Ones()
    net.hybridize()
    with pytest.warns(UserWarning, match="0-th input to HybridBlock is not used"):
        out = net(np.zeros((3,), ctx=mx.cpu(1)))
    assert out.context == mx.cpu(1) and out.asnumpy().tolist() == [1.0, 1.0]
    assert net(np.zeros((3,))).asnumpy().tolist() == [1.0, 1.0]      # no second warning


def test_gamma_of_array_parameters_gives_the_asked_dtype(np_mode):
    a = np.array([1.0], dtype="float64")
    assert np.random.gamma(a, 1.0, size=(2,)).dtype == onp.float32
    assert np.random.beta(a, a, size=(2,), dtype="float64").dtype == onp.float64
    assert np.random.chisquare(a, dtype="float16").dtype == onp.float16


@pytest.mark.parametrize("hybridize", [False, True])
def test_hsplit_of_a_vector_and_ediff1d_with_numbers_in_a_graph(np_mode, hybridize):
    """A traced Symbol knows its rank (hsplit of a vector splits axis 0, as NumPy's), and
    ediff1d's number ``to_begin`` / ``to_end`` are constant nodes of the graph."""
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, a):
            return F.np.hsplit(a, 2) + [F.np.ediff1d(a, to_end=9, to_begin=-1)]
    net = Net()
    net.hybridize(hybridize)
    x = onp.array([1.0, 4.0, 2.0, 8.0], dtype="float32")
    out = net(np.array(x))
    expected = onp.hsplit(x, 2) + [onp.ediff1d(x, to_end=9, to_begin=-1)]
    assert [o.asnumpy().tolist() for o in out] == [e.tolist() for e in expected]
    assert all(o.dtype == onp.float32 for o in out)
