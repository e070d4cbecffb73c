"""Plain-loop references for the detection operators (box by box, pixel by pixel).

Written from the operators' documented rules, independently of ``minimx/op/detection.py``
(which vectorizes); the generated tests compare the two, and test_vs_mxnet compares
minimx with MXNet 1.9.1 on the same inputs.
"""
import math


def _iou(a, b):
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(width, 0.0) * max(height, 0.0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _corner(box):
    x, y, w, h = box
    return [x - w / 2, y - h / 2, x + w / 2, y + h / 2]


def _center(box):
    return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2, box[2] - box[0], box[3] - box[1]]


def multibox_prior(np, data, sizes=(1.0,), ratios=(1.0,), clip=False, steps=(-1.0, -1.0),
                   offsets=(0.5, 0.5)):
    height, width = data.shape[2], data.shape[3]
    step_y = steps[0] if steps[0] > 0 else 1.0 / height
    step_x = steps[1] if steps[1] > 0 else 1.0 / width
    boxes = []
    for row in range(height):
        for col in range(width):
            cy, cx = (row + offsets[0]) * step_y, (col + offsets[1]) * step_x
            shapes = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
            for size, ratio in shapes:
                w = size * height / width * math.sqrt(ratio) / 2
                h = size / math.sqrt(ratio) / 2
                box = [cx - w, cy - h, cx + w, cy + h]
                boxes.append([min(max(v, 0.0), 1.0) for v in box] if clip else box)
    return np.array([boxes], dtype=data.dtype)


def multibox_target(np, anchor, label, cls_pred, overlap_threshold=0.5, ignore_label=-1.0,
                    negative_mining_ratio=-1.0, negative_mining_thresh=0.5,
                    minimum_negative_samples=0, variances=(0.1, 0.1, 0.2, 0.2)):
    anchors = [list(map(float, a)) for a in anchor[0]]
    count = len(anchors)
    loc_target = np.zeros((label.shape[0], count * 4))
    loc_mask = np.zeros((label.shape[0], count * 4))
    cls_target = np.zeros((label.shape[0], count))
    for n in range(label.shape[0]):
        truths = []
        for row in label[n]:
            if row[0] == -1:
                break
            truths.append([float(v) for v in row[:5]])
        flag, match, overlap = [-1] * count, [0] * count, [-1.0] * count
        taken_anchor, taken_truth = set(), set()
        while len(taken_truth) < len(truths):
            best, pair = 1e-6, None
            for i in range(count):
                if i in taken_anchor:
                    continue
                for k, truth in enumerate(truths):
                    if k not in taken_truth and _iou(anchors[i], truth[1:]) > best:
                        best, pair = _iou(anchors[i], truth[1:]), (i, k)
            if pair is None:
                break
            flag[pair[0]], match[pair[0]], overlap[pair[0]] = 1, pair[1], best
            taken_anchor.add(pair[0])
            taken_truth.add(pair[1])
        if truths and overlap_threshold > 0:
            for i in range(count):
                if flag[i] == 1:
                    continue
                ious = [_iou(anchors[i], truth[1:]) for truth in truths]
                k = ious.index(max(ious))
                overlap[i] = ious[k]
                if ious[k] > overlap_threshold:
                    flag[i], match[i] = 1, k
        if negative_mining_ratio > 0:
            positives = flag.count(1)
            # MXNet 1.9.1 never reads minimum_negative_samples (checked against it)
            wanted = min(int(positives * negative_mining_ratio), count - positives)
            scored = []
            for i in range(count):
                if flag[i] != 1 and overlap[i] < negative_mining_thresh:
                    logits = [float(cls_pred[n, c, i]) for c in range(cls_pred.shape[1])]
                    top = max(logits)
                    background = math.exp(logits[0] - top) / sum(math.exp(v - top)
                                                                  for v in logits)
                    scored.append((background, i))
            scored.sort(key=lambda item: item[0])      # stable: ties keep anchor order
            for _, i in scored[:max(wanted, 0)]:
                flag[i] = 0
        else:
            flag = [1 if f == 1 else 0 for f in flag]
        vx, vy, vw, vh = variances
        for i in range(count):
            if flag[i] == 1:
                truth, a = truths[match[i]], anchors[i]
                cls_target[n, i] = truth[0] + 1
                aw, ah = a[2] - a[0], a[3] - a[1]
                gw, gh = truth[3] - truth[1], truth[4] - truth[2]
                dx = ((truth[1] + truth[3]) / 2 - (a[0] + a[2]) / 2) / aw / vx
                dy = ((truth[2] + truth[4]) / 2 - (a[1] + a[3]) / 2) / ah / vy
                loc_target[n, 4 * i:4 * i + 4] = [dx, dy, math.log(gw / aw) / vw,
                                                  math.log(gh / ah) / vh]
                loc_mask[n, 4 * i:4 * i + 4] = 1
            else:
                cls_target[n, i] = 0 if flag[i] == 0 else ignore_label
    return [loc_target, loc_mask, cls_target]


def multibox_detection(np, cls_prob, loc_pred, anchor, clip=True, threshold=0.01,
                       background_id=0, nms_threshold=0.5, force_suppress=False,
                       variances=(0.1, 0.1, 0.2, 0.2), nms_topk=-1):
    batch, classes, count = cls_prob.shape
    vx, vy, vw, vh = variances
    out = -np.ones((batch, count, 6))
    for n in range(batch):
        rows = []
        for i in range(count):
            scores = [float(cls_prob[n, c, i]) for c in range(1, classes)]
            best = max(scores)
            if best < threshold:
                continue
            a = [float(v) for v in anchor[0, i]]
            loc = [float(v) for v in loc_pred[n, 4 * i:4 * i + 4]]
            aw, ah = a[2] - a[0], a[3] - a[1]
            x = loc[0] * vx * aw + (a[0] + a[2]) / 2
            y = loc[1] * vy * ah + (a[1] + a[3]) / 2
            w, h = math.exp(loc[2] * vw) * aw / 2, math.exp(loc[3] * vh) * ah / 2
            box = [x - w, y - h, x + w, y + h]
            if clip:
                box = [min(max(v, 0.0), 1.0) for v in box]
            rows.append([scores.index(best), best, *box])
        for position, row in enumerate(rows):
            out[n, position] = row
        order = sorted(range(len(rows)), key=lambda r: -rows[r][1])
        keep = len(order) if nms_topk <= 0 else min(nms_topk, len(order))
        kept = [list(rows[r]) for r in order[:keep]]
        for i in range(len(kept)):
            for j in range(i + 1, len(kept)):
                if kept[i][0] >= 0 and kept[j][0] >= 0 and \
                        (force_suppress or kept[i][0] == kept[j][0]) and \
                        _iou(kept[i][2:], kept[j][2:]) > nms_threshold:
                    kept[j][0] = -1
        for position, row in enumerate(kept):
            out[n, position] = row
        for position in range(keep, len(rows)):
            out[n, position, 0] = -1
    return out


def box_nms(np, data, overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2,
            score_index=1, id_index=-1, background_id=-1, force_suppress=False,
            in_format="corner", out_format="corner"):
    blocks = data.reshape(-1, data.shape[-2], data.shape[-1])
    out = -np.ones_like(blocks)
    for b, block in enumerate(blocks):
        rows = [list(map(float, row)) for row in block]
        order = [i for i, row in enumerate(rows) if row[score_index] > valid_thresh and
                 (id_index < 0 or row[id_index] != background_id)]
        order.sort(key=lambda i: -rows[i][score_index])
        if topk > 0:
            order = order[:topk]

        def corners(i):
            box = rows[i][coord_start:coord_start + 4]
            return _corner(box) if in_format == "center" else box

        kept = []
        for i in order:
            if all(_iou(corners(i), corners(k)) <= overlap_thresh or
                   (id_index >= 0 and not force_suppress and
                    rows[i][id_index] != rows[k][id_index]) for k in kept):
                kept.append(i)
        for position, i in enumerate(kept):
            row = list(rows[i])
            if in_format != out_format:
                box = row[coord_start:coord_start + 4]
                row[coord_start:coord_start + 4] = _center(box) if out_format == "center" \
                    else _corner(box)
            out[b, position] = row
    return out.reshape(data.shape)


def box_iou(np, lhs, rhs, format="corner"):
    a = lhs.reshape(-1, 4).tolist()
    b = rhs.reshape(-1, 4).tolist()
    if format == "center":
        a, b = [_corner(x) for x in a], [_corner(x) for x in b]
    result = np.array([[_iou(x, y) for y in b] for x in a])
    return result.reshape(lhs.shape[:-1] + rhs.shape[:-1])


def box_encode(np, samples, matches, anchors, refs, means, stds):
    targets, masks = np.zeros(anchors.shape), np.zeros(anchors.shape)
    for b in range(anchors.shape[0]):
        for n in range(anchors.shape[1]):
            if samples[b, n] <= 0.5:
                continue
            ax, ay, aw, ah = _center(list(anchors[b, n]))
            rx, ry, rw, rh = _center(list(refs[b, int(matches[b, n])]))
            raw = [(rx - ax) / aw, (ry - ay) / ah, math.log(rw / aw), math.log(rh / ah)]
            targets[b, n] = [(raw[k] - means[k]) / stds[k] for k in range(4)]
            masks[b, n] = 1.0
    return targets, masks


def box_decode(np, data, anchors, std0=1.0, std1=1.0, std2=1.0, std3=1.0, clip=-1.0,
               format="center"):
    out = np.zeros(data.shape)
    for b in range(data.shape[0]):
        for n in range(data.shape[1]):
            anchor = list(anchors[0, n])
            ax, ay, aw, ah = _center(anchor) if format == "corner" else anchor
            dx, dy, dw, dh = (data[b, n, k] * s for k, s in enumerate((std0, std1, std2, std3)))
            if clip > 0:
                dw, dh = min(dw, clip), min(dh, clip)
            out[b, n] = _corner([dx * aw + ax, dy * ah + ay, math.exp(dw) * aw, math.exp(dh) * ah])
    return out


def bipartite_matching(np, data, threshold, is_ascend=False, topk=-1):
    rows, cols = data.shape[-2:]
    blocks = data.reshape(-1, rows, cols)
    row_out, col_out = -np.ones(blocks.shape[:2]), -np.ones((len(blocks), cols))
    for b, block in enumerate(blocks):
        pairs = sorted(((float(block[r, c]), r * cols + c) for r in range(rows)
                        for c in range(cols)), key=lambda p: (p[0] if is_ascend else -p[0], p[1]))
        count = 0
        for score, index in pairs:
            r, c = divmod(index, cols)
            if row_out[b, r] >= 0 or col_out[b, c] >= 0:
                continue
            if (score >= threshold) if is_ascend else (score <= threshold):
                break
            row_out[b, r], col_out[b, c] = c, r
            count += 1
            if 0 < topk < count:
                break
    return row_out.reshape(data.shape[:-1]), col_out.reshape(data.shape[:-2] + (cols,))


DETECTION_REFERENCES = {
    "_contrib_box_encode": box_encode, "_contrib_box_decode": box_decode,
    "_contrib_bipartite_matching": bipartite_matching,
    "_contrib_MultiBoxPrior": multibox_prior, "_contrib_MultiBoxTarget": multibox_target,
    "_contrib_MultiBoxDetection": multibox_detection, "_contrib_box_nms": box_nms,
    "_contrib_box_iou": box_iou,
}


def _c_round(value):
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


def roi_pooling(np, data, rois, pooled_size, spatial_scale):
    ph_count, pw_count = pooled_size
    height, width = data.shape[2:]
    out = np.zeros((len(rois), data.shape[1], ph_count, pw_count), dtype=data.dtype)
    for r, (b, x1, y1, x2, y2) in enumerate(rois.tolist()):
        x1, y1, x2, y2 = (_c_round(v * spatial_scale) for v in (x1, y1, x2, y2))
        roi_h, roi_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for c in range(data.shape[1]):
            for i in range(ph_count):
                for j in range(pw_count):
                    top = min(max(math.floor(i * roi_h / ph_count) + y1, 0), height)
                    bottom = min(max(math.ceil((i + 1) * roi_h / ph_count) + y1, 0), height)
                    left = min(max(math.floor(j * roi_w / pw_count) + x1, 0), width)
                    right = min(max(math.ceil((j + 1) * roi_w / pw_count) + x1, 0), width)
                    window = data[int(b), c, top:bottom, left:right]
                    out[r, c, i, j] = window.max() if window.size else 0
    return out


def _sample(plane, y, x):
    """Bilinear value of ``plane`` at (y, x): 0 beyond one cell outside, edges repeated."""
    height, width = plane.shape
    if not (-1 <= y <= height and -1 <= x <= width):
        return 0.0
    y = min(max(y, 0.0), height - 1)
    x = min(max(x, 0.0), width - 1)
    y0, x0 = math.floor(y), math.floor(x)
    y1, x1 = min(y0 + 1, height - 1), min(x0 + 1, width - 1)
    fy, fx = y - y0, x - x0
    top = plane[y0, x0] * (1 - fx) + plane[y0, x1] * fx
    bottom = plane[y1, x0] * (1 - fx) + plane[y1, x1] * fx
    return top * (1 - fy) + bottom * fy


def roi_align(np, data, rois, pooled_size, spatial_scale, sample_ratio=-1,
              position_sensitive=False, aligned=False):
    ph_count, pw_count = pooled_size
    channels = data.shape[1] // (ph_count * pw_count) if position_sensitive else data.shape[1]
    out = np.zeros((len(rois), channels, ph_count, pw_count))
    shift = 0.5 if aligned else 0.0
    for r, (b, x1, y1, x2, y2) in enumerate(rois.tolist()):
        left, top = x1 * spatial_scale - shift, y1 * spatial_scale - shift
        roi_w, roi_h = (x2 - x1) * spatial_scale, (y2 - y1) * spatial_scale
        if not aligned:
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        grid_h = sample_ratio if sample_ratio > 0 else math.ceil(roi_h / ph_count)
        grid_w = sample_ratio if sample_ratio > 0 else math.ceil(roi_w / pw_count)
        for c in range(channels):
            for i in range(ph_count):
                for j in range(pw_count):
                    source = (c * ph_count + i) * pw_count + j if position_sensitive else c
                    plane = data[int(b), source].astype(np.float64)
                    points = [_sample(plane,
                                      top + (i + (gy + 0.5) / grid_h) * roi_h / ph_count,
                                      left + (j + (gx + 0.5) / grid_w) * roi_w / pw_count)
                              for gy in range(grid_h) for gx in range(grid_w)]
                    out[r, c, i, j] = sum(points) / max(len(points), 1)
    return out


DETECTION_REFERENCES.update({"ROIPooling": roi_pooling, "_contrib_ROIAlign": roi_align})
