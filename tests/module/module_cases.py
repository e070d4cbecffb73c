"""Small networks and data shared by the Module tests."""
import numpy as np

import minimx as mx


def mlp(hidden=8, classes=3):
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=hidden, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=classes, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def separable(n=60, features=4, classes=3, seed=0):
    """Points around ``classes`` well separated centres."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, classes, n)
    centres = rng.normal(0, 4, (classes, features))
    data = centres[labels] + rng.normal(0, 0.5, (n, features))
    return data.astype(np.float32), labels.astype(np.float32)


def numpy_mlp(params, x):
    hidden = np.maximum(x @ params["fc1_weight"].T + params["fc1_bias"], 0)
    logits = hidden @ params["fc2_weight"].T + params["fc2_bias"]
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def numpy_params(mod):
    return {name: value.asnumpy() for name, value in mod.get_params()[0].items()}
