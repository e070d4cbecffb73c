"""gluon.model_zoo.vision: MXNet's networks with MXNet's parameter names, and pretrained
files read from disk (never downloaded)."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minimx as mx
from minimx.gluon.model_zoo import model_store, vision

MODELS = ["alexnet", "resnet18_v1", "resnet50_v1", "resnet18_v2", "resnet50_v2", "vgg11",
          "vgg11_bn", "densenet121", "squeezenet1.0", "squeezenet1.1", "inceptionv3",
          "mobilenet1.0", "mobilenetv2_1.0"]

DUMP = """
import sys, json
mx = __import__(sys.argv[1])
from importlib import import_module
vision = import_module(sys.argv[1] + ".gluon.model_zoo.vision")
out = {}
for name in json.loads(sys.argv[2]):
    net = vision.get_model(name, classes=7)
    net.initialize()
    size = 299 if name == "inceptionv3" else 224
    y = net(mx.nd.zeros((1, 3, size, size)))
    out[name] = {"params": [[k[len(net.prefix):], list(v.shape)]
                            for k, v in net.collect_params().items()],
                 "output": list(y.shape)}
print(json.dumps(out))
"""


def dump(python, library, names):
    done = subprocess.run([python, "-c", DUMP, library, json.dumps(names)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.programs
@pytest.mark.slow
@pytest.mark.mxnet
def test_parameter_names_and_shapes_are_mxnets(mxnet_python):
    mine, theirs = dump(sys.executable, "minimx", MODELS), dump(mxnet_python, "mxnet", MODELS)
    for name in MODELS:
        assert mine[name] == theirs[name], name


@pytest.mark.programs
@pytest.mark.mxnet
def test_resnet_parameter_names_are_mxnets(mxnet_python):
    names = ["resnet18_v2", "resnet18_v1"]
    assert dump(sys.executable, "minimx", names) == dump(mxnet_python, "mxnet", names)


MXNET_SAVE = """
import sys
import numpy as np
import mxnet as mx
from mxnet.gluon.model_zoo import vision
mx.random.seed(3)
net = vision.resnet18_v2(classes=10)
net.initialize(mx.init.Xavier())
x = mx.nd.array(np.random.RandomState(0).uniform(size=(2, 3, 64, 64)))
np.save(sys.argv[1] + "/expected.npy", net(x).asnumpy())
np.save(sys.argv[1] + "/x.npy", x.asnumpy())
net.save_parameters(sys.argv[1] + "/new/resnet18_v2-0123abcd.params")
net.collect_params().save(sys.argv[1] + "/old/resnet18_v2-89abcdef.params",
                          strip_prefix=net.prefix)     # the model store's layout
"""


@pytest.mark.mxnet
@pytest.mark.parametrize("layout", ["new", "old"])
def test_an_mxnet_parameter_file_loads_as_pretrained(tmp_path, mxnet_python, layout):
    (tmp_path / "new").mkdir()
    (tmp_path / "old").mkdir()
    done = subprocess.run([mxnet_python, "-c", textwrap.dedent(MXNET_SAVE), str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    net = vision.get_model("resnet18_v2", classes=10, pretrained=True,
                           root=str(tmp_path / layout), ctx=mx.current_context())
    out = net(mx.nd.array(np.load(tmp_path / "x.npy"))).asnumpy()
    np.testing.assert_allclose(out, np.load(tmp_path / "expected.npy"), rtol=1e-4, atol=1e-5)


def test_a_missing_pretrained_file_names_what_to_put_where(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        vision.resnet18_v2(pretrained=True, root=str(tmp_path))
    assert "resnet18_v2-<hash>.params" in str(error.value) and str(tmp_path) in str(error.value)


def test_get_model_names_and_unknown_ones():
    assert isinstance(vision.get_model("squeezenet1.1", classes=3), vision.SqueezeNet)
    with pytest.raises(ValueError, match="Model resnet7 is not supported"):
        vision.get_model("resnet7")


def test_a_zoo_model_trains_a_step_hybridized():
    net = vision.resnet18_v1(classes=4, thumbnail=True)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x, y = mx.nd.random.uniform(shape=(2, 3, 32, 32)), mx.nd.array([0, 3])
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    with mx.autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(2)
    assert np.isfinite(loss.asnumpy()).all()
    assert model_store.get_model_file.__doc__
