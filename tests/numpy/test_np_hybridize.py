"""np-mode HybridBlocks hybridize: ``F.np`` / ``F.npx`` on np Symbols (``mx.sym.np``).

A block run imperatively and hybridized gives the same values, shapes and dtypes, and both
return ``np.ndarray``; the shapes (zero-dimensional full reductions) are MXNet 1.9.1's.
"""
import json
import subprocess

import numpy as onp
import pytest

import minimx as mx
from minimx import gluon, np, npx

BLOCK = """
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        y = F.np.exp(x) * 2 - 1
        return (F.np.sum(y), F.np.sum(y, axis=1), F.np.mean(x, axis=0, keepdims=True),
                F.npx.relu(x - 0.5), x > 0.5, x.sum(), F.np.max(x, axis=(0, 1)),
                F.np.sqrt(x) / (x + 1), 1 - F.np.square(x), F.np.ones((3,)) < F.np.sum(x) + 1)
"""


@pytest.fixture
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def _net():
    namespace = {"gluon": gluon}
    exec(BLOCK, namespace)   # noqa: S102
    return namespace["Net"]()


def test_hybridized_np_block_matches_imperative(np_mode):
    x = np.array(onp.random.RandomState(0).uniform(0.1, 1, (2, 3)).astype("float32"))
    net = _net()
    imperative = net(x)
    net.hybridize()
    hybridized = net(x)
    assert len(imperative) == len(hybridized) == 10
    for want, got in zip(imperative, hybridized):
        assert type(got) is np.ndarray and type(want) is np.ndarray
        assert got.shape == want.shape and got.dtype == want.dtype
        onp.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    assert hybridized[0].shape == () and hybridized[6].shape == ()


def test_np_symbol_infers_numpy_shapes(np_mode):
    a = mx.sym.var("a").as_np_ndarray()
    assert isinstance(a, mx.sym.np._Symbol)
    outputs = mx.sym.Group([mx.sym.np.sum(a), mx.sym.np.sum(a, axis=0),
                            mx.sym.np.mean(a, axis=-1, keepdims=True)]).as_nd_ndarray()
    _, out_shapes, _ = outputs.infer_shape(a=(2, 3))
    assert out_shapes == [(), (3,), (2, 1)]


@pytest.mark.parametrize("name", ["nonzero", "unique", "argwhere"])
def test_value_shaped_functions_refuse_symbols(np_mode, name):
    a = mx.sym.var("a").as_np_ndarray()
    with pytest.raises(mx.base.MXNetError, match=f"{name}.*depends on the values"):
        getattr(mx.sym.np, name)(a)


def test_hybridized_shapes_match_mxnet(np_mode, mxnet_python):
    script = ("import json\nimport numpy as onp\nfrom mxnet import gluon, np, npx\n"
              "npx.set_np()\n" + BLOCK +
              "net = Net(); net.hybridize()\n"
              "x = np.array(onp.random.RandomState(0).uniform(0.1, 1, (2, 3)).astype('float32'))\n"
              "print(json.dumps([[list(o.shape), str(o.dtype), o.asnumpy().tolist()] "
              "for o in net(x)]))\n")
    done = subprocess.run([mxnet_python, "-c", script], capture_output=True, text=True,
                          timeout=300, check=True)
    expected = json.loads(done.stdout.strip().splitlines()[-1])
    net = _net()
    net.hybridize()
    got = net(np.array(onp.random.RandomState(0).uniform(0.1, 1, (2, 3)).astype("float32")))
    for (shape, dtype, value), out in zip(expected, got):
        assert list(out.shape) == shape and str(out.dtype) == dtype
        onp.testing.assert_allclose(out.asnumpy(), onp.array(value), rtol=1e-5)


def test_parameters_made_in_np_mode_are_np_arrays(np_mode):
    net = gluon.nn.Dense(4)
    net.initialize()
    for hybridize in (False, True):
        net.hybridize(hybridize)
        x = np.ones((2, 3))
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
        assert type(loss) is np.ndarray and loss.shape == ()
        assert type(net.weight.data()) is np.ndarray and type(net.weight.grad()) is np.ndarray


def test_where_broadcasts_symbols_without_shapes(np_mode):
    a, b = (mx.sym.var(name).as_np_ndarray() for name in "ab")
    graph = mx.sym.np.where(a > 0, a, b).as_nd_ndarray()
    assert graph.infer_shape(a=(2, 2), b=(2, 1))[1] == [(2, 2)]
    out = graph.eval(a=mx.nd.array([[1, -1], [2, -2]]), b=mx.nd.array([[7], [8]]))[0]
    assert out.asnumpy().tolist() == [[1, 7], [2, 8]]


@pytest.mark.parametrize("hybridize", [False, True])
def test_reduction_over_no_axes_is_the_array(np_mode, hybridize):
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.sum(x, axis=()), F.np.max(x, axis=(), keepdims=True)
    net = Net()
    net.hybridize(hybridize)
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    for out in net(x):
        assert out.shape == (2, 2) and out.asnumpy().tolist() == [[1, 2], [3, 4]]


def test_split_and_argmax_hybridize(np_mode):
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            parts = F.np.split(x, 2, axis=1)
            return (F.np.concatenate(parts, axis=0), F.np.split(x, 1)[0],
                    F.np.argmax(x, axis=1), F.np.argmin(x))
    net = Net()
    x = np.array([[4.0, 1.0, 7.0, 2.0], [0.0, 5.0, 3.0, 6.0]])
    imperative = net(x)
    net.hybridize()
    for want, got in zip(imperative, net(x)):
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.asnumpy().tolist() == want.asnumpy().tolist()
    assert net(x)[3].shape == () and net(x)[3].dtype == onp.int64


def test_squeeze_and_flip_on_symbols_follow_numpy(np_mode):
    a = mx.sym.var("a").as_np_ndarray()
    graph = mx.sym.Group([mx.sym.np.squeeze(a), mx.sym.np.squeeze(a, axis=0),
                          mx.sym.np.flip(a, axis=-1)]).as_nd_ndarray()
    for shape in [(1, 1), (1, 3)]:
        expected = [onp.squeeze(onp.ones(shape)).shape, onp.squeeze(onp.ones(shape), 0).shape,
                    shape]
        assert graph.infer_shape(a=shape)[1] == expected
    flipped = graph.eval(a=mx.nd.array([[1, 2, 3]]))[2]
    assert flipped.asnumpy().tolist() == [[3, 2, 1]]


@pytest.mark.parametrize("key", [(slice(None), -1, slice(None)), 0, (1, 2, 3), (-1,),
                                 (slice(0, 2), slice(None, None, -1)), slice(1, None)])
def test_basic_indexing_of_symbols_matches_numpy(np_mode, key):
    x = onp.arange(24.0).reshape(2, 3, 4)
    graph = mx.sym.var("a").as_np_ndarray()[key].as_nd_ndarray()
    out = graph.eval(a=mx.nd.array(x))[0].asnumpy()
    assert out.shape == x[key].shape and onp.array_equal(out, x[key])


def test_indexing_that_needs_the_shape_is_refused(np_mode):
    with pytest.raises(mx.base.MXNetError, match="only integers and slices"):
        mx.sym.var("a").as_np_ndarray()[None, 0]


@pytest.mark.parametrize("hybridize", [False, True])
def test_sigmoid_of_a_zero_dim_array(np_mode, hybridize):
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, a):
            return F.npx.sigmoid(a)
    net = Net()
    net.hybridize(hybridize)
    x = np.array(0.5)
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    want = 1 / (1 + onp.exp(-0.5))
    assert y.shape == () and y.dtype == onp.float32
    onp.testing.assert_allclose(float(y), want, rtol=1e-6)
    onp.testing.assert_allclose(float(x.grad), want * (1 - want), rtol=1e-5)


def test_deferred_parameter_learns_its_shape_through_np_dot(np_mode):
    class Net(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.w = self.params.get("w", shape=(0, 5), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.np.dot(x, w)
    net = Net()
    net.initialize()
    net.hybridize()
    out = net(np.ones((2, 7)))
    assert net.w.shape == (7, 5) and out.shape == (2, 5) and type(out) is np.ndarray


def test_use_np_class_covers_inherited_methods():
    @mx.util.use_np
    class Net(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.w = self.params.get("w", shape=(3, 2))

        def hybrid_forward(self, F, x, w):
            return F.np.dot(x, w)
    net = Net()
    net.initialize()                     # inherited from Block: runs in np mode too
    assert type(net.w.data()) is np.ndarray
    assert not mx.util.is_np_array()


SHAPE_READING_BLOCK = """
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, a, b):
        return (F.np.tensordot(a, b, axes=([1], [0])), F.np.moveaxis(a, 0, -1),
                F.np.hstack([a, a]), F.np.linalg.det(F.np.matmul(a, a.T)))
"""


def test_a_traced_np_symbol_knows_its_shape_and_retraces_for_new_ones(np_mode):
    """Functions whose adapter reads the operand's shape work in a hybridized block: the
    trace infers it from the call's arrays, and a call with other shapes traces again."""
    namespace = {"gluon": gluon}
    exec(SHAPE_READING_BLOCK, namespace)   # noqa: S102
    net = namespace["Net"]()
    net.hybridize()
    rng = onp.random.RandomState(1)
    for rows in (2, 3):
        a = rng.uniform(-1, 1, (rows, 4)).astype("float32")
        b = rng.uniform(-1, 1, (4, 5)).astype("float32")
        got = net(np.array(a), np.array(b))
        want = (onp.tensordot(a, b, axes=([1], [0])), onp.moveaxis(a, 0, -1),
                onp.hstack([a, a]), onp.linalg.det(a @ a.T))
        for g, w in zip(got, want):
            assert type(g) is np.ndarray and g.shape == w.shape
            onp.testing.assert_allclose(g.asnumpy(), w, rtol=1e-4, atol=1e-5)
    assert len(net.cached_plans()) == 1     # the second shape traced a new graph


def test_a_symbol_outside_a_trace_does_not_know_its_shape(np_mode):
    a = mx.sym.var("a").as_np_ndarray()
    with pytest.raises(mx.base.MXNetError, match="does not know its shape"):
        a.shape
    assert a.dtype is None


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (2, 3)])
def test_numpy_reshape_rule_in_graphs(np_mode, shape):
    """``_np_reshape``: ``0`` is a zero-size axis (not ``Reshape``'s "copy"), a 0-d array
    flattens to one element, in a hybridized block as imperatively."""
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.flatten(), F.np.vstack([x]), x.reshape(-1, 1), F.np.cumsum(x)
    x = np.array(onp.arange(int(onp.prod(shape)), dtype="float32").reshape(shape))
    net = Net()
    imperative = net(x)
    net.hybridize()
    for got, want in zip(net(x), imperative):
        assert got.shape == want.shape
        onp.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    x_host = x.asnumpy()
    assert [a.shape for a in imperative] == [x_host.flatten().shape, onp.vstack([x_host]).shape,
                                             x_host.reshape(-1, 1).shape,
                                             onp.cumsum(x_host).shape]


@pytest.mark.parametrize("hybridize", [False, True])
def test_zero_dim_squeeze_argmax_and_where_gradient(np_mode, hybridize):
    """NumPy accepts axis 0 / -1 of a 0-d array in squeeze and argmax; where's gradient of
    a 0-d operand is stored (a 0-d gradient buffer is zeroed with ``[...]``)."""
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return F.np.squeeze(x, -1), F.np.argmax(x, 0), F.np.where(x > 0, x, y)
    net = Net()
    if hybridize:
        net.hybridize()
    x, y = np.array(2.0), np.ones((2, 3))
    x.attach_grad(), y.attach_grad()
    with mx.autograd.record():
        squeezed, index, chosen = net(x, y)
    chosen.backward()
    assert squeezed.shape == index.shape == () and chosen.shape == (2, 3)
    assert float(squeezed) == 2.0 and int(index) == 0
    assert float(x.grad) == 6.0 and y.grad.asnumpy().sum() == 0
