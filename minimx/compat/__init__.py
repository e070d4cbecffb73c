"""Run MXNet 1.x code unchanged on minimx: ``import mxnet`` resolves to minimx's modules.

Lesson: 01-overview.  Lessons write ``import minimx as mx``; a course's existing code says
``import mxnet``.  Three opt-in ways make that code run on minimx, in the spirit of
``pymysql.install_as_MySQLdb()``:

* ``minimx.install_as_mxnet()`` in Python: afterwards ``import mxnet``,
  ``from mxnet.gluon import nn``, ``import mxnet.ndarray as nd`` and
  ``mxnet.base.MXNetError`` give minimx's modules -- the very same objects;
* ``python -m minimx.compat script.py [args...]`` runs a script that way;
* ``%load_ext minimx.compat`` in a notebook (IPython), before the first ``import mxnet``.

A real MXNet the user installed is never shadowed unless asked (``force=True``,
``--force``): the finder only answers for ``mxnet`` when no other ``mxnet`` can be
imported.  A package built on MXNet, such as ``d2lzh``, then imports too.

Code of MXNet's era was written for numpy 1 (MXNet 1.9.1 needs numpy < 2) and converts an
array of one element to a number: ``'epoch %d, loss %f' % (epoch, loss.mean().asnumpy())``,
where MXNet's full reduction has shape ``(1,)``.  numpy 2 refuses that ("only 0-dimensional
arrays can be converted to Python scalars"), which would make such a course pin ``numpy<2``
-- and minimx's point is that the course runs on today's Python and libraries.  So on a numpy
that refuses, ``install_as_mxnet()`` (and with it the runner and the notebook extension) makes
``NDArray.asnumpy()`` return ``minimx.compat.numpy1.Numpy1Array``: a numpy array whose
``float``/``int``/``complex`` accept one element, exactly as numpy 1.23.5 did, and nothing
more.  Plain ``import minimx`` keeps numpy's own arrays; ``uninstall_as_mxnet()`` puts them
back.

The runner and the notebook extension also put back ``IPython.display.set_matplotlib_formats``
(removed in IPython 8.x/9) when it is missing: course code calls it.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys

from ..ndarray.ndarray import set_asnumpy_view_type
from .numpy1 import Numpy1Array, numpy_refuses_one_element_arrays

__all__ = ["install_as_mxnet", "uninstall_as_mxnet", "is_installed", "main",
           "load_ipython_extension", "Numpy1Array"]

ALIAS = "mxnet"
TARGET = "minimx"


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already imported minimx module for an ``mxnet...`` name."""

    def __init__(self, target_name):
        self.target_name = target_name
        self.target_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target_name)
        self.target_spec = module.__spec__
        return module

    def exec_module(self, module):
        """Nothing to run: the minimx module is imported already.  The import system has
        just given it the alias's spec: it gets its own back (a part that ``import minimx``
        leaves for first use, such as ``minimx.io``, may be imported first as ``mxnet.io``)."""
        module.__spec__ = self.target_spec


class MXNetAliasFinder(importlib.abc.MetaPathFinder):
    """``mxnet`` and ``mxnet.<part>`` are ``minimx`` and ``minimx.<part>``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
        target_spec = importlib.util.find_spec(target_name)
        if target_spec is None:
            return None                 # minimx has no such part: the usual ImportError
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(target_name), origin=target_spec.origin,
            is_package=target_spec.submodule_search_locations is not None)


_FINDER = MXNetAliasFinder()


def _real_mxnet_spec():
    """The spec of an MXNet installed beside minimx, or None."""
    for finder in sys.meta_path:
        if finder is _FINDER or not hasattr(finder, "find_spec"):
            continue
        spec = finder.find_spec(ALIAS, None)
        if spec is not None:
            return spec
    return None


def is_installed():
    """Whether ``import mxnet`` resolves to minimx now."""
    return _FINDER in sys.meta_path


def install_as_mxnet(force=False):
    """Make ``import mxnet`` (and every ``mxnet.<part>``) import minimx's modules.

    Raises ``ImportError`` if a real MXNet is installed, unless ``force=True``; returns
    the ``minimx`` module.  ``uninstall_as_mxnet()`` undoes it.
    """
    import minimx
    if is_installed():
        return minimx
    loaded = sys.modules.get(ALIAS)
    if loaded is not None and loaded is not minimx:
        if not force:
            raise ImportError(f"install_as_mxnet: a real MXNet is already imported "
                              f"({getattr(loaded, '__file__', loaded)}); restart Python, or "
                              f"pass force=True to replace it")
        for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
            del sys.modules[name]
    if not force:
        spec = _real_mxnet_spec()
        if spec is not None:
            raise ImportError(f"install_as_mxnet: a real MXNet is installed "
                              f"({spec.origin}); minimx will not shadow it.  Pass force=True "
                              f"(python -m minimx.compat --force) to run this code on minimx")
    sys.meta_path.insert(0, _FINDER)
    _alias_loaded_modules()
    if numpy_refuses_one_element_arrays():
        set_asnumpy_view_type(Numpy1Array)
    return minimx


def _alias_loaded_modules():
    """Register the minimx modules imported so far under their mxnet names too."""
    for name, module in list(sys.modules.items()):
        if module is not None and (name == TARGET or name.startswith(TARGET + ".")):
            sys.modules.setdefault(ALIAS + name[len(TARGET):], module)


def uninstall_as_mxnet():
    """Stop resolving ``mxnet`` to minimx (the aliases already imported are dropped) and
    let ``asnumpy()`` return numpy's own arrays again."""
    set_asnumpy_view_type(None)
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        module = sys.modules[name]
        if getattr(module, "__name__", "").startswith(TARGET):
            del sys.modules[name]


# -- help for code of MXNet's era on today's libraries --------------------------------------
def _restore_set_matplotlib_formats():
    """``IPython.display.set_matplotlib_formats`` (course code calls it; newer IPython
    moved it to ``matplotlib_inline.backend_inline``)."""
    try:
        from IPython import display
    except ImportError:
        return
    if hasattr(display, "set_matplotlib_formats"):
        return
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:
        return
    display.set_matplotlib_formats = set_matplotlib_formats


def prepare_course_environment(force=False):
    """What the runner and the notebook extension do: install the alias (and numpy 1's
    one-element conversions) and restore the removed IPython helper."""
    install_as_mxnet(force=force)
    _restore_set_matplotlib_formats()


def load_ipython_extension(ipython):
    """``%load_ext minimx.compat``: ``import mxnet`` now means minimx in this kernel."""
    prepare_course_environment(force=bool(os.environ.get("MINIMX_COMPAT_FORCE")))


def main(argv=None):
    """``python -m minimx.compat [--force] script.py [args...]``."""
    import argparse          # here: a plain `import minimx` does not need it (~20 ms)
    parser = argparse.ArgumentParser(
        prog="python -m minimx.compat",
        description="Run an MXNet 1.x script on minimx: `import mxnet` imports minimx.")
    parser.add_argument("--force", action="store_true",
                        help="run on minimx even when a real MXNet is installed")
    parser.add_argument("script", help="the Python file to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    options = parser.parse_args(argv)
    prepare_course_environment(force=options.force)
    sys.argv = [options.script, *options.args]
    script_dir = os.path.dirname(os.path.abspath(options.script))
    sys.path.insert(0, script_dir)
    runpy.run_path(options.script, run_name="__main__")
    return 0
