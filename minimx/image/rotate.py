"""``imrotate`` and ``random_rotate``: rotate CHW (or NCHW) float images about their centre.

Lesson: 11-data.  Mirrors the functions of the same names in ``python/mxnet/image/image.py``:
each output pixel reads the source at its position turned back by the angle, through the
bilinear sampler of the spatial-transformer operators (``op/spatial.py``), so pixels that
come from outside the picture are 0.  ``zoom_in`` scales up until no such pixel is left,
``zoom_out`` scales down until the whole rotated picture fits.
"""
import math
import random

import numpy as np

from .. import ndarray as nd

__all__ = ["imrotate", "random_rotate"]


def _rotation_grid(angles, height, width, zoom_in, zoom_out):
    """A sampling grid (N, 2, H, W) per angle (degrees, counter-clockwise)."""
    rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    y, x = rows - (height - 1) / 2, cols - (width - 1) / 2     # about the centre, in pixels
    grids = []
    for angle in angles:
        radians = math.radians(angle)
        cos, sin = math.cos(radians), math.sin(radians)
        scale = 1.0
        if zoom_in or zoom_out:
            bound_w = abs(cos) * width + abs(sin) * height
            bound_h = abs(sin) * width + abs(cos) * height
            fit = max(bound_w / width, bound_h / height)
            scale = fit if zoom_out else 1 / fit
        src_x = (cos * x - sin * y) * scale
        src_y = (sin * x + cos * y) * scale
        grids.append(np.stack([src_x / ((width - 1) / 2), src_y / ((height - 1) / 2)]))
    return np.stack(grids).astype(np.float32)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate ``src`` (C, H, W) or (N, C, H, W), float32, by ``rotation_degrees``: a number,
    or for a batch an NDArray of one angle per image."""
    if zoom_in and zoom_out:
        raise ValueError("imrotate: zoom_in and zoom_out cannot both be set")
    if src.dtype != np.float32:
        raise TypeError(f"imrotate: only float32 images are supported, got {src.dtype}")
    single = len(src.shape) == 3
    if isinstance(rotation_degrees, nd.NDArray):
        if single:
            raise TypeError("imrotate: a single image takes one angle (a number), not an "
                            "NDArray of angles")
        angles = [float(a) for a in rotation_degrees.asnumpy().ravel()]
        if len(angles) != src.shape[0]:
            raise ValueError(f"imrotate: {len(angles)} angles for {src.shape[0]} images")
    else:
        angles = [float(rotation_degrees)] * (1 if single else src.shape[0])
    batch = src.expand_dims(0) if single else src
    height, width = batch.shape[2], batch.shape[3]
    grid = nd.array(_rotation_grid(angles, height, width, zoom_in, zoom_out), ctx=src.context)
    rotated = nd.BilinearSampler(batch, grid)
    return rotated[0] if single else rotated


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """``imrotate`` by an angle drawn uniformly from ``angle_limits`` (one per image)."""
    low, high = angle_limits
    if len(src.shape) == 3:
        return imrotate(src, random.uniform(low, high), zoom_in, zoom_out)
    angles = nd.array([random.uniform(low, high) for _ in range(src.shape[0])])
    return imrotate(src, angles, zoom_in, zoom_out)
