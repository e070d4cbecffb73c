"""pytest plugin for running MXNet 1.9.1's own test files against minimx.

Loaded with ``-p mxsuite_plugin`` by tools/run_mxnet_tests.py.  Unless
``MXSUITE_TARGET=mxnet`` (the reference run), ``import mxnet`` resolves to minimx
(``minimx.install_as_mxnet``) before any test file is imported.  The ``nose`` stand-in
beside this file is on the path either way.
"""
import os


def pytest_configure(config):
    if os.environ.get("MXSUITE_TARGET", "minimx") == "minimx":
        import minimx
        minimx.install_as_mxnet(force=True)
