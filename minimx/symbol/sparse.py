"""``sym.sparse``: operators on compressed storage in graphs -- not part of minimx.

Lesson: 07-symbolic-programming.  minimx's graphs compute on dense arrays only (sparse
arrays are imperative: ``nd.sparse``); any ``sym.sparse.<name>`` raises an error saying so.
"""
from ..base import MXNetError


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise MXNetError(f"sym.sparse.{name}: sparse storage (csr, row_sparse) is not supported; "
                     f"minimx's graphs are dense ('default') only; nd.sparse.{name} works "
                     f"on NDArrays")
