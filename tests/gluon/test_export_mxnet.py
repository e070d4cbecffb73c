"""Export / import round trips between minimx and MXNet 1.9.1 (issue 4).

The network (Conv2D, BatchNorm, relu, Dropout, Dense) comes from
tests/fixtures/make_gluon_export.py, which also made the committed MXNet files.
"""
import importlib.util
import os
import subprocess
import textwrap

import numpy as np

import minimx as mx

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


def _maker():
    spec = importlib.util.spec_from_file_location(
        "make_gluon_export", os.path.join(FIXTURES, "make_gluon_export.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = _maker()


def _minimx_net():
    net = MAKER.build(mx)
    net.initialize()
    MAKER.set_values(net, mx)
    return net


def _run_mxnet(mxnet_python, tmp_path, body):
    """Run ``body`` under MXNet 1.9.1 with the fixture maker importable as ``maker``."""
    script = tmp_path / "run_mxnet.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\nimport mxnet as mx\n"
                      "import make_gluon_export as maker\n" % FIXTURES + textwrap.dedent(body))
    done = subprocess.run([mxnet_python, str(script), str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


def test_mxnet_export_imports_into_minimx(mxnet_python):
    """(a) MXNet's -symbol.json and -0000.params give MXNet's output in minimx."""
    saved = mx.nd.load(MAKER.IO_FILE)
    block = mx.gluon.SymbolBlock.imports(MAKER.PREFIX + "-symbol.json", ["data"],
                                         MAKER.PREFIX + "-0000.params")
    out = block(saved["input"])
    np.testing.assert_allclose(out.asnumpy(), saved["output"].asnumpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(saved["input"].asnumpy(), MAKER.example_input())


def test_minimx_network_matches_mxnet_output():
    """The same architecture and values built in minimx agree with MXNet's saved output."""
    saved = mx.nd.load(MAKER.IO_FILE)
    net = _minimx_net()
    imperative = net(mx.nd.array(MAKER.example_input())).asnumpy()
    net.hybridize()
    hybrid = net(mx.nd.array(MAKER.example_input())).asnumpy()
    np.testing.assert_allclose(imperative, saved["output"].asnumpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(hybrid, imperative, rtol=1e-6, atol=1e-6)


def test_minimx_export_imports_into_mxnet(mxnet_python, tmp_path):
    """(b) minimx's net.export loads in MXNet via SymbolBlock.imports with the same output."""
    net = _minimx_net()
    net.hybridize()
    x = mx.nd.array(MAKER.example_input())
    ours = net(x).asnumpy()
    net.export(str(tmp_path / "ours"), epoch=0)
    assert (tmp_path / "ours-symbol.json").exists() and (tmp_path / "ours-0000.params").exists()
    _run_mxnet(mxnet_python, tmp_path, """
        folder = sys.argv[1]
        block = mx.gluon.SymbolBlock.imports(folder + "/ours-symbol.json", ["data"],
                                             folder + "/ours-0000.params")
        out = block(mx.nd.array(maker.example_input()))
        mx.nd.save(folder + "/theirs.nd", [out])
    """)
    theirs = mx.nd.load(str(tmp_path / "theirs.nd"))[0].asnumpy()
    np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-5)


def test_save_parameters_both_ways(mxnet_python, tmp_path):
    """(c) minimx save_parameters -> MXNet load_parameters, and MXNet's file -> minimx."""
    net = _minimx_net()
    x = mx.nd.array(MAKER.example_input())
    ours = net(x).asnumpy()
    net.save_parameters(str(tmp_path / "ours.params"))
    _run_mxnet(mxnet_python, tmp_path, """
        folder = sys.argv[1]
        net = maker.build(mx)
        net.load_parameters(folder + "/ours.params")
        x = mx.nd.array(maker.example_input())
        mx.nd.save(folder + "/theirs.nd", [net(x)])
        fresh = maker.build(mx)
        fresh.initialize(mx.init.Uniform(1.0))
        fresh.collect_params()["net_batchnorm0_running_mean"].set_data(mx.nd.ones((4,)) * 0.3)
        mx.nd.save(folder + "/fresh_out.nd", [fresh(x)])
        fresh.save_parameters(folder + "/theirs.params")
    """)
    theirs = mx.nd.load(str(tmp_path / "theirs.nd"))[0].asnumpy()
    np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-5)

    loaded = MAKER.build(mx)
    loaded.load_parameters(str(tmp_path / "theirs.params"), ctx=x.context)
    expected = mx.nd.load(str(tmp_path / "fresh_out.nd"))[0].asnumpy()
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5, atol=1e-5)
    assert not np.allclose(expected, ours)
