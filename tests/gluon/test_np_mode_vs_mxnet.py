"""Gluon after ``npx.set_np()`` against MXNet 1.9.1: what the blocks, parameters, data
pipeline, image helpers, initializers and optimizers hand out, and their values.

Each check is a small program run on MXNet (one subprocess for all of them) and on minimx
(in this process, through ``tests/same_program.py``); it leaves a JSON-able ``out``.  NumPy
mode is thread-local, so each program switches it on and off again around its body.
"""
import json
import textwrap

import pytest

from same_program import on_minimx, on_mxnet

pytestmark = pytest.mark.mxnet

CHECKS = {
    # an optimizer made in NumPy mode takes np arrays; one made outside refuses them
    "optimizer_allow_np_array": """
        classic = mx.optimizer.SGD(learning_rate=0.5)
        mx.npx.set_np()
        made_np = mx.optimizer.SGD(learning_rate=0.5)
        w, g = mx.np.ones((2,)), mx.np.ones((2,))
        mx.optimizer.Updater(made_np)(0, g, w)
        try:
            mx.optimizer.Updater(classic)(0, g, w)
            refused = None
        except ValueError:
            refused = "ValueError"
        out = [classic.allow_np_array, made_np.allow_np_array, w.tolist(), refused]
    """,
    "trainer_step": """
        mx.npx.set_np()
        net = mx.gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.5))
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        x = mx.np.arange(6).reshape(2, 3)
        with mx.autograd.record():
            loss = mx.gluon.loss.L2Loss()(net(x), mx.np.ones((2, 2)))
        loss.backward()
        trainer.step(2)
        out = [type(net(x)).__name__, type(net.weight.data()).__name__,
               type(net.weight.grad()).__name__, type(loss).__name__,
               net.weight.data().tolist()]
    """,
    # a hybridized F.np.hsplit (a Symbol's ndim is unknown while the graph is built)
    "hybridized_hsplit": """
        mx.npx.set_np()
        class Halves(mx.gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.np.concatenate(F.np.hsplit(x, 3)[1:], axis=1)
        block = Halves()
        block.hybridize()
        y = block(mx.np.arange(12).reshape(2, 6))
        out = [type(y).__name__, y.tolist()]
    """,
    "dataloader_batches": """
        import numpy
        mx.npx.set_np()
        dataset = mx.gluon.data.ArrayDataset(mx.np.arange(10).reshape(5, 2), mx.np.arange(5))
        host = mx.gluon.data.ArrayDataset(numpy.arange(10).reshape(5, 2).astype("float32"),
                                          numpy.arange(5))
        out = []
        for data in (dataset, host):
            for x, y in mx.gluon.data.DataLoader(data, batch_size=2):
                out.append([type(x).__name__, type(y).__name__, str(x.dtype), str(y.dtype),
                            x.tolist(), y.tolist()])
        batch = mx.gluon.data.DataLoader(dataset, batch_size=5, num_workers=1,
                                         thread_pool=True)
        out.append([type(a).__name__ for a in next(iter(batch))])
        out.append(type(mx.gluon.data.dataloader.default_batchify_fn([1, 2])).__name__)
    """,
    "transforms": """
        T = mx.gluon.data.vision.transforms
        mx.npx.set_np()
        image = mx.np.arange(8 * 8 * 3).reshape(8, 8, 3).astype("uint8")
        pipeline = T.Compose([T.Resize(4), T.ToTensor(), T.Normalize(0.5, 0.25)])
        y = pipeline(image)
        out = [type(y).__name__, list(y.shape), str(y.dtype),
               [round(v, 4) for v in y.reshape(-1)[:6].tolist()],
               type(T.RandomBrightness(0.1)(image)).__name__]
    """,
    "imread_imdecode": """
        import os, struct, tempfile, zlib
        mx.npx.set_np()
        pixels = bytes(range(4 * 5 * 3))
        raw = b"".join(b"\\x00" + pixels[row * 15:(row + 1) * 15] for row in range(4))
        def chunk(kind, data):              # a PNG chunk: length, kind, data, CRC
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
        png = (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 5, 4, 8, 2, 0, 0, 0))
               + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
        path = os.path.join(tempfile.mkdtemp(), "a.png")
        with open(path, "wb") as handle:
            handle.write(png)
        read = mx.image.imread(path)
        out = [type(read).__name__, list(read.shape), str(read.dtype), read.asnumpy().tolist(),
               type(mx.image.imresize(read, 3, 2)).__name__,
               type(mx.image.imdecode(png)).__name__]
    """,
    "initializer_sees_np": """
        mx.npx.set_np()
        seen = []
        class Keep(mx.init.Initializer):
            def _init_weight(self, name, data):
                seen.append(type(data).__name__)
                data[:] = mx.np.arange(data.size).reshape(data.shape) - 3
                data *= mx.np.abs(data) >= 2
        net = mx.gluon.nn.Dense(2)
        net.initialize(Keep())
        net(mx.np.ones((1, 3)))
        out = [seen, net.weight.data().tolist()]
    """,
    "reductions_of_masks": """
        mx.npx.set_np()
        mask = mx.np.array([1.0, 0.0, 2.0]) > 0.5
        out = [[str(r.dtype), r.tolist()] for r in (mask.sum(), mx.np.sum(mask), mask.prod(),
                                                    mx.np.cumsum(mask), mask.mean())]
    """,
    # an unknown dimension prints as -1 under NumPy's shape semantics (0 is a real size)
    "deferred_shapes_shown": """
        mx.npx.set_np()
        dense = mx.gluon.nn.Dense(4, prefix="d_")
        conv = mx.gluon.nn.Conv2D(3, 2, prefix="c_")
        out = [repr(dense), repr(dense.weight), repr(conv), repr(conv.weight)]
    """,
    "inplace_operators": """
        mx.npx.set_np()
        x = mx.np.array([1.0, 6.0, -7.0])
        same = x
        x *= mx.np.abs(x) >= 5
        x += 1
        x -= mx.np.ones(3)
        x /= 2
        try:
            i = mx.np.array([1, 2], dtype="int32")
            i += mx.np.array([0.5, 0.5])
            refused = None
        except Exception as error:
            refused = isinstance(error, mx.base.MXNetError)
        out = [x is same, x.tolist(), str(x.dtype), refused]
    """,
    # weights saved outside NumPy mode (a V2 file: the book's pretrained BERT) load into a
    # network built after npx.set_np(), as np arrays
    "load_parameters_saved_outside_np": """
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "dense.params")
        def build():                 # structural names ("0.weight"), as d2l's BERTModel has
            net = mx.gluon.nn.Sequential()
            net.add(mx.gluon.nn.Dense(2, in_units=3))
            return net
        legacy = build()
        legacy.initialize(mx.init.Constant(0.25))
        legacy[0].bias.set_data(mx.nd.array([1.0, -1.0]))
        legacy.save_parameters(path)
        mx.npx.set_np()
        net = build()
        net.load_parameters(path, ctx=mx.context.current_context())   # (cpu() by default)
        y = net(mx.np.arange(6).reshape(2, 3))
        out = [isinstance(net[0].weight.data(), mx.np.ndarray), y.tolist()]
    """,
    # issue 27 (d2l's decomposable attention): one Sequential of two Dropout(0.2) called on
    # A and on B of one 3-D shape per step.  Each call draws fresh masks: the two layers'
    # (kept together 0.8 ** 2), A's and B's (both kept 0.64 ** 2), this step's and the
    # next's; the gradient is the forward's mask; outside record() it is the identity.
    # Fractions over 320 000 elements: their rounding is 5 standard errors away.
    "dropout_twice_per_step": """
        mx.npx.set_np()
        net = mx.gluon.nn.Sequential()
        net.add(mx.gluon.nn.Dropout(0.2), mx.gluon.nn.Dropout(0.2))
        def step():
            A, B = mx.np.ones((64, 50, 100)), mx.np.ones((64, 50, 100))
            A.attach_grad()
            with mx.autograd.record():
                f_A, f_B = net(A), net(B)
            f_A.backward()
            same_grad = bool((A.grad == f_A).all())
            return (f_A != 0).asnumpy(), (f_B != 0).asnumpy(), same_grad, f_A.max().item()
        a1, b1, grad1, top = step()
        a2, _, grad2, _ = step()
        x = mx.np.ones((4, 5, 6))
        out = [round(float(a1.mean()), 2), round(float(b1.mean()), 2),
               round(float((a1 & b1).mean()), 2), round(float((a1 & a2).mean()), 2),
               grad1, grad2, round(top, 4), bool((net(x) == x).all()), type(net(x)).__name__]
    """,
}

ON_MXNET = """
import json
results = {}
for name, body in json.loads(INPUT).items():
    scope = {"mx": mx}
    try:
        exec(body, scope)
        results[name] = scope["out"]
    finally:
        mx.npx.reset_np()
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python):
    programs = {name: textwrap.dedent(body) for name, body in CHECKS.items()}
    return on_mxnet(mxnet_python, ON_MXNET, json.dumps(programs))


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_np_mode_as_mxnet(name, mxnet_results):
    program = textwrap.dedent(CHECKS[name])
    try:
        got = on_minimx(program + "\nprint(__import__('json').dumps(out))\n")
    finally:
        import minimx
        minimx.npx.reset_np()
    assert got == mxnet_results[name]


# From one start, on the same batches, the book's two ways of training (a from-scratch model
# on np arrays with in-place SGD, and Gluon layers with a Trainer) follow MXNet's loss curve.
SAME_START = """
import json
import numpy
mx.npx.set_np()
np, npx, autograd, gluon = mx.np, mx.npx, mx.autograd, mx.gluon
rows = numpy.arange(64 * 12, dtype="float32").reshape(64, 12)
X = np.array(numpy.sin(rows * 0.37))
y = np.array((numpy.arange(64) * 7) % 5, dtype="int32")
W1 = np.array(numpy.cos(numpy.arange(12 * 16, dtype="float32").reshape(12, 16)) * 0.3)
W2 = np.array(numpy.sin(numpy.arange(16 * 5, dtype="float32").reshape(16, 5)) * 0.3)
b1, b2 = np.zeros(16), np.zeros(5)
start = [W1.copy(), W2.copy()]
params = [W1, b1, W2, b2]
for param in params:
    param.attach_grad()
def net(X):
    H = npx.relu(np.dot(X, W1) + b1)
    return np.dot(H, W2) + b2
def cross_entropy(y_hat, y):
    return -np.log(npx.softmax(y_hat)[np.arange(y_hat.shape[0]), y])
scratch = []
for step in range(8):
    batch = slice(step % 4 * 16, step % 4 * 16 + 16)
    with autograd.record():
        loss = cross_entropy(net(X[batch]), y[batch]).mean()
    loss.backward()
    for param in params:
        param -= 0.5 * param.grad
    scratch.append(float(loss))
dense = gluon.nn.Sequential()
dense.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dense(5))
dense.initialize()
dense(X[:1])
dense[0].weight.set_data(start[0].T)
dense[1].weight.set_data(start[1].T)
trainer = gluon.Trainer(dense.collect_params(), "sgd", {"learning_rate": 0.5})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
concise = []
for step in range(8):
    batch = slice(step % 4 * 16, step % 4 * 16 + 16)
    with autograd.record():
        loss = loss_fn(dense(X[batch]), y[batch])
    loss.backward()
    trainer.step(16)
    concise.append(float(loss.mean()))
print(json.dumps([scratch, concise]))
"""


def test_np_training_from_one_start_follows_mxnet(mxnet_python):
    import numpy
    expected = on_mxnet(mxnet_python, SAME_START + "\nmx.npx.reset_np()\n")
    try:
        got = on_minimx(SAME_START)
    finally:
        import minimx
        minimx.npx.reset_np()
    numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert got[0][-1] < got[0][0] and got[1][-1] < got[1][0]
