"""Names of MXNet's test_utils for parts minimx does not have: sparse storage.

Lesson: 02-ndarray-and-context.  minimx stores every array densely.  These names exist so
that test code importing them loads; calling them raises an error that names what is
missing.
"""
from ..base import MXNetError

__all__ = ["rand_sparse_ndarray", "create_sparse_array", "create_sparse_array_zd",
           "shuffle_csr_column_indices"]


def _sparse(name):
    def refuse(*args, **kwargs):
        storage = kwargs.get("stype", args[1] if len(args) > 1 else "sparse")
        raise MXNetError(f"{name}: storage type {storage!r} is not supported; minimx stores "
                         f"arrays densely ('default') only")
    refuse.__name__ = name
    return refuse


rand_sparse_ndarray = _sparse("rand_sparse_ndarray")
create_sparse_array = _sparse("create_sparse_array")
create_sparse_array_zd = _sparse("create_sparse_array_zd")
shuffle_csr_column_indices = _sparse("shuffle_csr_column_indices")
