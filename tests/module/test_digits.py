"""The issue's acceptance run: Module.fit on scikit-learn's digits with Accuracy, Speedometer,
a FactorScheduler and do_checkpoint reaches 95% validation accuracy, and MXNet 1.9.1 loads
the checkpoint and predicts the same."""
import contextlib
import logging
import os
import subprocess

import numpy as np
import pytest

import minimx as mx

datasets = pytest.importorskip("sklearn.datasets")

MXNET_PREDICTS = """
import sys
import numpy as np
import mxnet as mx
prefix, epoch, data_file, out_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
data = np.load(data_file)
mod = mx.mod.Module.load(prefix, epoch)
mod.bind(data_shapes=[('data', (50, data.shape[1]))], for_training=False)
it = mx.io.NDArrayIter(data, batch_size=50)
np.save(out_file, mod.predict(it).asnumpy())
"""


def digits():
    """Features scaled to [0, 1]; a fixed shuffle, 1400 examples to train, 397 to validate."""
    loaded = datasets.load_digits()
    x = (loaded.data / 16.0).astype(np.float32)
    y = loaded.target.astype(np.float32)
    order = np.random.RandomState(0).permutation(len(x))
    x, y = x[order], y[order]
    return (x[:1400], y[:1400]), (x[1400:], y[1400:])


def network():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=64, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


@contextlib.contextmanager
def root_log_messages():
    """The INFO messages logged to the root logger inside the block (fit and callbacks)."""
    messages, root = [], logging.getLogger()
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield messages
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    (x_train, y_train), (x_val, y_val) = digits()
    prefix = str(tmp_path_factory.mktemp("digits") / "digits")
    train = mx.io.NDArrayIter(x_train, y_train, batch_size=50, shuffle=True)
    val = mx.io.NDArrayIter(x_val, y_val, batch_size=50)
    scheduler = mx.lr_scheduler.FactorScheduler(step=100, factor=0.7, base_lr=0.2)
    mod = mx.mod.Module(network())
    with root_log_messages() as messages:
        mod.fit(train, eval_data=val, eval_metric=mx.metric.Accuracy(), num_epoch=10,
                optimizer="sgd", optimizer_params={"momentum": 0.9, "lr_scheduler": scheduler},
                initializer=mx.init.Xavier(),
                batch_end_callback=mx.callback.Speedometer(50, frequent=10),
                epoch_end_callback=mx.callback.do_checkpoint(prefix), progress=False)
    return mod, prefix, x_val, y_val, messages


def test_fit_on_digits_reaches_95_percent(trained):
    mod, prefix, x_val, y_val, messages = trained
    val = mx.io.NDArrayIter(x_val, y_val, batch_size=50)
    accuracy = dict(mod.score(val, mx.metric.Accuracy()))["accuracy"]
    assert accuracy >= 0.95
    validation = [float(m.split("=")[1]) for m in messages if "Validation-accuracy" in m]
    assert len(validation) == 10 and validation[-1] == pytest.approx(accuracy)
    assert sum("Speed:" in m for m in messages) >= 10                  # Speedometer lines
    assert any(m.startswith("Update[") and "Change learning rate" in m for m in messages)
    for epoch in range(1, 11):
        assert os.path.exists("%s-%04d.params" % (prefix, epoch))


def test_checkpoint_predicts_the_same_in_minimx_and_mxnet(trained, mxnet_python, tmp_path):
    mod, prefix, x_val, y_val, _ = trained
    val = mx.io.NDArrayIter(x_val, y_val, batch_size=50)     # 397 examples: the last padded
    ours = mod.predict(val).asnumpy()
    assert ours.shape == (397, 10)
    reloaded = mx.mod.Module.load(prefix, 10, label_names=None)
    reloaded.bind(data_shapes=val.provide_data, for_training=False)
    np.testing.assert_allclose(reloaded.predict(val).asnumpy(), ours, rtol=1e-5, atol=1e-7)
    np.save(tmp_path / "x.npy", x_val)
    finished = subprocess.run([mxnet_python, "-c", MXNET_PREDICTS, prefix, "10",
                               str(tmp_path / "x.npy"), str(tmp_path / "out.npy")],
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-3000:]
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), ours, rtol=1e-4, atol=1e-6)
