"""ImageDetRecordIter: images with variable-length box labels, for object detection.

Lesson: 11-data. Each output label row is ``[channels, height, width, label_length]``
followed by the record's (augmented) detection label, padded with ``label_pad_value`` to
``label_pad_width`` values (by default: the longest label in the file).
Mirrors src/io/iter_image_det_recordio.cc (ImageDetRecordIter).
"""
import numpy as np

from ..base import MXNetError
from ..image_codec import decode_array
from ..recordio import unpack
from .det_augment import augment_detection, join_label, split_label
from .image_record_iter import DEFAULTS, ImageRecordIter
from .io import DataDesc

__all__ = ["ImageDetRecordIter"]

PREFIX = 4     # channels, height, width, label length

DET_DEFAULTS = dict(
    DEFAULTS, label_width=-1, label_pad_width=0, label_pad_value=-1.0, fill_value=127,
    std_r=0.0, std_g=0.0, std_b=0.0, std_a=0.0, rand_crop_prob=0.0, min_crop_scales=(0.0,),
    max_crop_scales=(1.0,), min_crop_aspect_ratios=(1.0,), max_crop_aspect_ratios=(1.0,),
    min_crop_overlaps=(0.0,), max_crop_overlaps=(1.0,), num_crop_sampler=1,
    crop_emit_mode="center", rand_pad_prob=0.0, max_pad_scale=1.0, max_random_hue=0,
    random_hue_prob=0.0, max_random_saturation=0, random_saturation_prob=0.0,
    max_random_illumination=0, random_illumination_prob=0.0, max_random_contrast=0.0,
    random_contrast_prob=0.0, rand_mirror_prob=0.0, resize_mode="force",
    aug_seq="det_aug_default")


class ImageDetRecordIter(ImageRecordIter):
    """Detection batches from a ``.rec`` file whose labels are ``[header_width,
    object_width, ..., objects]``; takes ImageRecordIter's parameters plus
    ``label_pad_width``, ``label_pad_value``, ``rand_crop_prob``, ``min/max_crop_scales``,
    ``min/max_crop_aspect_ratios``, ``rand_pad_prob``, ``max_pad_scale``,
    ``random_hue_prob``/``max_random_hue``, ``random_saturation_prob``/
    ``max_random_saturation``, ``random_illumination_prob``/``max_random_illumination``,
    ``random_contrast_prob``/``max_random_contrast`` and ``rand_mirror_prob``."""

    defaults = DET_DEFAULTS

    def __init__(self, **kwargs):
        for key in ("min_crop_scales", "max_crop_scales", "min_crop_aspect_ratios",
                    "max_crop_aspect_ratios"):
            if key in kwargs and np.isscalar(kwargs[key]):
                kwargs[key] = (kwargs[key],)
        super().__init__(**kwargs)

    def setup(self):
        self.std = np.where(self.std > 0, self.std, 1).astype(np.float32)
        longest = max(len(self.raw_label(i)) for i in range(len(self.source)))
        pad_width = self.params["label_pad_width"] or longest
        if pad_width < longest:
            raise MXNetError(f"ImageDetRecordIter: label_pad_width={pad_width} is smaller than "
                             f"the longest label ({longest} values)")
        self.label_row = PREFIX + pad_width
        self.params["label_width"] = self.label_row

    def raw_label(self, position):
        header, _ = unpack(self.source.read(position))
        if header.flag == 0:
            raise MXNetError(f"ImageDetRecordIter: record {header.id} holds one label; a "
                             f"detection record needs [header_width, object_width, objects...]")
        return header.label

    @property
    def provide_label(self):
        return [DataDesc(self.params["label_name"], (self.batch_size, self.label_row),
                         np.float32)]

    def load_example(self, position, epoch):
        header, payload = unpack(self.source.read(position))
        channels, height, width = self.params["data_shape"]
        img = decode_array(payload, flag=0 if channels == 1 else 1, to_rgb=True)
        label_header, objects = split_label(header.label)
        rng = np.random.default_rng([int(self.params["seed"]) & 0xFFFFFFFF, epoch, position])
        img, objects = augment_detection(img, objects, self.params, rng)
        raw = join_label(label_header, objects)
        row = np.full((self.label_row,), self.params["label_pad_value"], np.float32)
        row[:PREFIX] = (channels, height, width, raw.size)
        row[PREFIX:PREFIX + raw.size] = raw
        return self.normalize(img), row, header.id

    def load_label(self, header):
        raise NotImplementedError("ImageDetRecordIter builds its labels in load_example")
