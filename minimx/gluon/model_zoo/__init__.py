"""``gluon.model_zoo``: the classic image-classification networks, by name.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/model_zoo/``.  ``vision.get_model(name)``
(or ``vision.resnet18_v2()`` ...) builds the network with MXNet's layer structure and
parameter names, so a parameter file of MXNet's model store loads into it unchanged.
``pretrained=True`` reads that file from disk (``model_store.get_model_file``); minimx
never downloads one.
"""
from . import model_store, vision

__all__ = ["model_store", "vision"]
