"""Object detection: anchor boxes, matching them to labels, decoding, non-maximum suppression.

Lesson: 11-data.  Mirrors ``src/operator/contrib/multibox_prior.cc``,
``multibox_target.cc``, ``multibox_detection.cc`` and ``bounding_box.cc`` (SSD's
operators, ``nd.contrib.*``).  Boxes are ``[xmin, ymin, xmax, ymax]`` in image fractions
("corner" format) unless a ``format`` says ``center`` (``[x, y, width, height]``).

Matching and suppression are greedy loops over a few hundred boxes; they run on the host
(``on_host``) whatever the device, as MXNet's CPU kernels do, and follow those kernels'
order of decisions, so ties resolve the same way.
"""
import numpy as np

from .common import on_host, to_device
from .params import FloatTuple, Param
from .registry import OpDef, TestHints, register_op

__all__ = ["MultiBoxPrior", "MultiBoxTarget", "MultiBoxDetection", "BoxNMS", "BoxIoU",
           "box_iou_matrix"]


def box_iou_matrix(a, b):
    """IoU of every box of ``a`` (n, 4) with every box of ``b`` (m, 4), corner format."""
    left = np.maximum(a[:, None, 0], b[None, :, 0])
    top = np.maximum(a[:, None, 1], b[None, :, 1])
    right = np.minimum(a[:, None, 2], b[None, :, 2])
    bottom = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.maximum(right - left, 0) * np.maximum(bottom - top, 0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def center_to_corner(boxes):
    x, y, w, h = (boxes[..., i] for i in range(4))
    return np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=-1)


def corner_to_center(boxes):
    left, top, right, bottom = (boxes[..., i] for i in range(4))
    return np.stack([(left + right) / 2, (top + bottom) / 2, right - left, bottom - top],
                    axis=-1)


# -- generated test inputs: boxes with ordered corners ------------------------------------------
def _random_boxes(rng, count):
    corner = rng.uniform(0, 0.7, size=(count, 2))
    size = rng.uniform(0.1, 0.5, size=(count, 2))
    return np.concatenate([corner, corner + size], axis=1)


def _prior_inputs(rng, shapes, dtype):
    return [rng.uniform(-1, 1, size=shapes[0])]


def _target_inputs(rng, shapes, dtype):
    anchor_shape, label_shape, cls_shape = shapes
    anchors = _random_boxes(rng, anchor_shape[1])[None]
    labels = -np.ones(label_shape)
    for sample in range(label_shape[0]):
        count = rng.randint(1, label_shape[1] + 1)
        labels[sample, :count, 0] = rng.randint(0, cls_shape[1] - 1, size=count)
        # ground truths near some anchors, so that both matching steps have work
        near = anchors[0, rng.randint(0, anchor_shape[1], size=count)]
        labels[sample, :count, 1:5] = np.clip(near + rng.uniform(-0.05, 0.05, (count, 4)), 0, 1)
    return [anchors, labels, rng.uniform(-2, 2, size=cls_shape)]


def _detection_inputs(rng, shapes, dtype):
    cls_shape, loc_shape, anchor_shape = shapes
    logits = rng.uniform(-2, 2, size=cls_shape)
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return [probs, rng.uniform(-0.5, 0.5, size=loc_shape),
            _random_boxes(rng, anchor_shape[1])[None]]


def _nms_inputs(rng, shapes, dtype):
    shape = shapes[0]
    data = rng.uniform(0, 1, size=shape)
    flat = data.reshape(-1, shape[-1])
    flat[:, 0] = rng.randint(-1, 3, size=len(flat))                 # class ids, some -1
    flat[:, 1] = rng.permutation(len(flat)) / len(flat) + 0.01       # distinct scores
    flat[:, 2:6] = _random_boxes(rng, len(flat))
    return [data]


def _iou_inputs(rng, shapes, dtype):
    return [_random_boxes(rng, int(np.prod(s[:-1]))).reshape(s) for s in shapes]


# -- anchors -------------------------------------------------------------------------------------
@register_op
class MultiBoxPrior(OpDef):
    """Anchor boxes centred on every pixel of ``data``'s feature map: (1, H*W*A, 4).

    At each pixel: one box per size with the first ratio, then one per further ratio
    with the first size (``A = len(sizes) + len(ratios) - 1``).  A box of size ``s`` and
    ratio ``r`` is ``s * sqrt(r)`` wide (times H/W, so that it is square in pixels when
    ``r = 1``) and ``s / sqrt(r)`` high, in fractions of the image.  Centres are
    ``(i + offset) * step`` with ``step`` 1/H, 1/W unless ``steps`` gives it.
    """

    name = "_contrib_MultiBoxPrior"
    differentiable = False
    params = {
        "sizes": Param(FloatTuple, default=(1.0,), doc="box sizes, fractions of the image"),
        "ratios": Param(FloatTuple, default=(1.0,), doc="width/height ratios"),
        "clip": Param(bool, default=False, doc="clip the boxes to [0, 1]"),
        "steps": Param(FloatTuple, default=(-1.0, -1.0), doc="(y, x) step between centres"),
        "offsets": Param(FloatTuple, default=(0.5, 0.5), doc="(y, x) offset of a centre"),
    }
    test = TestHints(shapes=((1, 2, 3, 4),), params={"sizes": (0.5, 0.25), "ratios": (1, 2, 0.5)},
                     cases=(({"sizes": (0.75,), "clip": True, "steps": (0.3, 0.4),
                              "offsets": (0.2, 0.6)}, ((2, 3, 2, 3),)),),
                     grad=False, inputs=_prior_inputs)

    def check_params(self):
        if not self.sizes or not self.ratios:
            raise self.param_error("sizes and ratios need at least one value each")
        if len(self.steps) != 2 or len(self.offsets) != 2:
            raise self.param_error(f"steps and offsets are (y, x) pairs, got steps "
                                   f"{self.steps}, offsets {self.offsets}")

    def infer_shape(self, data):
        if len(data) != 4:
            raise self.shape_error(f"data must be 4-D (batch, channel, height, width), "
                                   f"got shape {tuple(data)}")
        count = len(self.sizes) + len(self.ratios) - 1
        return (1, data[2] * data[3] * count, 4)

    def infer_type(self, dtype):
        return dtype

    def boxes(self, height, width):
        """The anchors as a numpy array (H*W*A, 4), float32."""
        step_y = self.steps[0] if self.steps[0] > 0 else 1.0 / height
        step_x = self.steps[1] if self.steps[1] > 0 else 1.0 / width
        center_y = (np.arange(height, dtype=np.float32) + self.offsets[0]) * step_y
        center_x = (np.arange(width, dtype=np.float32) + self.offsets[1]) * step_x
        shapes = [(size, self.ratios[0]) for size in self.sizes]
        shapes += [(self.sizes[0], ratio) for ratio in self.ratios[1:]]
        half = np.array([(size * height / width * np.sqrt(ratio) / 2, size / np.sqrt(ratio) / 2)
                         for size, ratio in shapes], dtype=np.float32)       # (A, 2): w, h
        cy, cx = np.meshgrid(center_y, center_x, indexing="ij")
        cx, cy = cx[:, :, None], cy[:, :, None]
        boxes = np.stack([cx - half[:, 0], cy - half[:, 1], cx + half[:, 0], cy + half[:, 1]],
                         axis=-1).reshape(-1, 4)
        return np.clip(boxes, 0, 1) if self.clip else boxes

    def forward(self, xp, data):
        return to_device(xp, self.boxes(data.shape[2], data.shape[3])[None], data.dtype)


# -- training targets ---------------------------------------------------------------------------
@register_op
class MultiBoxTarget(OpDef):
    """Match anchors to ground-truth boxes: (loc_target, loc_mask, cls_target).

    ``anchor`` (1, A, 4); ``label`` (N, M, 5+): ``[class, xmin, ymin, xmax, ymax]`` rows,
    padded with rows of -1; ``cls_pred`` (N, classes + 1, A) is read only for hard negative
    mining.  Each ground truth first takes the anchor it overlaps most (bipartite matching,
    best pair first), then every other anchor overlapping a ground truth more than
    ``overlap_threshold`` takes it.  Positives get class + 1 and the offsets of their box
    (centre shifts and log size ratios over ``variances``, loc_mask 1).  The rest are
    background (0) -- or, with ``negative_mining_ratio > 0``, only the hardest
    ``ratio * positives`` of those overlapping less than ``negative_mining_thresh`` (lowest
    softmax background probability), the others ``ignore_label``.  MXNet 1.9.1's kernel
    accepts ``minimum_negative_samples`` but never reads it; minimx does the same, so that
    both give a model the same targets.
    """

    name = "_contrib_MultiBoxTarget"
    host_compute = True                 # a greedy loop on the host (on_host)
    inputs = ("anchor", "label", "cls_pred")
    outputs = ("loc_target", "loc_mask", "cls_target")
    differentiable = False
    params = {
        "overlap_threshold": Param(float, default=0.5),
        "ignore_label": Param(float, default=-1.0),
        "negative_mining_ratio": Param(float, default=-1.0),
        "negative_mining_thresh": Param(float, default=0.5),
        "minimum_negative_samples": Param(int, default=0),
        "variances": Param(FloatTuple, default=(0.1, 0.1, 0.2, 0.2)),
    }
    test = TestHints(shapes=((1, 12, 4), (2, 3, 5), (2, 4, 12)), grad=False,
                     inputs=_target_inputs,
                     cases=(({"negative_mining_ratio": 1.0, "minimum_negative_samples": 2},
                             ((1, 16, 4), (3, 4, 5), (3, 3, 16))),
                            ({"overlap_threshold": 0.3, "variances": (0.2, 0.2, 0.1, 0.1)},
                             ((1, 10, 4), (1, 2, 6), (1, 5, 10)))))

    def infer_shape(self, anchor, label, cls_pred):
        if len(anchor) != 3 or anchor[-1] != 4:
            raise self.shape_error(f"anchor must be (1, anchors, 4), got {tuple(anchor)}")
        if len(label) != 3 or label[-1] < 5:
            raise self.shape_error(f"label must be (batch, objects, 5 or more), got "
                                   f"{tuple(label)}")
        if len(cls_pred) != 3 or cls_pred[0] != label[0] or cls_pred[2] != anchor[1]:
            raise self.shape_error(f"cls_pred must be (batch {label[0]}, classes, anchors "
                                   f"{anchor[1]}), got {tuple(cls_pred)}")
        batch, count = label[0], anchor[1]
        return [(batch, count * 4), (batch, count * 4), (batch, count)]

    def infer_type(self, anchor, label, cls_pred):
        return [anchor] * 3

    def forward(self, xp, anchor, label, cls_pred):
        anchors = on_host(xp, anchor)[0].astype(np.float64)
        labels, preds = on_host(xp, label), on_host(xp, cls_pred)
        batch, count = labels.shape[0], anchors.shape[0]
        loc_target = np.zeros((batch, count, 4))
        loc_mask = np.zeros((batch, count, 4))
        cls_target = np.zeros((batch, count))
        for sample in range(batch):
            valid = labels[sample]
            ends = np.nonzero(valid[:, 0] == -1)[0]
            valid = valid[:ends[0]] if len(ends) else valid
            flags, matches = self._match(anchors, valid[:, 1:5].astype(np.float64),
                                         preds[sample])
            positive = flags == 1
            cls_target[sample] = np.where(positive, 0, np.where(flags == 0, 0,
                                                                 self.ignore_label))
            if positive.any():
                cls_target[sample, positive] = valid[matches[positive], 0] + 1
                loc_target[sample, positive] = self._encode(anchors[positive],
                                                            valid[matches[positive], 1:5])
                loc_mask[sample, positive] = 1
        dtype = anchor.dtype
        return (to_device(xp, loc_target.reshape(batch, -1), dtype),
                to_device(xp, loc_mask.reshape(batch, -1), dtype),
                to_device(xp, cls_target, dtype))

    def _match(self, anchors, truths, preds):
        """Per anchor: flag (1 positive, 0 negative, -1 ignored) and matched truth index."""
        count = len(anchors)
        flags = -np.ones(count, dtype=int)
        matches = np.zeros(count, dtype=int)
        best_overlap = -np.ones(count)
        if len(truths):
            overlaps = box_iou_matrix(anchors, truths)
            free_anchor = np.ones(count, dtype=bool)
            free_truth = np.ones(len(truths), dtype=bool)
            while free_truth.any():          # bipartite: the best remaining pair first
                masked = np.where(free_anchor[:, None] & free_truth[None, :], overlaps, -1)
                best = int(np.argmax(masked))
                anchor_index, truth_index = divmod(best, len(truths))
                if masked[anchor_index, truth_index] <= 1e-6:
                    break
                flags[anchor_index], matches[anchor_index] = 1, truth_index
                best_overlap[anchor_index] = masked[anchor_index, truth_index]
                free_anchor[anchor_index] = free_truth[truth_index] = False
            if self.overlap_threshold > 0:
                for index in np.nonzero(flags != 1)[0]:
                    truth_index = int(np.argmax(overlaps[index]))
                    best_overlap[index] = overlaps[index, truth_index]
                    if best_overlap[index] > self.overlap_threshold:
                        flags[index], matches[index] = 1, truth_index
        if self.negative_mining_ratio > 0:
            self._mine_negatives(flags, best_overlap, preds)
        else:
            flags[flags != 1] = 0
        return flags, matches

    def _mine_negatives(self, flags, best_overlap, preds):
        positives = int((flags == 1).sum())
        wanted = int(positives * self.negative_mining_ratio)
        wanted = min(wanted, len(flags) - positives)    # (minimum_negative_samples unread)
        if wanted <= 0:
            return
        candidates = [index for index in range(len(flags))
                      if flags[index] != 1 and best_overlap[index] < self.negative_mining_thresh]
        logits = preds[:, candidates].astype(np.float64)
        shifted = np.exp(logits - logits.max(axis=0))
        background = shifted[0] / shifted.sum(axis=0)
        order = np.argsort(background, kind="stable")    # least sure of background first
        for position in order[:wanted]:
            flags[candidates[position]] = 0

    def _encode(self, anchors, truths):
        vx, vy, vw, vh = self.variances
        aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
        ax, ay = (anchors[:, 0] + anchors[:, 2]) / 2, (anchors[:, 1] + anchors[:, 3]) / 2
        gw, gh = truths[:, 2] - truths[:, 0], truths[:, 3] - truths[:, 1]
        gx, gy = (truths[:, 0] + truths[:, 2]) / 2, (truths[:, 1] + truths[:, 3]) / 2
        return np.stack([(gx - ax) / aw / vx, (gy - ay) / ah / vy,
                         np.log(gw / aw) / vw, np.log(gh / ah) / vh], axis=1)


# -- decoding predictions ------------------------------------------------------------------------
@register_op
class MultiBoxDetection(OpDef):
    """Decode predictions into boxes, then suppress overlaps: (N, A, 6) rows
    ``[class, score, xmin, ymin, xmax, ymax]``.

    Each anchor takes its most probable class other than class 0 (MXNet 1.9.1's kernel
    takes class 0 as the background whatever ``background_id`` says, and so does minimx);
    anchors scoring below ``threshold`` are dropped.  The rest are sorted by score (ties in
    anchor order); of the first ``nms_topk`` (all when -1), a box overlapping a better one
    of its class (any class with ``force_suppress``) by more than ``nms_threshold`` gets
    class -1.  Rows past ``nms_topk`` keep their box with class -1; unused rows are all -1.
    """

    name = "_contrib_MultiBoxDetection"
    host_compute = True                 # a greedy loop on the host (on_host)
    inputs = ("cls_prob", "loc_pred", "anchor")
    differentiable = False
    params = {
        "clip": Param(bool, default=True),
        "threshold": Param(float, default=0.01),
        "background_id": Param(int, default=0),
        "nms_threshold": Param(float, default=0.5),
        "force_suppress": Param(bool, default=False),
        "variances": Param(FloatTuple, default=(0.1, 0.1, 0.2, 0.2)),
        "nms_topk": Param(int, default=-1),
    }
    test = TestHints(shapes=((2, 4, 15), (2, 60), (1, 15, 4)), grad=False,
                     inputs=_detection_inputs,
                     cases=(({"threshold": 0.3, "nms_threshold": 0.3, "force_suppress": True},
                             ((1, 3, 20), (1, 80), (1, 20, 4))),
                            ({"nms_topk": 4, "clip": False}, ((2, 3, 12), (2, 48), (1, 12, 4)))))

    def infer_shape(self, cls_prob, loc_pred, anchor):
        if len(cls_prob) != 3 or len(anchor) != 3 or anchor[-1] != 4:
            raise self.shape_error(f"expected cls_prob (batch, classes, anchors) and anchor "
                                   f"(1, anchors, 4), got {tuple(cls_prob)} and {tuple(anchor)}")
        if cls_prob[2] != anchor[1] or tuple(loc_pred) != (cls_prob[0], anchor[1] * 4):
            raise self.shape_error(f"cls_prob {tuple(cls_prob)}, loc_pred {tuple(loc_pred)} "
                                   f"and anchor {tuple(anchor)} disagree on the anchors")
        return (cls_prob[0], anchor[1], 6)

    def forward(self, xp, cls_prob, loc_pred, anchor):
        probs, locs = on_host(xp, cls_prob), on_host(xp, loc_pred)
        anchors = on_host(xp, anchor)[0]
        batch, count = probs.shape[0], anchors.shape[0]
        out = -np.ones((batch, count, 6), dtype=probs.dtype)
        boxes_all = self._decode(anchors, locs.reshape(batch, count, 4))
        for sample in range(batch):
            scores = probs[sample, 1:]
            ids = np.argmax(scores, axis=0)            # first maximum, as the kernel's `>`
            best = scores[ids, np.arange(count)]
            valid = np.nonzero(best >= self.threshold)[0] if probs.shape[1] > 1 else []
            rows = np.concatenate([ids[valid, None], best[valid, None],
                                   boxes_all[sample, valid]], axis=1) if len(valid) else \
                np.zeros((0, 6))
            out[sample, :len(rows)] = rows
            order = np.argsort(-rows[:, 1], kind="stable")
            keep = len(order) if self.nms_topk <= 0 else min(self.nms_topk, len(order))
            kept = rows[order[:keep]].copy()
            self._suppress(kept)
            out[sample, :keep] = kept
            out[sample, keep:len(rows), 0] = -1
        return to_device(xp, out, cls_prob.dtype)

    def _decode(self, anchors, locs):
        vx, vy, vw, vh = self.variances
        aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
        ax, ay = (anchors[:, 0] + anchors[:, 2]) / 2, (anchors[:, 1] + anchors[:, 3]) / 2
        x = locs[..., 0] * vx * aw + ax
        y = locs[..., 1] * vy * ah + ay
        w = np.exp(locs[..., 2] * vw) * aw / 2
        h = np.exp(locs[..., 3] * vh) * ah / 2
        boxes = np.stack([x - w, y - h, x + w, y + h], axis=-1)
        return np.clip(boxes, 0, 1) if self.clip else boxes

    def _suppress(self, rows):
        """Greedy NMS in place over rows sorted by score: a suppressed row gets class -1."""
        overlaps = box_iou_matrix(rows[:, 2:6], rows[:, 2:6])
        for i in range(len(rows)):
            if rows[i, 0] < 0:
                continue
            for j in range(i + 1, len(rows)):
                if rows[j, 0] < 0:
                    continue
                if (self.force_suppress or rows[i, 0] == rows[j, 0]) and \
                        overlaps[i, j] > self.nms_threshold:
                    rows[j, 0] = -1


# -- generic boxes --------------------------------------------------------------------------------
@register_op
class BoxNMS(OpDef):
    """Non-maximum suppression over the last two axes of ``data`` (..., boxes, K).

    Each row holds a score at ``score_index``, four coordinates from ``coord_start``
    (``in_format`` corner or center) and optionally a class id at ``id_index``.  Rows
    scoring at most ``valid_thresh``, or of class ``background_id``, are dropped; the rest
    are sorted by score, the first ``topk`` kept (all with -1), and a row overlapping a
    better kept row of its class (any class with ``force_suppress`` or no ``id_index``) by
    more than ``overlap_thresh`` is dropped.  The output lists the kept rows, best first,
    in ``out_format``, and fills the remaining rows with -1.  The gradient flows back to the
    input rows that were kept.
    """

    name = "_contrib_box_nms"
    host_compute = True                 # a greedy loop on the host (on_host)
    aliases = ("_contrib_box_non_maximum_suppression",)
    outputs = ("output", "indices")
    visible_outputs = 1
    saves = ("data_shape", "indices")
    params = {
        "overlap_thresh": Param(float, default=0.5),
        "valid_thresh": Param(float, default=0.0),
        "topk": Param(int, default=-1),
        "coord_start": Param(int, default=2),
        "score_index": Param(int, default=1),
        "id_index": Param(int, default=-1),
        "background_id": Param(int, default=-1),
        "force_suppress": Param(bool, default=False),
        "in_format": Param(str, default="corner"),
        "out_format": Param(str, default="corner"),
    }
    # the gradient is checked where no class id is compared (cases 1 and 3)
    test = TestHints(shapes=((12, 6),), params={"id_index": 0}, inputs=_nms_inputs, grad=(1, 3),
                     cases=(({"overlap_thresh": 0.3, "topk": 5}, ((2, 10, 6),)),
                            ({"id_index": 0, "background_id": 1, "valid_thresh": 0.3,
                              "force_suppress": True}, ((2, 2, 8, 7),)),
                            ({"in_format": "center", "out_format": "center"}, ((9, 6),))))

    def check_params(self):
        for name in ("in_format", "out_format"):
            if getattr(self, name) not in ("corner", "center"):
                raise self.param_error(f"{name} must be 'corner' or 'center', got "
                                       f"{getattr(self, name)!r}")

    def infer_shape(self, data):
        if len(data) < 2 or data[-1] < self.coord_start + 4 or data[-1] <= self.score_index:
            raise self.shape_error(f"data must be (..., boxes, K) with K > score_index "
                                   f"{self.score_index} and coord_start {self.coord_start} + 4 "
                                   f"<= K, got {tuple(data)}")
        return [tuple(data), tuple(data[:-1])]

    def infer_type(self, dtype):
        return [dtype, "int32"]

    def forward(self, xp, data):
        values = on_host(xp, data)
        rows = values.reshape(-1, values.shape[-2], values.shape[-1])
        out = -np.ones_like(rows)
        indices = -np.ones(rows.shape[:2], dtype=np.int32)
        for batch, block in enumerate(rows):
            kept = self._kept_rows(block)
            chosen = block[kept].copy()
            coords = chosen[:, self.coord_start:self.coord_start + 4]
            if self.in_format != self.out_format:
                convert = corner_to_center if self.out_format == "center" else center_to_corner
                chosen[:, self.coord_start:self.coord_start + 4] = convert(coords)
            out[batch, :len(kept)] = chosen
            indices[batch, :len(kept)] = kept
        return (to_device(xp, out.reshape(values.shape), data.dtype),
                to_device(xp, indices.reshape(values.shape[:-1]), np.int32))

    def _kept_rows(self, block):
        scores = block[:, self.score_index]
        candidates = scores > self.valid_thresh
        if self.id_index >= 0:
            candidates &= block[:, self.id_index] != self.background_id
        order = np.nonzero(candidates)[0]
        order = order[np.argsort(-scores[order], kind="stable")]
        if self.topk > 0:
            order = order[:self.topk]
        boxes = block[order, self.coord_start:self.coord_start + 4]
        if self.in_format == "center":
            boxes = center_to_corner(boxes)
        overlaps = box_iou_matrix(boxes, boxes)
        alive = np.ones(len(order), dtype=bool)
        same_class_only = self.id_index >= 0 and not self.force_suppress
        for i in range(len(order)):
            if not alive[i]:
                continue
            for j in range(i + 1, len(order)):
                if alive[j] and overlaps[i, j] > self.overlap_thresh and (
                        not same_class_only or
                        block[order[i], self.id_index] == block[order[j], self.id_index]):
                    alive[j] = False
        return order[alive]

    def backward(self, xp, out_grad, data_shape, indices):
        rows = out_grad.reshape(-1, out_grad.shape[-2], out_grad.shape[-1])
        flat_indices = indices.reshape(rows.shape[0], -1)
        grad = xp.zeros(rows.shape, dtype=out_grad.dtype)
        for batch in range(rows.shape[0]):
            kept = flat_indices[batch]
            count = int((kept >= 0).sum())
            if count:
                grad[batch, kept[:count]] = rows[batch, :count]
        return grad.reshape(data_shape)


@register_op
class BoxIoU(OpDef):
    """Intersection over union of every box of ``lhs`` (..., 4) with every box of ``rhs``
    (..., 4): shape ``lhs.shape[:-1] + rhs.shape[:-1]``."""

    name = "_contrib_box_iou"
    host_compute = True                 # the host's IoU helper the loops above share
    inputs = ("lhs", "rhs")
    differentiable = False
    params = {"format": Param(str, default="corner")}
    test = TestHints(shapes=((3, 4), (5, 4)), inputs=_iou_inputs, grad=False,
                     cases=(({"format": "center"}, ((2, 3, 4), (4, 4))),))

    def check_params(self):
        if self.format not in ("corner", "center"):
            raise self.param_error(f"format must be 'corner' or 'center', got {self.format!r}")

    def infer_shape(self, lhs, rhs):
        if lhs[-1] != 4 or rhs[-1] != 4:
            raise self.shape_error(f"boxes need 4 coordinates in the last axis, got "
                                   f"{tuple(lhs)} and {tuple(rhs)}")
        return tuple(lhs[:-1]) + tuple(rhs[:-1])

    def forward(self, xp, lhs, rhs):
        a, b = on_host(xp, lhs).reshape(-1, 4), on_host(xp, rhs).reshape(-1, 4)
        if self.format == "center":
            a, b = center_to_corner(a), center_to_corner(b)
        result = box_iou_matrix(a.astype(np.float64), b.astype(np.float64))
        return to_device(xp, result.reshape(lhs.shape[:-1] + rhs.shape[:-1]), lhs.dtype)
