"""``im2col`` and ``col2im``: a convolution's sliding blocks as a matrix, and back.

Lesson: 09-gluon.  Mirrors ``src/operator/nn/im2col.cc``.  ``im2col`` copies every
kernel window of ``data (N, C, *spatial)`` into a column: ``(N, C * prod(kernel), W)``
with ``W`` the number of windows (the convolution's output positions), so a
convolution is one matrix product with the filters.  ``col2im`` adds such columns
back into an image of ``output_size`` -- overlapping windows sum, so it is not the
inverse of ``im2col`` but its adjoint: each is the other's gradient.  The array work
is Convolution's own (``conv_kernels.im2col`` / ``col2im``).
"""
import math

from . import conv_kernels as kernels
from .conv import _KERNEL_PARAMS, Geometry, _conv_size, _crop, _pad
from .params import Param, Shape
from .registry import OpDef, TestHints, register_op

class _SlidingBlocks(OpDef):
    """Parameter checks and geometry shared by im2col and col2im."""

    inputs = ("data",)
    outputs = ("output",)

    def check_params(self):
        rank = len(self.kernel)
        if not 1 <= rank <= 3:
            raise self.param_error(f"kernel must have 1 to 3 axes, got {self.kernel}")
        for name in ("stride", "dilate", "pad"):
            value = getattr(self, name)
            if value and len(value) != rank:
                raise self.param_error(f"{name} must have the same number of dimensions as "
                                       f"kernel {self.kernel}, got {value}")
        for name in ("kernel", "stride", "dilate"):
            if math.prod(getattr(self, name)) <= 0:
                raise self.param_error(f"incorrect {name} size: {getattr(self, name)}")

    def geometry(self):
        rank = len(self.kernel)
        return Geometry(tuple(self.kernel), tuple(self.stride or (1,) * rank),
                        tuple(self.dilate or (1,) * rank), tuple(self.pad or (0,) * rank))

    def blocks(self, spatial, what):
        """The number of windows along each axis of an image of size ``spatial``."""
        geometry = self.geometry()
        for n, k, d, p in zip(spatial, geometry.kernel, geometry.dilate, geometry.pad):
            if d * (k - 1) + 1 > n + 2 * p:
                raise self.shape_error(f"kernel size exceeds {what}: dilated kernel "
                                       f"{d * (k - 1) + 1} > padded size {n + 2 * p}")
        return _conv_size(spatial, geometry)

    def columns(self, xp, image):
        """``im2col`` of an image ``(N, C, *spatial)``."""
        geometry = self.geometry()
        out_size = _conv_size(image.shape[2:], geometry)
        padded = _pad(xp, image, geometry.pad)
        return xp.ascontiguousarray(kernels.im2col(xp, padded, geometry, out_size))

    def image(self, xp, columns, spatial):
        """``col2im`` of columns into an image with spatial size ``spatial``."""
        geometry = self.geometry()
        channels = columns.shape[1] // math.prod(geometry.kernel)
        padded_shape = (columns.shape[0], channels) + tuple(
            n + 2 * p for n, p in zip(spatial, geometry.pad))
        padded = kernels.col2im(xp, columns, padded_shape, geometry,
                                _conv_size(spatial, geometry))
        return xp.ascontiguousarray(_crop(padded, geometry.pad, spatial))


@register_op
class Im2col(_SlidingBlocks):
    """Every sliding block of ``data (N, C, *spatial)`` as a column:
    ``(N, C * prod(kernel), W)``, W the number of blocks."""
    name = "im2col"
    params = _KERNEL_PARAMS
    saves = ("data",)       # for its shape: the gradient is an image of that size
    test = TestHints(shapes=((2, 3, 5, 4),), params={"kernel": (3, 2), "pad": (1, 0)},
                     # 1-D and 3-D blocks: tests/op/test_im2col_ops.py (MXNet 1.9.1 fails on
                     # 1-D blocks, and its CPU col2im on 3-D ones)
                     cases=(({"kernel": (2, 2), "stride": (2, 1), "dilate": (2, 1),
                              "pad": (1, 1)}, ((1, 2, 7, 5),)),))

    def infer_shape(self, data):
        if len(data) != len(self.kernel) + 2:
            raise self.shape_error(f"data must have {len(self.kernel) + 2} axes for kernel "
                                   f"{self.kernel}, got shape {tuple(data)}")
        blocks = self.blocks(data[2:], "input")
        return (data[0], data[1] * math.prod(self.kernel), math.prod(blocks))

    def forward(self, xp, data):
        return self.columns(xp, data)

    def backward(self, xp, out_grad, data):
        return self.image(xp, out_grad, data.shape[2:])


@register_op
class Col2im(_SlidingBlocks):
    """Columns ``(N, C * prod(kernel), W)`` summed back into an image
    ``(N, C, *output_size)``: the adjoint of im2col."""
    name = "col2im"
    params = {"output_size": Param(Shape, doc="spatial size of the image: (w,), (h, w) or "
                                               "(d, h, w)"), **_KERNEL_PARAMS}
    saves = ()
    test = TestHints(shapes=((2, 18, 15),), params={"output_size": (5, 4), "kernel": (3, 2),
                                                    "pad": (1, 0)},
                     cases=(({"output_size": (7, 5), "kernel": (2, 2), "stride": (2, 1),
                              "dilate": (2, 1), "pad": (1, 1)}, ((1, 8, 24),)),))

    def check_params(self):
        super().check_params()
        if len(self.output_size) != len(self.kernel):
            raise self.param_error(f"output_size must have the same number of dimensions as "
                                   f"kernel {self.kernel}, got {self.output_size}")
        if math.prod(self.output_size) <= 0:
            raise self.param_error(f"incorrect output size: {self.output_size}")

    def infer_shape(self, data):
        if len(data) != 3:
            raise self.shape_error(f"data must have 3 axes (N, C * prod(kernel), W), "
                                   f"got shape {tuple(data)}")
        blocks = math.prod(self.blocks(self.output_size, "output size"))
        if data[2] != blocks:
            raise self.shape_error(f"data has {data[2]} blocks, but output_size "
                                   f"{self.output_size} with these parameters gives {blocks}")
        taps = math.prod(self.kernel)
        if data[1] % taps:
            raise self.shape_error(f"the second axis of data ({data[1]}) must be a multiple "
                                   f"of the kernel size {taps}")
        return (data[0], data[1] // taps) + tuple(self.output_size)

    def forward(self, xp, data):
        return self.image(xp, data, tuple(self.output_size))

    def backward(self, xp, out_grad):
        return self.columns(xp, out_grad)
