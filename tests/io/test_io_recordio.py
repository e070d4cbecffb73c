"""mx.recordio: byte compatibility with MXNet 1.9.1 both ways, headers, bad files."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import recordio

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
sys.path.insert(0, FIXTURES)
import make_recordio_fixtures as fixtures  # noqa: E402


def read_all(path):
    reader = recordio.MXRecordIO(path, "r")
    records = []
    while (record := reader.read()) is not None:
        records.append(record)
    reader.close()
    return records


def test_reads_records_written_by_mxnet():
    assert read_all(os.path.join(FIXTURES, "mxnet_raw.rec")) == fixtures.payloads()


def test_writes_the_same_bytes_as_mxnet(tmp_path):
    path = str(tmp_path / "x.rec")
    with recordio.MXRecordIO(path, "w") as writer:
        for payload in fixtures.payloads():
            writer.write(payload)
    with open(path, "rb") as mine, open(os.path.join(FIXTURES, "mxnet_raw.rec"), "rb") as ref:
        assert mine.read() == ref.read()


def test_indexed_image_records_written_by_mxnet():
    rec = recordio.MXIndexedRecordIO(os.path.join(FIXTURES, "mxnet_images.idx"),
                                     os.path.join(FIXTURES, "mxnet_images.rec"), "r")
    pairs = fixtures.images()
    assert rec.keys == list(range(len(pairs)))
    for key in reversed(rec.keys):
        header, img = recordio.unpack_img(rec.read_idx(key))
        label, expected = pairs[key]
        assert header.id == 100 + key
        if isinstance(label, float):
            assert header.flag == 0 and header.label == label
        else:
            assert header.flag == len(label)
            np.testing.assert_array_equal(header.label, np.float32(label))
        np.testing.assert_array_equal(img, expected[:, :, ::-1])     # BGR, as OpenCV
        _, payload = recordio.unpack(rec.read_idx(key))
        np.testing.assert_array_equal(mx.image.imdecode(payload).asnumpy(), expected)


def test_indexed_write_and_tell(tmp_path):
    idx, rec = str(tmp_path / "a.idx"), str(tmp_path / "a.rec")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    positions = []
    for key in range(4):
        positions.append(writer.tell())
        writer.write_idx(key, b"x" * (key * 3))
    writer.close()
    assert positions == [0, 8, 12 + 8, 20 + 8 + 8]
    reader = recordio.MXIndexedRecordIO(idx, rec, "r")
    assert reader.idx == dict(enumerate(positions))
    assert reader.read_idx(2) == b"xxxxxx"
    with pytest.raises(KeyError, match="no record with key 9"):
        reader.read_idx(9)
    reader.reset()
    assert reader.read() == b""


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.sampled_from([b"a", b"bc", b"\x0a\x23\xd7\xce", b"\0\0"]),
                         max_size=12).map(b"".join), max_size=6))
def test_round_trip_any_payload(tmp_path_factory, payloads):
    path = str(tmp_path_factory.mktemp("rec") / "p.rec")
    with recordio.MXRecordIO(path, "w") as writer:
        for payload in payloads:
            writer.write(payload)
    assert read_all(path) == payloads


def test_pack_and_unpack_headers():
    header, body = recordio.unpack(recordio.pack(recordio.IRHeader(0, 3.5, 7, 1), b"img"))
    assert header == (0, 3.5, 7, 1) and body == b"img"
    packed = recordio.pack(recordio.IRHeader(9, [1, 2.5], 8, 0), b"img")
    assert len(packed) == 24 + 8 + 3
    header, body = recordio.unpack(packed)
    assert header.flag == 2 and header.label.tolist() == [1.0, 2.5] and body == b"img"


def test_pack_img_round_trip():
    img = (np.arange(4 * 5 * 3) % 256).astype(np.uint8).reshape(4, 5, 3)
    header, out = recordio.unpack_img(recordio.pack_img((0, 1.0, 0, 0), img, quality=3,
                                                        img_fmt=".png"))
    np.testing.assert_array_equal(out, img)
    _, out = recordio.unpack_img(recordio.pack_img((0, 1.0, 0, 0), img, quality=95))
    assert out.shape == img.shape


def test_corrupt_files_raise_clear_errors(tmp_path):
    good = open(os.path.join(FIXTURES, "mxnet_raw.rec"), "rb").read()
    bad_magic, truncated = tmp_path / "m.rec", tmp_path / "t.rec"
    bad_magic.write_bytes(b"\0" * 8 + good)
    truncated.write_bytes(good[:-5])
    with pytest.raises(mx.MXNetError, match="expected magic 0xced7230a at byte 0"):
        recordio.MXRecordIO(str(bad_magic), "r").read()
    with pytest.raises(mx.MXNetError, match="Invalid RecordIO file"):
        read_all(str(truncated))
    with pytest.raises(mx.MXNetError, match="shorter than the 24-byte IRHeader"):
        recordio.unpack(b"short")
    with pytest.raises(mx.MXNetError, match="announces 3 labels"):
        recordio.unpack(recordio.pack((0, [1, 2, 3], 0, 0), b"")[:30])
    with pytest.raises(mx.MXNetError, match="cannot decode"):
        recordio.unpack_img(recordio.pack((0, 1.0, 0, 0), b"not an image"))
    with pytest.raises(ValueError, match="Invalid flag"):
        recordio.MXRecordIO(str(tmp_path / "x.rec"), "a")
    reader = recordio.MXRecordIO(os.path.join(FIXTURES, "mxnet_raw.rec"), "r")
    with pytest.raises(mx.MXNetError, match="opened with flag 'r'"):
        reader.write(b"x")


MXNET_READER = """
import json, sys
import mxnet as mx
reader = mx.recordio.MXIndexedRecordIO(sys.argv[1], sys.argv[2], 'r')
out = []
for key in reader.keys:
    header, body = mx.recordio.unpack(reader.read_idx(key))
    label = header.label.tolist() if header.flag else header.label
    out.append([key, header.flag, label, header.id, body.hex()])
print(json.dumps(out))
"""


@pytest.mark.mxnet
def test_mxnet_reads_files_written_by_minimx(mxnet_python, tmp_path):
    idx, rec = str(tmp_path / "m.idx"), str(tmp_path / "m.rec")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    records = []
    for key, payload in enumerate(fixtures.payloads()):
        label = float(key) if key % 2 else [key, -key]
        writer.write_idx(key, recordio.pack((0, label, key * 11, 0), payload))
        records.append([key, 0 if key % 2 else 2, label if key % 2 else [float(key), -key],
                        key * 11, payload.hex()])
    writer.close()
    result = subprocess.run([mxnet_python, "-c", MXNET_READER, idx, rec], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == records
