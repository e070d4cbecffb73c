"""minimx.compat: MXNet 1.x code runs unchanged, ``import mxnet`` giving minimx's modules.

Each case runs in a fresh interpreter, so that installing the alias never leaks into other
tests (and a fake "real MXNet" can be put on its path).
"""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_python(code, *args, cwd=None, env=None, check=True):
    done = subprocess.run([sys.executable, *args] if not code else
                          [sys.executable, "-c", textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={**os.environ, **(env or {})})
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_mxnet_names_are_minimx_objects():
    done = run_python("""
        import minimx
        minimx.install_as_mxnet()
        import mxnet as mx
        import mxnet.ndarray as nd
        from mxnet.gluon import nn
        from mxnet import autograd, gluon, base
        from mxnet.base import MXNetError
        import mxnet.gluon.data.vision as vision
        assert mx is minimx and nd is minimx.nd and nn is minimx.gluon.nn
        assert MXNetError is minimx.base.MXNetError and vision is minimx.gluon.data.vision
        assert mx.nd.ones((2,)).sum().asscalar() == 2.0
        try:
            import mxnet.no_such_part
        except ImportError as error:
            print("ImportError:", error)
        """)
    assert "No module named 'mxnet.no_such_part'" in done.stdout


def test_a_real_mxnet_is_not_shadowed_unless_asked(tmp_path):
    fake = tmp_path / "mxnet"
    fake.mkdir()
    (fake / "__init__.py").write_text("REAL = True\n")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), ROOT])}
    refused = run_python("""
        import minimx
        try:
            minimx.install_as_mxnet()
        except ImportError as error:
            print(error)
        import mxnet
        print("real:", getattr(mxnet, "REAL", False))
        """, env=env)
    assert "a real MXNet is installed" in refused.stdout and "real: True" in refused.stdout
    forced = run_python("""
        import minimx
        minimx.install_as_mxnet(force=True)
        import mxnet
        print("minimx:", mxnet is minimx)
        """, env=env)
    assert "minimx: True" in forced.stdout


def test_uninstall_forgets_the_alias():
    run_python("""
        import sys, minimx
        minimx.install_as_mxnet()
        import mxnet.gluon
        minimx.compat.uninstall_as_mxnet()
        assert "mxnet" not in sys.modules and "mxnet.gluon" not in sys.modules
        try:
            import mxnet
        except ImportError:
            pass
        else:
            assert mxnet is not minimx
        """)


def test_the_runner_runs_a_script_with_its_arguments_and_folder(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import sys
        import mxnet as mx
        from mxnet import nd
        import helper                      # the script's own folder is importable
        print(__name__, sys.argv[1:], helper.VALUE + int(nd.ones((1,)).asscalar()))
        """))
    done = run_python(None, "-m", "minimx.compat", str(script), "--epochs", "2",
                      cwd=str(tmp_path), env={"PYTHONPATH": ROOT})
    assert done.stdout.split("\n")[0] == "__main__ ['--epochs', '2'] 42"


def test_the_notebook_extension_installs_the_alias():
    run_python("""
        import minimx.compat
        minimx.compat.load_ipython_extension(None)
        import mxnet
        assert mxnet is minimx
        from IPython import display
        assert hasattr(display, "set_matplotlib_formats")
        """ if importlib.util.find_spec("IPython") else """
        import minimx.compat
        minimx.compat.load_ipython_extension(None)
        import mxnet
        assert mxnet is minimx
        """)


@pytest.mark.skipif(importlib.util.find_spec("d2lzh") is None,
                    reason="d2lzh is not installed (scripts/test.sh installs it)")
def test_the_d2l_helper_package_imports_on_minimx():
    done = run_python("""
        import minimx
        minimx.compat.prepare_course_environment()
        import d2lzh as d2l
        from mxnet import nd
        X, K = nd.arange(9).reshape((3, 3)), nd.array([[0, 1], [2, 3]])
        print(d2l.corr2d(X, K).asnumpy().tolist())
        print(type(d2l.try_gpu()).__name__, d2l.try_gpu())
        """, env={"MPLBACKEND": "Agg"})
    lines = done.stdout.splitlines()
    assert lines[0] == "[[19.0, 25.0], [37.0, 43.0]]"
    assert lines[1] == "Context cpu(0)"


# -- numpy 1's one-element conversions (minimx.compat.numpy1) ---------------------------------
# The same code runs on MXNet 1.9.1 (numpy 1.23.5) and on minimx under install_as_mxnet()
# (whatever numpy is installed): every line must agree.  A result prints as its type and str
# (numpy 2 changed the repr of scalars); an error as its type, and for the conversions the
# compat layer answers (float, int, complex and what goes through them) also its message.
# The compat array's own class name reads as numpy's (Python's messages name the type).
CONVERSION_PROBE = """
import math, operator, pickle, warnings
try:
    import minimx
    minimx.install_as_mxnet()
except ImportError:
    pass
import mxnet as mx
import numpy as np
warnings.simplefilter("error")
OURS = {"float", "int", "complex", "%f", "%d", "%.3e", "math.exp"}
cases = {
    "float": float, "int": int, "complex": complex, "%f": lambda a: "%f" % a,
    "%d": lambda a: "%d" % a, "%.3e": lambda a: "%.3e" % a, "%s": lambda a: "%s" % a,
    "%r": lambda a: "%r" % a, "math.exp": lambda a: round(math.exp(a), 5),
    "epoch line": lambda a: "epoch %d, loss %f" % (3, a),
    "index": operator.index, "list[a]": lambda a: [10, 20, 30][a], "range": range,
    "round": round, "{:.3f}": "{:.3f}".format, "{}": "{}".format, "bool": bool,
    "np.float64": np.float64, "np.float32": lambda a: repr(np.float32(a)),
    "repr": repr, "sum": lambda a: a.sum(), "mean": lambda a: np.mean(a),
    "a / 2 %f": lambda a: "%f" % (a / 2), "a * 2": lambda a: repr(a * 2),
    "pickle": lambda a: repr(pickle.loads(pickle.dumps(a))), "item": lambda a: a.item(),
}
arrays = {"[1.5]": mx.nd.array([1.5]), "mean": mx.nd.array([[1, 2], [3, 4]]).mean(),
          "int32": mx.nd.array([2], dtype="int32"),
          "[[2.5]] f64": mx.nd.array([[2.5]], dtype="float64"),
          "uint8 (1,1,1)": mx.nd.array([[[7]]], dtype="uint8"), "two": mx.nd.array([1, 2])}
for array_name, array in arrays.items():
    value = array.asnumpy()
    for case_name, case in cases.items():
        try:
            result = case(value)
            kind = "ndarray" if isinstance(result, np.ndarray) else type(result).__name__
            line = f"{kind} {result}"
        except Exception as error:
            message = str(error).replace("Numpy1Array", "numpy.ndarray")
            line = type(error).__name__ + (f": {message}" if case_name in OURS else "")
        print(f"{array_name} | {case_name} | {line}")
"""


def test_one_element_arrays_convert_as_on_mxnet_with_numpy_1(mxnet_python):
    reference = subprocess.run([mxnet_python, "-c", CONVERSION_PROBE], capture_output=True,
                               text=True, timeout=300)
    assert reference.returncode == 0, reference.stderr
    ours = run_python(CONVERSION_PROBE, env={"PYTHONPATH": ROOT})
    expected, got = reference.stdout.splitlines(), ours.stdout.splitlines()
    assert len(expected) == len(got) == 6 * 26       # arrays x cases
    differ = [(want, have) for want, have in zip(expected, got) if want != have]
    assert not differ, differ
    assert "[1.5] | epoch line | str epoch 3, loss 1.500000" in got
    assert "mean | %d | str 2" in got


def test_one_element_conversions_only_under_the_compat_layer():
    done = run_python("""
        import math, pickle
        import numpy as np
        import minimx
        from minimx.compat.numpy1 import Numpy1Array, numpy_refuses_one_element_arrays
        loss = minimx.nd.array([[1, 2], [3, 4]]).mean()
        assert type(loss.asnumpy()) is np.ndarray          # plain import: numpy's own arrays
        minimx.install_as_mxnet()
        value = loss.asnumpy()
        refuses = numpy_refuses_one_element_arrays()
        assert (type(value) is Numpy1Array) == refuses
        print("epoch %d, loss %f" % (1, value), int(value), complex(value),
              round(math.exp(value), 3), float(value / 2))
        for refused in (lambda: "{:.3f}".format(value), lambda: [1, 2, 3][value],
                        lambda: round(value), lambda: float(minimx.nd.ones(2).asnumpy())):
            try:
                refused()
            except TypeError as error:
                print("TypeError:", error)
        assert type(value.sum()) is np.float32 and type(np.mean(value)) is np.float32
        assert repr(value) == "array([2.5], dtype=float32)"
        assert type(pickle.loads(pickle.dumps(value))) is np.ndarray
        assert type(np.asarray(loss)) is np.ndarray
        minimx.compat.uninstall_as_mxnet()
        assert type(loss.asnumpy()) is np.ndarray
        """, env={"PYTHONPATH": ROOT})
    lines = done.stdout.splitlines()
    assert lines[0] == "epoch 1, loss 2.500000 2 (2.5+0j) 12.182 1.25"
    assert lines[1].startswith("TypeError: unsupported format string passed to")
    assert lines[2] == "TypeError: only integer scalar arrays can be converted to a scalar index"
    assert lines[3].startswith("TypeError: type") and "__round__" in lines[3]
    assert lines[4] in ("TypeError: only size-1 arrays can be converted to Python scalars",
                        "TypeError: only 0-dimensional arrays can be converted to Python scalars",
                        # numpy 2.0-2.2 (only warns on one element, so the layer is off)
                        "TypeError: only length-1 arrays can be converted to Python scalars")
    assert len(lines) == 5


def test_the_runner_runs_numpy_1_formatting_on_any_numpy(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        from mxnet import nd
        loss = nd.array([0.25, 0.75])
        print('epoch %d, loss %f' % (1, loss.mean().asnumpy()))
        """))
    done = run_python(None, "-m", "minimx.compat", str(script), env={"PYTHONPATH": ROOT})
    assert done.stdout == "epoch 1, loss 0.500000\n"


# -- Dive into Deep Learning's English edition (d2l.ai, v1.0.3): its helper module -------------
D2L_EN_TAG = "v1.0.3"
D2L_EN_MIRROR = "/work/.mirror/d2l-ai+d2l-en/repo"
D2L_EN_NEEDS = ("pandas", "requests", "IPython", "matplotlib", "matplotlib_inline")


@pytest.fixture
def d2l_en_path(tmp_path):
    """A folder holding the book's ``d2l`` package (``d2l/__init__.py``, ``d2l/mxnet.py``) of
    v1.0.3: from a git mirror of d2l-ai/d2l-en, or a checkout named by ``MINIMX_D2L_EN``;
    skipped when neither is here or its imports are missing (none of its code is kept)."""
    missing = [name for name in D2L_EN_NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"d2l 1.0.3 imports {', '.join(missing)}, not installed here")
    checkout = os.environ.get("MINIMX_D2L_EN")
    if checkout and os.path.exists(os.path.join(checkout, "d2l", "mxnet.py")):
        return checkout
    package = tmp_path / "d2l"
    package.mkdir()
    for name in ("__init__.py", "mxnet.py"):
        done = subprocess.run(["git", "-C", D2L_EN_MIRROR, "show", f"{D2L_EN_TAG}:d2l/{name}"],
                              capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"no d2l-en {D2L_EN_TAG} here (set MINIMX_D2L_EN to a checkout)")
        (package / name).write_bytes(done.stdout)
    return str(tmp_path)


def test_the_d2l_en_helper_module_trains_on_minimx(d2l_en_path):
    done = run_python("""
        import minimx
        minimx.compat.prepare_course_environment()
        from d2l import mxnet as d2l
        from mxnet import autograd, gluon, init, np, npx
        npx.set_np()

        class Spec(d2l.HyperParameters):
            def __init__(self, a, b=2):
                self.save_hyperparameters(ignore=["b"])
        spec = Spec(1)
        print(spec.a, hasattr(spec, "b"))

        class Linear(d2l.Module):                 # a d2l.Module trained by d2l.Trainer
            def __init__(self, lr):
                super().__init__()
                self.save_hyperparameters()
                self.net = gluon.nn.Dense(1)
                self.net.initialize(init.Constant(0.0))
            def forward(self, X):
                return self.net(X)
            def loss(self, y_hat, y):
                return ((y_hat - y) ** 2 / 2).mean()
            def configure_optimizers(self):
                return gluon.Trainer(self.collect_params(), "sgd", {"learning_rate": self.lr})
        data = d2l.SyntheticRegressionData(w=np.array([2, -3.4]), b=4.2, noise=0.0)
        model = Linear(lr=0.1)
        d2l.Trainer(max_epochs=3).fit(model, data)
        w, b = model.net.weight.data(), model.net.bias.data()
        print(type(w).__name__, float(np.abs(w.reshape(-1) - data.w).max()) < 1e-2,
              abs(float(b[0]) - 4.2) < 1e-2)

        class Softmax(d2l.Classifier):            # a d2l.Classifier on a DataModule's loader
            def __init__(self, lr):
                super().__init__()
                self.save_hyperparameters()
                self.net = gluon.nn.Dense(3)
                self.net.initialize(init.Normal(0.01))
            def forward(self, X):
                return self.net(X)
        class Blobs(d2l.DataModule):
            def __init__(self, batch_size=16):
                super().__init__()
                self.save_hyperparameters()
                labels = np.arange(300) % 3
                centers = np.array([[0.0, 4.0], [4.0, 0.0], [-4.0, -4.0]])
                self.X = centers[labels] + np.random.normal(0, 0.5, (300, 2))
                self.y = labels.astype(np.int32)
            def get_dataloader(self, train):
                i = slice(0, 240) if train else slice(240, None)
                return self.get_tensorloader((self.X, self.y), train, i)
        blobs = Blobs()
        classifier = Softmax(lr=0.1)
        d2l.Trainer(max_epochs=3).fit(classifier, blobs)
        X, y = next(iter(blobs.val_dataloader()))
        print(type(X).__name__, type(y).__name__, float(classifier.accuracy(classifier(X), y)))

        print(d2l.corr2d(np.arange(9).reshape(3, 3), np.array([[0, 1], [2, 3]])).tolist())
        print(d2l.try_gpu(), d2l.num_gpus(), d2l.try_all_gpus())
        print(d2l.masked_softmax(np.ones((2, 2, 4)), np.array([1, 3])).asnumpy().astype("float64").round(3).tolist())
        """, env={"MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(
            [d2l_en_path, ROOT, os.environ.get("PYTHONPATH", "")])})
    lines = done.stdout.replace("\x1b[2K", "").split("\n")
    lines = [line for line in lines if line and not line.startswith("<Figure")]
    assert lines[0] == "1 False"
    assert lines[1] == "ndarray True True"
    kinds, accuracy = lines[2].rsplit(" ", 1)
    assert kinds == "ndarray ndarray" and float(accuracy) > 0.9
    assert lines[3] == "[[19.0, 25.0], [37.0, 43.0]]"
    assert lines[4] == "cpu(0) 0 []"
    third = [0.333, 0.333, 0.333, 0.0]
    assert lines[5] == str([[[1.0, 0.0, 0.0, 0.0]] * 2, [third] * 2])
