"""Convolution and Deconvolution layers run on the same numbers by minimx and MXNet 1.9.1:
the differential check that the tests of the fast convolution paths share
(``op/test_winograd.py``, ``op/test_conv_taps.py``).

A case is ``(operator, data shape, weight shape, parameters)``; the kernel is 3x3 and there
is no bias unless the parameters say otherwise.  Each layer's output and the gradients of
all its inputs (for a random head gradient) are compared, relative to the largest value.
"""
import json

import numpy as np

LAYERS = """
import json
import numpy as np
rng = np.random.RandomState(0)
found = []
for op, data_shape, weight_shape, params in json.loads(INPUT):
    params = {name: tuple(value) if isinstance(value, list) else value
              for name, value in params.items()}
    params.setdefault("kernel", (3, 3))
    params.setdefault("no_bias", True)
    arrays = [rng.randn(*data_shape), rng.randn(*weight_shape) * 0.05]
    if not params["no_bias"]:
        arrays.append(rng.randn(params["num_filter"]))
    inputs = [mx.nd.array(a.astype("float32"), ctx=mx.cpu()) for a in arrays]
    for array in inputs:
        array.attach_grad()
    with mx.autograd.record():
        out = getattr(mx.nd, op)(*inputs, **params)
    out.backward(mx.nd.array(rng.randn(*out.shape).astype("float32"), ctx=mx.cpu()))
    found.append([out.asnumpy().tolist()] + [a.grad.asnumpy().tolist() for a in inputs])
print(json.dumps(found))
"""


def run_layers(runner, cases):
    """The layers' outputs and gradients, by ``runner`` (``same_program.on_minimx``, or
    ``on_mxnet`` with its interpreter bound)."""
    return runner(LAYERS, json.dumps(cases))


def assert_layers_agree(ours, theirs, tolerance=5e-6):
    for case, (mine, reference) in enumerate(zip(ours, theirs)):
        for position, (got, expected) in enumerate(zip(mine, reference)):
            got, expected = np.array(got), np.array(expected)
            scale = np.abs(expected).max()
            assert np.abs(got - expected).max() <= tolerance * scale, (case, position)
