"""SoftmaxOutput's label shaped like the data holds target probabilities, as MXNet 1.9.1
decides it first, also for data of one class ((N, 1) or (N,)), whose label would fit class
ids too: MXNet's test_sparse_storage_fallback fails when its random shape has one column.
The same program on both (tests/same_program.py)."""
import numpy as np
import pytest

from same_program import on_minimx, on_mxnet

pytestmark = pytest.mark.mxnet

PROGRAM = """
import json
import numpy as np
results = {}
for name, shape in [("column", (4, 1)), ("vector", (4,)), ("matrix", (3, 2))]:
    x = mx.nd.array(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 5)
    label = mx.nd.array(np.full(shape, 0.25 if name != "column" else 1.0, dtype=np.float32))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.SoftmaxOutput(x, label)
    y.backward()
    results[name] = [y.asnumpy().tolist(), x.grad.asnumpy().tolist()]
print(json.dumps(results))
"""


def test_label_shaped_like_the_data_is_probabilities(mxnet_python):
    theirs = on_mxnet(mxnet_python, PROGRAM)
    ours = on_minimx(PROGRAM)
    assert theirs["column"][1] == [[0.0]] * 4
    for key, (output, grad) in theirs.items():
        np.testing.assert_allclose(ours[key][0], output, rtol=1e-6, err_msg=key)
        np.testing.assert_allclose(ours[key][1], grad, rtol=1e-6, atol=1e-7, err_msg=key)
