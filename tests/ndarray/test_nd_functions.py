"""The ``nd`` helpers MXNet writes in Python (moveaxis, linspace, split_v2, onehot_encode,
from_numpy, CachedOp) against numpy, and against MXNet 1.9.1 where it is installed."""
import json
import subprocess

import numpy as np
import pytest

import minimx as mx
from minimx import nd, sym


def test_moveaxis_matches_numpy():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for source, destination in [(0, 2), (-1, 0), ([0, 1], [2, 0])]:
        got = nd.moveaxis(nd.array(x), source, destination).asnumpy()
        np.testing.assert_array_equal(got, np.moveaxis(x, source, destination))


def test_linspace_matches_numpy_with_and_without_endpoint():
    for endpoint in (True, False):
        got = nd.linspace(0, 1, 5, endpoint=endpoint).asnumpy()
        np.testing.assert_allclose(got, np.linspace(0, 1, 5, endpoint=endpoint,
                                                    dtype=np.float32), rtol=1e-6)


def test_split_v2_sections_and_indices():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    for parts, wanted in [(nd.split_v2(nd.array(x), 3), np.split(x, 3)),
                          (nd.split_v2(nd.array(x), (1, 4)), np.split(x, (1, 4)))]:
        assert len(parts) == len(wanted)
        for got, want in zip(parts, wanted):
            np.testing.assert_array_equal(got.asnumpy(), want)
    with pytest.raises(ValueError, match="indices_or_sections"):
        nd.split_v2(nd.array(x), [1, 2])


def test_onehot_encode_writes_into_out():
    out = nd.zeros((3, 4))
    result = nd.onehot_encode(nd.array([0, 3, 1]), out)
    assert result is out
    np.testing.assert_array_equal(out.asnumpy(), np.eye(4, dtype=np.float32)[[0, 3, 1]])


def test_from_numpy_shares_the_buffer_and_freezes_the_source():
    source = np.arange(6, dtype=np.float32).reshape(2, 3)
    array = nd.from_numpy(source)
    assert not source.flags.writeable
    array[:] = 7
    array.wait_to_read()                 # the write is queued on the engine
    assert (source == 7).all()
    copied = nd.from_numpy(np.ones(3, dtype=np.float32), zero_copy=False)
    np.testing.assert_array_equal(copied.asnumpy(), np.ones(3))
    with pytest.raises(TypeError, match="numpy array"):
        nd.from_numpy([1, 2])


def test_cached_op_runs_a_symbol_on_ndarrays():
    a, b = sym.var("a"), sym.var("b")
    op = nd.CachedOp(a * 2 + b)
    out = op(nd.array([1.0, 2.0]), nd.array([10.0, 20.0]))
    np.testing.assert_array_equal(out.asnumpy(), [12.0, 24.0])


MXNET_SCRIPT = """
import json, mxnet as mx, numpy as np
x = mx.nd.array(np.arange(24).reshape(2, 3, 4))
print(json.dumps({
    "moveaxis": mx.nd.moveaxis(x, [0, 1], [2, 0]).asnumpy().tolist(),
    "linspace": mx.nd.linspace(-1, 2, 7, endpoint=False).asnumpy().tolist(),
    "split_v2": [p.asnumpy().tolist() for p in mx.nd.split_v2(x, (1, 3), axis=2)],
}))
"""


def test_functions_match_mxnet(mxnet_python):
    finished = subprocess.run([mxnet_python, "-c", MXNET_SCRIPT], capture_output=True,
                              text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    wanted = json.loads(finished.stdout.strip().splitlines()[-1])
    x = nd.array(np.arange(24).reshape(2, 3, 4))
    assert nd.moveaxis(x, [0, 1], [2, 0]).asnumpy().tolist() == wanted["moveaxis"]
    np.testing.assert_allclose(nd.linspace(-1, 2, 7, endpoint=False).asnumpy(),
                               wanted["linspace"], rtol=1e-6)
    assert [p.asnumpy().tolist() for p in nd.split_v2(x, (1, 3), axis=2)] == wanted["split_v2"]


# -- histogram, legacy shape rules, errors a kernel finds ----------------------------------------
def test_histogram_counts_as_numpy_in_both_forms():
    values = np.array([0.1, 0.2, 3.0, -5.0, 2.5], dtype=np.float32)
    counts, edges = nd.histogram(nd.array(values), bins=5, range=(-2.5, 2.5))
    want_counts, want_edges = np.histogram(values, 5, range=(-2.5, 2.5))
    assert counts.dtype == np.int64 and counts.asnumpy().tolist() == want_counts.tolist()
    np.testing.assert_allclose(edges.asnumpy(), want_edges)
    counts, edges = nd.histogram(nd.array(values), bins=nd.array([-1.0, 0.5, 2.5]))
    assert counts.asnumpy().tolist() == [2, 1]          # 2.5 is in the last bin, as numpy
    # no range: numpy's over the values' minimum to maximum, with MXNet's warning (and its
    # float32 counts there: MXNet makes an array of numpy's result)
    with pytest.warns(UserWarning, match="range is not specified"):
        counts, edges = nd.histogram(nd.array(values), bins=4)
    want_counts, want_edges = np.histogram(values, 4)
    assert counts.dtype == np.float32 and counts.asnumpy().tolist() == want_counts.tolist()
    np.testing.assert_allclose(edges.asnumpy(), want_edges, rtol=1e-6)


def test_symbolic_histogram_and_split_v2_infer_their_outputs():
    data = mx.sym.var("x")
    assert mx.sym.histogram(data, bins=4, range=(0, 1)).infer_shape(x=(3, 4))[1] == [(4,), (5,)]
    edges = mx.sym.histogram(data, bins=mx.sym.var("b"))
    assert edges.list_arguments() == ["x", "b"]
    assert edges.infer_shape(x=(3, 4), b=(5,))[1] == [(4,), (5,)]
    assert mx.sym.split_v2(data, (1, 3), axis=1).infer_shape(x=(2, 4))[1] == [
        (2, 1), (2, 2), (2, 1)]


def test_zeros_and_ones_refuse_unknown_sizes_unless_np_shape():
    with pytest.raises(mx.base.InvalidShapeError, match="zeros: shape \\(5, 0\\)"):
        nd.zeros((5, 0))
    with pytest.raises(mx.base.InvalidShapeError, match="ones: shape \\(\\)"):
        nd.ones(())
    assert nd.empty((0, 3)).shape == (0, 3)             # empty and array make them anyway
    with mx.np_shape(True):
        assert nd.zeros((5, 0)).shape == (5, 0) and nd.ones(()).shape == ()


def test_an_index_out_of_range_in_a_kernel_is_an_index_error_at_the_sync_point():
    data = nd.array([[0, 1, 2], [3, 4, 5]])
    result = nd.gather_nd(data, nd.array([[0, 1, 0], [0, 1, 3]]))
    with pytest.raises(IndexError, match="gather_nd") as raised:
        result.asnumpy()
    assert isinstance(raised.value, mx.base.MXNetError)


@pytest.mark.parametrize("call", [
    lambda: nd.diag(nd.ones((3, 4)), k=5),
    lambda: nd.diag(nd.ones((3, 4)), k=-4),
    lambda: nd.depth_to_space(nd.ones((1, 4, 2, 2)), 0),
    lambda: nd.depth_to_space(nd.array(np.ones((1, 4, 0, 3))), 2),
    lambda: nd.space_to_depth(nd.array(np.ones((1, 0, 2, 2))), 2),
    lambda: mx.nd.array(np.ones((5, 0))).max(),
])
def test_shapes_mxnet_refuses_are_refused_at_the_call(call):
    with pytest.raises(mx.base.MXNetError):
        call()


def test_reshape_takes_shape_as_a_keyword():
    assert nd.arange(6).reshape(shape=(2, 3)).shape == (2, 3)
    assert nd.arange(6).reshape(3, 2).shape == (3, 2)
