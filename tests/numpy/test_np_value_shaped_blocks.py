"""Hybridized np blocks that call a function whose result's shape depends on values
(``np.unique``, ``np.bincount``): no graph can be planned ahead, so the block runs
imperatively (with a warning), giving MXNet 1.9.1's results; indexing a Symbol by an array
is an IndexError, as MXNet's; ``np.random.choice(replace=False, p=...)`` draws in a graph.
"""
import json
import subprocess
import warnings

import numpy as onp
import pytest

import minimx as mx
from minimx import gluon, np

from np_graph_helpers import ask_mxnet_json, defined, np_mode  # noqa: F401 (np_mode)

BLOCKS = """
class Unique(gluon.HybridBlock):
    def hybrid_forward(self, F, a):
        return F.np.unique(a, True, True, True, None)


class Bincount(gluon.HybridBlock):
    def hybrid_forward(self, F, a, w):
        return F.np.bincount(a, w, 6) * 2


class Doubled(gluon.HybridBlock):
    def hybrid_forward(self, F, a, i):
        return a * 2, F.np.unique(i)


class Masked(gluon.HybridBlock):
    def hybrid_forward(self, F, a):
        return a[a > 1] + 1


class Rows(gluon.HybridBlock):
    def hybrid_forward(self, F, a, i):
        return a[i] * 2
"""

# name -> (block, inputs as source)
CASES = {
    "unique": ("Unique()", "[np.array([[3, 1], [3, 2]], dtype='int32')]"),
    "bincount": ("Bincount()", "[np.array([0, 4, 4, 1], dtype='int64'), "
                               "np.array([0.5, 1.0, 2.0, 3.0])]"),
    "doubled": ("Doubled()", "[np.array([1.0, 2.0]), np.array([3, 1, 3], dtype='int64')]"),
}
# indexing a Symbol by a Symbol: MXNet 1.9.1 raises IndexError while tracing
REFUSED = {
    "masked": ("Masked()", "[np.array([[0.0, 2.0], [3.0, 1.0]])]"),
    "rows": ("Rows()", "[np.array([[0.0, 2.0], [3.0, 1.0]]), np.array([1, 0], dtype='int32')]"),
}

MXNET_SCRIPT = """
import json, sys
from mxnet import gluon, np, npx
npx.set_np()
{blocks}
results = {{}}
for name, (block, inputs) in json.loads(sys.stdin.read()).items():
    net = eval(block)
    net.hybridize()
    out = net(*eval(inputs))
    outs = out if isinstance(out, (list, tuple)) else [out]
    results[name] = [[list(o.shape), str(o.dtype), o.asnumpy().tolist()] for o in outs]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def namespace():
    return defined(BLOCKS)


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python):
    return ask_mxnet_json(mxnet_python, MXNET_SCRIPT.format(blocks=BLOCKS), CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_shaped_blocks_match_mxnet(np_mode, namespace, mxnet_results, name):
    block, inputs = CASES[name]
    net = eval(block, namespace)   # noqa: S307
    net.hybridize()
    for _ in range(2):          # the second call runs the same way, without a second trace
        out = net(*eval(inputs, namespace))   # noqa: S307
        outs = out if isinstance(out, (list, tuple)) else [out]
        got = [[list(o.shape), str(o.dtype), o.asnumpy().tolist()] for o in outs]
        assert got == mxnet_results[name]
        assert all(type(o) is np.ndarray for o in outs)


def test_a_value_shaped_block_warns_once_and_traces_again_after_hybridize(np_mode, namespace):
    net = namespace["Unique"]()
    net.hybridize()
    x = np.array([2, 2, 1], dtype="int32")
    with pytest.warns(UserWarning, match="sym.np.unique.*runs imperatively"):
        net(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net(x)
    assert not [w for w in caught if "imperatively" in str(w.message)]
    net.hybridize()                             # a new trace: it warns again
    with pytest.warns(UserWarning, match="runs imperatively"):
        net(x)


def test_value_shaped_block_records_gradients(np_mode, namespace):
    net = namespace["Doubled"]()
    net.hybridize()
    a = np.array([1.0, 2.0])
    a.attach_grad()
    with pytest.warns(UserWarning), mx.autograd.record():
        doubled, found = net(a, np.array([3, 1, 3], dtype="int64"))
    doubled.backward()
    assert found.asnumpy().tolist() == [1, 3]
    assert a.grad.asnumpy().tolist() == [2.0, 2.0]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_indexing_a_symbol_by_an_array_is_an_index_error(np_mode, namespace, mxnet_python,
                                                         name):
    block, inputs = REFUSED[name]
    script = MXNET_SCRIPT.format(blocks=BLOCKS)
    done = subprocess.run([mxnet_python, "-c", script], input=json.dumps({name: REFUSED[name]}),
                          capture_output=True, text=True, timeout=300)
    assert "IndexError" in done.stderr.strip().splitlines()[-1]
    net = eval(block, namespace)   # noqa: S307
    net.hybridize()
    with pytest.raises(IndexError, match="only integers and slices"):
        net(*eval(inputs, namespace))   # noqa: S307


def test_weighted_choice_without_replacement_follows_numpy(np_mode):
    """NumPy draws one index after another, each time among those left, by ``p``; the
    frequencies of the first and the second index drawn match NumPy's own draws."""
    p = onp.array([0.5, 0.3, 0.15, 0.05, 0.0])
    trials = 2000
    mine = onp.array([np.random.choice(5, 2, replace=False, p=np.array(p)).asnumpy()
                      for _ in range(trials)])
    rng = onp.random.RandomState(0)
    numpy_draws = onp.array([rng.choice(5, 2, replace=False, p=p) for _ in range(trials)])
    assert all(len(set(draw)) == 2 for draw in mine) and not (mine == 4).any()
    for position in (0, 1):
        frequencies = onp.bincount(mine[:, position], minlength=5) / trials
        expected = onp.bincount(numpy_draws[:, position], minlength=5) / trials
        onp.testing.assert_allclose(frequencies, expected, atol=0.05)


@pytest.mark.parametrize("hybridize", [False, True])
def test_weighted_choice_without_replacement_in_a_block(np_mode, hybridize):
    class Choice(gluon.HybridBlock):
        def hybrid_forward(self, F, a, p):
            return F.np.random.choice(a, 5, False, p)
    net = Choice()
    net.hybridize(hybridize)
    samples = net(np.arange(10), np.array(onp.full(10, 0.1), dtype="float16")).asnumpy()
    assert samples.shape == (5,) and len(set(samples.tolist())) == 5
    with pytest.raises(ValueError, match="larger sample"):
        np.random.choice(3, 4, replace=False, p=np.array([0.2, 0.3, 0.5]))
