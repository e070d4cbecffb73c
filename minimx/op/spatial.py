"""Sampling an image at arbitrary points: ``GridGenerator``, ``BilinearSampler`` and
``SpatialTransformer`` (the two in one), as in spatial transformer networks.

Lesson: 09-gluon.  Mirrors ``src/operator/grid_generator.cc``, ``bilinear_sampler.cc`` and
``spatial_transformer.cc``.  A grid ``(N, 2, H', W')`` holds, for every output pixel, the
point to read: x in channel 0 and y in channel 1, both in [-1, 1] across the input
(``x_pixel = (x + 1) * (W - 1) / 2``).  Bilinear sampling mixes the four pixels around that
point; pixels outside the input count as 0.  Every step is differentiable, so a network can
learn where to look (the grid's gradient moves the sampling points).
"""
from .params import Choice, Param, Shape
from .registry import OpDef, TestHints, register_op


def _pixel_scale(size):
    return (size - 1) / 2.0


def _corners(xp, data, grid):
    """Per output point: the four neighbouring pixels' indices, in-bounds masks and
    bilinear weights, as lists over (y0x0, y0x1, y1x0, y1x1)."""
    height, width = data.shape[2], data.shape[3]
    xs = (grid[:, 0] + 1) * _pixel_scale(width)
    ys = (grid[:, 1] + 1) * _pixel_scale(height)
    x0, y0 = xp.floor(xs), xp.floor(ys)
    wx, wy = xs - x0, ys - y0
    corners = []
    for dy, dx, weight in ((0, 0, (1 - wy) * (1 - wx)), (0, 1, (1 - wy) * wx),
                           (1, 0, wy * (1 - wx)), (1, 1, wy * wx)):
        cy, cx = (y0 + dy).astype("int64"), (x0 + dx).astype("int64")
        inside = (cy >= 0) & (cy < height) & (cx >= 0) & (cx < width)
        corners.append((xp.clip(cy, 0, height - 1), xp.clip(cx, 0, width - 1), inside,
                        weight))
    return corners, wx, wy


def _gather(xp, data, cy, cx, inside):
    """``data[n, :, cy, cx]`` for every output point, 0 outside: (N, C, H', W')."""
    batch = xp.arange(data.shape[0]).reshape(-1, 1, 1)
    values = data[batch, :, cy, cx]                     # (N, H', W', C)
    values = xp.moveaxis(values, -1, 1)
    return values * inside[:, None].astype(data.dtype)


def bilinear_sample(xp, data, grid):
    """``data (N, C, H, W)`` read at ``grid (N, 2, H', W')``: (N, C, H', W')."""
    corners, _, _ = _corners(xp, data, grid)
    out = 0
    for cy, cx, inside, weight in corners:
        out = out + _gather(xp, data, cy, cx, inside) * weight[:, None].astype(data.dtype)
    return out.astype(data.dtype)


def bilinear_sample_grads(xp, out_grad, data, grid):
    """Gradients of ``bilinear_sample`` with respect to the data and the grid."""
    corners, wx, wy = _corners(xp, data, grid)
    grad_data = xp.zeros(data.shape, dtype=data.dtype)
    batch = xp.broadcast_to(xp.arange(data.shape[0]).reshape(-1, 1, 1), corners[0][0].shape)
    values = []
    for cy, cx, inside, weight in corners:
        contribution = xp.moveaxis(out_grad * (weight * inside)[:, None], 1, -1)
        xp.add.at(grad_data, (batch, slice(None), cy, cx), contribution)
        values.append((_gather(xp, data, cy, cx, inside) * out_grad).sum(axis=1))
    v00, v01, v10, v11 = values
    grad_x = ((1 - wy) * (v01 - v00) + wy * (v11 - v10)) * _pixel_scale(data.shape[3])
    grad_y = ((1 - wx) * (v10 - v00) + wx * (v11 - v01)) * _pixel_scale(data.shape[2])
    return grad_data, xp.stack([grad_x, grad_y], axis=1).astype(grid.dtype)


def _target_coordinates(xp, height, width, dtype):
    """The normalized x and y of every pixel of an ``height x width`` output (each (H*W,))."""
    ys, xs = xp.meshgrid(xp.linspace(-1, 1, height), xp.linspace(-1, 1, width), indexing="ij")
    return xs.ravel().astype(dtype), ys.ravel().astype(dtype)


def affine_grid(xp, theta, target_shape):
    """``theta (N, 6)``, a 2x3 matrix per sample, applied to the target's coordinates."""
    height, width = target_shape
    xs, ys = _target_coordinates(xp, height, width, theta.dtype)
    points = xp.stack([xs, ys, xp.ones_like(xs)])              # (3, H*W)
    grid = theta.reshape(-1, 2, 3) @ points                     # (N, 2, H*W)
    return grid.reshape(-1, 2, height, width)


def affine_grid_grad(xp, out_grad, target_shape):
    height, width = target_shape
    xs, ys = _target_coordinates(xp, height, width, out_grad.dtype)
    points = xp.stack([xs, ys, xp.ones_like(xs)])
    return (out_grad.reshape(-1, 2, height * width) @ points.T).reshape(-1, 6)


def _random_grid(rng, shapes, dtype):
    """Test inputs: data, and a grid mostly inside [-1, 1] away from pixel borders."""
    data = rng.uniform(-1, 1, shapes[0])
    grid = rng.uniform(-1.1, 1.1, shapes[1])
    return [data.astype(dtype), grid.astype(dtype)]


@register_op
class BilinearSampler(OpDef):
    """Read ``data`` at the points of ``grid`` by bilinear interpolation (0 outside)."""
    name = "BilinearSampler"
    inputs = ("data", "grid")
    params = {"cudnn_off": Param(bool, default=False, doc="ignored")}
    saves = ("data", "grid")
    test = TestHints(shapes=((2, 2, 4, 5), (2, 2, 3, 3)), inputs=_random_grid,
                     grad_rtol=5e-2, grad_atol=5e-3)

    def infer_shape(self, data, grid):
        if len(data) != 4 or len(grid) != 4 or grid[1] != 2 or grid[0] != data[0]:
            raise self.shape_error(f"expected data (N, C, H, W) and grid (N, 2, H', W'), got "
                                   f"{tuple(data)} and {tuple(grid)}")
        return (data[0], data[1], grid[2], grid[3])

    def forward(self, xp, data, grid):
        return bilinear_sample(xp, data, grid)

    def backward(self, xp, out_grad, data, grid):
        return bilinear_sample_grads(xp, out_grad, data, grid)


@register_op
class GridGenerator(OpDef):
    """A sampling grid: ``affine`` from a 2x3 matrix per sample ``(N, 6)`` over a
    ``target_shape`` output, or ``warp`` from a flow field ``(N, 2, H, W)`` in pixels."""
    name = "GridGenerator"
    params = {"transform_type": Param(Choice("affine", "warp"), doc="what data holds"),
              "target_shape": Param(Shape, default=(0, 0), doc="affine: the output (H, W)")}
    test = TestHints(shapes=((2, 6),), params={"transform_type": "affine",
                                                "target_shape": (3, 4)},
                     cases=(({"transform_type": "warp"}, ((1, 2, 3, 4),)),))

    def check_params(self):
        if self.transform_type == "affine" and (len(self.target_shape) != 2
                                                or min(self.target_shape) < 1):
            raise self.param_error(f"affine needs target_shape (H, W), got "
                                   f"{self.target_shape}")

    def infer_shape(self, data):
        if self.transform_type == "affine":
            if len(data) != 2 or data[1] != 6:
                raise self.shape_error(f"affine expects (N, 6), got {tuple(data)}")
            return (data[0], 2) + tuple(self.target_shape)
        if len(data) != 4 or data[1] != 2:
            raise self.shape_error(f"warp expects a flow (N, 2, H, W), got {tuple(data)}")
        return tuple(data)

    def forward(self, xp, data):
        if self.transform_type == "affine":
            return affine_grid(xp, data, self.target_shape).astype(data.dtype)
        height, width = data.shape[2], data.shape[3]
        xs, ys = xp.meshgrid(xp.arange(width), xp.arange(height))
        x = (data[:, 0] + xs) / _pixel_scale(width) - 1
        y = (data[:, 1] + ys) / _pixel_scale(height) - 1
        return xp.stack([x, y], axis=1).astype(data.dtype)

    def backward(self, xp, out_grad):
        if self.transform_type == "affine":
            return affine_grid_grad(xp, out_grad, self.target_shape)
        height, width = out_grad.shape[2], out_grad.shape[3]
        return xp.stack([out_grad[:, 0] / _pixel_scale(width),
                         out_grad[:, 1] / _pixel_scale(height)], axis=1)


@register_op
class SpatialTransformer(OpDef):
    """Sample ``data`` on the affine grid of ``loc`` (N, 6): GridGenerator then
    BilinearSampler, as one operator."""
    name = "SpatialTransformer"
    inputs = ("data", "loc")
    params = {"target_shape": Param(Shape, default=(0, 0), doc="the output (H, W)"),
              "transform_type": Param(Choice("affine"), doc="the only kind: affine"),
              "sampler_type": Param(Choice("bilinear"), doc="the only kind: bilinear"),
              "cudnn_off": Param(bool, default=False, doc="ignored")}
    saves = ("data", "loc")
    test = TestHints(shapes=((2, 2, 4, 5), (2, 6)),
                     params={"target_shape": (3, 3), "transform_type": "affine",
                             "sampler_type": "bilinear"}, low=-0.5, high=0.5,
                     grad_rtol=5e-2, grad_atol=5e-3)

    def infer_shape(self, data, loc):
        if len(data) != 4 or tuple(loc) != (data[0], 6):
            raise self.shape_error(f"expected data (N, C, H, W) and loc (N, 6), got "
                                   f"{tuple(data)} and {tuple(loc)}")
        return (data[0], data[1]) + tuple(self.target_shape)

    def forward(self, xp, data, loc):
        grid = affine_grid(xp, loc, self.target_shape).astype(data.dtype)
        return bilinear_sample(xp, data, grid)

    def backward(self, xp, out_grad, data, loc):
        grid = affine_grid(xp, loc, self.target_shape).astype(data.dtype)
        grad_data, grad_grid = bilinear_sample_grads(xp, out_grad, data, grid)
        return grad_data, affine_grid_grad(xp, grad_grid, self.target_shape)
