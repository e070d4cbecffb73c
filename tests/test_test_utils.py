"""minimx.test_utils: comparisons, random data, gradient checks, seeds, test contexts."""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd, test_utils
from minimx.base import MXNetError


class _SquareWithWrongGradient(autograd.Function):
    """x * x whose backward forgets the factor 2."""

    def forward(self, x):
        self.save_for_backward(x)
        return x * x

    def backward(self, dy):
        (x,) = self.saved_tensors
        return dy * x


def test_assert_almost_equal_accepts_ndarrays_and_tolerances():
    test_utils.assert_almost_equal(nd.array([1.0, 2.0]), np.array([1.0, 2.00001]))
    test_utils.assert_almost_equal(np.array([1.0]), np.array([1.1]), rtol=0.2, atol=0)


def test_assert_almost_equal_names_the_worst_element():
    a = np.zeros((2, 3), dtype=np.float32)
    b = a.copy()
    b[1, 2], b[0, 0] = 5.0, 0.5
    with pytest.raises(AssertionError) as caught:
        test_utils.assert_almost_equal(a, b, names=("mine", "theirs"))
    message = str(caught.value)
    assert "2 of 6 elements" in message and "index (1, 2)" in message
    assert "mine=0.0" in message and "theirs=5.0" in message


def test_assert_almost_equal_rejects_incompatible_shapes():
    with pytest.raises(AssertionError, match="shapes"):
        test_utils.assert_almost_equal(np.zeros(3), np.zeros(4))
    with pytest.raises(AssertionError, match="shapes differ"):
        test_utils.assert_almost_equal(np.zeros((1, 3)), np.zeros(3), use_broadcast=False)


def test_integer_arrays_must_be_equal_and_nan_handling():
    assert not test_utils.almost_equal(np.array([1, 2]), np.array([1, 3]))
    assert test_utils.almost_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True)
    assert not test_utils.almost_equal(np.array([np.nan]), np.array([np.nan]))
    assert test_utils.same(nd.array([1, 2]), np.array([1, 2], dtype=np.float32))


def test_random_shapes_stay_in_range():
    for _ in range(20):
        rows, cols = test_utils.rand_shape_2d(3, 4)
        assert 1 <= rows <= 3 and 1 <= cols <= 4
        assert all(1 <= d <= 2 for d in test_utils.rand_shape_nd(4, 2))
        assert len(test_utils.rand_shape_3d()) == 3


def test_rand_ndarray_density_dtype_and_storage():
    x = test_utils.rand_ndarray((50, 40), density=0.25, dtype="float64")
    assert x.dtype == np.float64 and x.shape == (50, 40)
    assert 0.15 < np.mean(x.asnumpy() != 0) < 0.35
    # MXNet 1.9.1 gives a CSRNDArray here (minimx refused it while it was dense only)
    sparse = test_utils.rand_ndarray((50, 40), stype="csr", density=0.25)
    assert sparse.stype == "csr" and 0.15 < np.mean(sparse.asnumpy() != 0) < 0.35
    with pytest.raises(ValueError, match="storage type 'dense'"):
        test_utils.rand_ndarray((2, 2), stype="dense")


def test_check_numeric_gradient_accepts_a_correct_gradient():
    location = [np.random.uniform(0.5, 1.5, size=(2, 3)), np.random.uniform(size=(1, 3))]
    test_utils.check_numeric_gradient(lambda a, b: nd.broadcast_div(a * a, b + 1), location)


def test_check_numeric_gradient_catches_a_wrong_gradient():
    with pytest.raises(AssertionError, match="gradient check failed") as caught:
        test_utils.check_numeric_gradient(lambda x: _SquareWithWrongGradient()(x),
                                          [np.random.uniform(0.5, 1.0, size=(4,))])
    assert "input 0" in str(caught.value)


def test_check_numeric_gradient_names_and_grad_nodes():
    """A dict location passes keywords; grad_nodes limits the check (the wrong gradient
    of ``wrong`` is not checked, so the call passes)."""
    def function(good, wrong):
        return good * 3 + _SquareWithWrongGradient()(wrong)

    location = {"good": np.random.uniform(size=(3,)), "wrong": np.random.uniform(size=(3,))}
    test_utils.check_numeric_gradient(function, location, grad_nodes=["good"])
    with pytest.raises(AssertionError, match="'wrong'"):
        test_utils.check_numeric_gradient(function, location)


def test_check_numeric_gradient_with_several_outputs():
    test_utils.check_numeric_gradient(lambda x: [x * x, x * 2 + 1],
                                      [np.random.uniform(size=(2, 2))])


def test_numeric_grad_is_the_elementwise_gradient():
    x = np.random.uniform(size=(2, 3))
    (grad,) = test_utils.numeric_grad(lambda a: a * a, [x])
    np.testing.assert_allclose(grad, 2 * x, rtol=1e-6)
    grads = test_utils.numeric_grad(lambda a: a * 2, {"a": x}, out_grads=[np.full((2, 3), 3.0)])
    np.testing.assert_allclose(grads["a"], np.full((2, 3), 6.0), rtol=1e-6)


def test_check_consistency_compares_the_engines():
    results = test_utils.check_consistency(
        lambda a, b: nd.broadcast_mul(a, b) + a, arg_params=[np.random.rand(2, 3),
                                                             np.random.rand(1, 3)])
    assert [r["config"]["engine"] for r in results] == ["NaiveEngine", "ThreadedEngine"]
    assert set(results[0]["grads"]) == {0, 1}


def test_callable_adapters_let_other_kinds_of_function_in(monkeypatch):
    class Squarer:
        pass

    def adapter(subject, location, aux_states):
        return (lambda x: x * x), location, aux_states

    monkeypatch.setattr(test_utils, "_CALLABLE_ADAPTERS", [])
    test_utils.register_callable_adapter(lambda f: isinstance(f, Squarer), adapter)
    (grad,) = test_utils.numeric_grad(Squarer(), [np.array([3.0])])
    np.testing.assert_allclose(grad, [6.0], rtol=1e-6)


def test_random_seed_repeats_and_restores_numpy_state():
    before = np.random.get_state()[1].copy()
    with test_utils.random_seed(123):
        first = np.random.rand(3), nd.random.uniform(shape=(3,)).asnumpy() \
            if hasattr(nd.random, "uniform") else None
    np.testing.assert_array_equal(np.random.get_state()[1], before)
    with test_utils.random_seed(123):
        second = np.random.rand(3), nd.random.uniform(shape=(3,)).asnumpy() \
            if hasattr(nd.random, "uniform") else None
    np.testing.assert_array_equal(first[0], second[0])
    if first[1] is not None:
        np.testing.assert_array_equal(first[1], second[1])


def test_with_seed_prints_the_seed_of_a_failure(capsys):
    drawn = []

    @test_utils.with_seed(42)
    def failing():
        drawn.append(np.random.rand())
        raise ValueError("boom")

    with pytest.raises(ValueError):
        failing()
    assert "seed 42" in capsys.readouterr().out
    with test_utils.random_seed(42):
        assert np.random.rand() == drawn[0]


def test_with_seed_works_bare_and_called():
    @test_utils.with_seed
    def bare():
        return np.random.rand()

    @test_utils.with_seed()
    def called():
        return np.random.rand()

    assert bare() == bare() and called() == called()


def test_choose_seed_follows_the_environment(monkeypatch):
    monkeypatch.delenv("MINIMX_TEST_SEED", raising=False)
    assert test_utils.choose_seed("a") == test_utils.choose_seed("a")
    assert test_utils.choose_seed("a") != test_utils.choose_seed("b")
    monkeypatch.setenv("MINIMX_TEST_SEED", "77")
    assert test_utils.choose_seed("a") == 77


def test_default_context_follows_the_environment(monkeypatch):
    monkeypatch.setattr(test_utils, "_test_context", None)
    monkeypatch.setenv("MINIMX_TEST_CTX", "gpu:1")
    assert test_utils.default_context() == mx.gpu(1)
    monkeypatch.delenv("MINIMX_TEST_CTX")
    assert test_utils.default_context() == mx.current_context()


def test_set_default_context_sets_the_current_context(monkeypatch):
    monkeypatch.setattr(test_utils, "_test_context", None)
    previous = mx.current_context()
    try:
        test_utils.set_default_context(mx.cpu(1))
        assert test_utils.default_context() == mx.cpu(1)
        assert nd.zeros((1,)).context == mx.cpu(1)
    finally:
        test_utils.set_default_context(previous)
        test_utils._test_context = None


def test_engine_fixture_runs_on_the_named_engine(engine):
    assert mx.engine.get_engine().name == engine


def test_seed_fixture_seeds_numpy(minimx_seed):
    value = np.random.rand()
    with test_utils.random_seed(minimx_seed):
        assert np.random.rand() == value


def test_check_consistency_of_symbols_compares_every_configuration():
    data = mx.sym.Variable("data")
    configs = [{"ctx": mx.cpu(), "data": (3, 4), "type_dict": {"data": dtype}}
               for dtype in ("float64", "float32")]
    executors = test_utils.check_consistency([mx.sym.tanh(data), mx.sym.tanh(data)], configs)
    assert [e.arg_dict["data"].dtype for e in executors] == [np.float64, np.float32]
    with pytest.raises(AssertionError, match="output 0"):
        test_utils.check_consistency([mx.sym.tanh(data), mx.sym.sin(data)], configs,
                                     scale=3.0)


def test_a_bad_distribution_parameter_surfaces_at_the_sync_point():
    drawn = nd.random.normal(0, -1, shape=(2, 2))     # returns, as MXNet's
    product = nd.dot(nd.ones((2, 2)), drawn)
    with pytest.raises(mx.base.MXNetError, match="_random_normal: scale must be positive"):
        product.asnumpy()


# -- check_numeric_gradient's grad_nodes dict, against MXNet 1.9.1 -------------------------------
_NULL_GRAD_PROGRAM = r"""
import json
import numpy as np
from mx.test_utils import check_numeric_gradient
np.random.seed(3)
data, rois = mx.sym.Variable('data'), mx.sym.Variable('rois')
net = mx.sym.ROIPooling(data=data, rois=rois, pooled_size=(2, 2), spatial_scale=1)
x1 = np.random.rand(2, 1, 6, 6).astype('float32')
x2 = np.array([[0, 1.1, 1.1, 4.2, 4.2], [1, 0.6, 2.1, 5.2, 5.3]], dtype='float32')
result = {}
for name, nodes in [('rois null', {'data': 'write', 'rois': 'null'}),
                    ('rois null, data add', {'data': 'add', 'rois': 'null'}),
                    ('rois write', {'data': 'write', 'rois': 'write'})]:
    try:
        check_numeric_gradient(net, [x1, x2], grad_nodes=nodes, numeric_eps=1e-3, rtol=1e-1,
                               atol=1e-3)
        result[name] = 'passed'
    except AssertionError:
        result[name] = 'failed'
print(json.dumps(result))
"""


@pytest.mark.mxnet
def test_numeric_gradient_skips_null_inputs_as_mxnet(mxnet_python):
    import json
    import subprocess

    def program(package):
        return f"import {package} as mx\n" + _NULL_GRAD_PROGRAM.replace(
            "from mx.test_utils", f"from {package}.test_utils")
    done = subprocess.run([mxnet_python, "-c", program("mxnet")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    expected = json.loads(done.stdout.strip().splitlines()[-1])
    printed = []
    exec(program("minimx"), {"print": printed.append})
    assert json.loads(printed[-1]) == expected
    assert expected["rois null"] == "passed" and expected["rois write"] == "failed"


def test_numeric_gradient_refuses_an_unknown_grad_req():
    with pytest.raises(ValueError, match="invalid grad_req"):
        test_utils.check_numeric_gradient(lambda x: x * 2, [np.ones(3)], grad_nodes={0: "often"})


# -- MNIST and CIFAR-10 helpers reading the files in the working folder, against MXNet 1.9.1 ----
_DATASET_PROGRAM = r"""
import json, os
import numpy as np
result = {}
mnist = mx.test_utils.get_mnist()
result['get_mnist'] = {k: [str(v.dtype), list(v.shape), v.astype('float64').ravel().tolist()]
                       for k, v in sorted(mnist.items())}
result['get_mnist_ubyte'] = [mx.test_utils.get_mnist_ubyte(), sorted(os.listdir('data'))]
train, val = mx.test_utils.get_mnist_iterator(2, (784,))
result['iterator'] = [[b.data[0].shape, b.label[0].asnumpy().tolist()]
                      for it in (train, val) for b in it]
train, val = mx.test_utils.get_mnist_iterator(2, (1, 28, 28), num_parts=2, part_index=1)
result['iterator parts'] = [[b.data[0].shape, b.label[0].asnumpy().tolist()]
                            for it in (train, val) for b in it]
result['get_cifar10'] = [mx.test_utils.get_cifar10(), sorted(os.listdir('data/cifar'))]
result['download'] = mx.test_utils.download('http://example.com/a/t10k-labels-idx1-ubyte.gz')
print(json.dumps(result))
"""


def _idx_bytes(magic, array):
    import struct
    return struct.pack(f">{array.ndim + 1}I", magic, *array.shape) + array.tobytes()


@pytest.fixture
def mnist_folder(tmp_path):
    """A working folder as MXNet's helpers expect it: four *-ubyte.gz files (3 and 2 images
    of 28x28), data/mnist.zip with four idx files (5 and 4 images), data/cifar10.zip."""
    import gzip
    import zipfile
    rng = np.random.RandomState(7)
    for prefix, count in (("train", 3), ("t10k", 2)):
        images = rng.randint(0, 256, (count, 28, 28)).astype(np.uint8)
        labels = rng.randint(0, 10, count).astype(np.uint8)
        (tmp_path / f"{prefix}-images-idx3-ubyte.gz").write_bytes(
            gzip.compress(_idx_bytes(2051, images)))
        (tmp_path / f"{prefix}-labels-idx1-ubyte.gz").write_bytes(
            gzip.compress(_idx_bytes(2049, labels)))
    (tmp_path / "data").mkdir()
    with zipfile.ZipFile(tmp_path / "data" / "mnist.zip", "w") as archive:
        for prefix, count in (("train", 5), ("t10k", 4)):
            archive.writestr(f"{prefix}-images-idx3-ubyte", _idx_bytes(
                2051, rng.randint(0, 256, (count, 28, 28)).astype(np.uint8)))
            archive.writestr(f"{prefix}-labels-idx1-ubyte", _idx_bytes(
                2049, np.arange(count, dtype=np.uint8)))
    with zipfile.ZipFile(tmp_path / "data" / "cifar10.zip", "w") as archive:
        for name in ("train.rec", "test.rec", "train.lst", "test.lst"):
            archive.writestr(f"cifar/{name}", name)
    return tmp_path


@pytest.mark.mxnet
def test_dataset_helpers_read_the_working_folder_as_mxnet(mxnet_python, mnist_folder,
                                                          monkeypatch):
    """get_mnist (int8 labels, float32 images /255), get_mnist_ubyte and get_cifar10
    (unzipping data/*.zip), get_mnist_iterator (MNISTIter, flat unless 3-d, parts) and
    download (a file already present) give what MXNet 1.9.1's give."""
    import json
    import shutil
    import subprocess
    reference = mnist_folder.parent / "reference"
    shutil.copytree(mnist_folder, reference)
    done = subprocess.run([mxnet_python, "-c", "import mxnet as mx\n" + _DATASET_PROGRAM],
                          capture_output=True, text=True, timeout=300, cwd=reference)
    assert done.returncode == 0, done.stderr[-3000:]
    expected = json.loads(done.stdout.strip().splitlines()[-1])
    monkeypatch.chdir(mnist_folder)
    printed = []
    exec("import minimx as mx\n" + _DATASET_PROGRAM, {"print": printed.append})
    assert json.loads(printed[-1]) == expected
    assert expected["get_mnist"]["train_label"][0] == "int8"


def test_dataset_helpers_name_the_missing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MXNetError, match=r"train-labels-idx1-ubyte.gz does not exist.*"
                                         r"minimx does not download"):
        test_utils.get_mnist()
    with pytest.raises(MXNetError, match=r"data/train-images-idx3-ubyte does not exist.*"
                                         r"mnist.zip at .*data/mnist.zip"):
        test_utils.get_mnist_ubyte()
    with pytest.raises(MXNetError, match=r"data/cifar/train.rec does not exist"):
        test_utils.get_cifar10()
