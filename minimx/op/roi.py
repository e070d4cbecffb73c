"""Regions of interest: pooling a feature map inside each box to a fixed size.

Lesson: 11-data.  Mirrors ``src/operator/roi_pooling.cc`` (``ROIPooling``, Fast R-CNN) and
``src/operator/contrib/roi_align.cc`` (``ROIAlign``, Mask R-CNN).  ``rois`` is (R, 5):
``[batch index, x1, y1, x2, y2]`` in image pixels; ``spatial_scale`` maps them onto the
feature map (1/16 for a stride-16 backbone).  The output is (R, C, ph, pw).  The loops run
over the few regions and bins on the host (``on_host``), as MXNet's CPU kernels do.
"""
import math

import numpy as np

from .common import on_host, to_device
from .params import Param, Shape
from .registry import OpDef, TestHints, register_op

__all__ = ["ROIPooling", "ROIAlign", "PSROIPooling"]


def _roi_inputs(rng, shapes, dtype):
    data_shape, rois_shape = shapes
    height, width = data_shape[2], data_shape[3]
    count = rois_shape[0]
    rois = np.zeros(rois_shape)
    rois[:, 0] = rng.randint(0, data_shape[0], size=count)
    corner = rng.uniform(-1, 0.6, size=(count, 2)) * [width * 2, height * 2]
    size = rng.uniform(2, 6, size=(count, 2))
    rois[:, 1:3], rois[:, 3:5] = corner, corner + size
    # distinct values, spread out: a max pooled over a bin stays the max under a small step
    data = rng.permutation(int(np.prod(data_shape))).reshape(data_shape) / 7.0
    return [data, rois]


class _RoiOp(OpDef):
    inputs = ("data", "rois")
    host_compute = True                 # a loop over the regions, on numpy
    no_grad_inputs = ("rois",)

    def infer_shape(self, data, rois):
        if len(data) != 4 or len(rois) != 2 or rois[1] != 5:
            raise self.shape_error(f"data must be (batch, channel, height, width) and rois "
                                   f"(regions, 5), got {tuple(data)} and {tuple(rois)}")
        if len(self.pooled_size) != 2:
            raise self.param_error(f"pooled_size must be (height, width), got "
                                   f"{self.pooled_size}")
        return [(rois[0], self.output_channels(data[1]), *self.pooled_size)] + \
            [(rois[0], self.output_channels(data[1]), *self.pooled_size)] * \
            (len(self.outputs) - 1)

    def output_channels(self, channels):
        return channels


@register_op
class ROIPooling(_RoiOp):
    """Max pooling inside each region: the region (rounded to whole feature-map cells) is
    split into ``pooled_size`` bins and each bin gives its maximum (0 for an empty bin).
    The gradient goes to the cell that held each maximum.  As MXNet's kernel, a bin starts
    at -FLT_MAX and takes a cell only when it is greater: NaN is skipped, ties keep the
    first cell, and a bin of NaN or -inf alone gives -FLT_MAX and no gradient."""

    name = "ROIPooling"
    outputs = ("output", "argmax")
    visible_outputs = 1
    saves = ("data_shape", "rois", "argmax")
    params = {"pooled_size": Param(Shape),
              "spatial_scale": Param(float)}
    test = TestHints(shapes=((2, 3, 6, 5), (4, 5)),
                     params={"pooled_size": (2, 2), "spatial_scale": 0.5},
                     cases=(({"pooled_size": (3, 2), "spatial_scale": 1.0},
                             ((1, 2, 7, 8), (3, 5))),), inputs=_roi_inputs)

    def infer_type(self, data, rois):
        return [data, "int64"]

    def forward(self, xp, data, rois):
        values, boxes = on_host(xp, data), on_host(xp, rois)
        channels, height, width = values.shape[1:]
        pooled_h, pooled_w = self.pooled_size
        out = np.zeros((len(boxes), channels, pooled_h, pooled_w), dtype=values.dtype)
        argmax = -np.ones(out.shape, dtype=np.int64)
        with np.errstate(over="ignore"):            # (float16: -inf)
            start = values.dtype.type(-np.finfo(np.float32).max)
        for r, box in enumerate(boxes):
            image = values[int(box[0])].reshape(channels, -1)
            start_w, start_h, end_w, end_h = (_round(v * self.spatial_scale) for v in box[1:])
            roi_h, roi_w = max(end_h - start_h + 1, 1), max(end_w - start_w + 1, 1)
            for ph in range(pooled_h):
                h0 = min(max(math.floor(ph * roi_h / pooled_h) + start_h, 0), height)
                h1 = min(max(math.ceil((ph + 1) * roi_h / pooled_h) + start_h, 0), height)
                for pw in range(pooled_w):
                    w0 = min(max(math.floor(pw * roi_w / pooled_w) + start_w, 0), width)
                    w1 = min(max(math.ceil((pw + 1) * roi_w / pooled_w) + start_w, 0), width)
                    if h1 <= h0 or w1 <= w0:
                        continue
                    cells = (np.arange(h0, h1)[:, None] * width + np.arange(w0, w1)).ravel()
                    taps = image[:, cells]
                    # MXNet's rule: from -FLT_MAX, a cell only when greater (the first of
                    # ties; NaN never): argmax with NaN as -inf, kept if above the start
                    first = np.argmax(np.where(np.isnan(taps), -np.inf, taps), axis=1)
                    value = taps[np.arange(channels), first]
                    taken = value > start
                    out[r, :, ph, pw] = np.where(taken, value, start)
                    argmax[r, :, ph, pw] = np.where(taken, cells[first], -1)
        return to_device(xp, out), to_device(xp, argmax)

    def backward(self, xp, out_grad, data_shape, rois, argmax):
        grads, cells, boxes = on_host(xp, out_grad), on_host(xp, argmax), on_host(xp, rois)
        grad = np.zeros(data_shape, dtype=grads.dtype)
        flat = grad.reshape(data_shape[0], data_shape[1], -1)
        for r, box in enumerate(boxes):
            for c in range(grads.shape[1]):
                where, values = cells[r, c].ravel(), grads[r, c].ravel()
                used = where >= 0
                np.add.at(flat[int(box[0]), c], where[used], values[used])
        return to_device(xp, grad), None


def _round(value):
    """C's round(): halves away from zero (Python's round() goes to even)."""
    return int(math.floor(abs(value) + 0.5) * (1 if value >= 0 else -1))


def _bilinear_taps(y, x, height, width):
    """The four (row, col, weight) taps of a bilinear sample at (y, x), Detectron's rule:
    nothing outside [-1, size]; coordinates below 0 count as 0; the last row/column
    repeats."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return []
    y, x = max(y, 0.0), max(x, 0.0)
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_low = y_high = height - 1
        y = float(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_low = x_high = width - 1
        x = float(x_low)
    else:
        x_high = x_low + 1
    ly, lx = y - y_low, x - x_low
    hy, hx = 1 - ly, 1 - lx
    return [(y_low, x_low, hy * hx), (y_low, x_high, hy * lx), (y_high, x_low, ly * hx),
            (y_high, x_high, ly * lx)]


@register_op
class ROIAlign(_RoiOp):
    """Average of bilinear samples inside each bin of each region (no rounding).

    Each of the ``pooled_size`` bins is sampled on a grid of ``sample_ratio`` x
    ``sample_ratio`` points (``ceil(bin size)`` when -1).  ``aligned`` shifts the region by
    half a cell (pixel centres at half-integers).  ``position_sensitive`` (R-FCN) takes bin
    (i, j) of output channel c from input channel ``(c * ph + i) * pw + j``, so the output
    has ``C / (ph * pw)`` channels.  The gradient spreads back along the same taps.
    """

    name = "_contrib_ROIAlign"
    params = {"pooled_size": Param(Shape),
              "spatial_scale": Param(float),
              "sample_ratio": Param(int, default=-1),
              "position_sensitive": Param(bool, default=False),
              "aligned": Param(bool, default=False)}
    saves = ("data_shape", "rois")
    test = TestHints(shapes=((2, 4, 6, 5), (3, 5)),
                     params={"pooled_size": (2, 2), "spatial_scale": 1.0},
                     cases=(({"pooled_size": (2, 3), "spatial_scale": 0.5, "sample_ratio": 2},
                             ((1, 2, 7, 8), (3, 5))),
                            ({"pooled_size": (2, 2), "spatial_scale": 1.0, "aligned": True},
                             ((2, 3, 5, 5), (2, 5))),
                            ({"pooled_size": (2, 2), "spatial_scale": 1.0,
                              "position_sensitive": True}, ((1, 8, 5, 6), (2, 5)))),
                     inputs=_roi_inputs)

    def output_channels(self, channels):
        if not self.position_sensitive:
            return channels
        bins = self.pooled_size[0] * self.pooled_size[1]
        if channels % bins:
            raise self.shape_error(f"position_sensitive needs channels divisible by "
                                   f"pooled_size {self.pooled_size} ({bins}), got {channels}")
        return channels // bins

    def _samples(self, box, height, width):
        """For each bin (ph, pw): the list of (row, col, weight) taps, weights already
        divided by the number of samples of the bin."""
        offset = 0.5 if self.aligned else 0.0
        start_w, start_h = box[1] * self.spatial_scale - offset, box[2] * self.spatial_scale - offset
        roi_w = box[3] * self.spatial_scale - offset - start_w
        roi_h = box[4] * self.spatial_scale - offset - start_h
        if not self.aligned:
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        pooled_h, pooled_w = self.pooled_size
        bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
        grid_h = self.sample_ratio if self.sample_ratio > 0 else math.ceil(roi_h / pooled_h)
        grid_w = self.sample_ratio if self.sample_ratio > 0 else math.ceil(roi_w / pooled_w)
        count = max(grid_h * grid_w, 1)
        bins = {}
        for ph in range(pooled_h):
            for pw in range(pooled_w):
                taps = []
                for iy in range(grid_h):
                    y = start_h + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                    for ix in range(grid_w):
                        x = start_w + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                        taps += [(r, c, w / count) for r, c, w in
                                 _bilinear_taps(y, x, height, width)]
                bins[ph, pw] = taps
        return bins

    def _channel(self, c, ph, pw):
        if not self.position_sensitive:
            return c
        return (c * self.pooled_size[0] + ph) * self.pooled_size[1] + pw

    def forward(self, xp, data, rois):
        values, boxes = on_host(xp, data).astype(np.float64), on_host(xp, rois)
        channels, height, width = values.shape[1:]
        out_channels = self.output_channels(channels)
        out = np.zeros((len(boxes), out_channels, *self.pooled_size))
        for r, box in enumerate(boxes):
            image = values[int(box[0])]
            for (ph, pw), taps in self._samples(box, height, width).items():
                for c in range(out_channels):
                    plane = image[self._channel(c, ph, pw)]
                    out[r, c, ph, pw] = sum(w * plane[row, col] for row, col, w in taps)
        return to_device(xp, out, data.dtype)

    def backward(self, xp, out_grad, data_shape, rois):
        grads, boxes = on_host(xp, out_grad), on_host(xp, rois)
        grad = np.zeros(data_shape)
        height, width = data_shape[2], data_shape[3]
        for r, box in enumerate(boxes):
            image = grad[int(box[0])]
            for (ph, pw), taps in self._samples(box, height, width).items():
                for c in range(grads.shape[1]):
                    plane = image[self._channel(c, ph, pw)]
                    for row, col, w in taps:
                        plane[row, col] += w * grads[r, c, ph, pw]
        return to_device(xp, grad, out_grad.dtype), None


def _ps_bins(box, spatial_scale, pooled, height, width):
    """Per bin (ph, pw): its cells (h0, h1, w0, w1) in one PSROIPooling region."""
    start_w, start_h = _round(box[1]) * spatial_scale, _round(box[2]) * spatial_scale
    end_w, end_h = (_round(box[3]) + 1) * spatial_scale, (_round(box[4]) + 1) * spatial_scale
    bin_h = max(end_h - start_h, 0.1) / pooled
    bin_w = max(end_w - start_w, 0.1) / pooled
    for ph in range(pooled):
        h0 = min(max(math.floor(ph * bin_h + start_h), 0), height)
        h1 = min(max(math.ceil((ph + 1) * bin_h + start_h), 0), height)
        for pw in range(pooled):
            w0 = min(max(math.floor(pw * bin_w + start_w), 0), width)
            w1 = min(max(math.ceil((pw + 1) * bin_w + start_w), 0), width)
            yield ph, pw, h0, h1, w0, w1


@register_op
class PSROIPooling(_RoiOp):
    """Position-sensitive ROI pooling (R-FCN): the region is split into ``pooled_size``
    squared bins, and bin (i, j) of output channel ``k`` averages its cells of the input
    channel ``(k * group_size + gi) * group_size + gj`` (``gi, gj`` the bin's place in a
    ``group_size`` grid), so each bin reads a map trained for that part of an object."""
    name = "_contrib_PSROIPooling"
    saves = ("data_shape", "rois")
    params = {"spatial_scale": Param(float, doc="feature-map cells per image pixel"),
              "output_dim": Param(int, doc="output channels"),
              "pooled_size": Param(int, doc="bins per side"),
              "group_size": Param(int, default=0, doc="the channel grid (0: pooled_size)")}
    test = TestHints(shapes=((1, 8, 6, 6), (3, 5)),
                     params={"spatial_scale": 0.5, "output_dim": 2, "pooled_size": 2},
                     inputs=_roi_inputs, grad_rtol=5e-2)

    def group(self):
        return self.group_size or self.pooled_size

    def infer_shape(self, data, rois):
        if len(data) != 4 or len(rois) != 2 or rois[1] != 5:
            raise self.shape_error(f"data must be (batch, channel, height, width) and rois "
                                   f"(regions, 5), got {tuple(data)} and {tuple(rois)}")
        if data[1] != self.output_dim * self.group() ** 2:
            raise self.shape_error(f"data needs output_dim * group_size^2 = "
                                   f"{self.output_dim * self.group() ** 2} channels, got "
                                   f"{data[1]}")
        return (rois[0], self.output_dim, self.pooled_size, self.pooled_size)

    def _channel(self, k, ph, pw):
        group, pooled = self.group(), self.pooled_size
        gh, gw = min(ph * group // pooled, group - 1), min(pw * group // pooled, group - 1)
        return (k * group + gh) * group + gw

    def _cells(self, boxes, height, width):
        """(roi, image, output channel, input channel, ph, pw, rows, cols) of every non-empty
        bin: the one walk forward and backward share."""
        for r, box in enumerate(boxes):
            for ph, pw, h0, h1, w0, w1 in _ps_bins(box, self.spatial_scale, self.pooled_size,
                                                    height, width):
                if h1 <= h0 or w1 <= w0:
                    continue
                for k in range(self.output_dim):
                    yield (r, int(box[0]), k, self._channel(k, ph, pw), ph, pw,
                           slice(h0, h1), slice(w0, w1))

    def forward(self, xp, data, rois):
        values, boxes = on_host(xp, data), on_host(xp, rois)
        out = np.zeros((len(boxes), self.output_dim, self.pooled_size, self.pooled_size),
                       dtype=values.dtype)
        for r, image, k, channel, ph, pw, rows, cols in self._cells(boxes, *values.shape[2:]):
            out[r, k, ph, pw] = values[image, channel, rows, cols].mean()
        return to_device(xp, out)

    def backward(self, xp, out_grad, data_shape, rois):
        grads, boxes = on_host(xp, out_grad), on_host(xp, rois)
        grad = np.zeros(data_shape, dtype=grads.dtype)
        for r, image, k, channel, ph, pw, rows, cols in self._cells(boxes, *data_shape[2:]):
            area = (rows.stop - rows.start) * (cols.stop - cols.start)
            grad[image, channel, rows, cols] += grads[r, k, ph, pw] / area
        return to_device(xp, grad), None
