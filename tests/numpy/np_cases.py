"""The np/npx calls the differential test asks MXNet 1.9.1 and minimx, as source text.

Generated from the adapter's tables (every unary, binary, comparison and reduction entry)
plus hand-written calls for creation, shapes, products, linear algebra, indexing and npx.
Each case is an expression over ``np``, ``npx`` and the arrays ``A`` (2x3 float32), ``V``
(vector of 3), ``I`` (2x3 int32), ``S`` (3x3 symmetric positive definite) and ``U`` (values
in (0, 1), for the functions with a restricted domain).
"""
from minimx.numpy import reductions, ufuncs

SETUP = """
A = np.array([[1.0, -2.0, 3.0], [4.0, 5.5, -6.0]])
V = np.array([0.5, -1.5, 2.0])
I = np.array([[1, 2, 3], [4, 5, 6]], dtype='int32')
S = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
U = np.array([[0.1, 0.3, 0.5], [0.7, 0.9, 0.2]])
"""

_DOMAIN_FROM_ONE = {"arccosh"}


def generated_cases():
    cases = {}
    for name in ufuncs.UNARY:
        argument = "U + 1" if name in _DOMAIN_FROM_ONE else "U"
        cases[f"unary-{name}"] = f"np.{name}({argument})"
    for name in [*ufuncs.BINARY, *ufuncs.BINARY_OPERATORS]:
        cases[f"binary-{name}"] = f"np.{name}(U + 1, np.array([2.0, 0.5, 1.5]))"
        cases[f"binary-{name}-scalar"] = f"np.{name}(U + 1, 2.0)"
    for name in ("lcm", "bitwise_and", "bitwise_or", "bitwise_xor"):
        cases[f"binary-{name}-int"] = f"np.{name}(I, np.array([4, -6, 9], dtype='int32'))"
        cases[f"binary-{name}-int-scalar"] = f"np.{name}(I, 6)"
    for name in ("bitwise_not", "invert"):
        cases[f"unary-{name}-int"] = f"np.{name}(I)"
    cases["unary-isnan-nan"] = "np.isnan(np.array([1.0, np.nan, np.inf]))"
    cases["unary-isposinf-inf"] = "np.isposinf(np.array([1.0, np.nan, np.inf, -np.inf]))"
    cases["around-decimals"] = "np.around(A * 1.234, 1)"
    cases["round-negative-decimals"] = "np.round(A * 12.34, -1)"
    for name in ufuncs.COMPARISONS:
        cases[f"compare-{name}"] = f"np.{name}(A, np.array([1.0, 5.5, 0.0]))"
    for name in reductions.REDUCTIONS:
        cases[f"reduce-{name}-all"] = f"np.{name}(A)"
        cases[f"reduce-{name}-axis"] = f"np.{name}(A, axis=1)"
        cases[f"reduce-{name}-keepdims"] = f"np.{name}(A, axis=0, keepdims=True)"
        cases[f"reduce-{name}-int"] = f"np.{name}(I)"
    return cases


HAND_WRITTEN = {
    # creation: dtypes and NumPy shapes
    "array-list": "np.array([1, 2, 3])",
    "array-int32": "np.array([1, 2], dtype='int32')",
    "array-scalar": "np.array(3.5)",
    "zeros": "np.zeros((2, 0))",
    "ones-int": "np.ones(3, dtype='int32')",
    "full": "np.full((2, 2), 7)",
    "arange": "np.arange(5)",
    "arange-step": "np.arange(1, 2, 0.25)",
    "linspace": "np.linspace(0, 1, 5)",
    "eye": "np.eye(3, k=1)",
    "zeros-like": "np.zeros_like(I)",
    "ones-like": "np.ones_like(A)",
    "full-like": "np.full_like(A, 2)",
    "meshgrid": "np.meshgrid(np.arange(2), np.arange(3))[0]",
    "meshgrid-ij": "np.meshgrid(np.arange(2), np.arange(3), indexing='ij')[1]",
    # reductions beyond the table
    "argmax": "np.argmax(A)",
    "argmax-axis": "np.argmax(A, axis=1)",
    "argmin": "np.argmin(A, 0)",
    "std": "np.std(A)",
    "var-ddof-past-count": "np.var(V, ddof=3)",
    "var-axis": "np.var(A, axis=0)",
    "cumsum": "np.cumsum(A)",
    "cumsum-axis": "np.cumsum(I, axis=1)",
    "method-sum": "A.sum()",
    "method-mean-axis": "A.mean(axis=0)",
    # shapes
    "reshape": "np.reshape(A, (3, 2))",
    "reshape-method": "A.reshape(-1)",
    "transpose": "np.transpose(A)",
    "T": "A.T",
    "expand-dims": "np.expand_dims(V, 0)",
    "squeeze": "np.squeeze(np.ones((1, 3, 1)))",
    "concatenate": "np.concatenate([A, A], axis=1)",
    "concatenate-none": "np.concatenate([A, A], axis=None)",
    "stack": "np.stack([V, V], axis=1)",
    "split": "np.split(np.arange(6), 3)[1]",
    "tile": "np.tile(V, 2)",
    "tile-zero": "np.tile(A, (2, 0))",
    "tril": "np.tril(A, 1)",
    "triu-vector": "np.triu(V)",
    "roll": "np.roll(A, 1, axis=1)",
    "roll-flat": "np.roll(A, -2)",
    "rot90": "np.rot90(A, -1)",
    "diagonal": "np.diagonal(S, 1)",
    "trace": "np.trace(S)",
    "trace-offset": "np.trace(A, -1)",
    "nan-to-num": "np.nan_to_num(np.array([np.nan, np.inf, -np.inf, 1.0]), nan=-1.0)",
    "flipud": "np.flipud(A)",
    "fliplr": "np.fliplr(A)",
    "column-stack": "np.column_stack([V, V * 2])",
    "dstack": "np.dstack([A, A])",
    "diff": "np.diff(A)",
    "diff-n2-axis0": "np.diff(np.concatenate([A, A * A]), n=2, axis=0)",
    "ediff1d": "np.ediff1d(A, to_end=np.array([9.0]), to_begin=np.array([1.0, 2.0]))",
    "append": "np.append(A, V)",
    "append-axis": "np.append(A, A, axis=1)",
    "logspace": "np.logspace(0, 2, 5)",
    "logspace-base": "np.logspace(1, 3, 3, endpoint=False, base=2.0)",
    "average-returned": "np.average(A, axis=1, returned=True)[1]",
    "average-1d-weights": "np.average(A, axis=1, weights=np.array([1.0, 2.0, 3.0]))",
    "matmul-0d": "np.matmul(np.array(2.0), A)",
    "average-1d-weights-returned": "np.average(A, axis=1, weights=np.array([1.0, 2.0, 3.0]), "
                                   "returned=True)[1]",
    "average-full-weights-returned": "np.average(A, axis=0, weights=A * A, returned=True)[1]",
    "clip-method": "A.clip(min=-1, max=2)",
    "squeeze-0d": "np.squeeze(np.array(2.0), -1)",
    "argmax-0d": "np.argmax(np.array(2.0), 0)",
    "any-empty": "np.any(np.zeros((2, 0)))",
    "all-empty": "np.all(np.zeros((0,)))",
    "all-axis": "np.all(A > -3, axis=1)",
    "split-past-end": "np.split(np.arange(4), [1, 9])[1]",
    "eye-no-columns": "np.eye(3, 0)",
    "cumsum-bool": "np.cumsum(np.array([True, True, False]))",
    "repeat": "np.repeat(A, 2, axis=0)",
    "where": "np.where(A > 0, A, 0.0)",
    "clip": "np.clip(A, -1, 2)",
    "swapaxes": "np.swapaxes(A, 0, 1)",
    "flip": "np.flip(A, 1)",
    "moveaxis": "np.moveaxis(np.ones((2, 3, 4)), 0, -1)",
    "broadcast-to": "np.broadcast_to(V, (2, 3))",
    # products
    "dot-vectors": "np.dot(V, V)",
    "dot-matrix": "np.dot(A, V)",
    "matmul": "np.matmul(A, S)",
    "matmul-batch": "np.matmul(np.ones((4, 2, 3)), S)",
    "tensordot": "np.tensordot(A, A, axes=([1], [1]))",
    "einsum": "np.einsum('ij,jk->ik', A, S)",
    "einsum-trace": "np.einsum('ii', S)",
    "einsum-optimize": "np.einsum('ij,jk,kl->il', A, S, S, optimize=True)",
    "einsum-ellipsis-implicit": "np.einsum('...j,j', A, V)",
    "einsum-repeated": "np.einsum('iij->j', np.stack([S, S * 2], axis=2))",
    "einsum-size-1-broadcast": "np.einsum('ij,ij->i', V.reshape(1, 3), A)",
    "outer": "np.outer(V, V)",
    "inner": "np.inner(A, A)",
    # linear algebra
    "norm": "np.linalg.norm(A)",
    "norm-axis": "np.linalg.norm(A, axis=1)",
    "norm-inf-name": "np.linalg.norm(A, 'inf', axis=1)",
    "norm-minus-inf-name": "np.linalg.norm(A, '-inf', axis=(1, 0))",
    "norm-2-matrix": "np.linalg.norm(A, 2)",
    "norm-p-keepdims": "np.linalg.norm(A, -3.2, axis=1, keepdims=True)",
    "svd-values": "np.linalg.svd(np.stack([A, A * 2]))[1]",
    "svd-reconstructed": "(lambda r: np.matmul(r[0] * r[1][None, :], r[2]))(np.linalg.svd(A))",
    "svd-tall": "np.linalg.svd(A.T)[1]",
    "inv": "np.linalg.inv(S)",
    "det": "np.linalg.det(S)",
    "cholesky": "np.linalg.cholesky(S)",
    "solve": "np.linalg.solve(S, V)",
    "eigh-values": "np.linalg.eigh(S)[0]",
    "eigh-upper": "np.linalg.eigh(np.array([[2.0, 5.0], [1.0, 3.0]]), UPLO='U')[0]",
    "eigvalsh-lower": "np.linalg.eigvalsh(np.array([[2.0, 5.0], [1.0, 3.0]]))",
    "eigvalsh-int": "np.linalg.eigvalsh(np.array([[2, 1], [1, 3]], dtype='int32'))",
    "eigvals-int": "np.linalg.eigvals(np.array([[2, 1], [0, 3]], dtype='int32'))",
    "eigh-empty": "np.linalg.eigh(np.ones((0, 0)))[1]",
    "eigvalsh-empty-batch": "np.linalg.eigvalsh(np.ones((0, 4, 4)))",
    "det-batch": "np.linalg.det(np.stack([S, S * 2]))",
    "det-empty-batch": "np.linalg.det(np.ones((1, 0, 2, 2)))",
    "slogdet-logdet": "np.linalg.slogdet(S)[1]",
    "pinv": "np.linalg.pinv(A)",
    "pinv-rcond": "np.linalg.pinv(A, rcond=0.5)",
    "pinv-rcond-array": "np.linalg.pinv(np.stack([A, A * 2]), rcond=np.array([0.1, 0.9]))",
    "eig-values": "np.linalg.eig(np.array([[2.0, 1.0], [0.5, 3.0]]))[0]",
    "eig-vectors": "np.linalg.eig(np.array([[2.0, 1.0], [0.5, 3.0]]))[1]",
    "eigvals": "np.linalg.eigvals(S)",
    # the error comes when the value is read (asnumpy), in both
    "eigvals-complex": "np.array(np.linalg.eigvals(np.array([[0.0, -1.0], [1.0, 0.0]]))"
                       ".asnumpy())",
    "tensorinv": "np.linalg.tensorinv(np.eye(6).reshape(6, 2, 3) * 2 + 0.1, ind=1)",
    "tensorsolve": "np.linalg.tensorsolve(np.eye(6).reshape(2, 3, 6) * 2 + 0.1, A)",
    "tensorsolve-singular-shape": "np.linalg.tensorsolve(np.ones((6, 2, 3)), np.ones(6), "
                                  "axes=(0,))",
    # indexing: NumPy's rules
    "index-int": "A[1, 2]",
    "index-row": "A[1]",
    "index-vector-element": "V[1]",
    "index-slice": "A[:, 1:]",
    "index-step": "A[::-1, ::2]",
    "index-int-array": "A[np.array([1, 0, 1])]",
    "index-float-array": "A[:, np.array([0.0, 2.0])]",
    "index-mask": "A[A > 2]",
    "index-none": "A[None, 1]",
    "index-ellipsis": "A[..., 0]",
    # value-dependent shapes
    "nonzero": "np.nonzero(A > 2)[1]",
    "unique": "np.unique(np.array([3, 1, 1, 2]))",
    # operators
    "add-int-float": "I + A",
    "add-int-scalar": "I + 1.5",
    "mul-reflected": "2 * A",
    "pow": "A ** 2",
    "rsub": "1 - V",
    "eq": "A == 1",
    "matmul-op": "A @ S",
    # padding, grids, percentiles, counts (op/numpy_shaping.py)
    "method-round": "A.round()",
    "method-round-decimals": "(A * 1.234).round(1)",
    "pad-constant": "np.pad(A, ((1, 1), (1, 1)))",
    "pad-edge": "np.pad(A, ((1, 0), (0, 2)), mode='edge')",
    "pad-reflect": "np.pad(A, ((1, 1), (2, 2)), mode='reflect')",
    "pad-symmetric": "np.pad(A, ((1, 1), (2, 2)), mode='symmetric')",
    "percentile": "np.percentile(A, 50)",
    "percentile-array-axis": "np.percentile(A, np.array([25.0, 75.0]), axis=1)",
    "percentile-keepdims": "np.percentile(A, 50, keepdims=True)",
    "percentile-int": "np.percentile(np.array([[1, 5, 3, 4], [7, 2, 9, 1]], dtype='int32'), 30, "
                      "axis=1)",
    "percentile-int8-lower": "np.percentile(I.astype('int8'), 35, interpolation='lower')",
    "quantile-int64-array": "np.quantile(I.astype('int64'), np.array([0.3, 0.8]), axis=0, "
                            "interpolation='midpoint')",
    "percentile-float16": "np.percentile(A.astype('float16'), 30)",
    "percentile-float64": "np.percentile(A.astype('float64'), 30)",
    "quantile-lower": "np.quantile(A, 0.3, interpolation='lower')",
    "quantile-nearest-axis": "np.quantile(S, np.array([0.2, 0.9]), axis=0, "
                             "interpolation='nearest')",
    "quantile-midpoint": "np.quantile(A, 0.4, interpolation='midpoint')",
    "bincount": "np.bincount(I)",
    "bincount-minlength": "np.bincount(np.array([0, 1, 1, 3], dtype='int32'), minlength=6)",
    "bincount-weights": "np.bincount(np.array([0, 1, 1, 3], dtype='int64'), "
                        "weights=np.array([1.0, 2.0, 3.0, 4.0]))",
    "diag-indices-from": "np.diag_indices_from(S)[1]",
    "diag-outside-below": "np.diag(A, k=-6)",
    "diag-outside-above": "np.diag(A, 5)",
    "diag-vector-below": "np.diag(V, -2)",
    "diag-3d": "np.diag(np.ones((2, 2, 2)))",
    "diagflat": "np.diagflat(V, 1)",
    "diagflat-int": "np.diagflat(I, -1)",
    "indices": "np.indices((2, 3))",
    "indices-float": "np.indices((3,), dtype='float32')",
    "unravel-index-int-shape": "np.unravel_index(np.array([5, 2], dtype='int64'), 6)[0]",
    "unravel-index": "np.unravel_index(np.array([5, 7], dtype='int32'), (3, 4))[1]",
    "hanning": "np.hanning(5)",
    "hamming-float64": "np.hamming(4, dtype='float64')",
    "blackman-one": "np.blackman(1)",
    "blackman-empty": "np.blackman(0)",
    "polyval": "np.polyval(V, A)",
    "polyval-int": "np.polyval(np.array([1, 2, 3], dtype='int32'), I)",
    "polyval-mixed-dtypes": "np.polyval(np.array([1, 2], dtype='int32'), V)",
    "resize": "np.resize(A, (3, 3))",
    "resize-int": "np.resize(I, 5)",
    "resize-empty": "np.resize(np.zeros((0,)), (2, 2))",
    "delete-int-axis": "np.delete(A, 1, axis=1)",
    "delete-negative": "np.delete(A, -1, axis=0)",
    "delete-flat": "np.delete(A, 4)",
    "delete-out-of-bounds": "np.delete(A, 9, axis=1)",
    "delete-array": "np.delete(A, np.array([0, 2, 2]), axis=1)",
    "delete-slice": "np.delete(np.arange(12.0).reshape(3, 4), slice(None, None, -2), axis=0)",
    "delete-array-out-of-range": "np.delete(np.arange(5.0), np.array([-1, 1, 7]))",
    "insert-int32-index-array": "np.insert(V, np.array([1], dtype='int32'), 5.0)",
    "delete-list": "np.delete(A, [0, 1], axis=1)",
    "insert-int-array-values": "np.insert(A, 1, np.array([0.5, -1.5]), axis=1)",
    "insert-column": "np.insert(A, 1, np.array([[7.0], [8.0]]), axis=1)",
    "insert-index-array": "np.insert(A, np.array([1], dtype='int64'), V, axis=1)",
    "insert-slice-flat": "np.insert(A, slice(0, 2), np.array([5.0, 6.0]))",
    "insert-float-into-int": "np.insert(np.arange(4, dtype='int32'), 2, 7.5)",
    "insert-int-values": "np.insert(A, 1, np.array([7, 8, 9], dtype='int32'), axis=0)",
    "insert-out-of-bounds": "np.insert(A, 5, np.array([1.0, 2.0]), axis=1)",
    # reductions with dtype=: float16 adds up in float32, a narrower dtype casts the result
    "sum-float16": "np.sum(np.linspace(0.01, 0.99, 300).astype('float16'))",
    "sum-to-float16": "np.sum(U * 1000.1, axis=1, dtype='float16')",
    "mean-float-to-int": "np.mean(A * 30.3, axis=0, dtype='int32')",
    "sum-float-to-int8": "np.sum(A * 3.7, dtype='int8')",
    "mean-int8-wraps": "np.mean(np.array([100, 100, 101], dtype='int8'), dtype='int8')",
    "mean-int32-to-int8": "np.mean(I * 50, axis=1, dtype='int8')",
    # npx
    "npx-relu": "npx.relu(A)",
    "npx-nonzero": "npx.nonzero(np.array([[0.0, 1.5], [2.0, 0.0]]))",
    "npx-nonzero-0d": "npx.nonzero(np.array(5))",
    "npx-nonzero-0d-zero": "npx.nonzero(np.array(0))",
    "npx-nonzero-empty": "npx.nonzero(np.zeros((1, 0)))",
    "npx-sigmoid": "npx.sigmoid(A)",
    "npx-softmax": "npx.softmax(A)",
    "npx-log-softmax": "npx.log_softmax(A, axis=0)",
    "npx-softmax-empty-axis": "npx.softmax(np.ones((3, 0, 4)), axis=1)",
    "npx-softmax-empty": "npx.softmax(np.ones((3, 0, 4)), axis=2)",
    "npx-log-softmax-empty": "npx.log_softmax(np.ones((0, 0)), axis=0)",
    "npx-one-hot": "npx.one_hot(np.array([0, 2]), 3)",
    "npx-pick": "npx.pick(A, np.array([0, 2]), axis=1)",
    "npx-topk": "npx.topk(A, k=2, ret_typ='value')",
    "npx-batch-dot": "npx.batch_dot(np.ones((2, 2, 3)), np.ones((2, 3, 4)))",
    "npx-batch-flatten": "npx.batch_flatten(np.ones((2, 3, 4)))",
    "npx-reshape": "npx.reshape(np.ones((2, 3, 4)), (-2, -1))",
    "npx-reshape-split": "npx.reshape(np.ones((6, 4)), (-6, 2, -1, -2))",
    "npx-sequence-mask": "npx.sequence_mask(np.ones((3, 2)), np.array([1, 2]), "
                         "use_sequence_length=True)",
    "npx-fully-connected": "npx.fully_connected(A, np.ones((4, 3)), np.zeros(4), num_hidden=4)",
    "npx-erf": "npx.erf(np.array([0.3, -0.99, 1e-4, 2.5, -4.0]))",
    "npx-erfinv": "npx.erfinv(np.array([0.3, -0.99, 0.999999, 1.0, -1.0, 1e-4]))",
    "npx-erfinv-outside": "npx.erfinv(np.array([1.5]))",
    "npx-activation": "npx.activation(A, act_type='tanh')",
    "npx-constraint-check": "npx.constraint_check(A > -10, 'A too small')",
    "npx-constraint-check-times": "V * npx.constraint_check(V < 3, 'V too big')",
    # the error comes when the value is read, in both
    "npx-constraint-check-violated": "np.array(npx.constraint_check(A > 0, 'A not positive')"
                                     ".asnumpy())",
    "npx-constraint-check-float": "npx.constraint_check(A).asnumpy()",
}


def all_cases():
    return {**generated_cases(), **HAND_WRITTEN}
