"""The fused optimizer updates: weights written through ``out=``, states updated in place.

The generated registry tests compare the returned weight with ``optimizer_references``;
here the states are checked too (against the same references and against MXNet 1.9.1),
and so are the float16 master copy of the ``mp_`` variants, the engine ordering of
repeated updates and the shape errors.
"""
import json
import subprocess

import numpy as np
import pytest
from optimizer_references import FULL

from minimx import autograd, engine, nd
from minimx.base import MXNetError
from minimx.op import get_op

PARAMS = {"lr": 0.05, "wd": 0.01, "rescale_grad": 1.5, "clip_gradient": 0.8}
EXTRA = {"sgd_mom_update": {"momentum": 0.9}, "nag_mom_update": {"momentum": 0.8},
         "mp_sgd_mom_update": {"momentum": 0.9}, "mp_nag_mom_update": {"momentum": 0.8},
         "signum_update": {"momentum": 0.7, "wd_lh": 0.02}, "adam_update": {"beta1": 0.8},
         "rmsprop_update": {"gamma1": 0.9, "clip_weights": 0.9},
         "rmspropalex_update": {"gamma2": 0.8}, "ftrl_update": {"lamda1": 0.05},
         "ftml_update": {"t": 2}}
OPS = sorted(FULL)


def _params(name):
    params = dict(PARAMS, **EXTRA.get(name, {}))
    if name == "signsgd_update":
        params.pop("clip_gradient")     # sign(grad) ignores clipping (unless it is 0)
    if name == "ftml_update":
        params["clip_grad"] = params.pop("clip_gradient")     # MXNet's name in this one
    return params


def _inputs(name, rng, shape=(3, 5)):
    """Weight, gradient, then states; squared-gradient states start positive."""
    count = len(get_op(name).inputs)
    arrays = [rng.uniform(-1, 1, shape) for _ in range(2)]
    for state in get_op(name).inputs[2:]:
        low = 0.0 if state in ("n", "var", "v") else -0.1
        arrays.append(rng.uniform(low, 0.1, shape))
    if name.startswith("mp_"):
        arrays[-1] = arrays[0]               # the master copy starts equal to the weight
    assert len(arrays) == count
    return [a.astype(np.float32) for a in arrays]


def _float32_atol(wanted):
    """float32 rounding scales with the array's largest value: a state such as FTML's z is a
    difference of terms about 1/lr in size, so a small element carries their rounding."""
    return 1e-6 * max(1.0, float(np.abs(wanted).max()))


@pytest.mark.parametrize("name", OPS)
def test_weight_and_states_match_the_reference_over_steps(name, engine):
    rng = np.random.RandomState(0)
    values = _inputs(name, rng)
    arrays = [nd.array(v) for v in values]
    params = _params(name)
    expected = [v.copy() for v in values]
    for _ in range(3):
        grad = rng.uniform(-1, 1, values[0].shape).astype(np.float32)
        arrays[1][:] = grad
        getattr(nd, name)(*arrays, out=arrays[0], **params)
        new = FULL[name](np, expected[0], grad, *expected[2:], **params)
        expected = [new[0], grad, *new[1:]]
    for position, (array, wanted) in enumerate(zip(arrays, expected)):
        if position != 1:
            np.testing.assert_allclose(array.asnumpy(), wanted, rtol=1e-5,
                                       atol=_float32_atol(wanted),
                                       err_msg=f"{name}: input {position}")


@pytest.mark.parametrize("name", ["mp_sgd_update", "mp_sgd_mom_update", "mp_nag_mom_update"])
def test_multi_precision_updates_the_float32_master_copy(name):
    weight = nd.array([[0.1, 0.2, 0.3]], dtype="float16")
    grad = nd.array([[1e-3, 2e-3, -1e-3]], dtype="float16")
    master = weight.astype("float32")
    states = [nd.zeros((1, 3)) for _ in get_op(name).inputs[2:-1]]
    params = {"lr": 0.1, "momentum": 0.5} if states else {"lr": 0.1}
    for _ in range(5):
        getattr(nd, name)(weight, grad, *states, master, out=weight, **params)
    assert weight.dtype == np.float16 and master.dtype == np.float32
    np.testing.assert_array_equal(weight.asnumpy(), master.asnumpy().astype(np.float16))
    # steps of 1e-4 are below float16's resolution at 0.1 but not float32's
    assert not np.allclose(master.asnumpy(), np.float32([[0.1, 0.2, 0.3]]), atol=2e-4)


def test_zero_clip_gradient_clips_everything_negative_turns_clipping_off():
    weight, grad = nd.array([1.0, -1.0]), nd.array([3.0, -3.0])
    np.testing.assert_allclose(nd.sgd_update(weight, grad, lr=0.1, clip_gradient=0).asnumpy(),
                               [1.0, -1.0])
    np.testing.assert_allclose(nd.sgd_update(weight, grad, lr=0.1, clip_gradient=-2).asnumpy(),
                               [0.7, -0.7])


def test_updates_without_out_leave_the_weight_but_move_the_state():
    weight, grad, mom = nd.ones((2,)), nd.ones((2,)), nd.zeros((2,))
    result = nd.sgd_mom_update(weight, grad, mom, lr=0.5, momentum=0.9)
    np.testing.assert_allclose(result.asnumpy(), [0.5, 0.5])
    np.testing.assert_allclose(weight.asnumpy(), [1.0, 1.0])
    np.testing.assert_allclose(mom.asnumpy(), [-0.5, -0.5])


def test_repeated_updates_are_ordered_by_the_engine():
    with engine.engine_type("ThreadedEngine"):
        weight, grad, mom = nd.zeros((100,)), nd.ones((100,)), nd.zeros((100,))
        for _ in range(20):
            nd.sgd_mom_update(weight, grad, mom, lr=0.1, momentum=0.5, out=weight)
        mom_value, weight_value = 0.0, 0.0
        for _ in range(20):
            mom_value = 0.5 * mom_value - 0.1
            weight_value += mom_value
        np.testing.assert_allclose(weight.asnumpy(), weight_value, rtol=1e-5)
        np.testing.assert_allclose(mom.asnumpy(), mom_value, rtol=1e-5)


def test_a_weight_with_a_gradient_updates_and_keeps_its_gradient_buffer():
    weight = nd.ones((2, 3))
    weight.attach_grad()
    with autograd.record():
        loss = (weight * weight).sum()
    loss.backward()
    nd.sgd_update(weight, weight.grad, lr=0.25, out=weight)
    np.testing.assert_allclose(weight.asnumpy(), 0.5)
    with autograd.record():
        loss = (weight * weight).sum()
    loss.backward()
    np.testing.assert_allclose(weight.grad.asnumpy(), 1.0)


def test_a_state_of_the_wrong_shape_and_a_missing_lr_are_rejected():
    weight = nd.ones((2, 3))
    with pytest.raises(MXNetError, match="adam_update.*mean"):
        nd.adam_update(weight, nd.ones((2, 3)), nd.zeros((3, 2)), nd.zeros((2, 3)), lr=0.1)
    with pytest.raises(MXNetError, match="lr"):
        nd.sgd_update(weight, nd.ones((2, 3)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_states_match_mxnet(mxnet_python, tmp_path, dtype):
    """In float64 too: MXNet keeps lr, momentum, wd, ... in 32-bit C++ floats, so lr=0.05
    updates a float64 weight with 0.0500000007450580...; a float64 lr would land 1e-8
    (relative) away from MXNet's weight after one step."""
    rng = np.random.RandomState(1)
    names = [name for name in OPS if dtype == "float32" or not name.startswith("mp_")]
    cases = {name: [v.astype(dtype) for v in _inputs(name, rng)] for name in names}
    np.savez(tmp_path / "inputs.npz", **{f"{name}_{i}": value for name, values in cases.items()
                                        for i, value in enumerate(values)})
    (tmp_path / "params.json").write_text(json.dumps({name: _params(name) for name in names}))
    script = f"""
import json, numpy as np, mxnet as mx
arrays = np.load({str(tmp_path / 'inputs.npz')!r})
params = json.load(open({str(tmp_path / 'params.json')!r}))
out = {{}}
for name, kwargs in params.items():
    inputs = [mx.nd.array(arrays[f"{{name}}_{{i}}"], dtype=arrays[f"{{name}}_{{i}}"].dtype)
              for i in range(len(arrays.files)) if f"{{name}}_{{i}}" in arrays.files]
    getattr(mx.nd, name)(*inputs, out=inputs[0], **kwargs)
    for i, x in enumerate(inputs):
        out[f"{{name}}_{{i}}"] = x.asnumpy()
np.savez({str(tmp_path / 'out.npz')!r}, **out)
"""
    subprocess.run([mxnet_python, "-c", script], check=True, capture_output=True, timeout=300)
    theirs = np.load(tmp_path / "out.npz")
    for name, values in cases.items():
        arrays = [nd.array(v, dtype=dtype) for v in values]
        getattr(nd, name)(*arrays, out=arrays[0], **_params(name))
        for position, array in enumerate(arrays):
            wanted = theirs[f"{name}_{position}"]
            assert array.dtype == wanted.dtype == np.dtype(dtype), name
            if dtype == "float32":
                np.testing.assert_allclose(array.asnumpy(), wanted, rtol=1e-5,
                                           atol=_float32_atol(wanted),
                                           err_msg=f"{name}: input {position}")
            else:
                np.testing.assert_allclose(array.asnumpy(), wanted, rtol=1e-13, atol=1e-15,
                                           err_msg=f"{name}: input {position}")
