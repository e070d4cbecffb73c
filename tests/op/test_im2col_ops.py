"""``im2col`` / ``col2im`` beyond the generated registry cases (2-D blocks, also
compared with MXNet 1.9.1 there).

MXNet 1.9.1 documents 1-D and 3-D blocks, but its CPU kernels fail on both when the
values are read (a shape check inside the kernel), so these are checked here by the
adjoint identity ``<im2col(x), c> == <x, col2im(c)>`` that makes each the other's
gradient, through autograd too; and MXNet's refusals.
"""
import numpy as np
import pytest

from minimx import autograd, nd
from minimx.base import MXNetError

GEOMETRIES = [  # (image shape, parameters)
    ((2, 3, 7), {"kernel": (3,), "stride": (2,), "dilate": (2,), "pad": (2,)}),
    ((1, 2, 5, 6), {"kernel": (2, 3), "stride": (2, 1), "pad": (1, 1)}),
    ((1, 2, 4, 5, 3), {"kernel": (2, 2, 2), "stride": (1, 2, 1), "dilate": (2, 1, 1),
                       "pad": (1, 0, 1)}),
]


@pytest.mark.parametrize("shape, params", GEOMETRIES)
def test_col2im_is_the_adjoint_of_im2col(shape, params):
    image = np.random.uniform(-1, 1, shape)
    columns_shape = nd.im2col(nd.array(image), **params).shape
    columns = np.random.uniform(-1, 1, columns_shape)
    forward = nd.im2col(nd.array(image, dtype="float64"), **params).asnumpy()
    back = nd.col2im(nd.array(columns, dtype="float64"), output_size=shape[2:],
                     **params).asnumpy()
    assert back.shape == shape
    assert np.vdot(forward, columns) == pytest.approx(np.vdot(image, back), rel=1e-12)
    x = nd.array(image, dtype="float64")
    x.attach_grad()
    with autograd.record():
        blocks = nd.im2col(x, **params)
    blocks.backward(nd.array(columns, dtype="float64"))
    np.testing.assert_allclose(x.grad.asnumpy(), back, rtol=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda x: nd.im2col(x, kernel=(2, 3), stride=(1,)), "stride"),
    (lambda x: nd.im2col(x, kernel=(9, 9)), "kernel size exceeds input"),
    (lambda x: nd.im2col(x, kernel=(2, 0)), "incorrect kernel size"),
    (lambda x: nd.col2im(nd.im2col(x, kernel=(2, 3)), output_size=(4, 9), kernel=(2, 3)),
     "blocks"),
    (lambda x: nd.col2im(nd.im2col(x, kernel=(2, 3)), output_size=(4, 4), kernel=(2, 2)),
     "multiple"),
])
def test_refusals_name_the_operator(call, message):
    """Each refusal MXNet 1.9.1 makes (an MXNetError there too), with its reason."""
    with pytest.raises(MXNetError, match=message):
        call(nd.ones((2, 3, 4, 5)))
