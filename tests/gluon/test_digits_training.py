"""Training on scikit-learn's digits (issue 4): an MLP and a small CNN, imperative and
hybridized, each reach at least 95% accuracy on a held-out split.

The loop is the seed's: ``autograd.record``, ``L.backward()``, ``trainer.step``.
"""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, gluon
from minimx.gluon import nn

datasets = pytest.importorskip("sklearn.datasets")

EPOCHS = 12
BATCH = 32


@pytest.fixture(scope="module")
def digits():
    """(train_x, train_y, test_x, test_y): 1437 / 360 images scaled to [0, 1], shape (N, 64)."""
    data = datasets.load_digits()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.float32)
    order = np.random.RandomState(0).permutation(len(x))
    x, y = x[order], y[order]
    return x[360:], y[360:], x[:360], y[:360]


def _mlp():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(64, activation="relu"), nn.Dense(10))
    return net


def _cnn():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(16, kernel_size=3, padding=1, activation="relu"),
                nn.MaxPool2D(pool_size=2),
                nn.Flatten(),
                nn.Dense(10))
    return net


def _train_and_score(net, digits, image, hybridize):
    train_x, train_y, test_x, test_y = digits
    shape = (-1, 1, 8, 8) if image else (-1, 64)
    mx.random.seed(1)
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(2)
    first_loss = last_loss = None
    for _ in range(EPOCHS):
        order = rng.permutation(len(train_x))
        total = 0.0
        for start in range(0, len(order), BATCH):
            pick = order[start:start + BATCH]
            data = mx.nd.array(train_x[pick].reshape(shape))
            label = mx.nd.array(train_y[pick])
            with autograd.record():
                L = loss_fn(net(data), label)
            L.backward()
            trainer.step(len(pick))
            total += float(L.sum().asscalar())
        first_loss = total if first_loss is None else first_loss
        last_loss = total
    predicted = net(mx.nd.array(test_x.reshape(shape))).argmax(axis=1).asnumpy()
    return float((predicted == test_y).mean()), first_loss, last_loss


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_digits_reach_95_percent(digits, kind, hybridize):
    net = _mlp() if kind == "mlp" else _cnn()
    accuracy, first_loss, last_loss = _train_and_score(net, digits, kind == "cnn", hybridize)
    assert last_loss < first_loss / 3
    assert accuracy >= 0.95, f"{kind} ({'hybridized' if hybridize else 'imperative'}): " \
                             f"test accuracy {accuracy:.3f}"
