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
