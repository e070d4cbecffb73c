"""``nd.save`` / ``nd.load`` in MXNet 1.x's binary format (minimx/ndarray/utils.py).

The fixtures in tests/fixtures/ were written by MXNet 1.9.1 (make_fixtures.py);
their expected contents come from that script's numpy-only ``expected()``.  The
differential tests run MXNet itself in a subprocess and are skipped without it.
"""
import importlib.util
import json
import os
import struct
import subprocess
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import backend, nd
from minimx.base import DTYPE_TO_FLAG, FileFormatError, MXNetError
from minimx.ndarray import utils

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


def _fixture_module():
    spec = importlib.util.spec_from_file_location(
        "make_fixtures", os.path.join(FIXTURES, "make_fixtures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXPECTED = _fixture_module().expected()


def _read(name):
    with open(os.path.join(FIXTURES, name), "rb") as stream:
        return stream.read()


def _assert_same(loaded, expected):
    assert type(loaded) is type(expected)
    if isinstance(expected, dict):
        assert list(loaded) == list(expected)
        pairs = [(loaded[key], expected[key]) for key in expected]
    else:
        assert len(loaded) == len(expected)
        pairs = list(zip(loaded, expected))
    for got, want in pairs:
        assert isinstance(got, nd.NDArray)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want)


# -- files written by MXNet --------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_files_written_by_mxnet_load(name):
    with mx.np_shape(EXPECTED[name][0] == "np_shape"):
        loaded = nd.load(os.path.join(FIXTURES, name))
    _assert_same(loaded, EXPECTED[name][1])
    values = loaded.values() if isinstance(loaded, dict) else loaded
    assert all(x.context == mx.cpu(0) for x in values)    # cpu(1) arrays too, as MXNet


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_minimx_writes_the_bytes_mxnet_writes(name):
    mode, content = EXPECTED[name]
    ctx = mx.cpu(1) if mode == "legacy_cpu1" else mx.cpu(0)

    def convert(value):
        return nd.array(value, dtype=value.dtype, ctx=ctx)

    with mx.np_shape(mode == "np_shape"):
        if isinstance(content, dict):
            arrays, names = [convert(v) for v in content.values()], list(content)
        else:
            arrays, names = [convert(v) for v in content], []
        assert utils.encode(arrays, names) == _read(name)


def test_a_file_records_its_shape_semantics_and_loads_only_in_them(tmp_path):
    path = tmp_path / "scalar.nd"
    nd.save(str(path), [nd.array(np.array(5.5)), nd.array([1.0, 2.0])])
    assert struct.unpack_from("<I", path.read_bytes(), 24)[0] == utils.V2_MAGIC
    _assert_same(nd.load(str(path)), EXPECTED["mxnet_scalar_legacy.nd"][1])
    with mx.np_shape(True), pytest.raises(mx.base.MXNetError, match="legacy shape"):
        nd.load(str(path))
    with mx.np_shape(True):
        nd.save(str(path), [nd.zeros((2, 0)), nd.ones(())])
        assert struct.unpack_from("<I", path.read_bytes(), 24)[0] == utils.V3_MAGIC
        assert [x.shape for x in nd.load(str(path))] == [(2, 0), ()]
    with pytest.raises(mx.base.MXNetError, match="numpy shape semantics"):
        nd.load(str(path))


def test_load_frombuffer_reads_bytes():
    content = _read("mxnet_dict.nd")
    _assert_same(nd.load_frombuffer(content), EXPECTED["mxnet_dict.nd"][1])
    _assert_same(nd.load_frombuffer(bytearray(content)), EXPECTED["mxnet_dict.nd"][1])
    with pytest.raises(TypeError):
        nd.load_frombuffer("not bytes")


# -- round trips ---------------------------------------------------------------------------------
DTYPES = sorted(dtype.name for dtype in DTYPE_TO_FLAG)


@st.composite
def arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=4)))
    raw = draw(st.binary(min_size=int(np.prod(shape)) * dtype.itemsize,
                         max_size=int(np.prod(shape)) * dtype.itemsize))
    value = np.frombuffer(raw, dtype=dtype).reshape(shape)
    if dtype == np.bool_:
        value = value.astype(bool)        # keep booleans 0/1 (MXNet stores one byte each)
    return value


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(arrays(), max_size=4), named=st.booleans())
def test_save_then_load_gives_the_same_arrays(tmp_path, values, named):
    data = [nd.array(v, dtype=v.dtype) for v in values]
    if named:
        data = {f"arr:{i}": x for i, x in enumerate(data)}
    path = str(tmp_path / "round.nd")
    nd.save(path, data)
    loaded = nd.load(path)
    if named and values:
        assert list(loaded) == list(data)
        loaded = list(loaded.values())
    assert isinstance(loaded, list) and len(loaded) == len(values)
    for got, want in zip(loaded, values):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.asnumpy().tobytes() == want.tobytes()     # bit-exact, NaNs included


def test_single_array_and_empty_dict_come_back_as_lists(tmp_path):
    path = str(tmp_path / "x.nd")
    nd.save(path, nd.ones((2,)))
    assert isinstance(nd.load(path), list) and len(nd.load(path)) == 1
    nd.save(path, {})
    assert nd.load(path) == []


def test_path_objects_are_accepted(tmp_path):
    nd.save(tmp_path / "p.nd", [nd.ones((1,))])
    assert nd.load(tmp_path / "p.nd")[0].shape == (1,)


def test_gpu_arrays_record_their_device_and_return_to_it(tmp_path):
    path = str(tmp_path / "gpu.nd")
    with backend.stand_in_gpus(2):
        nd.save(path, [nd.ones((2,), ctx=mx.gpu(1))])
        content = open(path, "rb").read()
        assert struct.unpack_from("<ii", content, 24 + 8 + 4 + 8) == (2, 1)   # gpu(1)
        assert nd.load(path)[0].context == mx.gpu(1)
    # without that GPU the array loads onto cpu(0), as MXNet without CUDA does
    with backend.stand_in_gpus(0):
        loaded = nd.load(path)[0]
    assert loaded.context == mx.cpu(0)
    np.testing.assert_array_equal(loaded.asnumpy(), [1.0, 1.0])


# -- what save refuses ---------------------------------------------------------------------------
def test_save_into_a_missing_directory_names_it(tmp_path):
    target = tmp_path / "no" / "such" / "x.nd"
    with pytest.raises(MXNetError, match="does not exist") as error:
        nd.save(str(target), [nd.ones((1,))])
    assert str(tmp_path / "no" / "such") in str(error.value)


@pytest.mark.parametrize("data, kind", [([1, 2], TypeError), ({1: nd.ones((1,))}, TypeError),
                                        ({"a": 1.0}, TypeError), ("abc", ValueError)])
def test_save_rejects_what_mxnet_rejects(tmp_path, data, kind):
    with pytest.raises(kind):
        nd.save(str(tmp_path / "x.nd"), data)


def test_load_of_a_missing_file_names_it(tmp_path):
    with pytest.raises(MXNetError, match="missing.nd"):
        nd.load(str(tmp_path / "missing.nd"))


# -- corrupt files -------------------------------------------------------------------------------
def test_every_truncation_raises_a_format_error_naming_the_file(tmp_path):
    content = _read("mxnet_dict.nd")
    for length in range(len(content)):
        with pytest.raises(FileFormatError, match="cut.nd"):
            utils.decode(content[:length], "cut.nd")
    path = tmp_path / "short.nd"
    path.write_bytes(content[:100])
    with pytest.raises(FileFormatError, match="short.nd.*expected .* bytes"):
        nd.load(str(path))


def _header(count=1):
    return struct.pack("<QQQ", utils.LIST_MAGIC, 0, count)


def _record(shape, flag=0, dev=(1, 0), magic=utils.V2_MAGIC, storage=0, data=b""):
    ndim = len(shape)
    return (struct.pack("<IiI", magic, storage, ndim) + struct.pack(f"<{ndim}q", *shape)
            + struct.pack("<iii", *dev, flag) + data)


NO_NAMES = struct.pack("<Q", 0)


@pytest.mark.parametrize("content, message", [
    (b"PK\x03\x04" + bytes(40), "expected the NDArray file magic 0x112, found 0x"),
    (_header() + struct.pack("<I", 0xDEADBEEF) + bytes(40), "expected an NDArray magic"),
    (struct.pack("<QQQ", utils.LIST_MAGIC, 0, 2**62), "found a count of"),
    (_header() + _record((2**40, 2**40), data=bytes(8)) + NO_NAMES, "expected 4835703278458"),
    (_header() + _record((2,), flag=12, data=bytes(8)) + NO_NAMES, "dtype flag"),
    (_header() + _record((2,), dev=(9, 0), data=bytes(8)) + NO_NAMES, "device type"),
    (_header() + _record((2,), storage=2, data=bytes(8)) + NO_NAMES, "csr"),
    (_header() + struct.pack("<IiI", utils.V2_MAGIC, 0, 2**31 + 5), "expected ndim"),
    (_header() + _record((-3,)) + NO_NAMES, "non-negative dimensions"),
    (_header() + _record((1,), data=bytes(4)) + struct.pack("<Q", 3), "found a count of 3"),
    (_header() + _record((1,), data=bytes(4)) + struct.pack("<QQ", 1, 2**60), "count of"),
    (_header(2) + _record((1,), data=bytes(4)) * 2 + struct.pack("<QQ", 1, 1) + b"a",
     "expected 0 or 2 names"),
    (_header() + _record((1,), data=bytes(4)) + struct.pack("<QQ", 1, 2) + b"\xff\xfe",
     "UTF-8"),
])
def test_corrupt_files_raise_clear_format_errors(tmp_path, content, message):
    path = tmp_path / "bad.nd"
    path.write_bytes(content)
    with pytest.raises(FileFormatError, match="bad.nd") as error:
        nd.load(str(path))
    assert message in str(error.value)


@settings(max_examples=60, deadline=None)
@given(position=st.integers(0, 662), value=st.integers(0, 255))
def test_a_changed_byte_loads_or_raises_a_format_error(position, value):
    content = bytearray(_read("mxnet_dict.nd"))
    content[position % len(content)] = value
    try:
        utils.decode(bytes(content), "flipped.nd")
    except FileFormatError as error:
        assert "flipped.nd" in str(error)


def test_older_v1_and_v0_records_load():
    data = np.array([1.5, -2.0, 3.0], dtype=np.float32).tobytes()
    v1 = (struct.pack("<IiQ", utils.V1_MAGIC, 1, 3) + struct.pack("<iii", 1, 0, 0) + data)
    v0 = struct.pack("<II", 1, 3) + struct.pack("<iii", 1, 0, 0) + data
    for record in (v1, v0):
        loaded = utils.decode(_header() + record + NO_NAMES)
        np.testing.assert_array_equal(loaded[0].asnumpy(), [1.5, -2.0, 3.0])


# -- differential: MXNet 1.9.1 itself ----------------------------------------------------------
def _run_mxnet(mxnet_python, code):
    result = subprocess.run([mxnet_python, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


_MXNET_DUMP = """
import json, sys
import mxnet as mx
path, np_shape = sys.argv[1], sys.argv[2] == "1"
with mx.util.np_shape(np_shape):
    data = mx.nd.load(path)
    items = data.items() if isinstance(data, dict) else enumerate(data)
    out = {str(k): [v.dtype.__name__, list(v.shape),
                    v.asnumpy().astype("float64").ravel().tolist(), str(v.context)]
           for k, v in items}
print(json.dumps({"kind": type(data).__name__, "arrays": out}))
"""


@pytest.mark.mxnet
@pytest.mark.parametrize("np_shape", [False, True])
def test_files_written_by_minimx_load_in_mxnet(mxnet_python, tmp_path, np_shape):
    values = {"w": np.arange(6, dtype=np.float32).reshape(2, 3) / 7,
              "i64": np.array([2**40, -5], dtype=np.int64),
              "u8": np.array([[0, 255]], dtype=np.uint8),
              "f16": np.array([0.25, -8.0], dtype=np.float16),
              "f64": np.array([1e-300, np.pi])}
    if np_shape:
        values.update(scalar=np.array(2.5, dtype=np.float32),
                      empty=np.zeros((0, 2), dtype=np.int32))
    path = str(tmp_path / "from_minimx.nd")
    with mx.np_shape(np_shape):
        nd.save(path, {k: nd.array(v, dtype=v.dtype, ctx=mx.cpu(1)) for k, v in values.items()})
    script = tmp_path / "dump.py"
    script.write_text(_MXNET_DUMP)
    result = subprocess.run([mxnet_python, str(script), path, "1" if np_shape else "0"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    dumped = json.loads(result.stdout.strip().splitlines()[-1])
    assert dumped["kind"] == "dict" and list(dumped["arrays"]) == list(values)
    for key, value in values.items():
        dtype, shape, flat, context = dumped["arrays"][key]
        assert dtype == value.dtype.name and tuple(shape) == value.shape, key
        np.testing.assert_array_equal(np.array(flat, dtype=np.float64),
                                      value.astype(np.float64).ravel())
        assert context == "cpu(0)"


@pytest.mark.mxnet
def test_random_files_written_by_mxnet_load_in_minimx(mxnet_python, tmp_path):
    code = f"""
    import numpy as np, mxnet as mx
    mx.random.seed(3)
    data = {{"a": mx.nd.random.normal(shape=(3, 4)),
             "b": mx.nd.random.randint(-100, 100, shape=(5,), dtype="int64"),
             "c": mx.nd.random.uniform(shape=(2, 1, 2), dtype="float64")}}
    mx.nd.save({str(tmp_path / "mx.nd")!r}, data)
    for key, value in data.items():
        np.save({str(tmp_path)!r} + "/" + key + ".npy", value.asnumpy())
    """
    _run_mxnet(mxnet_python, code)
    loaded = nd.load(str(tmp_path / "mx.nd"))
    assert list(loaded) == ["a", "b", "c"]
    for key, value in loaded.items():
        want = np.load(str(tmp_path / f"{key}.npy"), allow_pickle=False)
        assert value.dtype == want.dtype and value.shape == want.shape
        np.testing.assert_array_equal(value.asnumpy(), want)
