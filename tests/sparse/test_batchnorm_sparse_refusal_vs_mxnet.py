"""BatchNorm on sparse inputs: MXNet 1.9.1's storage inference refuses them with
``fix_gamma=True`` (its ``test_batchnorm_fallback`` expects the MXNetError from
``check_numeric_gradient``, which binds the graph) and computes on dense copies with
``fix_gamma=False``.  The same program on both (tests/same_program.py)."""
import numpy as np
import pytest

from same_program import on_minimx, on_mxnet

pytestmark = [pytest.mark.mxnet, pytest.mark.usefixtures("on_cpu")]   # on the CPU (conftest)

PROGRAM = """
import json
import numpy as np
rng = np.random.RandomState(0)
values = [rng.uniform(-1, 1, (2, 3)), np.array([1., 3, 1]), np.array([3., 1, 1]),
          rng.uniform(size=3), rng.uniform(0.5, 1, size=3)]
results = {}
for stype in ["row_sparse", "default"]:
    for fix_gamma in [True, False]:
        # fresh arrays: MXNet's fix_gamma=True also sets its gamma array to ones
        arrays = [mx.nd.array(v).tostype(stype) for v in values]
        key = stype + " fix_gamma=" + str(fix_gamma)
        try:
            out = mx.nd.BatchNorm(*arrays, fix_gamma=fix_gamma)
            results[key] = [out.stype, out.asnumpy().tolist()]
        except mx.base.MXNetError:
            results[key] = "MXNetError"
data = mx.sym.Variable("data", stype="row_sparse")
for fix_gamma in [True, False]:
    try:
        mx.test_utils.check_numeric_gradient(
            mx.sym.BatchNorm(data, fix_gamma=fix_gamma),
            [mx.nd.array(v).tostype("row_sparse") for v in values[:3]],
            [mx.nd.array(v).tostype("row_sparse") for v in values[3:]],
            numeric_eps=1e-3, rtol=0.16, atol=1e-2)
        results["numeric fix_gamma=" + str(fix_gamma)] = "checked"
    except mx.base.MXNetError:
        results["numeric fix_gamma=" + str(fix_gamma)] = "MXNetError"
print(json.dumps(results))
"""


def test_batchnorm_refuses_sparse_inputs_with_fix_gamma(mxnet_python):
    theirs = on_mxnet(mxnet_python, PROGRAM)
    ours = on_minimx(PROGRAM)
    assert theirs["row_sparse fix_gamma=True"] == "MXNetError"
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        if isinstance(value, str):
            assert ours[key] == value, key
        else:
            assert ours[key][0] == value[0], key
            np.testing.assert_allclose(ours[key][1], value[1], rtol=1e-4, atol=1e-5,
                                       err_msg=key)
