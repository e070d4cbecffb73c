"""The default augmenter of ImageRecordIter, on numpy HWC images, one random stream each.

Lesson: 11-data. Steps, in MXNet's order: resize the shorter side, one affine warp for
random scale / aspect ratio / rotation / shear, pad, crop to data_shape (random or
central), jitter hue, saturation and lightness in HLS space, and mirror.
Mirrors src/io/image_aug_default.cc (DefaultImageAugmenter).
"""
import numpy as np

from ..base import MXNetError
from ..image_codec import resize_array

__all__ = ["augment", "rgb_to_hls", "hls_to_rgb"]


def needs_warp(p):
    return (p["max_rotate_angle"] > 0 or p["max_shear_ratio"] > 0 or p["rotate"] > 0
            or p["max_random_scale"] != 1 or p["min_random_scale"] != 1
            or p["max_aspect_ratio"] != 0)


def warp_affine(img, matrix, out_w, out_h, fill_value):
    """Bilinear inverse warp: output pixel (x, y) reads input at ``matrix @ (x, y, 1)``."""
    ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float32)
    src_x = matrix[0, 0] * xs + matrix[0, 1] * ys + matrix[0, 2]
    src_y = matrix[1, 0] * xs + matrix[1, 1] * ys + matrix[1, 2]
    x0, y0 = np.floor(src_x).astype(np.int64), np.floor(src_y).astype(np.int64)
    fx, fy = (src_x - x0)[..., None], (src_y - y0)[..., None]
    padded = np.pad(img.astype(np.float32), ((1, 2), (1, 2), (0, 0)), constant_values=fill_value)
    h, w = img.shape[:2]

    def at(yy, xx):
        return padded[np.clip(yy, -1, h) + 1, np.clip(xx, -1, w) + 1]

    out = (at(y0, x0) * (1 - fx) * (1 - fy) + at(y0, x0 + 1) * fx * (1 - fy)
           + at(y0 + 1, x0) * (1 - fx) * fy + at(y0 + 1, x0 + 1) * fx * fy)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def random_warp(img, p, rng):
    """Scale, stretch, rotate and shear ``img`` about its centre by random amounts."""
    scale = rng.uniform(p["min_random_scale"], p["max_random_scale"])
    ratio = 1 + rng.uniform(-p["max_aspect_ratio"], p["max_aspect_ratio"])
    angle = p["rotate"] if p["rotate"] > 0 else rng.uniform(-1, 1) * p["max_rotate_angle"]
    shear = rng.uniform(-p["max_shear_ratio"], p["max_shear_ratio"])
    height_scale = 2 * scale / (1 + ratio)
    width_scale = ratio * height_scale
    h, w = img.shape[:2]
    out_w = max(1, int(round(w * width_scale)))
    out_h = max(1, int(round(h * height_scale)))
    cos, sin = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    forward = np.array([[width_scale * cos, -height_scale * sin + shear * height_scale],
                        [width_scale * sin, height_scale * cos]])
    inverse = np.linalg.inv(forward)
    centre_out = np.array([(out_w - 1) / 2, (out_h - 1) / 2])
    centre_in = np.array([(w - 1) / 2, (h - 1) / 2])
    matrix = np.zeros((2, 3))
    matrix[:, :2] = inverse
    matrix[:, 2] = centre_in - inverse @ centre_out
    return warp_affine(img, matrix, out_w, out_h, p["fill_value"])


def rgb_to_hls(rgb):
    """RGB floats in [0, 1] -> H in degrees [0, 360), L and S in [0, 1] (OpenCV's formulas)."""
    high, low = rgb.max(axis=-1), rgb.min(axis=-1)
    light = (high + low) / 2
    delta = high - low
    safe = np.where(delta == 0, 1, delta)
    sat = np.where(delta == 0, 0, np.where(light < 0.5, delta / np.where(high + low == 0, 1,
                                                                           high + low),
                                           delta / np.where(2 - high - low == 0, 1,
                                                            2 - high - low)))
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    hue = np.where(high == r, (g - b) / safe, np.where(high == g, 2 + (b - r) / safe,
                                                        4 + (r - g) / safe))
    hue = np.where(delta == 0, 0, (hue * 60) % 360)
    return hue, light, sat


def hls_to_rgb(hue, light, sat):
    """Inverse of rgb_to_hls."""
    chroma = (1 - np.abs(2 * light - 1)) * sat
    sector = (hue % 360) / 60
    second = chroma * (1 - np.abs(sector % 2 - 1))
    zeros = np.zeros_like(hue)
    index = np.floor(sector).astype(np.int64) % 6
    table = [(chroma, second, zeros), (second, chroma, zeros), (zeros, chroma, second),
             (zeros, second, chroma), (second, zeros, chroma), (chroma, zeros, second)]
    rgb = np.zeros(hue.shape + (3,), dtype=np.float64)
    for k, channels in enumerate(table):
        mask = index == k
        for c in range(3):
            rgb[..., c][mask] = channels[c][mask]
    return rgb + (light - chroma / 2)[..., None]


def jitter_hls(img, p, rng):
    """Shift H (OpenCV units, 0-180), L and S (0-255) by random amounts."""
    dh = rng.uniform(-p["random_h"], p["random_h"]) * 2           # degrees
    dl = rng.uniform(-p["random_l"], p["random_l"]) / 255.0
    ds = rng.uniform(-p["random_s"], p["random_s"]) / 255.0
    hue, light, sat = rgb_to_hls(img.astype(np.float64) / 255.0)
    rgb = hls_to_rgb(hue + dh, np.clip(light + dl, 0, 1), np.clip(sat + ds, 0, 1))
    return np.clip(np.rint(rgb * 255), 0, 255).astype(np.uint8)


def crop(img, p, rng):
    _, out_h, out_w = p["data_shape"]
    h, w = img.shape[:2]
    if h < out_h or w < out_w:
        raise MXNetError(f"ImageRecordIter: input image size {h}x{w} is smaller than the "
                         f"input shape {out_h}x{out_w} (set resize or pad)")
    if p["rand_crop"]:
        y, x = rng.integers(0, h - out_h + 1), rng.integers(0, w - out_w + 1)
    else:
        y, x = (h - out_h) // 2, (w - out_w) // 2
    return img[y:y + out_h, x:x + out_w]


def augment(img, p, rng):
    """Apply the default augmentation (settings ``p``, numpy Generator ``rng``) to HxWx3 RGB."""
    if p["resize"] > 0:
        h, w = img.shape[:2]
        short = p["resize"]
        new_h, new_w = (short * h // w, short) if h > w else (short, short * w // h)
        img = resize_array(img, new_w, new_h, p["inter_method"])
    if needs_warp(p):
        img = random_warp(img, p, rng)
    if p["pad"] > 0:
        pad = p["pad"]
        img = np.pad(img, ((pad, pad), (pad, pad), (0, 0)), constant_values=p["fill_value"])
    img = crop(img, p, rng)
    if p["random_h"] or p["random_s"] or p["random_l"]:
        img = jitter_hls(img, p, rng)
    if p["mirror"] or (p["rand_mirror"] and rng.random() < 0.5):
        img = img[:, ::-1]
    return img
