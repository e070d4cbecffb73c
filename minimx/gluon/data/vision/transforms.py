"""Image transforms as Blocks: ``transform_first(Compose([...]))`` on a vision dataset.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/data/vision/transforms.py``.
Images are HWC (or NHWC) arrays, uint8 as decoded.  The deterministic
element-wise transforms (Cast, ToTensor, Normalize) are HybridBlocks written
with registry operators, so ``Compose`` hybridizes runs of them as MXNet does.
MXNet computes the others with its ``_image_*`` operators; minimx has none, so
they are Blocks: crops and resizes call ``mx.image``, and the random
transforms draw from Python's ``random`` (numpy's for lighting noise) and
compute on numpy, keeping the input's dtype (integers rounded and clipped).
"""
import random

import numpy as np

from .... import image
from .... import ndarray as nd
from ....base import InvalidParameterError
from ...block import Block
from ...hybrid_block import HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "Resize", "CenterCrop",
           "RandomResizedCrop", "RandomFlipLeftRight", "RandomFlipTopBottom", "RandomBrightness",
           "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting"]

_GRAY = np.array([0.299, 0.587, 0.114], dtype=np.float32)
_EIGVAL = np.array([55.46, 4.794, 1.148], dtype=np.float32)
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                    [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]], dtype=np.float32)


class Compose(Sequential):
    """Apply ``transforms`` in order; runs of HybridBlocks become one hybridized block.

    Examples
    --------
    >>> from minimx.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.ToTensor(), transforms.Normalize(0.5, 0.5)])
    >>> t(nd.full((2, 2, 3), 255, dtype='uint8')).shape
    (3, 2, 2)
    """

    def __init__(self, transforms):
        super().__init__()
        transforms = list(transforms) + [None]
        run = []
        for transform in transforms:
            if isinstance(transform, HybridBlock):
                run.append(transform)
                continue
            self._add_run(run)
            run = []
            if transform is not None:
                self.add(transform)

    def _add_run(self, run):
        if len(run) == 1:
            self.add(run[0])
        elif len(run) > 1:
            block = HybridSequential(prefix="")
            with block.name_scope():
                block.add(*run)
            block.hybridize()
            self.add(block)


class Cast(HybridBlock):
    """Cast the input to ``dtype`` (default float32)."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """HWC (or NHWC) values in [0, 255] to CHW (NCHW) float32 in [0, 1].

    Examples
    --------
    >>> img = nd.full((4, 2, 3), 255, dtype='uint8')
    >>> mx.gluon.data.vision.transforms.ToTensor()(img).shape
    (3, 4, 2)
    """

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """``(x - mean) / std`` per channel of a CHW (or NCHW) float tensor.

    Parameters
    ----------
    mean, std : float or tuple of float
        One value for every channel, or one per channel.
    """

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = _as_tuple(mean)
        self._std = _as_tuple(std)
        if len(self._mean) != len(self._std) and 1 not in (len(self._mean), len(self._std)):
            raise InvalidParameterError(f"Normalize: mean {mean} and std {std} give different "
                                        f"numbers of channels")

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, mean=self._mean, std=self._std)


def _as_tuple(value):
    if isinstance(value, (int, float)):
        return (float(value),)
    return tuple(float(item) for item in value)


def _size_pair(size):
    return (size, size) if isinstance(size, int) else tuple(size)


def _per_image(fn, x):
    """``fn`` on an HWC image, or on each image of an NHWC batch."""
    if len(x.shape) == 4:
        return nd.stack(*(fn(x[i]) for i in range(x.shape[0])))
    return fn(x)


class Resize(Block):
    """Resize to ``size`` (w, h) or, with an int and ``keep_ratio``, the short side to it.

    Parameters
    ----------
    size : int or (int, int)
        Width and height of the output.
    keep_ratio : bool, default False
        With an int ``size``: scale the shorter side to ``size``, keeping the aspect.
    interpolation : int, default 1 (bilinear)
        OpenCV's interpolation code.
    """

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation

    def _target(self, height, width):
        if isinstance(self._size, int):
            if not self._keep:
                return self._size, self._size
            if height > width:
                return self._size, int(self._size * height / width)
            return int(self._size * width / height), self._size
        return tuple(self._size)

    def forward(self, x):
        def resize(img):
            width, height = self._target(img.shape[0], img.shape[1])
            return image.imresize(img, width, height, self._interpolation)
        return _per_image(resize, x)


class CenterCrop(Block):
    """Crop the centre ``size`` (w, h) region, resizing up when the image is smaller."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._args = (_size_pair(size), interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class RandomResizedCrop(Block):
    """Crop a random area fraction (``scale``) and aspect ``ratio``, resized to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._args = (_size_pair(size), scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class RandomFlipLeftRight(Block):
    """Mirror the image horizontally with probability 0.5."""

    def forward(self, x):
        return nd.flip(x, axis=-2) if random.random() < 0.5 else x


class RandomFlipTopBottom(Block):
    """Flip the image vertically with probability 0.5."""

    def forward(self, x):
        return nd.flip(x, axis=-3) if random.random() < 0.5 else x


# -- colour: computed on numpy, one random factor per call -------------------------------------
class _ColorTransform(Block):
    """Base of the colour transforms: ``adjust(pixels)`` on float32 numpy values."""

    def forward(self, x):
        values = x.asnumpy()
        out = self.adjust(values.astype(np.float32))
        if np.issubdtype(values.dtype, np.integer):
            info = np.iinfo(values.dtype)
            out = np.clip(np.rint(out), info.min, info.max)
        return image.image.as_ndarray(out.astype(values.dtype), like=x)

    def adjust(self, pixels):
        raise NotImplementedError


def _brightness(pixels, alpha):
    return pixels * alpha


def _contrast(pixels, alpha):
    gray_mean = float((pixels[..., :3] @ _GRAY).mean())
    return pixels * alpha + gray_mean * (1 - alpha)


def _saturation(pixels, alpha):
    # MXNet 1.9.1's operator blends with 0.114 * blue alone, not the full grey level
    # (its grey sum overwrites instead of adding); minimx gives the same images.
    gray = pixels[..., 2:3] * _GRAY[2]
    return pixels * alpha + gray * (1 - alpha)


def _hue(pixels, alpha):
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


class RandomBrightness(_ColorTransform):
    """Multiply by ``1 + U(-brightness, brightness)``."""

    def __init__(self, brightness):
        super().__init__()
        self._brightness = brightness

    def adjust(self, pixels):
        return _brightness(pixels, 1 + random.uniform(-self._brightness, self._brightness))


class RandomContrast(_ColorTransform):
    """Blend with the mean grey level by ``1 + U(-contrast, contrast)``."""

    def __init__(self, contrast):
        super().__init__()
        self._contrast = contrast

    def adjust(self, pixels):
        return _contrast(pixels, 1 + random.uniform(-self._contrast, self._contrast))


class RandomSaturation(_ColorTransform):
    """Blend with each pixel's grey level by ``1 + U(-saturation, saturation)``
    (MXNet 1.9.1's grey level: ``0.114 * blue``)."""

    def __init__(self, saturation):
        super().__init__()
        self._saturation = saturation

    def adjust(self, pixels):
        return _saturation(pixels, 1 + random.uniform(-self._saturation, self._saturation))


class RandomHue(_ColorTransform):
    """Rotate the hue by ``U(-hue, hue)`` of a full turn."""

    def __init__(self, hue):
        super().__init__()
        self._hue = hue

    def adjust(self, pixels):
        return _hue(pixels, random.uniform(-self._hue, self._hue))


class RandomColorJitter(_ColorTransform):
    """Brightness, contrast, saturation and hue jitter (those not 0), in random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._jitters = [(fn, amount) for fn, amount in
                         ((_brightness, brightness), (_contrast, contrast),
                          (_saturation, saturation), (_hue, hue)) if amount > 0]

    def adjust(self, pixels):
        order = list(self._jitters)
        random.shuffle(order)
        for fn, amount in order:
            base = 0.0 if fn is _hue else 1.0
            pixels = fn(pixels, base + random.uniform(-amount, amount))
        return pixels


class RandomLighting(_ColorTransform):
    """AlexNet's PCA lighting noise: add ``eigvec @ (N(0, alpha) * eigval)`` to RGB."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def adjust(self, pixels):
        if self._alpha == 0:
            return pixels
        weights = np.random.normal(0, self._alpha, size=3).astype(np.float32)
        shift = _EIGVEC @ (weights * _EIGVAL)
        return pixels + np.concatenate([shift, np.zeros(pixels.shape[-1] - 3, np.float32)])
