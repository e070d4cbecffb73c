"""The strict stand-in for CuPy refuses what CuPy refuses (``minimx/backend_standin.py``).

Each test shows one refusal, with CuPy's error kind, beside what CuPy allows: explicit
copies, numpy functions on device arrays only (``__array_function__``), 0-d results.
"""
import copy
import pickle

import numpy as np
import pytest

import minimx as mx
from minimx import backend, nd
from minimx.backend_standin import IMPLICIT_CONVERSION, DeviceArray


@pytest.fixture
def xp():
    with backend.stand_in_gpus(2):
        with backend.device_scope(mx.gpu(0)):
            yield backend.get_xp(mx.gpu(0))


def test_arrays_are_a_type_of_their_own(xp):
    x = xp.arange(6.0).reshape(2, 3)
    assert isinstance(x, DeviceArray) and not isinstance(x, np.ndarray)
    assert xp.ndarray is DeviceArray
    assert x.shape == (2, 3) and x.dtype == np.float64 and x.device.id == 0


@pytest.mark.parametrize("mix", [
    lambda x, h: x + h,
    lambda x, h: h * x,
    lambda x, h: np.add(x, h),
    lambda x, h: np.where(x > 0, h, x),
    lambda x, h: np.concatenate([x, h]),
    lambda x, h: np.dot(x, h),
    lambda x, h: x.dot(h),
], ids=["operator", "reflected", "ufunc", "where", "concatenate", "dot", "method"])
def test_mixing_with_a_host_array_is_a_type_error(xp, mix):
    with pytest.raises(TypeError, match="numpy.ndarray"):
        mix(xp.ones(3), np.ones(3))


@pytest.mark.parametrize("xp_function", ["add", "where", "concatenate", "maximum"])
def test_xp_functions_refuse_host_arrays(xp, xp_function):
    function = getattr(xp, xp_function)
    host = np.ones(3)
    args = {"add": (xp.ones(3), host), "where": (xp.ones(3) > 0, host, xp.ones(3)),
            "concatenate": ([xp.ones(3), host],), "maximum": (host, xp.ones(3))}[xp_function]
    with pytest.raises(TypeError, match="numpy.ndarray"):
        function(*args)


@pytest.mark.parametrize("convert", [np.asarray, np.array, np.ascontiguousarray, memoryview,
                                     lambda x: np.float32(1) + np.asarray(x)],
                         ids=["asarray", "array", "ascontiguousarray", "buffer", "mixed"])
def test_implicit_conversion_to_the_host_is_a_type_error(xp, convert):
    with pytest.raises(TypeError) as caught:
        convert(xp.ones(3))
    assert convert is memoryview or str(caught.value) == IMPLICIT_CONVERSION


def test_only_explicit_copies_reach_the_host(xp):
    x = xp.arange(3.0)
    for host in (x.get(), xp.asnumpy(x), backend.to_numpy(x)):
        assert type(host) is np.ndarray and host.tolist() == [0.0, 1.0, 2.0]
    assert x.tolist() == [0.0, 1.0, 2.0] and float(x[1]) == 1.0 and x[2].item() == 2.0
    onto = xp.asarray(np.array([4.0, 5.0]))          # host -> device is explicit too
    assert isinstance(onto, DeviceArray)


def test_numpy_functions_on_device_arrays_only_stay_on_the_device(xp):
    x = xp.arange(6.0).reshape(2, 3)
    for result in (np.sum(x), np.where(x > 2, x, 0), np.exp(x), x.sum(), x @ x.T, x.max()):
        assert isinstance(result, DeviceArray)


def test_reductions_give_0d_device_arrays(xp):
    x = xp.arange(4.0)
    for total in (x.sum(), xp.sum(x), np.max(x), xp.linalg.norm(x), x[1]):
        assert isinstance(total, DeviceArray) and total.ndim == 0


def test_functions_cupy_lacks_are_missing(xp):
    with pytest.raises(AttributeError, match="cupy"):
        xp.errstate                                       # CuPy has cupyx.errstate only
    with pytest.raises(AttributeError, match="cupy"):
        xp.ma


def test_setitem_refuses_a_host_array_but_takes_scalars(xp):
    x = xp.zeros(3)
    with pytest.raises(ValueError, match="numpy.ndarray"):
        x[:] = np.ones(3)
    x[1] = 2.0
    x[xp.asarray(np.array([0]))] = xp.ones(1)
    x[np.array([2])] = 7.0                            # a host index array is copied over
    assert x.get().tolist() == [1.0, 2.0, 7.0]


def test_an_array_on_another_device_is_refused(xp):
    x = xp.ones(3)
    with backend.device_scope(mx.gpu(1)):
        y = xp.ones(3)
        assert y.device.id == 1
        with pytest.raises(ValueError, match="device"):
            y + x
        moved = xp.array(x)                            # an explicit copy between devices
        assert moved.device.id == 1 and (moved + y).device.id == 1


def test_in_place_operations_give_the_array_itself(xp):
    """``x += y`` and ``out=x`` return ``x``, so ``own_buffers`` still sees an input."""
    x = xp.ones(3)
    alias = x
    x += 1
    assert x is alias and xp.multiply(x, 2, out=x) is alias and np.add(x, 1, out=x) is alias
    assert alias.get().tolist() == [5.0, 5.0, 5.0]


def test_copies_and_pickles_stay_device_arrays(xp):
    x = xp.arange(3.0)
    for clone in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert isinstance(clone, DeviceArray) and clone.get().tolist() == [0.0, 1.0, 2.0]


def test_random_generators_give_device_arrays(xp):
    rng = xp.random.default_rng(0)
    assert isinstance(rng.standard_normal((2, 2)), DeviceArray)


def test_plain_numpy_stand_in_is_still_there():
    with backend.stand_in_gpus(1, strict=False):
        assert backend.get_xp(mx.gpu(0)) is np
        assert type(nd.ones((2,), ctx=mx.gpu(0))._read()) is np.ndarray
