"""Adding rows into a table at repeated indices: the backward of a lookup (Embedding, take).

Lesson: 04-autograd.  ``out[r] += values[i]`` for every ``i`` with ``rows[i] == r`` is what
NumPy's ``add.at`` does, one element at a time, and slowly: Embedding's backward of 30,000
ids by 100 features takes 28 ms on NumPy 2.4 and 140 ms on NumPy 1.23 (2-core machine).
The same sum is a product with a one-hot matrix, ``onehot(rows).T @ values``, which SciPy's
sparse kernels compute in 0.8 ms.  They add each id's rows in index order, starting from
zero, exactly as ``add.at`` does, so the result is the same bit for bit
(tests/op/test_scatter_kernels.py).  Small gradients keep ``add.at`` (``SPARSE_FROM``),
and so do other array modules (CuPy's ``add.at`` uses atomic adds on the GPU).
"""
import numpy as np

__all__ = ["add_rows"]

# Values from which the one-hot product is used.  It is faster from about 4,000 values, but
# its first call imports scipy.sparse (0.19 s), which a small gradient takes long to win
# back: at 10,240 values (a bucketing LSTM's 16 x 20 ids x 32) add.at takes 92-135 us and
# the product 42, at 35,840 316 us against 47 (NumPy 2.4, one core).  From 16,384 values
# the import is repaid within about a thousand steps.
SPARSE_FROM = 16384
_SPARSE_DTYPES = (np.float32, np.float64)


def add_rows(xp, count, rows, values):
    """A ``(count, *values.shape[1:])`` array whose row ``r`` is the sum, in index order, of
    the ``values[i]`` with ``rows[i] == r`` (``rows``: 1-D ints in ``[0, count)``)."""
    tail = tuple(values.shape[1:])
    small = values.size < SPARSE_FROM or not values.size      # (nothing to add: add.at)
    if xp is not np or small or values.dtype.type not in _SPARSE_DTYPES:
        out = xp.zeros((count,) + tail, dtype=values.dtype)
        xp.add.at(out, rows, values)
        return out
    import scipy.sparse          # (loaded on first use: most programs never need it)
    n = len(rows)
    onehot = scipy.sparse.csr_matrix((np.ones(n, values.dtype), rows, np.arange(n + 1)),
                                     shape=(n, count))
    summed = onehot.T @ values.reshape(n, -1)          # CSC times dense: index order
    return np.asarray(summed, dtype=values.dtype).reshape((count,) + tail)
