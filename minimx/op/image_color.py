"""Colour operators on HWC images: brightness, contrast, saturation, hue
and AlexNet's PCA lighting, fixed or with a random factor (``nd.image.random_brightness`` ...).

Lesson: 11-data.  Mirrors ``src/operator/image/image_random-inl.h``.  The pixel functions
below are also what Gluon's colour transforms (``gluon.data.vision.transforms``) apply; they
work on float32 numpy values with the channels last, and ``on_pixels`` rounds and clips the
result back into an integer dtype.  One random factor is drawn per call.
"""
import numpy as np

from .common import on_host, to_device
from .params import AtLeast, FloatTuple, Param
from .registry import OpDef, TestHints, register_op

__all__ = ["GRAY", "EIGVAL", "EIGVEC", "brightness", "contrast", "saturation", "hue",
           "lighting", "on_pixels"]

GRAY = np.array([0.299, 0.587, 0.114], dtype=np.float32)
EIGVAL = np.array([55.46, 4.794, 1.148], dtype=np.float32)
EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                    [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]], dtype=np.float32)


def brightness(pixels, alpha):
    return pixels * alpha


def contrast(pixels, alpha):
    gray_mean = float((pixels[..., :3] @ GRAY).mean())
    return pixels * alpha + gray_mean * (1 - alpha)


def saturation(pixels, alpha):
    # MXNet 1.9.1's operator blends with 0.114 * blue alone, not the full grey level
    # (its grey sum overwrites instead of adding); minimx gives the same images.
    gray = pixels[..., 2:3] * GRAY[2]
    return pixels * alpha + gray * (1 - alpha)


def hue(pixels, alpha):
    """Rotate the hue by ``alpha`` turns, in HLS space."""
    if alpha == 0:
        return pixels
    hue, lightness, saturation = _rgb_to_hls(pixels[..., :3])
    rgb = _hls_to_rgb((hue + alpha * 360.0) % 360.0, lightness, saturation)
    return np.concatenate([rgb, pixels[..., 3:]], axis=-1)


def _rgb_to_hls(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    high, low = rgb.max(axis=-1), rgb.min(axis=-1)
    lightness = (high + low) / 2
    span = high - low
    scale = np.where(lightness < 127.5, high + low, 510.0 - high - low)
    saturation = np.where(span > 0, span / np.maximum(scale, 1e-12), 0.0)
    safe = np.maximum(span, 1e-12)
    hue = np.where(high == r, (g - b) / safe,
                   np.where(high == g, 2 + (b - r) / safe, 4 + (r - g) / safe)) * 60.0
    hue = np.where(span > 0, hue % 360.0, 0.0)
    return hue, lightness, saturation


def _hls_to_rgb(hue, lightness, saturation):
    chroma = (255.0 - np.abs(2 * lightness - 255.0)) * saturation
    sector = hue / 60.0
    second = chroma * (1 - np.abs(sector % 2 - 1))
    zero = np.zeros_like(chroma)
    index = np.floor(sector).astype(int) % 6
    table = [(chroma, second, zero), (second, chroma, zero), (zero, chroma, second),
             (zero, second, chroma), (second, zero, chroma), (chroma, zero, second)]
    channels = [np.choose(index, [row[c] for row in table]) for c in range(3)]
    offset = lightness - chroma / 2
    return np.stack([channel + offset for channel in channels], axis=-1)


def lighting(pixels, alpha):
    """Add ``EIGVEC @ (alpha * EIGVAL)`` to the RGB channels (AlexNet's PCA lighting)."""
    shift = EIGVEC @ (np.asarray(alpha, np.float32) * EIGVAL)
    return pixels + np.concatenate([shift, np.zeros(pixels.shape[-1] - 3, np.float32)])


def on_pixels(values, adjust):
    """``adjust`` applied to ``values`` as float32, back in their dtype (integers rounded
    and clipped to the dtype's range)."""
    out = adjust(values.astype(np.float32))
    if np.issubdtype(values.dtype, np.integer):
        info = np.iinfo(values.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(values.dtype)


class _ColorOp(OpDef):
    """A colour operator on one HWC image (no batch, as MXNet's): same shape and dtype out,
    computed on the host, no gradient."""
    differentiable = False
    host_compute = True

    def infer_shape(self, data):
        if len(data) != 3 or data[-1] < 3:
            raise self.shape_error(f"expected an HWC image (height, width, channels) with at "
                                   f"least 3 channels, got shape {tuple(data)}")
        return tuple(data)

    def _apply(self, xp, data, adjust):
        self.infer_shape(data.shape)
        return to_device(xp, on_pixels(on_host(xp, data), adjust))


def _uniform(rng, low, high):
    return low + (high - low) * float(rng.random())


class _RandomFactor(_ColorOp):
    params = {"min_factor": Param(AtLeast(0.0), doc="smallest factor"),
              "max_factor": Param(AtLeast(0.0), doc="largest factor")}
    test = TestHints(shapes=((4, 3, 3),), params={"min_factor": 0.5, "max_factor": 1.5},
                     low=0, high=255, grad=False, random=True)
    adjust = None

    def forward(self, xp, data, rng):
        alpha = _uniform(rng, self.min_factor, self.max_factor)
        return self._apply(xp, data, lambda pixels: type(self).adjust(pixels, alpha))


@register_op
class RandomBrightness(_RandomFactor):
    """Multiply the image by a factor drawn from U(min_factor, max_factor)."""
    name = "_image_random_brightness"
    adjust = brightness


@register_op
class RandomContrast(_RandomFactor):
    """Blend the image with its mean grey level by a factor from U(min_factor, max_factor)."""
    name = "_image_random_contrast"
    adjust = contrast


@register_op
class RandomSaturation(_RandomFactor):
    """Blend each pixel with its grey level (MXNet 1.9.1's: ``0.114 * blue``) by a factor
    from U(min_factor, max_factor)."""
    name = "_image_random_saturation"
    adjust = saturation


@register_op
class RandomHue(_RandomFactor):
    """Rotate the hue by a fraction of a turn drawn from U(min_factor, max_factor)."""
    name = "_image_random_hue"
    adjust = hue
    test = TestHints(shapes=((4, 3, 3),), params={"min_factor": 0.0, "max_factor": 0.4},
                     low=0, high=255, grad=False, random=True)


@register_op
class RandomColorJitter(_ColorOp):
    """Brightness, contrast, saturation and hue jitter (those not 0) in a random order:
    factors ``1 + U(-amount, amount)``, the hue's ``U(-hue, hue)``."""
    name = "_image_random_color_jitter"
    params = {"brightness": Param(float, doc="brightness jitter"),
              "contrast": Param(float, doc="contrast jitter"),
              "saturation": Param(float, doc="saturation jitter"),
              "hue": Param(float, doc="hue jitter")}
    test = TestHints(shapes=((4, 3, 3),), params={"brightness": 0.3, "contrast": 0.3,
                                                   "saturation": 0.3, "hue": 0.1},
                     low=0, high=255, grad=False, random=True)

    def forward(self, xp, data, rng):
        jitters = [(fn, amount, base) for fn, amount, base in
                   ((brightness, self.brightness, 1.0), (contrast, self.contrast, 1.0),
                    (saturation, self.saturation, 1.0), (hue, self.hue, 0.0)) if amount > 0]
        order = np.argsort([float(rng.random()) for _ in jitters])
        factors = [(jitters[k][0], jitters[k][2] + _uniform(rng, -jitters[k][1], jitters[k][1]))
                   for k in order]

        def adjust(pixels):
            for fn, alpha in factors:
                pixels = fn(pixels, alpha)
            return pixels
        return self._apply(xp, data, adjust)


@register_op
class AdjustLighting(_ColorOp):
    """Add ``EIGVEC @ (alpha * EIGVAL)`` to the RGB channels (AlexNet's PCA lighting)."""
    name = "_image_adjust_lighting"
    params = {"alpha": Param(FloatTuple, doc="the three lighting weights")}
    test = TestHints(shapes=((4, 3, 3),), params={"alpha": (0.1, -0.2, 0.3)}, low=0, high=255,
                     grad=False, reference=lambda np, x, alpha: lighting(x, alpha))

    def check_params(self):
        if len(self.alpha) != 3:
            raise self.param_error(f"alpha needs 3 values (R, G, B), got {self.alpha}")

    def forward(self, xp, data):
        return self._apply(xp, data, lambda pixels: lighting(pixels, self.alpha))


@register_op
class RandomLighting(_ColorOp):
    """``adjust_lighting`` with the three weights drawn from N(0, alpha_std)."""
    name = "_image_random_lighting"
    params = {"alpha_std": Param(float, default=0.05, doc="spread of the weights")}
    test = TestHints(shapes=((4, 3, 3),), params={"alpha_std": 2.0}, low=0, high=255,
                     grad=False, random=True)

    def forward(self, xp, data, rng):
        alpha = [float(v) * self.alpha_std for v in rng.standard_normal(3)]
        return self._apply(xp, data, lambda pixels: lighting(pixels, alpha))
