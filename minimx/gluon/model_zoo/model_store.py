"""Where pretrained parameter files live: ``$MXNET_HOME/models/<name>-<hash>.params``.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/model_store.py``, without the
download: MXNet's model store names each file after the model and the first eight hex
digits of its SHA-1 (``resnet18_v2-8aacf80f.params``).  ``get_model_file`` returns the
file of that model found in ``root`` (any hash, or none: ``resnet18_v2.params``), or
raises ``FileNotFoundError`` saying which file to put where.
"""
import glob
import os

__all__ = ["get_model_file", "purge", "default_root"]


def default_root():
    return os.path.join(os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")), "models")


def get_model_file(name, root=None):
    """The path of model ``name``'s parameter file in ``root`` (default
    ``$MXNET_HOME/models``)."""
    folder = os.path.expanduser(root or default_root())
    found = sorted(glob.glob(os.path.join(glob.escape(folder), f"{glob.escape(name)}-*.params")))
    plain = os.path.join(folder, f"{name}.params")
    if os.path.isfile(plain):
        found.append(plain)
    if found:
        return found[0]
    raise FileNotFoundError(
        f"pretrained parameters for {name} were not found: put MXNet's model-store file "
        f"{name}-<hash>.params (or {name}.params) in {folder}, or pass root= the folder that "
        f"holds it.  minimx does not download models; a file saved by MXNet's "
        f"net.save_parameters() for the same model works too.")


def purge(root=None):
    """Remove every ``.params`` file from ``root``."""
    folder = os.path.expanduser(root or default_root())
    for path in glob.glob(os.path.join(glob.escape(folder), "*.params")):
        os.remove(path)
