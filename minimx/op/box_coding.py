"""Box coding for detectors: boxes as offsets from anchors, and matching by score.

Lesson: 11-data.  Mirrors ``src/operator/contrib/bounding_box.cc``'s ``box_encode``,
``box_decode`` and ``bipartite_matching`` (``nd.contrib.*``).  A detector predicts a box
as four numbers relative to an anchor: the shift of the centre in units of the anchor's
size, and the log of the size ratio, each normalised by a mean and a standard deviation.
``box_encode`` turns matched ground-truth boxes into those targets, ``box_decode`` turns
predictions back into corner boxes.
"""
import numpy as np

from .common import on_host, to_device
from .detection import _random_boxes
from .params import Choice, Param
from .registry import OpDef, TestHints, register_op

__all__ = ["BoxEncode", "BoxDecode", "BipartiteMatching"]


def _centres(boxes):
    """``(x, y, width, height)`` of corner boxes ``[..., 4]``."""
    width = boxes[..., 2] - boxes[..., 0]
    height = boxes[..., 3] - boxes[..., 1]
    return boxes[..., 0] + width * 0.5, boxes[..., 1] + height * 0.5, width, height


def _one_dtype(op, dtypes):
    """MXNet's rule for these operators: every input has the first one's dtype."""
    for name, dtype in zip(op.inputs, dtypes):
        if dtype != dtypes[0]:
            raise op.type_error(f"every input must be {dtypes[0]}, but {name} is {dtype}")
    return dtypes[0]


def _encode_inputs(rng, shapes, dtype):
    batch, anchors, boxes = shapes[2][0], shapes[2][1], shapes[3][1]
    samples = rng.choice([-1.0, 0.0, 1.0], size=(batch, anchors))
    matches = rng.randint(0, boxes, size=(batch, anchors)).astype("float64")
    means = rng.uniform(-0.1, 0.1, size=4)
    stds = rng.uniform(0.1, 0.3, size=4)
    return [samples, matches, _random_boxes(rng, batch * anchors).reshape(shapes[2]),
            _random_boxes(rng, batch * boxes).reshape(shapes[3]), means, stds]


def _decode_inputs(rng, shapes, dtype):
    return [rng.uniform(-1, 1, size=shapes[0]),
            _random_boxes(rng, int(np.prod(shapes[1][:-1]))).reshape(shapes[1])]


@register_op
class BoxEncode(OpDef):
    """Training targets of anchors ``(B, N, 4)`` matched to boxes ``refs`` ``(B, M, 4)``.

    ``matches[b, n]`` names the box of anchor ``n``; only anchors whose ``samples`` value
    is positive (> 0.5) get a target, ``((dx, dy, log dw, log dh) - means) / stds``, and a
    mask of ones; the others get zeros in both outputs.
    """
    name = "_contrib_box_encode"
    inputs = ("samples", "matches", "anchors", "refs", "means", "stds")
    outputs = ("output", "mask")
    differentiable = False
    has_gradient = False
    test = TestHints(shapes=((2, 5), (2, 5), (2, 5, 4), (2, 3, 4), (4,), (4,)), grad=False,
                     inputs=_encode_inputs)

    def infer_shape(self, samples, matches, anchors, refs, means, stds):
        if len(anchors) != 3 or anchors[-1] != 4:
            raise self.shape_error(f"anchors must be (B, N, 4), got {tuple(anchors)}")
        if tuple(samples) != tuple(anchors[:2]) or tuple(matches) != tuple(anchors[:2]):
            raise self.shape_error(f"samples and matches must be {tuple(anchors[:2])}, got "
                                   f"{tuple(samples)} and {tuple(matches)}")
        if len(refs) != 3 or refs[0] != anchors[0] or refs[-1] != 4:
            raise self.shape_error(f"refs must be ({anchors[0]}, M, 4), got {tuple(refs)}")
        if tuple(means) != (4,) or tuple(stds) != (4,):
            raise self.shape_error(f"means and stds must be (4,), got {tuple(means)} and "
                                   f"{tuple(stds)}")
        return [tuple(anchors), tuple(anchors)]

    def infer_type(self, *dtypes):
        return [_one_dtype(self, dtypes)] * 2

    def forward(self, xp, samples, matches, anchors, refs, means, stds):
        batch = xp.arange(anchors.shape[0])[:, None]
        matched = refs[batch, matches.astype("int64")]
        ref_x, ref_y, ref_w, ref_h = _centres(matched)
        a_x, a_y, a_w, a_h = _centres(anchors)
        raw = xp.stack([(ref_x - a_x) / a_w, (ref_y - a_y) / a_h,
                        xp.log(ref_w / a_w), xp.log(ref_h / a_h)], axis=-1)
        valid = xp.broadcast_to((samples > 0.5)[..., None], anchors.shape)
        mask = valid.astype(anchors.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            targets = xp.where(valid, (raw - means) / stds, 0).astype(anchors.dtype)
        return targets, mask


@register_op
class BoxDecode(OpDef):
    """Corner boxes from predicted offsets ``data`` ``(B, N, 4)`` and anchors ``(1, N, 4)``.

    ``x = data0 * std0 * aw + ax`` (likewise ``y``), ``w = exp(data2 * std2) * aw`` (``h``);
    a positive ``clip`` caps the exponents first.  ``format`` says how the anchors are
    written (``center``: ``[x, y, w, h]``; ``corner``: ``[xmin, ymin, xmax, ymax]``).
    """
    name = "_contrib_box_decode"
    inputs = ("data", "anchors")
    params = {"std0": Param(float, default=1.0, doc="scale of the first offset"),
              "std1": Param(float, default=1.0, doc="scale of the second offset"),
              "std2": Param(float, default=1.0, doc="scale of the third offset"),
              "std3": Param(float, default=1.0, doc="scale of the fourth offset"),
              "clip": Param(float, default=-1.0,
                            doc="if positive, the largest size exponent"),
              "format": Param(Choice("center", "corner"), default="center",
                              doc="how the anchors are written")}
    differentiable = False
    has_gradient = False
    test = TestHints(shapes=((2, 3, 4), (1, 3, 4)), params={"format": "corner"}, grad=False,
                     inputs=_decode_inputs,
                     cases=(({"std0": 0.1, "std1": 0.1, "std2": 0.2, "std3": 0.2, "clip": 0.1},
                             ((2, 3, 4), (1, 3, 4))),))

    def infer_shape(self, data, anchors):
        if len(data) != 3 or data[-1] != 4:
            raise self.shape_error(f"data must be (B, N, 4), got {tuple(data)}")
        if tuple(anchors) != (1,) + tuple(data[1:]):
            raise self.shape_error(f"anchors must be (1, {data[1]}, 4), got {tuple(anchors)}")
        return tuple(data)

    def infer_type(self, *dtypes):
        return _one_dtype(self, dtypes)

    def forward(self, xp, data, anchors):
        if self.format == "corner":
            a_x, a_y, a_w, a_h = _centres(anchors)
        else:
            a_x, a_y, a_w, a_h = (anchors[..., k] for k in range(4))
        dtype = data.dtype.type
        x = data[..., 0] * dtype(self.std0) * a_w + a_x
        y = data[..., 1] * dtype(self.std1) * a_h + a_y
        dw = data[..., 2] * dtype(self.std2)
        dh = data[..., 3] * dtype(self.std3)
        if self.clip > 0:
            dw = xp.minimum(dw, dtype(self.clip))
            dh = xp.minimum(dh, dtype(self.clip))
        half_w = xp.exp(dw) * a_w * dtype(0.5)
        half_h = xp.exp(dh) * a_h * dtype(0.5)
        return xp.stack([x - half_w, y - half_h, x + half_w, y + half_h], axis=-1)


@register_op
class BipartiteMatching(OpDef):
    """Greedy matching of rows to columns by score ``data`` ``(..., N, M)``.

    Pairs are taken best score first (highest, or lowest with ``is_ascend``), each row and
    column at most once, until a score fails ``threshold`` (must exceed it, or stay below
    it with ``is_ascend``).  Outputs: each row's column (``-1`` when unmatched) and each
    column's row.  As MXNet's kernel, a positive ``topk`` stops after ``topk + 1`` pairs.
    """
    name = "_contrib_bipartite_matching"
    inputs = ("data",)
    outputs = ("row_marker", "col_marker")
    params = {"is_ascend": Param(bool, default=False, doc="lower scores are better"),
              "threshold": Param(float, doc="scores beyond it are never matched"),
              "topk": Param(int, default=-1, doc="stop after this many pairs; -1: no limit")}
    differentiable = False
    has_gradient = False
    host_compute = True                 # a greedy loop on the host (on_host)
    test = TestHints(shapes=((2, 4, 3),), params={"threshold": 0.2}, grad=False,
                     low=0.0, high=1.0,
                     cases=(({"threshold": 0.7, "is_ascend": True, "topk": 1}, ((5, 4),)),))

    def infer_shape(self, data):
        if len(data) < 2:
            raise self.shape_error(f"data must have at least 2 dims, got {tuple(data)}")
        return [tuple(data[:-1]), tuple(data[:-2]) + (data[-1],)]

    def forward(self, xp, data):
        scores = on_host(xp, data)
        rows, cols = scores.shape[-2:]
        flat = scores.reshape(-1, rows * cols)
        row_marker = np.full((flat.shape[0], rows), -1, dtype=scores.dtype)
        col_marker = np.full((flat.shape[0], cols), -1, dtype=scores.dtype)
        for batch, values in enumerate(flat):
            order = np.argsort(values if self.is_ascend else -values, kind="stable")
            self._match(values, order, cols, row_marker[batch], col_marker[batch])
        return (to_device(xp, row_marker.reshape(scores.shape[:-1])),
                to_device(xp, col_marker.reshape(scores.shape[:-2] + (cols,))))

    def _match(self, values, order, cols, row_marker, col_marker):
        count = 0
        for index in order:
            row, col = divmod(int(index), cols)
            if row_marker[row] != -1 or col_marker[col] != -1:
                continue
            score = values[index]
            if not (score < self.threshold if self.is_ascend else score > self.threshold):
                return
            row_marker[row], col_marker[col] = col, row
            count += 1
            if 0 < self.topk < count:
                return
