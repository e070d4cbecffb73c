"""The np frontend's plumbing: one buffer, one engine, NumPy's switches and protocols."""
import json
import subprocess

import numpy as onp
import pytest

import minimx as mx
from minimx import nd, np, npx


def test_results_keep_the_frontend_of_their_inputs():
    x = np.ones((2, 3))
    assert type(x) is np.ndarray and isinstance(x, nd.NDArray)
    for result in (x + 1, x.exp(), x[0], x.reshape(3, 2), x.T, npx.relu(x), x.copy(),
                   x.astype("int32"), x.detach(), x.as_in_context(mx.cpu())):
        assert type(result) is np.ndarray
    assert type(nd.ones((2,)) + 1) is nd.NDArray


def test_as_np_ndarray_and_back_share_the_buffer():
    base = nd.zeros((3,))
    view = base.as_np_ndarray()
    assert view.engine_var is base.engine_var
    view[1] = 5
    back = view.as_nd_ndarray()
    assert type(back) is nd.NDArray
    back[2] = 7
    assert base.asnumpy().tolist() == [0.0, 5.0, 7.0]


def test_zero_dimensional_arrays_convert_to_python_numbers():
    total = np.array([[1.0, 2.0], [3.0, 4.0]]).sum()
    assert total.shape == () and total.ndim == 0 and total.size == 1
    assert float(total) == 10.0 and int(total) == 10 and bool(total) and total.item() == 10.0
    assert np.array([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_names_left_out_say_so():
    with pytest.raises(AttributeError, match="fft.*no FFT"):
        np.fft
    with pytest.raises(AttributeError, match="mx.np.not_a_function is not available"):
        np.not_a_function


def test_set_np_switches_and_decorators():
    assert not mx.util.is_np_array()
    npx.set_np()
    try:
        assert mx.util.is_np_array() and mx.util.is_np_shape() and npx.is_np_array()
    finally:
        npx.reset_np()
    assert not mx.util.is_np_array() and not mx.util.is_np_shape()

    @mx.util.use_np
    def inside():
        return mx.util.is_np_array(), mx.util.is_np_shape()
    assert inside() == (True, True) and not mx.util.is_np_array()
    with pytest.raises(NotImplementedError, match="float32 default"):
        npx.set_np(dtype=True)


def test_value_dependent_shapes_wait_for_their_input():
    x = np.array([[0.0, 1.0], [2.0, 0.0]])
    rows, cols = np.nonzero(x)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert x[x > 0].tolist() == [1.0, 2.0]
    values, counts = np.unique(np.array([3, 1, 1]), return_counts=True)
    assert values.tolist() == [1.0, 3.0] and counts.tolist() == [2, 1]


def test_official_numpy_functions_dispatch_to_minimx():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert type(onp.sum(x)) is np.ndarray and onp.sum(x).shape == ()
    assert type(onp.exp(x)) is np.ndarray
    assert float(onp.trace(x)) == 5.0          # no minimx trace: host NumPy computes it


def test_npx_save_and_load_round_trip(tmp_path):
    path = str(tmp_path / "arrays")
    npx.save(path, {"a": np.arange(3), "b": np.array(2.5)})
    loaded = npx.load(path)
    assert type(loaded["a"]) is np.ndarray and loaded["a"].tolist() == [0.0, 1.0, 2.0]
    assert loaded["b"].shape == ()


def test_generated_npx_functions_take_the_operator_parameters():
    x = np.array([[1.0, -2.0, 3.0]])
    out = npx.fully_connected(x, np.ones((2, 3)), np.zeros(2), num_hidden=2)
    assert type(out) is np.ndarray and out.tolist() == [[2.0, 2.0]]
    assert npx.num_gpus() == mx.context.num_gpus() and npx.cpu() == mx.cpu()


REPR_SCRIPT = """
import json
from mxnet import np, npx
npx.set_np()
print(json.dumps([repr(np.array([[1, 2], [3, 4]])), repr(np.array(2.5)),
                  repr(np.array([1, 2], dtype='int32')), repr(np.array([1.5]) > 1),
                  str(np.array([1.0, 2.0]))]))
"""


def test_repr_and_str_as_mxnet(mxnet_python):
    done = subprocess.run([mxnet_python, "-c", REPR_SCRIPT], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    wanted = json.loads(done.stdout.strip().splitlines()[-1])
    with mx.cpu():                  # MXNet's arrays above are on the cpu (its repr says so)
        got = [repr(np.array([[1, 2], [3, 4]])), repr(np.array(2.5)),
               repr(np.array([1, 2], dtype="int32")), repr(np.array([1.5]) > 1),
               str(np.array([1.0, 2.0]))]
    assert got == wanted


def test_npx_names_left_out_say_so():
    with pytest.raises(AttributeError, match="mx.npx.masked_softmax is not available: no masked"):
        npx.masked_softmax


def test_split_of_an_empty_axis_gives_empty_parts_and_past_the_end_is_refused():
    """MXNet 1.9.1: an empty axis splits into empty parts whatever the indices; otherwise an
    index past the axis (or a descending one) is an MXNetError."""
    from minimx import np as mnp
    assert [p.shape for p in mnp.split(mnp.zeros((0, 3)), [2, 3])] == [(0, 3)] * 3
    assert [p.shape for p in mnp.split(mnp.zeros((0, 3)), 7)] == [(0, 3)] * 7
    with pytest.raises(mx.base.MXNetError):
        mnp.split(mnp.arange(4), [1, 9])[1].asnumpy()


def test_a_null_grad_req_variable_has_no_gradient_after_backward():
    """MXNet 1.9.1: ``x.grad`` is None after a backward when x's grad_req is 'null'."""
    from minimx import np as mnp
    x, w = mnp.ones((2,)), mnp.ones((2,))
    x.attach_grad(grad_req="null")
    w.attach_grad()
    with mx.autograd.record():
        y = (x * w).sum()
    y.backward()
    assert x.grad is None
    onp.testing.assert_array_equal(w.grad.asnumpy(), [1.0, 1.0])


@pytest.mark.parametrize("name, args", [("logistic", (0.0, 1.0)), ("gumbel", (0.0, 1.0)),
                                        ("lognormal", (0.0, 0.5)), ("rayleigh", (2.0,)),
                                        ("weibull", (1.5,)), ("pareto", (3.0,)),
                                        ("power", (2.0,)), ("chisquare", (3.0,)),
                                        ("beta", (2.0, 5.0))])
def test_more_samplers_match_numpy_statistics(name, args):
    """The samplers built from standard samples have NumPy's shapes and means."""
    from minimx import np as mnp
    mx.random.seed(3)
    samples = getattr(mnp.random, name)(*args, size=(20000,)).asnumpy()
    reference = getattr(onp.random.RandomState(3), name)(*args, size=20000)
    assert samples.shape == (20000,)
    onp.testing.assert_allclose(samples.mean(), reference.mean(), rtol=0.06, atol=0.03)


def test_weibull_gradient_and_bad_parameters():
    from minimx import np as mnp
    a = mnp.ones((3, 2))
    a.attach_grad()
    with mx.autograd.record():
        out = mnp.random.weibull(a, (3, 2))
    out.backward()
    expected = -(out * mnp.log(out)).asnumpy()        # d E^(1/a) / da at a = 1
    onp.testing.assert_allclose(a.grad.asnumpy(), expected, rtol=1e-4, atol=1e-6)
    for call in (lambda: mnp.random.weibull(0), lambda: mnp.random.lognormal(sigma=-1),
                 lambda: mnp.random.rayleigh(scale=-1)):
        with pytest.raises(ValueError):
            call()


def test_contiguous_basic_slices_are_views_as_in_mxnet():
    """MXNet 1.9.1: a basic index whose part is contiguous is a view (writes show through,
    np.shares_memory says so); a strided part (``x[2:5, 0]``) is a copy."""
    from minimx import np as mnp
    x = mnp.zeros((4, 3, 5))
    view = x[1, 2, 1:4]
    assert mnp.shares_memory(view, x[1, 2, 3:5]) and not mnp.shares_memory(x[0], x[1])
    assert not mnp.shares_memory(x[0:3, 0, 0], x[1:2, 0, 0])
    x[1, 2, 2] = 7.0
    onp.testing.assert_array_equal(view.asnumpy(), [0.0, 7.0, 0.0])
    view[...] = 1.0
    assert x.asnumpy()[1, 2].tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_npx_random_bernoulli_and_batched_samplers():
    mx.random.seed(5)
    prob = np.array([[0.0, 1.0, 0.3]])
    draws = npx.random.bernoulli(prob=prob, size=(4000, 3)).asnumpy()
    assert draws.shape == (4000, 3) and set(onp.unique(draws)) <= {0.0, 1.0}
    onp.testing.assert_allclose(draws.mean(axis=0), [0.0, 1.0, 0.3], atol=0.03)
    assert npx.random.bernoulli(logit=0.0, dtype="bool").dtype == onp.bool_
    for bad in (dict(prob=0.5, logit=0.0), dict(prob=np.array([1.5]))):
        with pytest.raises(ValueError):
            npx.random.bernoulli(**bad)
    assert npx.random.normal_n(np.zeros((2,)), np.ones((2,)), batch_shape=(3,)).shape == (3, 2)
    npx.random.seed(7)
    first = np.random.uniform(size=(2,)).asnumpy()
    npx.random.seed(7)
    onp.testing.assert_array_equal(first, np.random.uniform(size=(2,)).asnumpy())


def test_value_dependent_shapes_and_host_fallbacks_say_why_they_wait():
    """The engine's sync observers (the queue view) hear np.nonzero, np.unique and a boolean
    mask as value-dependent sync points, and a host-NumPy fallback as one of its own."""
    from minimx import engine
    heard = []
    engine.subscribe_sync(heard.append)
    try:
        v = np.array([3.0, 0.0, 5.0, 3.0])
        np.nonzero(v)
        np.unique(v)
        v[v > 1]
        np.ptp(v)                       # MXNet 1.9.1 hands ptp to host NumPy (fallback.py)
    finally:
        engine.unsubscribe_sync(heard.append)
    reasons = [event.reason for event in heard]
    assert reasons[:-1] and set(reasons[:-1]) == {engine.VALUE_DEPENDENT}, reasons
    assert reasons[-1] == engine.HOST_FALLBACK, reasons


def test_mxnet_private_scope_name_imports_and_switches_np_arrays():
    """MXNet's own test_thread_local.py imports util._NumpyArrayScope at its top: without the
    name none of that file's tests run."""
    from minimx.util import _NumpyArrayScope, is_np_array
    with _NumpyArrayScope(True):
        assert is_np_array()
    assert not is_np_array()


VIEWS_PROGRAM = """
import json
out = {}
for mode in ("nd", "np"):
    if mode == "np":
        mx.npx.set_np()
    make = ((lambda: mx.np.arange(6).reshape((2, 3))) if mode == "np"
            else (lambda: mx.nd.arange(6).reshape((2, 3))))
    keys = {"x[None]": lambda x: x[None], "x[None, :]": lambda x: x[None, :],
            "x[:, None]": lambda x: x[:, None], "x[None, 0]": lambda x: x[None, 0],
            "x[0, None, 1:]": lambda x: x[0, None, 1:], "x[:, None, 1]": lambda x: x[:, None, 1],
            "flatten": lambda x: x.flatten()}
    for name, take in keys.items():
        x = make()
        part = take(x)
        part[:] = -1
        out[mode + " " + name] = [list(part.shape), x.asnumpy().tolist()]
    if mode == "np":
        mx.npx.reset_np()
print(json.dumps(out))
"""


def test_new_axes_are_views_and_flatten_copies_as_in_mxnet(mxnet_python):
    """MXNet 1.9.1: indexing with new axes (``x[None]``, ``x[:, None]``, with ints and
    slices) gives a view, writes show in ``x`` (a strided part, ``x[:, None, 1]``, is a
    copy); ``flatten`` copies, in NumPy mode too (minimx's np ``flatten`` shared the
    buffer, and its new axes copied)."""
    from same_program import on_minimx_np_mode, on_mxnet
    ours = on_minimx_np_mode(VIEWS_PROGRAM)
    assert ours["np x[None]"] == [[1, 2, 3], [[-1.0] * 3] * 2]
    assert ours["np flatten"][1] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert ours == on_mxnet(mxnet_python, VIEWS_PROGRAM)


BOOL_PROGRAM = """
import json
mx.npx.set_np()
np = mx.np
out = {}
cases = {"b + 1": lambda b: b + 1, "1.5 * b": lambda b: 1.5 * b, "b - True": lambda b: b - True,
         "2 ** b": lambda b: 2 ** b, "b % 2": lambda b: b % 2, "-b": lambda b: -b,
         "maximum(b, 1)": lambda b: np.maximum(b, 1), "minimum(b, 0.5)": lambda b: np.minimum(b, 0.5),
         "b + b": lambda b: b + b, "b / 2": lambda b: b / 2, "b.sum()": lambda b: b.sum(),
         "exp(b)": lambda b: np.exp(b), "abs(b)": lambda b: np.abs(b),
         "negative(b)": lambda b: np.negative(b), "b += 1": lambda b: b.__iadd__(1),
         "isnan(b)": lambda b: np.isnan(b), "invert(b)": lambda b: np.invert(b)}
for name, f in cases.items():
    b = np.array([1, 0]).astype("bool")
    try:
        r = f(b)
        out[name] = [str(r.dtype), r.tolist()]
    except Exception as error:
        out[name] = "refused" if "MXNetError" in type(error).__mro__[0].__name__ or isinstance(
            error, mx.base.MXNetError) else type(error).__name__
mx.npx.reset_np()
print(json.dumps(out))
"""


def test_bool_arrays_in_arithmetic_as_in_mxnet(mxnet_python):
    """MXNet's np: a bool array beside a Python number computes in int64 (``mask + 1`` is
    [2, 1]; minimx kept bool and gave [True, True]); unary maths of a bool array
    (``exp``, ``abs``, ``negative``) and ``mask += 1`` are refused (minimx gave bool
    garbage, exp(True) == True); ``-mask`` is int64."""
    from same_program import on_minimx_np_mode, on_mxnet
    ours = on_minimx_np_mode(BOOL_PROGRAM)
    assert ours["b + 1"] == ["int64", [2, 1]] and ours["exp(b)"] == "refused"
    assert ours == on_mxnet(mxnet_python, BOOL_PROGRAM)


def test_numpy_1_names_mxnet_serves_exist_on_numpy_2():
    """``np.copy``/``real`` and the NumPy 1 names MXNet 1.9.1's np answers (``product``,
    ``sometrue``, ``alltrue``, ``row_stack``, ``msort``, ``in1d``, ``trapz``) exist whatever
    the host NumPy (NumPy 2 dropped or renamed most of them)."""
    from minimx import np as mnp
    a = onp.array([[3.0, 1.0], [2.0, 4.0]], onp.float32)
    x = mnp.array(a)
    copied = mnp.copy(x)
    copied[0, 0] = 9
    assert x.asnumpy()[0, 0] == 3.0 and mnp.real(x).asnumpy().tolist() == a.tolist()
    assert float(mnp.product(x)) == 24.0 and bool(mnp.sometrue(x > 3))
    assert not bool(mnp.alltrue(x > 1))
    onp.testing.assert_array_equal(mnp.row_stack([x, x]).asnumpy(), onp.vstack([a, a]))
    onp.testing.assert_array_equal(mnp.msort(x).asnumpy(), onp.sort(a, axis=0))
    assert mnp.in1d(x, mnp.array([1.0, 4.0])).asnumpy().tolist() == [False, True, False, True]
    onp.testing.assert_allclose(mnp.trapz(x).asnumpy(), [2.0, 3.0])
