"""Moving elements to new places: reverse (flip), Pad, depth_to_space and space_to_depth.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/matrix_op.cc`` (reverse,
depth_to_space, space_to_depth) and ``src/operator/pad.cc``.  Where the move is not
simply undone by its inverse (reflect and edge padding), the gradient pads an array
of element numbers the same way to find where each output element came from.
"""
import math

from .common import normalize_axes
from .params import Choice, Param, Shape
from .registry import OpDef, TestHints, register_op


# -- reversing ------------------------------------------------------------------------------
@register_op
class Reverse(OpDef):
    """Reverse the order of elements along the given axes."""
    name = "reverse"
    aliases = ("flip",)
    method = "flip"
    params = {"axis": Param(Shape, doc="the axes to reverse")}
    test = TestHints(shapes=((2, 3, 2),), params={"axis": (0, 2)},
                     reference=lambda np, x, **_: x[::-1, :, ::-1])

    def forward(self, xp, data):
        return xp.flip(data, axis=normalize_axes(self, self.axis, data.ndim))

    def backward(self, xp, out_grad):
        return xp.flip(out_grad, axis=normalize_axes(self, self.axis, out_grad.ndim))


# -- padding and block moves -----------------------------------------------------------------
def _reference_pad(np, x, mode, pad_width, constant_value=0.0, **_):
    pairs = list(zip(pad_width[::2], pad_width[1::2]))
    if mode == "constant":
        return np.pad(x, pairs, mode="constant", constant_values=constant_value)
    return np.pad(x, pairs, mode=mode)


@register_op
class Pad(OpDef):
    """Pad a 4-D or 5-D array on its spatial axes: ``constant``, ``edge`` or ``reflect``.

    ``pad_width`` is numpy's, flattened: ``(before_0, after_0, before_1, after_1, ...)``;
    as in MXNet the first two axes (batch, channel) take no padding.
    """
    name = "Pad"
    aliases = ("pad",)
    method = "pad"
    params = {"mode": Param(Choice("constant", "edge", "reflect")),
              "pad_width": Param(Shape),
              "constant_value": Param(float, default=0.0)}
    saves = ("data_shape",)
    test = TestHints(shapes=((1, 2, 3, 3),),
                     params={"mode": "reflect", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1)},
                     reference=_reference_pad,
                     cases=(({"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 1, 0, 2),
                              "constant_value": 1.5}, ((1, 1, 2, 3),)),
                            ({"mode": "edge", "pad_width": (0, 0, 0, 0, 2, 0, 1, 1, 0, 1)},
                             ((1, 1, 2, 2, 2),))))

    def check_params(self):
        if len(self.pad_width) not in (8, 10):
            raise self.param_error(f"pad_width needs 8 or 10 values (4-D or 5-D input), "
                                   f"got {self.pad_width}")
        if any(self.pad_width[:4]):
            raise self.param_error(f"the first two axes take no padding, got {self.pad_width}")

    def _widths(self, shape):
        if len(self.pad_width) != 2 * len(shape):
            raise self.shape_error(f"expected a {len(self.pad_width) // 2}-D input for "
                                   f"pad_width {self.pad_width}, got shape {tuple(shape)}")
        pairs = tuple(zip(self.pad_width[::2], self.pad_width[1::2]))
        if self.mode == "reflect" and any(max(pair) >= size for pair, size in zip(pairs, shape)):
            raise self.shape_error(f"reflect padding {self.pad_width} must be smaller than "
                                   f"the input shape {tuple(shape)}")
        return pairs

    def infer_shape(self, data):
        return tuple(size + before + after
                     for size, (before, after) in zip(data, self._widths(data)))

    def forward(self, xp, data):
        widths = self._widths(data.shape)
        if self.mode == "constant":
            return xp.pad(data, widths, mode="constant", constant_values=self.constant_value)
        return xp.pad(data, widths, mode=self.mode)

    def backward(self, xp, out_grad, data_shape):
        widths = self._widths(data_shape)
        if self.mode == "constant":
            inside = tuple(slice(before, before + size)
                           for (before, _), size in zip(widths, data_shape))
            return out_grad[inside]
        # pad an array of element numbers the same way: it says where each output came from
        source = xp.pad(xp.arange(math.prod(data_shape)).reshape(data_shape), widths,
                        mode=self.mode)
        grad = xp.zeros(math.prod(data_shape), dtype=out_grad.dtype)
        xp.add.at(grad, source.ravel(), out_grad.ravel())
        return grad.reshape(data_shape)


def _depth_to_space(data, block):
    batch, depth, height, width = data.shape
    blocks = data.reshape(batch, block, block, depth // (block * block), height, width)
    moved = blocks.transpose(0, 3, 4, 1, 5, 2)
    return moved.reshape(batch, depth // (block * block), height * block, width * block)


def _space_to_depth(data, block):
    batch, depth, height, width = data.shape
    blocks = data.reshape(batch, depth, height // block, block, width // block, block)
    moved = blocks.transpose(0, 3, 5, 1, 2, 4)
    return moved.reshape(batch, depth * block * block, height // block, width // block)


class BlockMove(OpDef):
    """Move ``block_size`` x ``block_size`` blocks between the channel and spatial axes."""

    params = {"block_size": Param(int, doc="side of the moved blocks")}
    method = True

    def check_params(self):
        if self.block_size < 1:
            raise self.param_error(f"block_size must be a positive integer, got "
                                   f"{self.block_size}")

    def check_4d(self, data):
        if len(data) != 4:
            raise self.shape_error(f"expected a 4-D input (N, C, H, W), got {tuple(data)}")
        if 0 in data:
            raise self.shape_error(f"the input {tuple(data)} has a size 0 (MXNet's legacy "
                                   f"shapes read it as unknown)")
        return data


@register_op
class DepthToSpace(BlockMove):
    """Rearrange channel blocks into spatial blocks: (N, C, H, W) -> (N, C/b², H*b, W*b)."""
    name = "depth_to_space"
    test = TestHints(shapes=((1, 8, 2, 3),), params={"block_size": 2},
                     reference=lambda np, x, **_: x.reshape(1, 2, 2, 2, 2, 3)
                     .transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6))

    def infer_shape(self, data):
        batch, depth, height, width = self.check_4d(data)
        block = self.block_size
        if depth % (block * block):
            raise self.shape_error(f"channels {depth} do not divide by block_size**2")
        return (batch, depth // (block * block), height * block, width * block)

    def forward(self, xp, data):
        return _depth_to_space(data, self.block_size)

    def backward(self, xp, out_grad):
        return _space_to_depth(out_grad, self.block_size)


@register_op
class SpaceToDepth(BlockMove):
    """Rearrange spatial blocks into channels: (N, C, H, W) -> (N, C*b², H/b, W/b)."""
    name = "space_to_depth"
    test = TestHints(shapes=((1, 2, 4, 6),), params={"block_size": 2},
                     reference=lambda np, x, **_: x.reshape(1, 2, 2, 2, 3, 2)
                     .transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 3))

    def infer_shape(self, data):
        batch, depth, height, width = self.check_4d(data)
        block = self.block_size
        if height % block or width % block:
            raise self.shape_error(f"height {height} and width {width} must divide by "
                                   f"block_size {block}")
        return (batch, depth * block * block, height // block, width // block)

    def forward(self, xp, data):
        return _space_to_depth(data, self.block_size)

    def backward(self, xp, out_grad):
        return _depth_to_space(out_grad, self.block_size)
