"""cast_storage inside ``autograd.record()``: the cast is a recorded step whose gradient
passes unchanged, whichever storage type it gives (MXNet 1.9.1's ``test_cast_storage_ex``
checks the gradient of ``sym.cast_storage(x, stype='csr')`` numerically).  The same program
on both (tests/same_program.py)."""
import numpy as np
import pytest

from same_program import on_minimx, on_mxnet

pytestmark = [pytest.mark.mxnet, pytest.mark.usefixtures("on_cpu")]   # on the CPU (conftest)

PROGRAM = """
import json
import numpy as np
values = np.array([[0, 1.5, 0], [2, 0, -1]], dtype=np.float32)
head = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
weights = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
results = {}
# MXNet casts between csr and row_sparse in neither direction
for source, stypes in [("default", ["default", "csr", "row_sparse"]),
                       ("csr", ["default", "csr"]), ("row_sparse", ["default", "row_sparse"])]:
    for stype in stypes:
        x = mx.nd.array(values).tostype(source)
        x.attach_grad()
        with mx.autograd.record():
            cast = mx.nd.cast_storage(x, stype=stype)
            method = x.tostype(stype)
        cast.backward(head)
        direct = x.grad.asnumpy().tolist()
        with mx.autograd.record():
            y = mx.nd.cast_storage(x * 2, stype=stype).tostype("default") * weights
        y.backward()
        results[source + "->" + stype] = [cast.stype, method.stype, cast.asnumpy().tolist(),
                                          direct, x.grad.asnumpy().tolist()]
symbol = mx.sym.cast_storage(mx.sym.var("x", stype="default"), stype="csr")
mx.test_utils.check_numeric_gradient(symbol, {"x": mx.nd.array(values)}, ctx=mx.cpu())
results["numeric gradient"] = "checked"
print(json.dumps(results))
"""


def test_recorded_cast_storage_passes_the_gradient(mxnet_python):
    theirs = on_mxnet(mxnet_python, PROGRAM)
    ours = on_minimx(PROGRAM)
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        if isinstance(value, str):
            assert ours[key] == value
            continue
        assert ours[key][:2] == value[:2], key          # the storage types
        for position in (2, 3, 4):                      # the values and both gradients
            np.testing.assert_allclose(ours[key][position], value[position], err_msg=key)
