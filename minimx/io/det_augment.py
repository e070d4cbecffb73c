"""Box-aware augmentation for detection records: crop, pad, colour jitter, mirror, resize.

Lesson: 11-data. A detection label is ``[header_width, object_width, extra header...,
object, object, ...]``; each object is ``[class, xmin, ymin, xmax, ymax, ...]`` with
coordinates as fractions of the image. Every geometric step moves the boxes with the
pixels: a mirror maps x to 1 - x, a crop or pad rescales coordinates into the new frame
(a cropped-out object, whose centre leaves the crop, is dropped).
Mirrors src/io/image_det_aug_default.cc (simplified samplers, same label layout).
"""
import numpy as np

from ..base import MXNetError
from ..image_codec import resize_array
from .image_aug_default import hls_to_rgb, rgb_to_hls

__all__ = ["split_label", "join_label", "augment_detection"]


def split_label(raw):
    """``raw`` label -> (header array, objects array of shape (n, object_width))."""
    raw = np.asarray(raw, np.float32)
    if raw.size < 2:
        raise MXNetError(f"ImageDetRecordIter: a detection label needs at least [header_width, "
                         f"object_width], got {raw.tolist()}")
    header_width, object_width = int(raw[0]), int(raw[1])
    if header_width < 2 or object_width < 5 or (raw.size - header_width) % object_width:
        raise MXNetError(f"ImageDetRecordIter: invalid detection label: header width "
                         f"{header_width}, object width {object_width}, {raw.size} values")
    return raw[:header_width].copy(), raw[header_width:].reshape(-1, object_width).copy()


def join_label(header, objects):
    return np.concatenate([header, objects.ravel()]).astype(np.float32)


def random_crop(img, objects, p, rng):
    h, w = img.shape[:2]
    scale = rng.uniform(p["min_crop_scales"][0], p["max_crop_scales"][0])
    ratio = rng.uniform(p["min_crop_aspect_ratios"][0], p["max_crop_aspect_ratios"][0])
    crop_w = min(1.0, scale * np.sqrt(ratio))
    crop_h = min(1.0, scale / np.sqrt(ratio))
    x0, y0 = rng.uniform(0, 1 - crop_w), rng.uniform(0, 1 - crop_h)
    cx = (objects[:, 1] + objects[:, 3]) / 2
    cy = (objects[:, 2] + objects[:, 4]) / 2
    keep = (cx >= x0) & (cx <= x0 + crop_w) & (cy >= y0) & (cy <= y0 + crop_h)
    if not keep.any():
        return img, objects                      # MXNet keeps the image when no box survives
    objects = objects[keep].copy()
    objects[:, [1, 3]] = np.clip((objects[:, [1, 3]] - x0) / crop_w, 0, 1)
    objects[:, [2, 4]] = np.clip((objects[:, [2, 4]] - y0) / crop_h, 0, 1)
    left, top = int(x0 * w), int(y0 * h)
    right, bottom = max(left + 1, int((x0 + crop_w) * w)), max(top + 1, int((y0 + crop_h) * h))
    return img[top:bottom, left:right], objects


def random_pad(img, objects, p, rng):
    h, w = img.shape[:2]
    scale = rng.uniform(1.0, max(1.0, p["max_pad_scale"]))
    new_h, new_w = int(h * scale), int(w * scale)
    top, left = rng.integers(0, new_h - h + 1), rng.integers(0, new_w - w + 1)
    canvas = np.full((new_h, new_w, img.shape[2]), p["fill_value"], np.uint8)
    canvas[top:top + h, left:left + w] = img
    objects = objects.copy()
    objects[:, [1, 3]] = (objects[:, [1, 3]] * w + left) / new_w
    objects[:, [2, 4]] = (objects[:, [2, 4]] * h + top) / new_h
    return canvas, objects


def color_jitter(img, p, rng):
    """Hue (OpenCV units), saturation and illumination (0-255), contrast (a factor), each
    with its own probability."""
    dh = ds = dl = 0.0
    if rng.random() < p["random_hue_prob"]:
        dh = rng.uniform(-p["max_random_hue"], p["max_random_hue"]) * 2
    if rng.random() < p["random_saturation_prob"]:
        ds = rng.uniform(-p["max_random_saturation"], p["max_random_saturation"]) / 255.0
    if rng.random() < p["random_illumination_prob"]:
        dl = rng.uniform(-p["max_random_illumination"], p["max_random_illumination"]) / 255.0
    out = img.astype(np.float64)
    if dh or ds or dl:
        hue, light, sat = rgb_to_hls(out / 255.0)
        out = hls_to_rgb(hue + dh, np.clip(light + dl, 0, 1), np.clip(sat + ds, 0, 1)) * 255
    if rng.random() < p["random_contrast_prob"]:
        factor = 1 + rng.uniform(-p["max_random_contrast"], p["max_random_contrast"])
        out = (out - out.mean()) * factor + out.mean()
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def augment_detection(img, objects, p, rng):
    """Augment an RGB image and its (n, object_width) objects; resize to data_shape."""
    if p["resize"] > 0:
        h, w = img.shape[:2]
        short = p["resize"]
        new_h, new_w = (short * h // w, short) if h > w else (short, short * w // h)
        img = resize_array(img, new_w, new_h, p["inter_method"])
    if len(objects) and rng.random() < p["rand_crop_prob"]:
        img, objects = random_crop(img, objects, p, rng)
    if rng.random() < p["rand_pad_prob"]:
        img, objects = random_pad(img, objects, p, rng)
    img = color_jitter(img, p, rng)
    if rng.random() < p["rand_mirror_prob"]:
        img = img[:, ::-1]
        objects = objects.copy()
        objects[:, [1, 3]] = 1 - objects[:, [3, 1]]
    _, out_h, out_w = p["data_shape"]
    if img.shape[:2] != (out_h, out_w):
        img = resize_array(img, out_w, out_h, p["inter_method"])
    return img, objects
