"""``lazy_update`` decides how an optimizer treats a row_sparse gradient, as in MXNet 1.9.1.

True (the default): only the rows the gradient holds change, weight decay and momentum
included.  False: every row is updated, as with the dense gradient.  LARS took the flag and
dropped it, so ``LARS(lazy_update=False)`` still updated lazily: the rows without a
gradient kept their values where MXNet's weight decay shrank them.
"""
import numpy as np
import pytest

from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
import numpy as np
results = {}
for name, options in [("sgd", {}), ("sgd", {"momentum": 0.9}), ("adam", {}),
                      ("lars", {}), ("lars", {"momentum": 0.9})]:
    for lazy in (True, False):
        opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.01, lazy_update=lazy,
                                  **options)
        weight = mx.nd.array(np.arange(12, dtype="float32").reshape(4, 3) / 10, ctx=mx.cpu())
        state = opt.create_state(0, weight)
        grad = mx.nd.sparse.row_sparse_array((np.ones((1, 3), "float32"), [1]), shape=(4, 3),
                                             ctx=mx.cpu())     # sparse storage: CPU only
        for _ in range(2):
            opt.update(0, weight, grad, state)
        results[f"{name} {options} lazy={lazy}"] = weight.asnumpy().tolist()
print(json.dumps(results))
"""


@pytest.mark.mxnet
def test_lazy_update_flag_as_mxnet(mxnet_python):
    theirs, mine = on_mxnet(mxnet_python, PROGRAM), on_minimx(PROGRAM)
    assert mine.keys() == theirs.keys()
    for case in theirs:
        np.testing.assert_allclose(mine[case], theirs[case], rtol=1e-6, atol=1e-7,
                                   err_msg=case)
