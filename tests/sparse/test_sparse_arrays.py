"""Sparse NDArrays in minimx's own terms: engine pushes on both engines, the dense fallback,
errors that name what is unsupported, and format checks."""
import numpy as np
import pytest

import minimx as mx
from minimx import nd
from minimx.base import MXNetError

pytestmark = pytest.mark.usefixtures("on_cpu")     # sparse arrays live on the CPU (conftest)


def _csr():
    return nd.sparse.csr_matrix(([1., 2, 3], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))


def test_sparse_work_is_pushed_to_the_engine(engine):
    pushed = []
    handle = mx.engine.subscribe(lambda event: pushed.append(event.name)
                                 if event.kind == "push" else None)
    try:
        a = _csr()
        product = nd.sparse.dot(a, nd.ones((4, 2)))
        rows = nd.sparse.dot(a, nd.ones((3, 2)), transpose_a=True)
        doubled = a * 2
        product.wait_to_read()
    finally:
        mx.engine.unsubscribe(handle)
    assert "_mul_scalar" in pushed and "dot" in pushed
    assert rows.stype == "row_sparse" and doubled.stype == "csr"
    np.testing.assert_allclose(product.asnumpy(), [[3, 3], [0, 0], [3, 3]])


def test_fallback_gives_the_dense_result():
    a = _csr()
    shifted = a + 1
    assert shifted.stype == "default"
    np.testing.assert_allclose(shifted.asnumpy(), a.asnumpy() + 1)
    np.testing.assert_allclose(nd.exp(a).asnumpy(), np.exp(a.asnumpy()), rtol=1e-6)


def test_gradient_reaches_a_sparse_input_through_the_fallback():
    a = _csr()
    a.attach_grad()
    with mx.autograd.record():
        loss = (nd.exp(a) * 2).sum()
    loss.backward()
    assert a.grad.stype == "csr"
    np.testing.assert_allclose(a.grad.asnumpy(), 2 * np.exp(a.asnumpy()), rtol=1e-6)


def test_unsupported_uses_name_the_storage_type():
    with pytest.raises(MXNetError, match="reshape.*CSRNDArray.*'csr'"):
        _csr().reshape((4, 3))
    # graphs take sparse storage, as MXNet 1.9.1's (test_sparse_symbol.py); names MXNet's
    # sym.sparse lacks, and unknown storage types, are refused
    with pytest.raises(AttributeError, match="sparse.*reshape"):
        mx.sym.sparse.reshape
    with pytest.raises(KeyError, match="'foo'"):
        mx.sym.Variable("x", stype="foo")
    with pytest.raises(MXNetError, match="storage type 'foo'"):
        mx.sym.Variable("x").simple_bind(mx.cpu(), x=(2, 2), stype_dict={"x": "foo"})


def test_check_format_finds_a_bad_indptr():
    bad = nd.sparse.csr_matrix(([7., 8, 9], [0, 2, 1], [0, 5, 2, 3]), shape=(3, 4))
    with pytest.raises(MXNetError, match="indptr"):
        bad.check_format()
    _csr().check_format()


def test_import_leaves_scipy_sparse_until_a_sparse_array_is_made():
    """``import minimx`` does not import scipy.sparse (a tenth of a second of every lesson's
    and test process's start); the first CSR array imports it and works."""
    import subprocess
    import sys
    code = ("import sys, minimx; assert 'scipy.sparse' not in sys.modules, 'imported'; "
            "a = minimx.nd.sparse.csr_matrix(([1., 2], [0, 2], [0, 1, 2]), shape=(2, 3)); "
            "print(a.asnumpy().tolist(), 'scipy.sparse' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[[1.0,", "0.0,", "0.0],", "[0.0,", "0.0,", "2.0]]", "True"]
