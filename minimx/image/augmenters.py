"""Augmenters of ``mx.image``: callables that turn one HWC image into another.

Lesson: 11-data. An augmenter is an object with ``__call__(src) -> src`` and ``dumps()``
(its name and settings as JSON). ``CreateAugmenter`` builds the usual list for image
classification: resize, crop, mirror, cast to float, colour jitter, normalise.
Mirrors python/mxnet/image/image.py (Augmenter ... CreateAugmenter).
"""
import json
import random

import numpy as np

from .. import ndarray as nd
from ..ndarray import NDArray
from .image import (as_ndarray, as_numpy, center_crop, color_normalize, imresize,
                    interp_method, random_crop, random_size_crop, resize_short)

__all__ = ["Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
           "RandomSizedCropAug", "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter"]

GRAY_COEF = np.array([0.299, 0.587, 0.114], dtype=np.float32)


def jsonable(value):
    if isinstance(value, NDArray):
        return value.asnumpy().tolist()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


class Augmenter:
    """Base class: keeps its keyword settings for ``dumps()``."""

    def __init__(self, **kwargs):
        self._kwargs = {key: jsonable(value) for key, value in kwargs.items()}

    def dumps(self):
        """``[name, settings]`` as a JSON string."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError(f"{type(self).__name__} must define __call__")


class SequentialAug(Augmenter):
    """Apply the augmenters ``ts`` one after another."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [type(self).__name__.lower(), [aug.dumps() for aug in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class RandomOrderAug(SequentialAug):
    """Apply the augmenters ``ts`` in a random order."""

    def __call__(self, src):
        order = list(self.ts)
        random.shuffle(order)
        for aug in order:
            src = aug(src)
        return src


class ResizeAug(Augmenter):
    """Resize the shorter side to ``size``."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resize to exactly ``size`` = (width, height)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """Crop a random region of ``size`` = (width, height)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Crop a region of random area and aspect ratio, resized to ``size``."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size, self.area, self.ratio, self.interp = size, area, ratio, interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """Crop the central region of ``size`` = (width, height)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class BrightnessJitterAug(Augmenter):
    """Multiply by ``1 + u``, u uniform in [-brightness, brightness]."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        return src * (1.0 + random.uniform(-self.brightness, self.brightness))


class ContrastJitterAug(Augmenter):
    """Blend with the mean grey level: ``alpha * src + (1 - alpha) * mean(gray)``."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        array = as_numpy(src).astype(np.float32)
        gray = (array * GRAY_COEF).sum(axis=2).mean() * (1.0 - alpha)
        return as_ndarray((array * alpha + gray).astype(np.float32), like=src)


class SaturationJitterAug(Augmenter):
    """Blend each pixel with its own grey value."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        array = as_numpy(src).astype(np.float32)
        gray = (array * GRAY_COEF).sum(axis=2, keepdims=True) * (1.0 - alpha)
        return as_ndarray((array * alpha + gray).astype(np.float32), like=src)


class HueJitterAug(Augmenter):
    """Rotate the hue in YIQ space by a random angle in [-hue, hue] half-turns."""

    TYIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
    ITYIQ = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
        rotation = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        matrix = (self.ITYIQ @ rotation @ self.TYIQ).T.astype(np.float32)
        return as_ndarray(as_numpy(src).astype(np.float32) @ matrix, like=src)


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter, in a random order."""

    def __init__(self, brightness, contrast, saturation):
        augs = []
        if brightness > 0:
            augs.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            augs.append(ContrastJitterAug(contrast))
        if saturation > 0:
            augs.append(SaturationJitterAug(saturation))
        super().__init__(augs)


class LightingAug(Augmenter):
    """AlexNet-style PCA lighting noise."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd, self.eigval, self.eigvec = alphastd, eigval, eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        return src + nd.array(rgb, ctx=src.context)


class ColorNormalizeAug(Augmenter):
    """Subtract ``mean`` and divide by ``std`` per channel, in place: the image passed in
    changes, as MXNet's does (``color_normalize``)."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, NDArray) else nd.array(std)
        self.spread = (None, None)      # ((image shape, mean, std), float32 mean and std
                                        # spread to that shape)

    def __call__(self, src):
        if not (isinstance(src, NDArray) and src.dtype == np.float32):
            return color_normalize(src, self.mean, self.std)
        # float32 images: the same arithmetic in numpy, with mean and std spread to the
        # image's shape once (broadcasting a 3-long axis costs numpy ~10x an equal-shape op)
        key, full = self.spread
        if key is None or key[0] != src.shape or key[1] is not self.mean or (
                key[2] is not self.std):       # (a mean or std replaced: spread it anew)
            given = [v for v in (self.mean, self.std) if v is not None]
            if (np.broadcast_shapes(src.shape, *(v.shape for v in given)) != src.shape
                    or any(v.dtype != np.float32 for v in given)):
                return color_normalize(src, self.mean, self.std)
            full = tuple(None if v is None else np.broadcast_to(v.asnumpy(), src.shape).copy()
                         for v in (self.mean, self.std))
            self.spread = ((src.shape, self.mean, self.std), full)
        src[:] = color_normalize(src.asnumpy(), *full)     # in place, as the operators
        return src


class RandomGrayAug(Augmenter):
    """With probability ``p``, replace the image by its grey version (3 equal channels)."""

    MAT = np.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]], np.float32)

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = as_ndarray(as_numpy(src).astype(np.float32) @ self.MAT, like=src)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability ``p``, mirror the image left-right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = as_ndarray(as_numpy(src)[:, ::-1].copy(), like=src)
        return src


class CastAug(Augmenter):
    """Cast to ``typ`` (float32 by default)."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        if isinstance(src, NDArray):      # one copy in numpy, not an operator per image
            return as_ndarray(src.asnumpy().astype(self.typ), like=src)
        return src.astype(self.typ)


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False,  # noqa: N802
                    rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                    saturation=0, hue=0, pca_noise=0, rand_gray=0, inter_method=2):
    """The standard augmenter list for image classification (data_shape is (C, H, W))."""
    augs = []
    if resize > 0:
        augs.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ValueError("CreateAugmenter: rand_resize needs rand_crop=True")
        augs.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augs.append(RandomCropAug(crop_size, inter_method))
    else:
        augs.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        augs.append(HorizontalFlipAug(0.5))
    augs.append(CastAug())
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        augs.append(LightingAug(pca_noise, eigval, eigvec))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = nd.array([123.68, 116.28, 103.53])
    if std is True:
        std = nd.array([58.395, 57.12, 57.375])
    if mean is not None or std is not None:
        augs.append(ColorNormalizeAug(mean, std))
    return augs
