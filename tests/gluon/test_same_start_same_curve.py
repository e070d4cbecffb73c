"""From the same initial parameters on the same batches, a BatchNorm LeNet trains along the same
loss curve on minimx and on MXNet 1.9.1 (the d2l issue's batch-norm question: its different
test accuracies between runs come from the random start, not from the framework).

One runner, run by both interpreters: MXNet initializes and saves the parameters, each
framework loads them and trains three epochs of plain SGD, printing loss and test accuracy
per epoch.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.mxnet

RUNNER = r'''
import json, sys
import numpy as np
lib, mode, folder = sys.argv[1], sys.argv[2], sys.argv[3]
mx = __import__(lib)
gluon = __import__(lib + ".gluon", fromlist=["nn"])
nn = gluon.nn
net = nn.Sequential()
net.add(nn.Conv2D(6, kernel_size=5), nn.BatchNorm(), nn.Activation("sigmoid"),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Conv2D(16, kernel_size=5), nn.BatchNorm(), nn.Activation("sigmoid"),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Dense(60), nn.BatchNorm(), nn.Activation("sigmoid"), nn.Dense(10))
data = np.load(folder + "/data.npz")
x, y, test_x, test_y = data["x"], data["y"], data["tx"], data["ty"]
if mode == "save":
    net.initialize(mx.init.Xavier())
    net(mx.nd.array(x[:2]))
    net.save_parameters(folder + "/start.params")
    sys.exit()
net.load_parameters(folder + "/start.params")
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
loss = gluon.loss.SoftmaxCrossEntropyLoss()
curve = []
for epoch in range(3):
    total = 0.0
    for i in range(0, len(x), 64):
        batch, labels = mx.nd.array(x[i:i + 64]), mx.nd.array(y[i:i + 64])
        with mx.autograd.record():
            value = loss(net(batch), labels)
        value.backward()
        trainer.step(batch.shape[0])
        total += float(value.sum().asscalar())
    predicted = net(mx.nd.array(test_x)).argmax(axis=1).asnumpy()
    curve.append([total / len(x), float((predicted == test_y).mean())])
print(json.dumps(curve))
'''


def _run(python, lib, mode, folder, env=None):
    finished = subprocess.run([python, "-c", RUNNER, lib, mode, str(folder)], env=env,
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-2000:]
    return finished.stdout.strip().splitlines()[-1] if mode == "train" else None


def test_a_batchnorm_lenet_follows_mxnets_curve_from_the_same_start(mxnet_python, tmp_path):
    rng = np.random.RandomState(0)
    # two classes of blurred blobs on 28 x 28: learnable in a few epochs, not trivially
    centers = rng.uniform(8, 20, (2, 2))
    y = rng.randint(0, 2, 512)
    grid = np.mgrid[0:28, 0:28]
    x = np.stack([np.exp(-((grid[0] - centers[c][0]) ** 2 + (grid[1] - centers[c][1]) ** 2)
                         / 30.0) + rng.normal(0, 0.3, (28, 28)) for c in y])
    np.savez(tmp_path / "data.npz", x=x[:384, None].astype("float32"),
             y=y[:384].astype("float32"), tx=x[384:, None].astype("float32"), ty=y[384:])
    _run(mxnet_python, "mxnet", "save", tmp_path)
    theirs = json.loads(_run(mxnet_python, "mxnet", "train", tmp_path))
    ours = json.loads(_run(sys.executable, "minimx", "train", tmp_path))
    for (our_loss, our_acc), (their_loss, their_acc) in zip(ours, theirs):
        assert our_loss == pytest.approx(their_loss, rel=1e-3, abs=1e-4)
        assert abs(our_acc - their_acc) <= 2 / 128          # at most two test images apart
