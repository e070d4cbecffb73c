"""pytest plugin for running MXNet 1.9.1's own test files against minimx.

Loaded with ``-p mxsuite_plugin`` by tools/run_mxnet_tests.py.  Unless
``MXSUITE_TARGET=mxnet`` (the reference run), ``import mxnet`` resolves to minimx
(``minimx.install_as_mxnet``) before any test file is imported.  The ``nose`` stand-in
beside this file is on the path either way.  With ``MXSUITE_NUMPY1_NAMES=1`` (the runner's
``--numpy1-names``) the test files' host NumPy also answers the NumPy 1 names they call
(``numpy1_names.py``).
"""
import os


def pytest_configure(config):
    if os.environ.get("MXSUITE_NUMPY1_NAMES") == "1":
        import numpy1_names
        numpy1_names.apply()
    if os.environ.get("MXSUITE_TARGET", "minimx") == "minimx":
        import minimx
        minimx.install_as_mxnet(force=True)
