"""MXNet 1.9.1's example/sparse programs, unchanged, on MXNet and on minimx.

The factorization machine (csr data, row_sparse weights pulled per batch with
``Module.prepare(sparse_row_id_fn=...)``, Adam's lazy update in the KVStore) and the sparse
linear classifier (``sym.sparse.dot``, a Custom loss, lazy SGD/Adam/AdaGrad without a
KVStore and with one) read a small LibSVM set written here (``libsvm_data.py``), the
matrix factorization a small MovieLens-format file; all start from the same weights
(``example_driver.py``), and every metric figure they log must agree.
The programs are read from MXNet's source (``MINIMX_MXNET_REPO``, a git clone at 1.9.1).
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from libsvm_data import write_libsvm

pytestmark = [pytest.mark.mxnet, pytest.mark.programs]   # whole programs on both sides

REPO = os.environ.get("MINIMX_MXNET_REPO", "/work/.mirror/apache+mxnet/repo")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIGURES = re.compile(r"(Batch \[[-0-9]+\]|epoch \d+).*?((?:[-\w]+ ?= ?[-0-9.e]+\s*)+)")


def _example(folder, names, into):
    for name in names:
        shown = subprocess.run(["git", "-C", REPO, "show", f"1.9.1:example/sparse/{folder}/"
                                f"{name}"], capture_output=True, text=True)
        if shown.returncode != 0:
            pytest.skip(f"MXNet's example/sparse/{folder} is not at {REPO} (set "
                        f"MINIMX_MXNET_REPO): {shown.stderr.strip()[:200]}")
        (into / name).write_text(shown.stdout)


def _figures(python, args, folder, minimx):
    driver = os.path.join(HERE, "example_driver.py")
    command = [python] + (["-m", "minimx.compat"] if minimx else []) + [driver] + args
    env = dict(os.environ, PYTHONPATH=ROOT if minimx else "")
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = [(where, [(name.strip(), float(value)) for name, value in
                      re.findall(r"([-\w]+) ?= ?([-0-9.e]+)", values)])
             for where, values in FIGURES.findall(done.stderr)]
    assert found, done.stderr[-3000:]
    return found


def _same_figures(mine, theirs):
    assert [where for where, _ in mine] == [where for where, _ in theirs]
    for (where, values), (_, expected) in zip(mine, theirs):
        assert [n for n, _ in values] == [n for n, _ in expected], where
        assert [v for _, v in values] == pytest.approx([v for _, v in expected], rel=1e-5,
                                                       abs=1e-6), where


def test_factorization_machine(mxnet_python, tmp_path):
    _example("factorization_machine", ["metric.py", "model.py", "train.py"], tmp_path)
    write_libsvm(tmp_path / "train.libsvm", 200, 50, seed=1)
    write_libsvm(tmp_path / "test.libsvm", 100, 50, seed=2)
    args = ["train.py", "--data-train", "train.libsvm", "--data-test", "test.libsvm",
            "--input-size", "50", "--batch-size", "20", "--log-interval", "5",
            "--num-epoch", "3"]
    theirs = _figures(mxnet_python, args, tmp_path, minimx=False)
    mine = _figures(sys.executable, args, tmp_path, minimx=True)
    assert len(mine) == 9           # 2 logged intervals and the evaluation, per epoch
    _same_figures(mine, theirs)


@pytest.mark.parametrize("options", [["--optimizer", "sgd"],
                                     ["--optimizer", "adam", "--kvstore", "local"],
                                     ["--optimizer", "adagrad"]])
def test_sparse_linear_classification(mxnet_python, tmp_path, options):
    _example("linear_classification", ["data.py", "linear_model.py", "train.py",
                                       "weighted_softmax_ce.py"], tmp_path)
    (tmp_path / "data").mkdir()
    # the program's feature count is fixed: 1000001 (Avazu's)
    write_libsvm(tmp_path / "data" / "avazu-app", 300, 1000001, seed=3)
    write_libsvm(tmp_path / "data" / "avazu-app.t", 100, 1000001, seed=4)
    args = ["train.py", "--batch-size", "50", "--num-epoch", "2"] + options
    theirs = _figures(mxnet_python, args, tmp_path, minimx=False)
    mine = _figures(sys.executable, args, tmp_path, minimx=True)
    assert [where for where, _ in mine] == ["epoch 0", "epoch 1"]
    _same_figures(mine, theirs)


def _write_ratings(path, rows, seed):
    """MovieLens' ``user::item::rating::time`` lines: 300 users, 400 items."""
    rng = np.random.RandomState(seed)
    with open(path, "w") as file:
        for _ in range(rows):
            user, item = rng.randint(1, 300), rng.randint(1, 400)
            file.write(f"{user}::{item}::{(user * 7 + item * 3) % 5 + 1}::0\n")


def test_matrix_factorization(mxnet_python, tmp_path):
    """Two row_sparse Embedding weights (sparse_grad=True) pulled per batch, momentum SGD
    in a 'device' KVStore, a shuffled NDArrayIter behind a PrefetchingIter."""
    _example("matrix_factorization", ["data.py", "model.py", "train.py"], tmp_path)
    (tmp_path / "data" / "ml-10M100K").mkdir(parents=True)
    _write_ratings(tmp_path / "data" / "ml-10M100K" / "r1.train", 600, seed=5)
    _write_ratings(tmp_path / "data" / "ml-10M100K" / "r1.test", 200, seed=6)
    args = ["train.py", "--num-epoch", "2", "--batch-size", "50", "--log-interval", "4",
            "--factor-size", "8"]
    theirs = _figures(mxnet_python, args, tmp_path, minimx=False)
    mine = _figures(sys.executable, args, tmp_path, minimx=True)
    assert len(mine) == 8           # 3 logged intervals and the evaluation, per epoch
    _same_figures(mine, theirs)
