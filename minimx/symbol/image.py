"""``sym.image``: MXNet's ``_image_<name>`` operators (``to_tensor``, ``normalize``).

Lesson: 11-data.  Mirrors ``python/mxnet/symbol/image.py``: every ``_image_<name>``
operator of the registry is generated here as ``<name>``.
"""
__all__ = []
