"""mx.image: decode, resize, crop and augment images (HWC NDArrays), and ImageIter.

Lesson: 11-data. Mirrors python/mxnet/image/.
"""
from .image import (center_crop, color_normalize, copyMakeBorder, fixed_crop, imdecode, imread,
                    imresize, random_crop, random_size_crop, resize_short, scale_down)
from .augmenters import (Augmenter, BrightnessJitterAug, CastAug, CenterCropAug, ColorJitterAug,
                         ColorNormalizeAug, ContrastJitterAug, CreateAugmenter, ForceResizeAug,
                         HorizontalFlipAug, HueJitterAug, LightingAug, RandomCropAug,
                         RandomGrayAug, RandomOrderAug, RandomSizedCropAug, ResizeAug,
                         SaturationJitterAug, SequentialAug)
from .image_iter import ImageIter
from .rotate import imrotate, random_rotate
from .detection import (CreateDetAugmenter, CreateMultiRandCropAugmenter, DetAugmenter,
                        DetBorrowAug, DetHorizontalFlipAug, DetRandomCropAug, DetRandomPadAug,
                        DetRandomSelectAug, ImageDetIter)

__all__ = ["imrotate", "random_rotate", "center_crop", "color_normalize", "copyMakeBorder", "fixed_crop", "imdecode", "imread",
           "imresize", "random_crop", "random_size_crop", "resize_short", "scale_down",
           "Augmenter", "BrightnessJitterAug", "CastAug", "CenterCropAug", "ColorJitterAug",
           "ColorNormalizeAug", "ContrastJitterAug", "CreateAugmenter", "ForceResizeAug",
           "HorizontalFlipAug", "HueJitterAug", "LightingAug", "RandomCropAug", "RandomGrayAug",
           "RandomOrderAug", "RandomSizedCropAug", "ResizeAug", "SaturationJitterAug",
           "SequentialAug", "ImageIter", "CreateDetAugmenter", "CreateMultiRandCropAugmenter",
           "DetAugmenter", "DetBorrowAug", "DetHorizontalFlipAug", "DetRandomCropAug",
           "DetRandomPadAug", "DetRandomSelectAug", "ImageDetIter"]
