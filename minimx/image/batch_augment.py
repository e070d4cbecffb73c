"""ImageIter's fast path: CreateAugmenter's classification list run on a whole batch.

Lesson: 11-data. ImageIter's plain path hands each image through its augmenters one at a
time, an NDArray in and out of each: readable, and any Augmenter can take part. For the list
``CreateAugmenter`` builds for classification -- [ResizeAug], a crop, [HorizontalFlipAug],
[CastAug], [ColorNormalizeAug] -- that is some forty small numpy calls an image. Here, per
image and in the plain path's order, only the random draws are made (crop box, automatic
interpolation, flip; the optional short-side resize too); then, once per run of ``RUN``
images, every crop is resized by gathering its interpolation taps (``resize_batch``),
flipped, cast and normalised, while a pool of threads decodes the next runs (the numpy
work of a run lets them have the GIL; one call for the whole batch would not).  Each step does
the plain path's float32 operations in the plain path's order, so the batch is the same bit
for bit (tests/io/test_io_image_batch.py compares the two paths).
"""
import os
import random

import numpy as np

from ..ndarray import NDArray
from ..op.resize_kernels import resize_array, resize_batch, resize_taps, round_to
from .augmenters import (CastAug, CenterCropAug, ColorNormalizeAug, HorizontalFlipAug,
                         RandomCropAug, RandomSizedCropAug, ResizeAug)
from .image import (center_box, decode_hwc, interp_method, random_box, random_size_box,
                    short_side_size)

__all__ = ["BatchAugmenter", "batch_augmenter", "decode_runs"]

CROPS = (RandomSizedCropAug, RandomCropAug, CenterCropAug)
DECODE_THREADS = min(4, os.cpu_count() or 1)
RUN = 16                # images a decoding thread takes at a time
_decoders = {}          # process id -> the decoding threads' pool (a forked child needs
                        # its own: the parent's threads are not in it)


def decoder_pool():
    """This process's pool of decoding threads (made on first use: a forked child makes its
    own), or None on one core."""
    if DECODE_THREADS <= 1:
        return None
    pool = _decoders.get(os.getpid())
    if pool is None:
        from concurrent.futures import ThreadPoolExecutor    # (not needed at import)
        pool = _decoders[os.getpid()] = ThreadPoolExecutor(DECODE_THREADS, "minimx-decode")
    return pool


def decode_runs(bufs, flag):
    """The images of ``bufs`` decoded to HxWxC uint8 arrays, yielded as lists of ``RUN``
    consecutive images, in order.  With more than one core, a pool of threads decodes the
    runs while the caller works on those already done (OpenCV's decoder and Pillow's
    release the GIL inside libjpeg, where most of a small JPEG's time goes).  A file that
    does not decode raises in turn: after the run's images before it have been yielded."""
    starts = range(0, len(bufs), RUN)
    pool = decoder_pool() if len(starts) > 1 else None
    if pool is None:
        done = (decode_run(bufs[first:first + RUN], flag) for first in starts)
    else:
        runs = [pool.submit(decode_run, bufs[first:first + RUN], flag) for first in starts]
        done = (run.result() for run in runs)
    for images, error in done:
        yield images
        if error is not None:
            raise error


def decode_run(bufs, flag):
    """(the images decoded, the error that stopped the run or None)."""
    images = []
    try:
        for buf in bufs:
            images.append(decode_hwc(buf, flag))
    except Exception as error:          # noqa: BLE001 (raised again, in order, by the caller)
        return images, error
    return images, None


def batch_augmenter(auglist, data_shape):
    """A ``BatchAugmenter`` equal to running ``auglist`` image by image, or None when the
    list is anything but [ResizeAug] crop-to-data_shape [HorizontalFlipAug...] [CastAug to
    float32 [ColorNormalizeAug with float32 mean and std that fit the image]]."""
    augs = list(auglist)
    resize = augs.pop(0) if augs and type(augs[0]) is ResizeAug else None
    if not augs or type(augs[0]) not in CROPS:
        return None
    crop = augs.pop(0)
    if tuple(crop.size) != (data_shape[2], data_shape[1]):
        return None
    flips = []
    while augs and type(augs[0]) is HorizontalFlipAug:
        flips.append(augs.pop(0))
    cast = normalize = None
    image_shape = (data_shape[1], data_shape[2], data_shape[0])
    if augs and type(augs[0]) is CastAug and np.dtype(augs[0].typ) == np.float32:
        cast = augs.pop(0)
        if augs and type(augs[0]) is ColorNormalizeAug:
            normalize = augs.pop(0)
            for value in (normalize.mean, normalize.std):
                if value is not None and not (
                        isinstance(value, NDArray) and value.dtype == np.float32
                        and np.broadcast_shapes(image_shape, value.shape) == image_shape):
                    return None       # ColorNormalizeAug would use the NDArray operators
    if augs:
        return None
    return BatchAugmenter(resize, crop, flips, cast is not None, normalize, image_shape)


class BatchAugmenter:
    """``draw(img)`` per image (its random choices, in order), ``apply(draws)`` per batch:
    the augmented N x C x H x W batch."""

    def __init__(self, resize, crop, flips, cast, normalize, image_shape):
        self.resize, self.crop, self.flips = resize, crop, flips
        self.cast = cast
        self.mean = self.std = None
        if normalize is not None:     # spread to the image's shape, as ColorNormalizeAug
            self.mean, self.std = (   # does, then channels first as the batch is
                None if value is None else
                np.broadcast_to(value.asnumpy(), image_shape).transpose(2, 0, 1).copy()
                for value in (normalize.mean, normalize.std))

    def draw(self, img):
        """(image, crop box, taps, flipped) of one HxWxC uint8 image: what the augmenters
        would draw from ``random`` for it, in their order (the short-side resize is done
        here: it draws too, and the crop box depends on its result)."""
        if self.resize is not None:
            h, w = img.shape[:2]
            new_h, new_w = short_side_size(h, w, self.resize.size)
            img = resize_array(img, new_w, new_h,
                               interp_method(self.resize.interp, (h, w, new_h, new_w)))
        h, w = img.shape[:2]
        crop = self.crop
        if type(crop) is RandomSizedCropAug:
            box = random_size_box(w, h, crop.area, crop.ratio) or center_box(w, h, crop.size)
        elif type(crop) is RandomCropAug:
            box = random_box(w, h, crop.size)
        else:
            box = center_box(w, h, crop.size)
        _, _, box_w, box_h = box
        out_w, out_h = crop.size
        if (box_w, box_h) == (out_w, out_h):     # fixed_crop does not resize: nearest
            taps = resize_taps(box_h, box_w, box_h, box_w, 0)   # at the same size copies
        else:
            taps = resize_taps(box_h, box_w, out_h, out_w,
                               interp_method(crop.interp, (box_h, box_w, out_h, out_w)))
        flipped = False
        for flip in self.flips:
            if random.random() < flip.p:
                flipped = not flipped
        return img, box, taps, flipped

    def apply(self, draws):
        """The N x C x H x W batch of the drawn images, cropped, resized, flipped, cast and
        normalised."""
        images, boxes, taps, flipped = zip(*draws)
        out = resize_batch(stack_planes(images), *batch_taps(boxes, taps))
        out = round_to(out, np.uint8)                # uint8, as fixed_crop returns
        flipped = np.flatnonzero(flipped)
        if flipped.size:
            out[flipped] = out[flipped, :, :, ::-1]
        if not self.cast:
            return out
        out = out.astype(np.float32)
        if self.mean is not None:
            out -= self.mean
        if self.std is not None:
            out /= self.std
        return out


def stack_planes(images):
    """HxWxC images as one float32 N x C x H x W array, zero-padded to the largest."""
    if len({img.shape for img in images}) == 1:
        return np.ascontiguousarray(np.stack(images).transpose(0, 3, 1, 2), dtype=np.float32)
    height = max(img.shape[0] for img in images)
    width = max(img.shape[1] for img in images)
    batch = np.zeros((len(images), images[0].shape[2], height, width), np.float32)
    for slot, img in zip(batch, images):
        slot[:, :img.shape[0], :img.shape[1]] = img.transpose(2, 0, 1)
    return batch


def batch_taps(boxes, taps):
    """Each image's row and column taps, moved to its crop box and padded to the batch's
    widest with weight-0 taps: ``(index, weight)`` pairs of shape (N, h, K) and (N, w, K)."""
    axes = []
    for axis in (0, 1):                           # rows (offset y0), then columns (x0)
        pairs = [pair[axis] for pair in taps]
        index = padded_stack([tap_index for tap_index, _ in pairs])
        weight = padded_stack([tap_weight for _, tap_weight in pairs])
        offsets = np.array([box[1 - axis] for box in boxes], np.int64)
        axes.append((index + offsets[:, None, None], weight))
    return axes


def padded_stack(arrays):
    """(l, K_n) arrays stacked as one (N, l, K) array, each padded with zero columns to
    the widest K (one copy for each width there is)."""
    widths = [array.shape[1] for array in arrays]
    widest = max(widths)
    if min(widths) == widest:
        return np.stack(arrays)
    out = np.zeros((len(arrays), arrays[0].shape[0], widest), arrays[0].dtype)
    for width in set(widths):
        rows = [n for n, each in enumerate(widths) if each == width]
        out[rows, :, :width] = np.stack([arrays[n] for n in rows])
    return out
