"""gluon.utils: split_data / split_and_load, clip_global_norm, sha1 and download checks."""
import hashlib
import json
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import nd
from minimx.gluon import utils


@settings(max_examples=25, deadline=None)
@given(size=st.integers(1, 12), num_slice=st.integers(1, 5), axis=st.integers(0, 1))
def test_split_data_uneven_partitions_in_order(size, num_slice, axis):
    shape = (size, 3) if axis == 0 else (3, size)
    data = np.arange(size * 3, dtype=np.float32).reshape(shape)
    if num_slice > size:
        return
    parts = utils.split_data(nd.array(data), num_slice, batch_axis=axis, even_split=False)
    assert len(parts) == num_slice
    lengths = [part.shape[axis] for part in parts]
    assert sum(lengths) == size and max(lengths) - min(lengths) <= 1
    assert lengths == sorted(lengths, reverse=True)
    np.testing.assert_array_equal(np.concatenate([p.asnumpy() for p in parts], axis=axis), data)


def test_split_data_even_split_error():
    with pytest.raises(ValueError, match="cannot be evenly split into 2 slices"):
        utils.split_data(nd.zeros((5, 2)), 2)


def test_split_and_load_contexts_and_numpy_input():
    parts = utils.split_and_load(np.arange(6).reshape(3, 2), [mx.cpu(0), mx.cpu(1)],
                                 even_split=False)
    assert [p.context for p in parts] == [mx.cpu(0), mx.cpu(1)]
    assert [p.shape for p in parts] == [(2, 2), (1, 2)]
    single = utils.split_and_load(nd.ones((4,)), [mx.cpu(1)])
    assert len(single) == 1 and single[0].context == mx.cpu(1) and single[0].shape == (4,)


@settings(max_examples=20, deadline=None)
@given(values=st.lists(st.floats(-5, 5, width=32), min_size=1, max_size=6),
       max_norm=st.floats(0.1, 10))
def test_clip_global_norm_formula(values, max_norm):
    arrays = [nd.array([v, 2 * v]) for v in values]
    flat = np.concatenate([a.asnumpy() for a in arrays])
    norm = np.sqrt((flat.astype(np.float64) ** 2).sum())
    returned = utils.clip_global_norm(arrays, max_norm)
    assert returned == pytest.approx(norm, rel=1e-5, abs=1e-5)
    scale = min(1.0, max_norm / (norm + 1e-8))
    got = np.concatenate([a.asnumpy() for a in arrays])
    np.testing.assert_allclose(got, flat * scale, rtol=1e-5, atol=1e-6)


def test_clip_global_norm_lazy_return_and_nan_warning():
    arrays = [nd.array([3.0, 4.0])]
    norm = utils.clip_global_norm(arrays, 1.0, check_isfinite=False)
    assert isinstance(norm, nd.NDArray) and norm.asscalar() == pytest.approx(5.0)
    with pytest.warns(UserWarning, match="nan or inf"):
        utils.clip_global_norm([nd.array([np.inf, 1.0])], 1.0)


def test_check_sha1_and_download_without_network(tmp_path):
    target = tmp_path / "weights.bin"
    target.write_bytes(b"minimx")
    digest = hashlib.sha1(b"minimx").hexdigest()
    assert utils.check_sha1(str(target), digest)
    assert not utils.check_sha1(str(target), "0" * 40)
    url = "https://example.com/files/weights.bin"
    assert utils.download(url, path=str(tmp_path), sha1_hash=digest) == str(target)
    assert utils.download(url, path=str(target)) == str(target)
    with pytest.raises(mx.base.MXNetError, match="SHA-1"):
        utils.download(url, path=str(tmp_path), sha1_hash="0" * 40)
    with pytest.raises(mx.base.MXNetError, match="does not exist.*save it as"):
        utils.download("https://example.com/other.bin", path=str(tmp_path))
    with pytest.raises(mx.base.MXNetError, match="overwrite"):
        utils.download(url, path=str(tmp_path), overwrite=True)


def test_replace_file(tmp_path):
    src, dst = tmp_path / "a", tmp_path / "b"
    src.write_text("new")
    dst.write_text("old")
    utils.replace_file(str(src), str(dst))
    assert dst.read_text() == "new" and not src.exists()
    src.write_text("x")
    with pytest.raises(OSError, match="failed"):
        utils.replace_file(str(src), str(tmp_path / "missing" / "c"))
    assert not src.exists()


def test_shape_is_known():
    assert utils.shape_is_known((2, 3))
    assert not utils.shape_is_known((2, 0))
    assert not utils.shape_is_known(None)
    assert not utils.shape_is_known(())


@pytest.mark.mxnet
def test_split_and_clip_match_mxnet(mxnet_python):
    script = """
import json, numpy as np, mxnet as mx
from mxnet.gluon import utils
x = mx.nd.array(np.arange(7 * 2).reshape(7, 2))
parts = utils.split_data(x, 3, even_split=False)
axis1 = utils.split_data(mx.nd.array(np.arange(2 * 5).reshape(2, 5)), 2, 1, False)
arrays = [mx.nd.array([1.0, -2.0]), mx.nd.array([[2.0, 0.5]])]
norm = utils.clip_global_norm(arrays, 1.5)
print(json.dumps({"parts": [p.asnumpy().tolist() for p in parts],
                  "axis1": [p.asnumpy().tolist() for p in axis1],
                  "norm": float(norm), "clipped": [a.asnumpy().tolist() for a in arrays]}))
"""
    done = subprocess.run([mxnet_python, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    ref = json.loads(done.stdout.strip().splitlines()[-1])
    x = nd.array(np.arange(7 * 2).reshape(7, 2))
    assert [p.asnumpy().tolist() for p in utils.split_data(x, 3, even_split=False)] == \
        ref["parts"]
    axis1 = utils.split_data(nd.array(np.arange(2 * 5).reshape(2, 5)), 2, 1, False)
    assert [p.asnumpy().tolist() for p in axis1] == ref["axis1"]
    arrays = [nd.array([1.0, -2.0]), nd.array([[2.0, 0.5]])]
    assert utils.clip_global_norm(arrays, 1.5) == pytest.approx(ref["norm"], rel=1e-6)
    for got, want in zip(arrays, ref["clipped"]):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
