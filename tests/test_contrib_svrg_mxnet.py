"""contrib.svrg_optimization and contrib.io beside MXNet 1.9.1 (skipped without it)."""
import numpy as np

from same_program import on_minimx, on_mxnet

SVRG_FIT = """
import json
import numpy as np
import importlib
# contrib/__init__ imports no svrg_optimization, in MXNet as here: import it by name
SVRGModule = importlib.import_module(mx.__name__ + ".contrib.svrg_optimization.svrg_module"
                                     ).SVRGModule
rng = np.random.RandomState(3)
x = rng.randint(1, 5, [60, 2]).astype("float32")
y = x.dot([1.0, 2.0])
data = mx.io.NDArrayIter(x, y, batch_size=20, shuffle=False, label_name="lin_reg_label")
net = mx.sym.LinearRegressionOutput(
    mx.sym.FullyConnected(mx.sym.Variable("data"), name="fc1", num_hidden=1),
    label=mx.sym.Variable("lin_reg_label"), name="lro")
mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
weights = []
def record(param):
    weights.append(mod.get_params()[0]["fc1_weight"].asnumpy().ravel().tolist())
metric = mx.metric.create("mse")
mod.fit(data, eval_metric=metric, optimizer="sgd", optimizer_params=(("learning_rate", 0.025),),
        num_epoch=5, initializer=mx.init.One(), batch_end_callback=record)
full = mod._param_dict[0]["fc1_weight"].asnumpy().ravel().tolist()
print(json.dumps({"weights": weights, "mse": [metric.get()[1]], "full": full,
                  "optimizer": [type(mod._optimizer).__name__]}))
"""

DATA_LOADER_ITER = """
import json
import numpy as np
DataLoaderIter = mx.contrib.io.DataLoaderIter
dataset = mx.gluon.data.ArrayDataset(mx.nd.arange(70).reshape((35, 2)), mx.nd.arange(35))
loader = mx.gluon.data.DataLoader(dataset, batch_size=10, last_batch="keep")
it = DataLoaderIter(loader, data_name="x", label_name="y")
batches = [(b.data[0].asnumpy()[:b.data[0].shape[0] - b.pad].tolist(),
            b.label[0].asnumpy()[:b.label[0].shape[0] - b.pad].tolist(), b.pad,
            b.data[0].shape[0]) for b in it]
it.reset()
print(json.dumps({"batches": batches, "again": [len(list(it))],
                  "provide": [[d.name, list(d.shape)]
                              for d in it.provide_data + it.provide_label]}))
"""


def _same(theirs, ours):
    assert theirs.keys() == ours.keys()
    for key in theirs:
        if key in ("optimizer", "provide", "batches"):
            assert ours[key] == theirs[key], key
        else:
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6,
                                       err_msg=key)


def test_svrg_fit_same_as_mxnet(mxnet_python):
    """Every batch's weights, the last epoch's MSE and the full gradient (which, as in
    MXNet, adds each snapshot's sums onto the previous mean) agree."""
    _same(on_mxnet(mxnet_python, SVRG_FIT), on_minimx(SVRG_FIT))


def test_data_loader_iter_same_as_mxnet(mxnet_python):
    _same(on_mxnet(mxnet_python, DATA_LOADER_ITER), on_minimx(DATA_LOADER_ITER))
