"""tools/d2l_standins_nlp.py: the stand-ins for the data of Dive into Deep Learning's NLP
chapters have the layouts the book's ``d2l`` helpers read, and a page-like program (the
sentiment chapter's: IMDb reviews, GloVe vectors, a Gluon classifier) runs on them through
``python -m minimx.compat`` -- with MXNet 1.9.1's figures where it is here."""
import json
import pathlib
import subprocess
import sys
import tarfile
import zipfile

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import d2l_standins_nlp  # noqa: E402


@pytest.fixture(scope="module")
def standins(tmp_path_factory):
    folder = tmp_path_factory.mktemp("standins")
    d2l_standins_nlp.main([str(folder), "--seed", "3"])
    return folder


def names_in_zip(path):
    with zipfile.ZipFile(path) as archive:
        return set(archive.namelist())


def test_archives_hold_what_the_book_reads(standins):
    assert {"ptb/ptb.train.txt", "ptb/ptb.valid.txt", "ptb/ptb.test.txt"} <= \
        names_in_zip(standins / "ptb.zip")
    assert "wikitext-2/wiki.train.tokens" in names_in_zip(standins / "wikitext-2-v1.zip")
    assert "snli_1.0/snli_1.0_test.txt" in names_in_zip(standins / "snli_1.0.zip")
    for name in ("glove.6B.50d", "glove.6B.100d", "wiki.en", "bert.small"):
        assert any(n.startswith(name + "/") for n in names_in_zip(standins / f"{name}.zip"))
    with tarfile.open(standins / "aclImdb_v1.tar.gz") as archive:
        reviews = [m.name for m in archive.getmembers()]
    for split in ("train", "test"):
        for label in ("pos", "neg"):
            assert sum(n.startswith(f"aclImdb/{split}/{label}/") for n in reviews) == 250


def test_text_formats(standins):
    with zipfile.ZipFile(standins / "snli_1.0.zip") as archive:
        rows = archive.read("snli_1.0/snli_1.0_train.txt").decode().splitlines()
    assert rows[0].split("\t")[:3] == ["gold_label", "sentence1_binary_parse",
                                       "sentence2_binary_parse"]
    assert all(len(row.split("\t")) == 14 for row in rows)
    assert {row.split("\t")[0] for row in rows[1:]} == {"entailment", "contradiction",
                                                         "neutral", "-"}
    with zipfile.ZipFile(standins / "wikitext-2-v1.zip") as archive:
        lines = archive.read("wikitext-2/wiki.train.tokens").decode().splitlines()
    assert sum(len(line.split(" . ")) >= 2 for line in lines) == 600   # d2l's paragraphs
    with zipfile.ZipFile(standins / "glove.6B.50d.zip") as archive:
        first = archive.read("glove.6B.50d/vec.txt").decode().splitlines()
    assert len(first) >= 3368 and all(len(line.split(" ")) == 51 for line in first)
    vectors = {line.split(" ")[0]: np.array(line.split(" ")[1:], float) for line in first}
    guess = vectors["woman"] - vectors["man"] + vectors["son"]
    nearest = max((w for w in vectors if w not in ("woman", "man", "son")),
                  key=lambda w: guess @ vectors[w] / np.linalg.norm(vectors[w]))
    assert nearest == "daughter"


def test_bert_small_has_the_books_parameter_shapes(standins, tmp_path):
    import minimx as mx
    with zipfile.ZipFile(standins / "bert.small.zip") as archive:
        archive.extractall(tmp_path)
    tokens = json.loads((tmp_path / "bert.small" / "vocab.json").read_text())
    assert tokens[:5] == ["<unk>", "<pad>", "<mask>", "<cls>", "<sep>"]
    loaded = mx.nd.load(str(tmp_path / "bert.small" / "pretrained.params"))
    assert {k: v.shape for k, v in loaded.items()} == d2l_standins_nlp.bert_shapes(len(tokens))
    assert loaded["encoder.blks.1.addnorm2.ln.gamma"].asnumpy().tolist() == [1.0] * 256


# The sentiment chapter in small: read the reviews as d2l.read_imdb does, average each
# review's GloVe vectors, and train a Dense classifier (from zero weights: the same start on
# both sides) with Gluon in NumPy mode.
SENTIMENT = r"""
import json, os, sys, tarfile, zipfile
from mxnet import autograd, gluon, init, np, npx
npx.set_np()
folder, work = sys.argv[1], sys.argv[2]
tarfile.open(os.path.join(folder, "aclImdb_v1.tar.gz")).extractall(work)
zipfile.ZipFile(os.path.join(folder, "glove.6B.100d.zip")).extractall(work)
def read_imdb(split):
    texts, labels = [], []
    for label in ("pos", "neg"):
        path = os.path.join(work, "aclImdb", split, label)
        for name in sorted(os.listdir(path)):
            with open(os.path.join(path, name), "rb") as f:
                texts.append(f.read().decode("utf-8").lower().replace(".", " "))
            labels.append(1 if label == "pos" else 0)
    return texts, labels
vectors = {}
with open(os.path.join(work, "glove.6B.100d", "vec.txt")) as f:
    for line in f:
        word, *values = line.rstrip().split(" ")
        vectors[word] = [float(v) for v in values]
def features(texts):
    rows = []
    for text in texts:
        known = [vectors[w] for w in text.split() if w in vectors]
        rows.append(np.array(known).mean(axis=0))
    return np.stack(rows)
(train_x, train_y), (test_x, test_y) = [read_imdb(s) for s in ("train", "test")]
train = gluon.data.ArrayDataset(features(train_x), np.array(train_y))
test_X, test_Y = features(test_x), np.array(test_y)
net = gluon.nn.Dense(2)
net.initialize(init.Zero())
loss = gluon.loss.SoftmaxCrossEntropyLoss()
trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
figures = []
for epoch in range(3):
    total = 0.0
    for X, y in gluon.data.DataLoader(train, batch_size=50):
        with autograd.record():
            l = loss(net(X), y)
        l.backward()
        trainer.step(X.shape[0])
        total += float(l.sum())
    accuracy = float((net(test_X).argmax(axis=1).astype(test_Y.dtype) == test_Y).mean())
    figures.append([total / len(train), accuracy])
print(json.dumps(figures))
"""


def run_sentiment(command, standins, tmp_path, side):
    script = tmp_path / "sentiment.py"
    script.write_text(SENTIMENT)
    work = tmp_path / side
    work.mkdir()
    done = subprocess.run(command + [str(script), str(standins), str(work)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_sentiment_program_learns_on_the_standins(standins, tmp_path):
    figures = run_sentiment([sys.executable, "-m", "minimx.compat"], standins, tmp_path,
                            "minimx")
    print(figures)
    assert figures[-1][0] < figures[0][0]
    assert figures[-1][1] > 0.9         # the reviews lean on their label's words


def test_the_sentiment_program_gives_mxnets_figures(standins, tmp_path, mxnet_python):
    ours = run_sentiment([sys.executable, "-m", "minimx.compat"], standins, tmp_path, "minimx")
    theirs = run_sentiment([mxnet_python], standins, tmp_path, "mxnet")
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
