"""CSVIter and MNISTIter on tiny files, against MXNet 1.9.1."""
import gzip
import struct

import numpy as np
import pytest
from mxnet_io_runner import ask_mxnet, run_case

import minimx as mx


@pytest.fixture
def files(tmp_path):
    """Tiny MNIST idx files (7 images of 4x3) and CSV files (5 rows of 6 values)."""
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (7, 4, 3)).astype(np.uint8)
    labels = (np.arange(7) % 10).astype(np.uint8)
    paths = {"image": str(tmp_path / "img-idx3-ubyte"), "label": str(tmp_path / "lab-idx1-ubyte"),
             "data_csv": str(tmp_path / "d.csv"), "label_csv": str(tmp_path / "l.csv")}
    with open(paths["image"], "wb") as out:
        out.write(struct.pack(">IIII", 2051, 7, 4, 3) + images.tobytes())
    with open(paths["label"], "wb") as out:
        out.write(struct.pack(">II", 2049, 7) + labels.tobytes())
    np.savetxt(paths["data_csv"], rng.uniform(-1, 1, (5, 6)), delimiter=",", fmt="%.4f")
    np.savetxt(paths["label_csv"], np.arange(5), delimiter=",", fmt="%g")
    return paths, images, labels, tmp_path


@pytest.mark.mxnet
def test_matches_mxnet(mxnet_python, files):
    paths = files[0]
    cases = [("MNISTIter", {"image": paths["image"], "label": paths["label"], "batch_size": 3,
                            "shuffle": False}),
             ("MNISTIter", {"image": paths["image"], "label": paths["label"], "batch_size": 2,
                            "shuffle": False, "flat": True}),
             ("CSVIter", {"data_csv": paths["data_csv"], "data_shape": [2, 3],
                          "label_csv": paths["label_csv"], "batch_size": 2}),
             ("CSVIter", {"data_csv": paths["data_csv"], "data_shape": [6], "batch_size": 3})]
    payload = [{"kind": "named_iter", "iter": kind, "kwargs": kwargs, "epochs": 3}
               for kind, kwargs in cases]
    for case, want in zip(payload, ask_mxnet(mxnet_python, payload)):
        got = run_case(mx, case)["epochs"]
        for mine, ref in zip(got, want["epochs"]):
            assert [b["pad"] for b in mine] == [b["pad"] for b in ref], case
            for b_mine, b_ref in zip(mine, ref):
                np.testing.assert_allclose(b_mine["data"][0], b_ref["data"][0], rtol=1e-6)
                np.testing.assert_allclose(b_mine["label"][0], b_ref["label"][0])


def test_mnist_values_shuffle_and_gzip(files, tmp_path):
    paths, images, labels, _ = files
    it = mx.io.MNISTIter(image=paths["image"], label=paths["label"], batch_size=7,
                         shuffle=False)
    batch = it.next()
    np.testing.assert_allclose(batch.data[0].asnumpy()[:, 0], images / 256.0)
    gz = str(tmp_path / "img.gz")
    with open(paths["image"], "rb") as src, gzip.open(gz, "wb") as dst:
        dst.write(src.read())
    shuffled = mx.io.MNISTIter(image=gz, label=paths["label"], batch_size=7, seed=3).next()
    got_labels = shuffled.label[0].asnumpy()
    assert sorted(got_labels.tolist()) == sorted(labels.tolist())
    rows = shuffled.data[0].asnumpy()[:, 0]
    for row, lab in zip(rows, got_labels):      # images stay with their labels
        np.testing.assert_allclose(row, images[int(lab)] / 256.0)


def test_bad_files_are_reported(files, tmp_path):
    paths = files[0]
    with pytest.raises(mx.MXNetError, match="not an idx file of images"):
        mx.io.MNISTIter(image=paths["label"], label=paths["label"])
    with pytest.raises(mx.MXNetError, match="needs 4"):
        mx.io.CSVIter(data_csv=paths["data_csv"], data_shape=(4,), batch_size=2)
    with pytest.raises(mx.MXNetError, match="does not exist"):
        mx.io.CSVIter(data_csv=str(tmp_path / "missing.csv"), data_shape=(6,), batch_size=2)


@pytest.mark.mxnet
def test_mnist_arguments_match_mxnet(mxnet_python, files):
    """Every MNISTIter argument as MXNet 1.9.1 takes it: parts cut before a seeded shuffle
    (C++'s std::shuffle order), flat, names, and the generic/unknown keywords it ignores."""
    paths = files[0]
    base = {"image": paths["image"], "label": paths["label"], "batch_size": 2, "silent": True}
    variants = [{"shuffle": True}, {"shuffle": True, "seed": 1}, {"shuffle": True, "seed": 5},
                {"shuffle": False, "num_parts": 3, "part_index": 2},
                {"shuffle": True, "seed": 3, "num_parts": 2, "part_index": 1},
                {"shuffle": False, "flat": True, "data_name": "x", "label_name": "y"},
                {"shuffle": False, "data_shape": [12], "input_shape": [1, 4, 3],
                 "round_batch": True, "prefetch_buffer": 1, "ctx": "cpu", "mean_r": 3}]
    cases = [{"kind": "named_iter_getters", "iter": "MNISTIter", "kwargs": {**base, **v},
              "batches": 1 if "num_parts" in v else 3} for v in variants]
    for case, want in zip(cases, ask_mxnet(mxnet_python, cases)):
        assert run_case(mx, case) == want, case


@pytest.mark.mxnet
def test_csv_getters_match_mxnet(mxnet_python, files):
    """getdata/getlabel return the NDArray itself and getindex the rows' positions; dtype
    int32/int64 parse the file's integers exactly (2147483648 and 200000001 are not floats)."""
    paths, tmp_path = files[0], files[3]
    integers = str(tmp_path / "int.csv")
    np.savetxt(integers, [[200000001, 7], [2147483647, -3], [5, 6]], delimiter=",", fmt="%d")
    wide = str(tmp_path / "wide.csv")
    np.savetxt(wide, [[200000001, 7], [2147483648, -3], [5, 6]], delimiter=",", fmt="%d")
    kwargs = {"data_csv": paths["data_csv"], "data_shape": [6], "batch_size": 2,
              "label_csv": paths["label_csv"]}
    cases = [{"kind": "named_iter_getters", "iter": "CSVIter", "batches": 3, "kwargs": kwargs},
             {"kind": "named_iter_getters", "iter": "CSVIter", "batches": 2,
              "kwargs": {"data_csv": integers, "data_shape": [2], "batch_size": 2,
                         "dtype": "int32"}},
             {"kind": "named_iter_getters", "iter": "CSVIter", "batches": 2,
              "kwargs": {**kwargs, "data_csv": wide, "data_shape": [1, 2],
                         "label_csv": wide, "label_shape": [2], "dtype": "int64"}}]
    for case, want in zip(cases, ask_mxnet(mxnet_python, cases)):
        got = run_case(mx, case)
        assert got["provide_data"] == want["provide_data"]
        for mine, ref in zip(got["getters"], want["getters"]):
            assert [mine[k] for k in ("pad", "index")] == [ref[k] for k in ("pad", "index")]
            assert mine["data"][0] == ref["data"][0] == "NDArray"
            assert mine["data"][2] == ref["data"][2]
            np.testing.assert_allclose(mine["data"][1], ref["data"][1], rtol=1e-6)
            assert mine["label"] == ref["label"]


@pytest.mark.parametrize("kwargs, message", [
    ({"num_parts": 3, "part_index": 3}, "part_index=3"), ({"num_parts": 0}, "num_parts=0"),
    ({"part_index": -1}, "part_index=-1"), ({"batch_size": 0}, "batch_size=0"),
    ({"ctx": "tpu"}, "ctx='tpu'"), ({"dtype": "foo"}, "dtype='foo'")])
def test_mnist_bad_arguments(files, kwargs, message):
    """Wrong values are refused as MXNet refuses them (it raises MXNetError, a RuntimeError)."""
    paths = files[0]
    with pytest.raises(mx.MXNetError, match=message):
        mx.io.MNISTIter(image=paths["image"], label=paths["label"], **kwargs)


def test_mnist_dtype_casts_data(files):
    paths, images = files[:2]
    batch = mx.io.MNISTIter(image=paths["image"], label=paths["label"], batch_size=7,
                            shuffle=False, dtype="float16").next()
    assert batch.data[0].dtype == np.float16
    np.testing.assert_allclose(batch.data[0].asnumpy()[:, 0], images / 256.0, rtol=1e-3)


def test_csv_refuses_a_dtype_mxnet_refuses(files):
    """MXNet's CSVIter reads float32, int32 and int64 only ("float16 is not supported")."""
    with pytest.raises(mx.MXNetError, match="dtype float16 is not supported"):
        mx.io.CSVIter(data_csv=files[0]["data_csv"], data_shape=(6,), batch_size=2,
                      dtype="float16")
