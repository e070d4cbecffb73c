"""``nd.linalg``: linear algebra on (batches of) matrices, MXNet's ``_linalg_<name>`` operators.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/ndarray/linalg.py``: every
``_linalg_<name>`` operator of the registry is generated here as ``<name>`` (``gemm2``,
``potrf``, ``trsm`` ...).
"""
__all__ = []
