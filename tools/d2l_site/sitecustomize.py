"""Run Dive into Deep Learning's pages with no network: put this folder on PYTHONPATH.

The book's ``d2l.download`` checks a file's sha1 against ``d2l.DATA_HUB`` and, when it does
not match (a stand-in never does), fetches the URL with ``requests.get``.  Here that call
hands back the file of the same name in ``$D2L_STANDINS`` (written by
``tools/d2l_standins.py``), so the page reads the stand-in as if it were downloaded.

With ``D2L_ACCEPT_MXNET_HOME=1`` (the MXNet 1.9.1 side only), MXNet's own dataset classes
(FashionMNIST, MNIST) accept the stand-in files under ``$MXNET_HOME`` without their sha1.
"""
import os

_STANDINS = os.environ.get("D2L_STANDINS")

try:
    import requests as _requests
except ImportError:
    _requests = None


class _LocalResponse:
    status_code = 200

    def __init__(self, path):
        with open(path, "rb") as file:
            self.content = file.read()


if _STANDINS and _requests is not None:
    _network_get = _requests.get

    def _standin_get(url, *args, **kwargs):
        path = os.path.join(_STANDINS, str(url).rsplit("/", 1)[-1])
        if os.path.exists(path):
            return _LocalResponse(path)
        return _network_get(url, *args, **kwargs)

    _requests.get = _standin_get

_HOME = os.environ.get("MXNET_HOME")
if _HOME and os.environ.get("D2L_ACCEPT_MXNET_HOME") == "1":
    import mxnet.gluon.utils as _gluon_utils
    _check_sha1 = _gluon_utils.check_sha1

    def _accept_home(name, digest):
        if os.path.abspath(name).startswith(os.path.abspath(_HOME)):
            return True
        return _check_sha1(name, digest)

    _gluon_utils.check_sha1 = _accept_home

# With ``D2L_CPU_DEVICES=1`` (both sides), ``d2l.try_all_gpus()`` gives ``[cpu()]`` on a machine
# without a GPU, as its docstring says (d2l 1.0.3 returns ``[]``, and the pages that split
# batches over it divide by zero): the recommender-system pages then run on the CPU.
if os.environ.get("D2L_CPU_DEVICES") == "1":
    import importlib.abc
    import sys

    class _CpuDevicesFinder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name != "d2l.mxnet":
                return None
            sys.meta_path.remove(self)
            try:
                import importlib.util
                spec = importlib.util.find_spec(name)
            finally:
                sys.meta_path.insert(0, self)
            if spec is None:
                return None
            run_module = spec.loader.exec_module

            def exec_module(module):
                run_module(module)
                gpus = module.try_all_gpus
                module.try_all_gpus = lambda: gpus() or [module.cpu()]

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _CpuDevicesFinder())
