"""Course-sized training programs, written once for both frameworks.

Each program is the text of a script with ``{lib}`` where the framework's name goes
(``minimx`` or ``mxnet``); it builds its data untimed, then times the program's work and
prints the seconds as its last line.  Synthetic data (a fixed seed) keeps both frameworks
on the same numbers without downloads.  The programs follow what the course's code does
(Dive into Deep Learning's MXNet edition): hybridized Gluon networks, ``autograd.record``,
``Trainer.step``, truncated BPTT with ``clip_global_norm``, ``Module.fit``, RecordIO.
"""
from _util import MLP_SYMBOL

PRELUDE = """
import os, sys, tempfile, time, warnings
import numpy as np
import {lib} as mx
from {lib} import autograd, gluon, init, nd
from {lib}.gluon import nn, rnn
warnings.simplefilter("ignore")
mx.random.seed(0)
rng = np.random.RandomState(0)


def train_steps(net, batches, loss_fn, trainer):
    total = 0.0
    for x, y in batches:
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])
        total += loss.mean().asscalar()           # the course prints the loss: a sync
    return total


def hybridized_classifier(net, learning_rate):
    # initialize (Xavier) and hybridize net; return its SGD Trainer and softmax loss
    net.initialize(init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {{"learning_rate": learning_rate}})
    return trainer, gluon.loss.SoftmaxCrossEntropyLoss()


def images(count, channels, size, classes=10):
    x = nd.array(rng.rand(count, channels, size, size).astype("float32"))
    y = nd.array(rng.randint(0, classes, count).astype("float32"))
    return x, y
"""

RESNET_BLOCKS = PRELUDE + """
class Residual(nn.HybridBlock):
    def __init__(self, channels, strides=1, **kwargs):
        super().__init__(**kwargs)
        self.conv1 = nn.Conv2D(channels, 3, padding=1, strides=strides)
        self.conv2 = nn.Conv2D(channels, 3, padding=1)
        self.conv3 = nn.Conv2D(channels, 1, strides=strides) if strides != 1 else None
        self.bn1, self.bn2 = nn.BatchNorm(), nn.BatchNorm()

    def hybrid_forward(self, F, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        if self.conv3 is not None:
            x = self.conv3(x)
        return F.relu(y + x)


x, y = images(64 * 12, 1, 28)
batches = [(x[i:i + 64], y[i:i + 64]) for i in range(0, 64 * 12, 64)]
nd.waitall()
start = time.perf_counter()
net = nn.HybridSequential()
net.add(nn.Conv2D(32, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
        Residual(32), Residual(64, strides=2), nn.GlobalAvgPool2D(), nn.Dense(10))
trainer, loss_fn = hybridized_classifier(net, 0.05)
train_steps(net, batches, loss_fn, trainer)
nd.waitall()
print(time.perf_counter() - start)
"""

CHAR_LSTM = PRELUDE + """
vocab, hidden, steps, batch = 60, 256, 35, 32
corpus = rng.randint(0, vocab, steps * batch * 30 + 1)       # a stream of character ids
data = nd.array(corpus[:-1].reshape(batch, -1))
label = nd.array(corpus[1:].reshape(batch, -1))
nd.waitall()


class RNNModel(gluon.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.rnn = rnn.LSTM(hidden)
        self.dense = nn.Dense(vocab)

    def forward(self, inputs, state):
        x = nd.one_hot(inputs.T, vocab)
        y, state = self.rnn(x, state)
        return self.dense(y.reshape((-1, y.shape[-1]))), state


start = time.perf_counter()
model = RNNModel()
model.initialize(init.Normal(0.01))
trainer = gluon.Trainer(model.collect_params(), "sgd", {{"learning_rate": 1.0, "wd": 0}})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
state = model.rnn.begin_state(batch_size=batch)
total = 0.0
for t in range(0, data.shape[1], steps):
    x, y = data[:, t:t + steps], label[:, t:t + steps]
    state = [s.detach() for s in state]                       # truncated BPTT
    with autograd.record():
        output, state = model(x, state)
        loss = loss_fn(output, y.T.reshape((-1,))).mean()
    loss.backward()
    grads = [p.grad() for p in model.collect_params().values()]
    gluon.utils.clip_global_norm(grads, 1.0)
    trainer.step(1)
    total += loss.asscalar()
print(time.perf_counter() - start)
"""

LENET_EXPORT = PRELUDE + """
x, y = images(64 * 16, 1, 28)
batches = [(x[i:i + 64], y[i:i + 64]) for i in range(0, 64 * 16, 64)]
test = nd.array(rng.rand(256, 1, 28, 28).astype("float32"))
folder = tempfile.mkdtemp()
nd.waitall()
start = time.perf_counter()
net = nn.HybridSequential()
net.add(nn.Conv2D(6, 5, activation="sigmoid"), nn.MaxPool2D(2, 2),
        nn.Conv2D(16, 5, activation="sigmoid"), nn.MaxPool2D(2, 2),
        nn.Dense(120, activation="sigmoid"), nn.Dense(84, activation="sigmoid"), nn.Dense(10))
trainer, loss_fn = hybridized_classifier(net, 0.9)
train_steps(net, batches, loss_fn, trainer)
prefix = os.path.join(folder, "lenet")
net.export(prefix)
loaded = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
for _ in range(20):
    predicted = loaded(test).argmax(axis=1).asnumpy()
print(time.perf_counter() - start)
"""

MODULE_FIT = PRELUDE + """
n = 128 * 20
features = rng.rand(n, 784).astype("float32")
classes = rng.randint(0, 10, n).astype("float32")
start = time.perf_counter()
train = mx.io.NDArrayIter(features, classes, batch_size=128, shuffle=True)
""" + MLP_SYMBOL + """module = mx.mod.Module(net)
module.fit(train, num_epoch=4, optimizer="sgd", optimizer_params={{"learning_rate": 0.05}},
           eval_metric="acc")
print(time.perf_counter() - start)
"""

RECORDIO_IMAGES = PRELUDE + """
from PIL import Image
import io as _io
from {lib} import recordio
from {lib}.gluon.data.vision import transforms
folder = tempfile.mkdtemp()
rec, idx = os.path.join(folder, "images.rec"), os.path.join(folder, "images.idx")
writer = recordio.MXIndexedRecordIO(idx, rec, "w")
for i in range(1024):                      # what im2rec writes: JPEG bytes behind a header
    pixels = (rng.rand(32, 32, 3) * 255).astype("uint8")
    buffer = _io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG", quality=90)
    writer.write_idx(i, recordio.pack(recordio.IRHeader(0, float(i % 10), i, 0),
                                      buffer.getvalue()))
writer.close()
start = time.perf_counter()
dataset = gluon.data.vision.ImageRecordDataset(rec)
augment = transforms.Compose([transforms.RandomFlipLeftRight(), transforms.ToTensor(),
                              transforms.Normalize(0.5, 0.25)])
loader = gluon.data.DataLoader(dataset.transform_first(augment), batch_size=64, shuffle=True)
net = nn.HybridSequential()
net.add(nn.Conv2D(16, 3, padding=1, activation="relu"), nn.MaxPool2D(2, 2),
        nn.Conv2D(32, 3, padding=1, activation="relu"), nn.MaxPool2D(2, 2), nn.Dense(10))
trainer, loss_fn = hybridized_classifier(net, 0.1)
train_steps(net, loader, loss_fn, trainer)
nd.waitall()
print(time.perf_counter() - start)
"""

RESNET18_96 = PRELUDE + """
from {lib}.gluon.model_zoo import vision
x, y = images(64 * 4, 1, 96)
batches = [(x[i:i + 64], y[i:i + 64]) for i in range(0, 64 * 4, 64)]
net = vision.resnet18_v1(classes=10)
trainer, loss_fn = hybridized_classifier(net, 0.05)
train_steps(net, batches[:1], loss_fn, trainer)             # first step: shapes, plans
nd.waitall()
start = time.perf_counter()
train_steps(net, batches[1:], loss_fn, trainer)
nd.waitall()
print((time.perf_counter() - start) / 3)
"""

PROGRAMS = {
    "ResNet blocks + BatchNorm (12 steps b64)": RESNET_BLOCKS,
    "char LSTM LM, BPTT + clip (30 steps)": CHAR_LSTM,
    "hybridized LeNet, export + import": LENET_EXPORT,
    "MLP Module.fit (4 epochs)": MODULE_FIT,
    "RecordIO images, DataLoader (1024)": RECORDIO_IMAGES,
    "ResNet-18 96x96 b64 (s per step)": RESNET18_96,
}
