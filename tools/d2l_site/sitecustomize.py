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

# Two changes to the book's ``d2l.mxnet`` as it loads (the same on both sides):
# - ``D2L_CPU_DEVICES=1``: ``d2l.try_all_gpus()`` gives ``[cpu()]`` on a machine without a GPU,
#   as its docstring says (d2l 1.0.3 returns ``[]``, and the pages that split batches over it
#   divide by zero): the recommender-system pages then run on the CPU.
# - ``D2L_PRINT_FIGURES=1``: the pages plot their training curves (``ProgressBoard.draw``,
#   ``Animator.add``) and print little; each curve's last point is printed when the page
#   ends (``d2l figure <n>: <label> = <value> at x = <x>``), so both sides' figures can be
#   compared from their output.
_CPU_DEVICES = os.environ.get("D2L_CPU_DEVICES") == "1"
_PRINT_FIGURES = os.environ.get("D2L_PRINT_FIGURES") == "1"


def _print_last_points(curves):
    for label, (x, y) in curves.items():
        print(f"d2l {label} = {y:.6g} at x = {x:.6g}")


def _record_figures(module):
    """Wrap the book's two plotting helpers to keep each curve's last point."""
    import atexit
    curves = {}                 # "figure N: label" -> (x, y), in the order first drawn
    figures = {}                # id of a board or animator -> (its number from 1, itself:
                                # kept, so that its id is not reused)
    atexit.register(_print_last_points, curves)

    def key(plot, label):
        number, _ = figures.setdefault(id(plot), (len(figures) + 1, plot))
        return f"figure {number}: {label}"

    def as_float(value):
        return float(value.item() if hasattr(value, "item") else value)

    draw = module.ProgressBoard.draw

    def recording_draw(self, x, y, label, every_n=1):
        curves[key(self, label)] = (as_float(x), as_float(y))
        return draw(self, x, y, label, every_n)

    module.ProgressBoard.draw = recording_draw
    init, add = module.Animator.__init__, module.Animator.add

    def recording_init(self, *args, legend=None, **kwargs):
        self._figure_labels = list(legend or [])
        init(self, *args, legend=legend, **kwargs)

    def recording_add(self, x, y):
        ys = y if hasattr(y, "__len__") else [y]
        xs = x if hasattr(x, "__len__") else [x] * len(ys)
        labels = getattr(self, "_figure_labels", [])
        for i, (a, b) in enumerate(zip(xs, ys)):
            if a is not None and b is not None:
                label = labels[i] if i < len(labels) else f"line {i}"
                curves[key(self, label)] = (as_float(a), as_float(b))
        return add(self, x, y)

    module.Animator.__init__, module.Animator.add = recording_init, recording_add


if _CPU_DEVICES or _PRINT_FIGURES:
    import importlib.abc
    import sys

    class _BookFinder(importlib.abc.MetaPathFinder):
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
                if _CPU_DEVICES:
                    gpus = module.try_all_gpus
                    module.try_all_gpus = lambda: gpus() or [module.cpu()]
                if _PRINT_FIGURES:
                    _record_figures(module)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _BookFinder())
