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
from ....op import image_color as color
from ...block import Block
from ...hybrid_block import HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "Resize", "CenterCrop",
           "RandomResizedCrop", "RandomFlipLeftRight", "RandomFlipTopBottom", "RandomBrightness",
           "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting", "CropResize", "Rotate", "RandomRotation", "RandomApply"]



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


class Resize(HybridBlock):
    """Resize to ``size`` (w, h) or, with an int and ``keep_ratio``, the short side to it
    (the operator ``image.resize``: HWC images and NHWC batches).

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

    def hybrid_forward(self, F, x):
        return F.image.resize(x, self._size, self._keep, self._interpolation)


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


class CropResize(HybridBlock):
    """The ``width`` x ``height`` region at (``x``, ``y``) of an HWC image (or NHWC batch),
    resized to ``size`` (an int or (width, height)) when given.

    Parameters
    ----------
    x, y : int
        The region's top left corner.
    width, height : int
        The region's size.
    size : int or (int, int), optional
        Resize the region to this size.
    interpolation : int, optional
        OpenCV's interpolation code for the resize (default bilinear).
    """

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._region = (x, y, width, height)
        self._size = size
        self._interpolation = 1 if interpolation is None else interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, *self._region)
        if self._size:
            out = F.image.resize(out, self._size, False, self._interpolation)
        return out


def _float32_only(x, name):
    if x.dtype != np.float32:
        raise TypeError(f"{name}: this transformation only supports float32, got "
                        f"{np.dtype(x.dtype).name}; call it after ToTensor")


class Rotate(Block):
    """Rotate a float32 CHW image (or NCHW batch) by ``rotation_degrees`` (``mx.image.imrotate``;
    ``zoom_in``/``zoom_out`` as there)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        _float32_only(x, "Rotate")
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate by an angle drawn from ``angle_limits`` (``mx.image.random_rotate``), with
    probability ``rotate_with_proba``."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError(f"RandomRotation: angle_limits must be an ordered pair (low, "
                             f"high), got {angle_limits}")
        if not 0 <= rotate_with_proba <= 1:
            raise ValueError(f"RandomRotation: rotate_with_proba must lie in [0, 1], got "
                             f"{rotate_with_proba}")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._probability = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._probability:
            return x
        _float32_only(x, "RandomRotation")
        return image.random_rotate(x, *self._args)


class RandomApply(Sequential):
    """Apply ``transforms`` (a Block) with probability ``p``, else pass the input through."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)


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
        return image.image.as_ndarray(color.on_pixels(x.asnumpy(), self.adjust), like=x)

    def adjust(self, pixels):
        raise NotImplementedError


class RandomBrightness(_ColorTransform):
    """Multiply by ``1 + U(-brightness, brightness)``."""

    def __init__(self, brightness):
        super().__init__()
        self._brightness = brightness

    def adjust(self, pixels):
        return color.brightness(pixels, 1 + random.uniform(-self._brightness, self._brightness))


class RandomContrast(_ColorTransform):
    """Blend with the mean grey level by ``1 + U(-contrast, contrast)``."""

    def __init__(self, contrast):
        super().__init__()
        self._contrast = contrast

    def adjust(self, pixels):
        return color.contrast(pixels, 1 + random.uniform(-self._contrast, self._contrast))


class RandomSaturation(_ColorTransform):
    """Blend with each pixel's grey level by ``1 + U(-saturation, saturation)``
    (MXNet 1.9.1's grey level: ``0.114 * blue``)."""

    def __init__(self, saturation):
        super().__init__()
        self._saturation = saturation

    def adjust(self, pixels):
        return color.saturation(pixels, 1 + random.uniform(-self._saturation, self._saturation))


class RandomHue(_ColorTransform):
    """Rotate the hue by ``U(-hue, hue)`` of a full turn."""

    def __init__(self, hue):
        super().__init__()
        self._hue = hue

    def adjust(self, pixels):
        return color.hue(pixels, random.uniform(-self._hue, self._hue))


class RandomColorJitter(_ColorTransform):
    """Brightness, contrast, saturation and hue jitter (those not 0), in random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._jitters = [(fn, amount) for fn, amount in
                         ((color.brightness, brightness), (color.contrast, contrast),
                          (color.saturation, saturation), (color.hue, hue)) if amount > 0]

    def adjust(self, pixels):
        order = list(self._jitters)
        random.shuffle(order)
        for fn, amount in order:
            base = 0.0 if fn is color.hue else 1.0
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
        shift = color.EIGVEC @ (weights * color.EIGVAL)
        return pixels + np.concatenate([shift, np.zeros(pixels.shape[-1] - 3, np.float32)])
