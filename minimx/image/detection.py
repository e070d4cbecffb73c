"""Detection data in Python: box-aware augmenters and ImageDetIter.

Lesson: 11-data.  Mirrors ``python/mxnet/image/detection.py``.  A detection label is an
array of objects, one row each: ``[class, xmin, ymin, xmax, ymax, ...]`` with coordinates
as fractions of the image (rows of -1 pad a batch).  In a ``.rec`` file the label is
flattened behind a header, ``[header_width, object_width, extra..., objects...]``.

A ``DetAugmenter`` maps ``(image, label)`` to a new pair: the geometric ones (crop, pad,
mirror) move the boxes with the pixels; ``DetBorrowAug`` lends any plain ``Augmenter``
(resize, colour, cast, normalize) the image alone.  ``CreateDetAugmenter`` builds the usual
SSD list from keyword arguments, and ``ImageDetIter`` runs it over a ``.rec`` file or an
image list, batching labels to ``(batch, max objects, object_width)``.
"""
import json
import math
import random

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..io import DataDesc
from .augmenters import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug,
                         ForceResizeAug, HueJitterAug, LightingAug, RandomGrayAug, ResizeAug)
from .image import as_numpy, imdecode
from .image_iter import ImageIter

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug",
           "DetRandomCropAug", "DetRandomPadAug", "CreateMultiRandCropAugmenter",
           "CreateDetAugmenter", "ImageDetIter"]

# the channel statistics CreateDetAugmenter uses for mean=True / std=True (ImageNet, RGB)
IMAGENET_MEAN = (123.68, 116.28, 103.53)
IMAGENET_STD = (58.395, 57.12, 57.375)


class DetAugmenter:
    """Base class: ``aug(src, label) -> (src, label)``; ``dumps()`` names it and its kwargs."""

    def __init__(self, **kwargs):
        self._kwargs = {key: (value.tolist() if isinstance(value, np.ndarray) else value)
                        for key, value in kwargs.items()}

    def dumps(self):
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src, label):
        raise NotImplementedError(f"{type(self).__name__} must define __call__")


class DetBorrowAug(DetAugmenter):
    """Apply a plain ``Augmenter`` to the image; the label is unchanged."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError(f"DetBorrowAug: expected an Augmenter, got "
                            f"{type(augmenter).__name__}")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return json.dumps([type(self).__name__.lower(), self.augmenter.dumps()])

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Apply one augmenter of ``aug_list`` chosen at random, or none with ``skip_prob``."""

    def __init__(self, aug_list, skip_prob=0):
        aug_list = aug_list if isinstance(aug_list, (list, tuple)) else [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise TypeError(f"DetRandomSelectAug: {aug!r} is not a DetAugmenter")
        super().__init__(skip_prob=skip_prob)
        self.aug_list, self.skip_prob = list(aug_list), skip_prob

    def dumps(self):
        return json.dumps([type(self).__name__.lower(), [a.dumps() for a in self.aug_list]])

    def __call__(self, src, label):
        if not self.aug_list or random.random() < self.skip_prob:
            return src, label
        return random.choice(self.aug_list)(src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """Mirror left-right with probability ``p``; x becomes 1 - x."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() >= self.p:
            return src, label
        flipped = nd.array(as_numpy(src)[:, ::-1].copy(), dtype=src.dtype)
        label = np.array(label, copy=True)
        valid = label[:, 0] >= 0
        xmin = label[valid, 1].copy()
        label[valid, 1] = 1.0 - label[valid, 3]
        label[valid, 3] = 1.0 - xmin
        return flipped, label


def _coverage(label, box):
    """Fraction of each object's area inside ``box`` (x0, y0, x1, y1; fractions)."""
    width = np.maximum(0, np.minimum(label[:, 3], box[2]) - np.maximum(label[:, 1], box[0]))
    height = np.maximum(0, np.minimum(label[:, 4], box[3]) - np.maximum(label[:, 2], box[1]))
    area = (label[:, 3] - label[:, 1]) * (label[:, 4] - label[:, 2])
    return np.where(area > 0, width * height / np.where(area > 0, area, 1), 0)


class DetRandomCropAug(DetAugmenter):
    """Crop a random region (area and aspect ratio in the given ranges, relative to the
    image) in which some object has at least ``min_object_covered`` of its area.  Objects
    with less than ``min_eject_coverage`` inside are dropped, the rest clipped to the crop
    and rescaled to its frame.  After ``max_attempts`` failed draws the image is kept."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50):
        super().__init__(min_object_covered=min_object_covered,
                         aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range, self.area_range = aspect_ratio_range, area_range
        self.enabled = (area_range[1] > 0 and area_range[0] <= area_range[1]
                        and 0 < aspect_ratio_range[0] <= aspect_ratio_range[1])

    def propose(self, label, height, width):
        """(x, y, w, h) in pixels and the new label, or None."""
        objects = label[label[:, 0] >= 0]
        for _ in range(self.max_attempts if self.enabled else 0):
            ratio = random.uniform(*self.aspect_ratio_range)
            area = random.uniform(*self.area_range) * height * width
            h = int(round(math.sqrt(area / ratio)))
            w = int(round(h * ratio))
            if not (0 < w <= width and 0 < h <= height):
                continue
            x, y = random.randint(0, width - w), random.randint(0, height - h)
            box = np.array([x / width, y / height, (x + w) / width, (y + h) / height])
            coverage = _coverage(objects, box)
            if len(objects) and coverage.max() < self.min_object_covered:
                continue
            # in float64, so that float32 rounding cannot put a corner past 1
            kept = objects[coverage >= self.min_eject_coverage].astype(np.float64)
            if len(objects) and not len(kept):
                continue
            kept[:, [1, 3]] = (np.clip(kept[:, [1, 3]], box[0], box[2]) - box[0]) / \
                (box[2] - box[0])
            kept[:, [2, 4]] = (np.clip(kept[:, [2, 4]], box[1], box[3]) - box[1]) / \
                (box[3] - box[1])
            return (x, y, w, h), kept.astype(objects.dtype)
        return None

    def __call__(self, src, label):
        height, width = src.shape[:2]
        proposal = self.propose(np.asarray(label), height, width)
        if proposal is None:
            return src, label
        (x, y, w, h), label = proposal
        return nd.array(as_numpy(src)[y:y + h, x:x + w].copy(), dtype=src.dtype), label


class DetRandomPadAug(DetAugmenter):
    """Place the image at a random spot of a larger canvas filled with ``pad_val`` (area
    ratio in ``area_range``, at least 1; aspect ratio in ``aspect_ratio_range``); the boxes
    shrink into the new frame."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts=50, pad_val=(128, 128, 128)):
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         max_attempts=max_attempts, pad_val=pad_val)
        self.aspect_ratio_range, self.area_range = aspect_ratio_range, area_range
        self.max_attempts = max_attempts
        self.pad_val = pad_val if isinstance(pad_val, (list, tuple)) else (pad_val,)
        self.enabled = area_range[1] > 1.0 and 0 < aspect_ratio_range[0] <= aspect_ratio_range[1]

    def __call__(self, src, label):
        height, width = src.shape[:2]
        for _ in range(self.max_attempts if self.enabled else 0):
            ratio = random.uniform(*self.aspect_ratio_range)
            area = random.uniform(max(1.0, self.area_range[0]), self.area_range[1]) * \
                height * width
            h = int(round(math.sqrt(area / ratio)))
            w = int(round(h * ratio))
            if h < height or w < width:
                continue
            y, x = random.randint(0, h - height), random.randint(0, w - width)
            image = as_numpy(src)
            canvas = np.empty((h, w, image.shape[2]), dtype=image.dtype)
            canvas[:] = np.asarray(self.pad_val[:image.shape[2]], dtype=image.dtype)
            canvas[y:y + height, x:x + width] = image
            label = np.array(label, copy=True)
            valid = label[:, 0] >= 0
            label[valid, 1] = (label[valid, 1] * width + x) / w
            label[valid, 3] = (label[valid, 3] * width + x) / w
            label[valid, 2] = (label[valid, 2] * height + y) / h
            label[valid, 4] = (label[valid, 4] * height + y) / h
            return nd.array(canvas, dtype=src.dtype), label
        return src, label


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),  # noqa: N802
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob=0):
    """A ``DetRandomSelectAug`` over random crops, one per value where any argument is a
    list (SSD samples several coverage levels)."""
    values = [min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
              max_attempts]
    lists = [v for v in values if isinstance(v, list)]
    count = max((len(v) for v in lists), default=1)

    def pick(value, index):
        return value[index] if isinstance(value, list) else value

    crops = [DetRandomCropAug(*(pick(value, index) for value in values))
             for index in range(count)]
    return DetRandomSelectAug(crops, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0,  # noqa: N802
                       rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                       saturation=0, pca_noise=0, hue=0, inter_method=2,
                       min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                       area_range=(0.05, 3.0), min_eject_coverage=0.3, max_attempts=50,
                       pad_val=(127, 127, 127)):
    """The detection augmenters, in MXNet's order: resize the short side, random crop
    (with probability ``rand_crop``), mirror, random pad (probability ``rand_pad``), force
    to ``data_shape``, cast to float, colour jitter, hue, PCA lighting noise, gray, and
    normalize (``mean``/``std``; True for ImageNet's)."""
    augs = []
    if resize > 0:
        augs.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        augs.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range,
                                                 (area_range[0], min(1.0, area_range[1])),
                                                 min_eject_coverage, max_attempts,
                                                 skip_prob=1 - rand_crop))
    if rand_mirror:
        augs.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        augs.append(DetRandomSelectAug([pad], 1 - rand_pad))
    augs.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    augs.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        augs.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        augs.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        augs.append(DetBorrowAug(LightingAug(pca_noise, eigval, eigvec)))
    if rand_gray > 0:
        augs.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    mean = np.array(IMAGENET_MEAN) if mean is True else mean
    std = np.array(IMAGENET_STD) if std is True else std
    if mean is not None or std is not None:
        augs.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return augs


class ImageDetIter(ImageIter):
    """ImageIter for detection: labels are (batch, max objects, object_width), -1 padded.

    Takes ImageIter's sources (``path_imgrec`` [+ ``path_imgidx``], ``path_imglist``,
    ``imglist``) and CreateDetAugmenter's keyword arguments, or ``aug_list``.  The label
    shape is found by reading every label once (the most objects any image has), unless
    ``reshape(label_shape=...)`` or ``sync_label_shape`` sets it.
    """

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="label",
                 last_batch_handle="pad", **kwargs):
        det_aug = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        super().__init__(batch_size, data_shape, label_width=1, path_imgrec=path_imgrec,
                         path_imglist=path_imglist, path_root=path_root,
                         path_imgidx=path_imgidx, shuffle=shuffle, part_index=part_index,
                         num_parts=num_parts, aug_list=[], imglist=imglist,
                         data_name=data_name, label_name=label_name,
                         last_batch_handle=last_batch_handle)
        self.auglist = det_aug
        self.label_shape = self._estimate_label_shape()

    @staticmethod
    def parse_label(raw):
        """The objects (n, object_width) of a flattened label, checked."""
        raw = np.asarray(raw, np.float32).ravel()
        if raw.size < 7:
            raise MXNetError(f"ImageDetIter: a label needs [header_width, object_width, "
                             f"...objects], got {raw.tolist()}")
        header_width, object_width = int(raw[0]), int(raw[1])
        if header_width < 2 or object_width < 5 or (raw.size - header_width) % object_width:
            raise MXNetError(f"ImageDetIter: invalid label: header width {header_width}, "
                             f"object width {object_width}, {raw.size} values")
        objects = raw[header_width:].reshape(-1, object_width)
        good = (objects[:, 3] > objects[:, 1]) & (objects[:, 4] > objects[:, 2])
        if not good.any():
            raise MXNetError(f"ImageDetIter: no valid box in label {raw.tolist()} (each needs "
                             f"xmax > xmin and ymax > ymin)")
        return objects[good]

    _parse_label = parse_label            # MXNet's name

    def _estimate_label_shape(self):
        most, width = 0, 5
        self.reset()
        try:
            while True:
                raw, _ = self.next_sample()
                objects = self.parse_label(raw)
                most, width = max(most, objects.shape[0]), objects.shape[1]
        except StopIteration:
            pass
        self.reset()
        return (most, width)

    def check_label_shape(self, label_shape):
        if len(label_shape) != 2:
            raise ValueError(f"ImageDetIter: label_shape must be (objects, width), got "
                             f"{label_shape}")
        if label_shape[0] < self.label_shape[0] or label_shape[1] < self.label_shape[1]:
            raise ValueError(f"ImageDetIter: label_shape {tuple(label_shape)} is smaller "
                             f"than the data's {self.label_shape}")

    def reshape(self, data_shape=None, label_shape=None):
        """Change the batch's data shape (C, H, W) and/or label shape (objects, width)."""
        if data_shape is not None:
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.label_shape = tuple(label_shape)

    def sync_label_shape(self, it, verbose=False):
        """Give this iterator and ``it`` (another ImageDetIter) the same label shape."""
        if not isinstance(it, ImageDetIter):
            raise TypeError("sync_label_shape: expected an ImageDetIter")
        shape = (max(self.label_shape[0], it.label_shape[0]),
                 max(self.label_shape[1], it.label_shape[1]))
        if verbose:
            print(f"resized label_shape to {shape}")
        self.reshape(label_shape=shape)
        it.reshape(label_shape=shape)
        return it

    @property
    def provide_label(self):
        return [DataDesc(self.label_name, (self.batch_size,) + tuple(self.label_shape))]

    def augmentation_transform(self, data, label):
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def empty_batch(self):
        c, h, w = self.data_shape
        return (np.zeros((self.batch_size, c, h, w), self.dtype),
                -np.ones((self.batch_size,) + tuple(self.label_shape), np.float32))

    def load_sample(self, raw_label, buf):
        c = self.data_shape[0]
        img, label = self.augmentation_transform(imdecode(buf, flag=1 if c == 3 else 0),
                                                 self.parse_label(raw_label))
        img, label = as_numpy(img), np.asarray(label, np.float32)
        self.check_image(img)
        if label.shape[0] > self.label_shape[0] or label.shape[1] > self.label_shape[1]:
            raise MXNetError(f"ImageDetIter: an image has {label.shape[0]} objects of width "
                             f"{label.shape[1]}, more than label_shape {self.label_shape}")
        return img, label

    def store(self, data, label, position, img, row):
        c, h, w = self.data_shape
        data[position] = img.reshape(h, w, c).transpose(2, 0, 1)
        label[position] = -1
        label[position, :row.shape[0], :row.shape[1]] = row

    def draw_next(self, *args, **kwargs):
        raise MXNetError("ImageDetIter.draw_next needs OpenCV windows, which minimx does not "
                         "use; draw a batch with matplotlib (see d2l.show_bboxes) instead")


