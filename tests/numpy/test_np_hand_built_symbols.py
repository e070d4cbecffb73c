"""np Symbols built by hand (``mx.sym.var('a').as_np_ndarray()``, no HybridBlock trace):
functions whose result shape MXNet's operators infer at bind time (``tensordot``, ``inner``,
``linalg.det``, ``linalg.slogdet``, ``npx.reshape``) compose one node, bind, run and
differentiate, with MXNet 1.9.1's shapes, values, operator names and ``repr``.
"""
import json

import numpy as onp
import pytest

import minimx as mx
from minimx.test_utils import check_numeric_gradient

from np_graph_helpers import ask_mxnet_json, np_mode  # noqa: F401 (a fixture)

# name -> (expression over the np Symbols a and b, shape of a, shape of b)
CASES = {
    "tensordot-int": ("mx.sym.np.tensordot(a, b, 1)", (3, 5), (5, 4)),
    "tensordot-int-0": ("mx.sym.np.tensordot(a, b, 0)", (2,), (2, 3)),
    "tensordot-int-3": ("mx.sym.np.tensordot(a, b, 3)", (3, 4, 5, 3, 2), (5, 3, 2, 1, 2)),
    "tensordot-pairs": ("mx.sym.np.tensordot(a, b, [[1, 3, 4], [2, 1, 0]])",
                        (3, 5, 4, 3, 2), (2, 3, 5, 1, 2)),
    "tensordot-negative": ("mx.sym.np.tensordot(a, b, [[2, 0], [-1, -2]])",
                           (3, 5, 4), (5, 3, 4)),
    "tensordot-none": ("mx.sym.np.tensordot(a, b, [[], []])", (2, 3), (3, 2)),
    "inner-vectors": ("mx.sym.np.inner(a, b)", (3,), (3,)),
    "inner-matrix": ("mx.sym.np.inner(a, b)", (2, 3), (4, 3)),
    "det-one": ("mx.sym.np.linalg.det(a)", (3, 3), (1,)),
    "det-batch": ("mx.sym.np.linalg.det(a)", (2, 3, 3), (1,)),
    "slogdet-one": ("mx.sym.np.linalg.slogdet(a)[1]", (3, 3), (1,)),
    "npx-reshape-codes": ("mx.sym.npx.reshape(a, (-6, 2, -1, -3, -5))", (6, 1, 2, 3), (1,)),
    "npx-reshape-reverse": ("mx.sym.npx.reshape(a, (-4, -1, 3, -6), reverse=True)",
                            (8, 5, 6), (1,)),
}

MXNET_SCRIPT = """
import json, sys
import numpy as onp
import mxnet as mx
from mxnet import npx
npx.set_np()
results = {}
for name, (source, a_shape, b_shape) in json.loads(sys.stdin.read()).items():
    with mx.name.NameManager():
        a, b = mx.sym.var("a").as_np_ndarray(), mx.sym.var("b").as_np_ndarray()
        sym = eval(source)
    graph = sym.as_nd_ndarray()
    inputs = {"a": mx.nd.array(onp.load_values(a_shape, 1)),
              "b": mx.nd.array(onp.load_values(b_shape, 2))}
    inputs = {k: v for k, v in inputs.items() if k in graph.list_arguments()}
    out = graph.eval(**inputs)[0].asnumpy()
    ops = [node["op"] for node in json.loads(graph.tojson())["nodes"] if node["op"] != "null"]
    results[name] = {"repr": repr(sym), "shape": list(out.shape), "value": out.tolist(),
                     "ops": ops}
print(json.dumps(results))
"""

# deterministic inputs both sides build the same way (well-conditioned for the determinants)
VALUES = """
def load_values(shape, seed):
    rng = onp.random.RandomState(seed)
    shape = tuple(shape)
    values = rng.uniform(-1, 1, shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        values = values + 3 * onp.eye(shape[-1])
    return values.astype("float32")
onp.load_values = load_values
"""


def load_values(shape, seed):
    namespace = {"onp": onp}
    exec(VALUES, namespace)   # noqa: S102 (the same definition MXNet's side runs)
    return namespace["load_values"](shape, seed)


def _symbols():
    return mx.sym.var("a").as_np_ndarray(), mx.sym.var("b").as_np_ndarray()


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python):
    script = MXNET_SCRIPT.replace("npx.set_np()", "npx.set_np()\n" + VALUES)
    return ask_mxnet_json(mxnet_python, script, CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_built_symbol_matches_mxnet(np_mode, mxnet_results, name):
    source, a_shape, b_shape = CASES[name]
    with mx.name.NameManager():          # names count from 0, as on MXNet's side
        a, b = _symbols()
        sym = eval(source)   # noqa: S307 (the case's expression)
    graph = sym.as_nd_ndarray()
    inputs = {"a": mx.nd.array(load_values(a_shape, 1)),
              "b": mx.nd.array(load_values(b_shape, 2))}
    out = graph.eval(**{k: v for k, v in inputs.items() if k in graph.list_arguments()})[0]
    wanted = mxnet_results[name]
    assert repr(sym) == wanted["repr"]
    assert list(out.shape) == wanted["shape"]
    onp.testing.assert_allclose(out.asnumpy(), onp.array(wanted["value"]), rtol=1e-4,
                                atol=1e-5)
    ops = [node["op"] for node in json.loads(graph.tojson())["nodes"] if node["op"] != "null"]
    # MXNet names the determinant's node by its alias' twin, _linalg_det
    assert [op.replace("_npi_det", "_linalg_det").replace("_npi_slogdet", "_linalg_slogdet")
            for op in ops] == wanted["ops"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_built_symbol_has_numeric_gradients(np_mode, name):
    """What MXNet's own tests do with these graphs (test_np_tensordot, test_np_inner,
    test_np_linalg_det): the gradients of the bound graph match finite differences."""
    source, a_shape, b_shape = CASES[name]
    a, b = _symbols()
    graph = eval(source).as_nd_ndarray()   # noqa: S307
    arrays = [mx.nd.array(load_values(a_shape, 1), dtype="float64"),
              mx.nd.array(load_values(b_shape, 2), dtype="float64")]
    check_numeric_gradient(graph, arrays[:len(graph.list_arguments())], rtol=1e-2, atol=1e-3,
                           dtype=onp.float64)


def test_np_symbol_repr_names_its_class(np_mode):
    with mx.name.NameManager():
        a, b = _symbols()
        assert repr(a) == str(a) == "<_Symbol a>"
        assert repr(a.as_nd_ndarray()) == "<Symbol a>"
        assert repr(mx.sym.np.tensordot(a, b, 1)) == "<_Symbol tensordot_int_axes0>"


@pytest.mark.parametrize("axes, message", [(([0, 1], [0]), "axes length mismatch"),
                                           (([0], [0], [1]), "two sequences")])
def test_tensordot_refuses_unpaired_axes(np_mode, axes, message):
    a, b = _symbols()
    with pytest.raises(ValueError, match=message):
        mx.sym.np.tensordot(a, b, axes)
    with pytest.raises(ValueError, match=message):
        mx.np.tensordot(mx.np.ones((2, 2)), mx.np.ones((2, 2)), axes)


def test_tensordot_names_the_axes_that_do_not_align(np_mode):
    with pytest.raises(mx.base.InvalidShapeError, match="_npi_tensordot.*axis 1 of a has 5"):
        mx.np.tensordot(mx.np.ones((3, 5)), mx.np.ones((4, 4)), ([1], [0]))


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("shape, codes, reverse, expected", [
    ((2, 3, 5, 5), (-2, -1), False, (2, 75)), ((1, 1, 1, 1), (-3, -3, -3, -3), False, ()),
    ((64, 1, 2, 3), (-6, 16, -1, -4), False, (16, 4, 1, 2, 3)),
    ((8, 5, 4, 6), (-4, -1, 3, -6), True, (8, 5, 4, 2, 3))])
def test_npx_reshape_of_legacy_symbols(hybridize, shape, codes, reverse, expected):
    """Outside np mode a HybridBlock traces legacy Symbols, and ``F.npx.reshape`` of one is
    the ``_npx_reshape`` node (cases and shapes from MXNet's test_npx_reshape)."""
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, a):
            return F.npx.reshape(a, codes, reverse=reverse)
    net = Net()
    net.hybridize(hybridize)
    a = mx.np.array(onp.arange(onp.prod(shape), dtype="float32").reshape(shape))
    a.attach_grad()
    with mx.autograd.record():
        out = net(a)
    out.backward()
    assert out.shape == expected
    onp.testing.assert_array_equal(out.asnumpy(), a.asnumpy().reshape(expected))
    assert a.grad.shape == shape and (a.grad.asnumpy() == 1).all()
