"""ImageRecordIter: batches of decoded, augmented images read from a ``.rec`` file.

Lesson: 11-data. A producer thread assembles batches ahead of the training loop (up to
``prefetch_buffer`` of them); for each batch, a pool of ``preprocess_threads`` threads
decodes and augments the images in parallel (Pillow and numpy release the GIL while they
work). Each image draws its randomness from its own generator, seeded by ``seed``, the
epoch and its position, so results do not depend on the number of threads.
Mirrors src/io/iter_image_recordio_2.cc (ImageRecordIter) and its parameters.
"""
import queue
import threading
import warnings

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..image_codec import decode_array
from ..recordio import unpack
from .image_aug_default import augment
from .io import CurrentBatchIter, DataBatch, DataDesc
from .record_source import RecordSource

__all__ = ["ImageRecordIter", "ImageRecordUInt8Iter", "DEFAULTS"]

DEFAULTS = dict(
    path_imgrec="", path_imgidx="", path_imglist="", data_shape=None, batch_size=None,
    label_width=1, preprocess_threads=4, prefetch_buffer=4, num_parts=1, part_index=0,
    shuffle=False, seed=0, round_batch=True, dtype=None, data_name="data",
    label_name="softmax_label", resize=-1, rand_crop=False, max_rotate_angle=0,
    max_aspect_ratio=0.0, max_shear_ratio=0.0, max_random_scale=1.0, min_random_scale=1.0,
    random_h=0, random_s=0, random_l=0, rotate=-1, fill_value=255, inter_method=1, pad=0,
    mirror=False, rand_mirror=False, mean_r=0.0, mean_g=0.0, mean_b=0.0, mean_a=0.0,
    std_r=1.0, std_g=1.0, std_b=1.0, std_a=1.0, scale=1.0, verbose=True, ctx="cpu",
    aug_seq="aug_default", device_id=0, seed_aug=None)


# MXNet 1.9.1's parameters that minimx's iterator does not build, with MXNet's defaults: at its
# default a name changes nothing and is accepted; any other value would be silently ignored
# (random-size crops and colour jitter that never happen), so it is refused by name.
NOT_BUILT = dict(
    random_resized_crop=False, min_random_area=1.0, max_random_area=1.0, min_aspect_ratio=None,
    max_crop_size=-1, min_crop_size=-1, max_img_size=1e10, min_img_size=0.0, brightness=0.0,
    contrast=0.0, saturation=0.0, pca_noise=0.0, mean_img="", max_random_contrast=0.0,
    max_random_illumination=0.0, shuffle_chunk_size=0, shuffle_chunk_seed=0)


def refuse_not_built(kwargs, defaults, name):
    for key, default in NOT_BUILT.items():
        if key in kwargs and key not in defaults and kwargs[key] != default:
            raise NotImplementedError(
                f"{name}: {key}={kwargs[key]!r} is a parameter of MXNet 1.9.1's iterator that "
                f"minimx's does not build (only its default, {default!r}, is accepted); for "
                f"random-size crops and colour jitter use mx.image.ImageIter with "
                f"mx.image.CreateAugmenter(rand_resize=True, brightness=..., ...)")


def parse_params(kwargs, defaults, name):
    """Defaults updated by ``kwargs``; unknown names are ignored (as MXNet does) with a warning;
    MXNet's names that minimx does not build are refused unless at MXNet's default."""
    refuse_not_built(kwargs, defaults, name)
    params = dict(defaults)
    unknown = sorted(set(kwargs) - set(defaults) - set(NOT_BUILT))
    if unknown:
        warnings.warn(f"{name}: ignoring unknown parameters {unknown}", stacklevel=3)
    params.update({key: value for key, value in kwargs.items() if key in defaults})
    for required in ("data_shape", "batch_size"):
        if params[required] is None:
            raise MXNetError(f"{name}: the parameter {required} is required")
    params["data_shape"] = tuple(int(d) for d in params["data_shape"])
    if len(params["data_shape"]) != 3:
        raise MXNetError(f"{name}: data_shape must be (channels, height, width), got "
                         f"{params['data_shape']}")
    return params


def epoch_schedule(order, start, batch_size, round_batch):
    """Batches of positions for one epoch beginning at ``start``; the last one is completed
    from the beginning of ``order`` (round_batch) or left short. Returns (batches, pads)."""
    positions = list(order[start:])
    batches, pads = [], []
    for begin in range(0, len(positions), batch_size):
        batch = positions[begin:begin + batch_size]
        pad = batch_size - len(batch)
        if pad and round_batch:
            batch += list(np.resize(np.asarray(order), pad))
        batches.append(batch)
        pads.append(pad)
    return batches, pads


class ImageRecordIter(CurrentBatchIter):
    """Read, decode, augment and batch images from a RecordIO file (see the module doc).

    Takes MXNet's keyword parameters: ``path_imgrec``, ``data_shape`` (C, H, W) and
    ``batch_size`` are required; ``label_width``, ``mean_r/g/b``, ``std_r/g/b``, ``scale``,
    ``resize``, ``rand_crop``, ``rand_mirror``, ``mirror``, ``min/max_random_scale``,
    ``max_aspect_ratio``, ``max_rotate_angle``, ``rotate``, ``max_shear_ratio``, ``pad``,
    ``fill_value``, ``random_h/s/l``, ``inter_method``, ``shuffle``, ``seed``,
    ``preprocess_threads``, ``prefetch_buffer``, ``num_parts``, ``part_index``,
    ``round_batch``, ``data_name``, ``label_name``, ``dtype``.
    Output: data (batch, C, H, W) in RGB order, ``(pixel - mean) / std * scale``;
    label (batch,) or (batch, label_width).
    """

    defaults = DEFAULTS

    def __init__(self, **kwargs):
        params = parse_params(kwargs, self.defaults, type(self).__name__)
        super().__init__(params["batch_size"])
        self.params = params
        self.source = RecordSource(params["path_imgrec"], params["path_imgidx"],
                                   params["num_parts"], params["part_index"])
        self.dtype = np.dtype(params["dtype"] or "float32")
        channels = params["data_shape"][0]
        self.mean = np.array([params["mean_r"], params["mean_g"], params["mean_b"],
                              params["mean_a"]][:channels], np.float32)
        self.std = np.array([params["std_r"], params["std_g"], params["std_b"],
                             params["std_a"]][:channels], np.float32)
        from concurrent.futures import ThreadPoolExecutor     # (not needed at import)
        self.pool = ThreadPoolExecutor(max(1, int(params["preprocess_threads"])))
        self.epoch = -1
        self.start = self.carry = 0
        self.producer = None
        self.current_batch = None
        self.setup()
        self.reset()

    def setup(self):
        """Hook for subclasses: runs once the records are known, before the first epoch."""

    @property
    def provide_data(self):
        return [DataDesc(self.params["data_name"], (self.batch_size,) + self.params["data_shape"],
                         self.dtype)]

    @property
    def provide_label(self):
        width = self.params["label_width"]
        shape = (self.batch_size,) if width == 1 else (self.batch_size, width)
        return [DataDesc(self.params["label_name"], shape, np.float32)]

    # ---- one example -------------------------------------------------------------------
    def load_label(self, header):
        width = self.params["label_width"]
        if header.flag == 0:
            return np.full((width,), header.label, np.float32)
        if header.flag < width:
            raise MXNetError(f"{type(self).__name__}: a record holds {header.flag} labels, "
                             f"fewer than label_width={width}")
        return np.asarray(header.label[:width], np.float32)

    def load_example(self, position, epoch):
        """Decode, augment and normalise record ``position``: (CHW image, label, id)."""
        header, payload = unpack(self.source.read(position))
        channels = self.params["data_shape"][0]
        img = decode_array(payload, flag=0 if channels == 1 else 1, to_rgb=True)
        rng = np.random.default_rng([int(self.params["seed"]) & 0xFFFFFFFF, epoch, position])
        img = augment(img, self.params, rng)
        return self.normalize(img), self.load_label(header), header.id

    def normalize(self, img):
        if self.dtype == np.uint8:
            return np.ascontiguousarray(img.transpose(2, 0, 1))
        out = (img.astype(np.float32) - self.mean) / self.std * self.params["scale"]
        return out.transpose(2, 0, 1).astype(self.dtype)

    # ---- the producer thread -------------------------------------------------------------
    def produce(self, batches, pads, epoch, out, stop):
        """Thread body: build each batch with the pool, put it in ``out`` until ``stop``."""
        try:
            for number, (positions, pad) in enumerate(zip(batches, pads)):
                if stop.is_set():
                    return
                examples = list(self.pool.map(lambda i: self.load_example(i, epoch),
                                              positions))
                data = np.zeros((self.batch_size,) + self.params["data_shape"], self.dtype)
                label = np.zeros((self.batch_size, self.params["label_width"]), np.float32)
                for row, (img, lab, _) in enumerate(examples):
                    data[row], label[row] = img, lab
                index = np.array([ex[2] for ex in examples], np.uint64)
                out.put((data, label, pad, index, number == len(batches) - 1))
            out.put(None)
        except Exception as err:  # raised again in the consumer's next()
            out.put(err)

    def stop_producer(self):
        if self.producer is None:
            return
        thread, out, stop = self.producer
        stop.set()
        while thread.is_alive():
            try:
                out.get(timeout=0.05)
            except queue.Empty:
                pass
        self.producer = None

    def reset(self):
        self.stop_producer()
        self.epoch += 1
        order = np.arange(len(self.source))
        if self.params["shuffle"]:
            np.random.default_rng([int(self.params["seed"]) & 0xFFFFFFFF,
                                   self.epoch]).shuffle(order)
        batches, pads = epoch_schedule(order, self.start, self.batch_size,
                                       self.params["round_batch"])
        # once the last batch is read, the examples that completed it are skipped at the
        # start of the next epoch
        self.start = 0
        self.carry = pads[-1] if (pads and self.params["round_batch"]) else 0
        out = queue.Queue(maxsize=max(1, int(self.params["prefetch_buffer"])))
        stop = threading.Event()
        thread = threading.Thread(target=self.produce, args=(batches, pads, self.epoch, out,
                                                             stop), daemon=True,
                                  name=f"{type(self).__name__}-producer")
        self.producer = (thread, out, stop)
        thread.start()

    def iter_next(self):
        if self.producer is None:
            return False
        item = self.producer[1].get()
        if item is None:
            self.producer[1].put(None)   # later next() calls keep raising StopIteration
            return False
        if isinstance(item, Exception):
            self.producer[1].put(None)
            raise item
        data, label, pad, index, last = item
        if last:
            self.start = self.carry
        if self.params["label_width"] == 1:
            label = label[:, 0]
        self.current_batch = DataBatch([nd.array(data, dtype=self.dtype)],
                                       [nd.array(label, dtype=np.float32)], pad=pad,
                                       index=index, provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        return True

    def close(self):
        """Stop the producer thread and the worker pool."""
        self.stop_producer()
        self.pool.shutdown(wait=False)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


def ImageRecordUInt8Iter(**kwargs):  # noqa: N802 (MXNet's name)
    """ImageRecordIter that yields uint8 images (no normalisation)."""
    return ImageRecordIter(**dict(kwargs, dtype="uint8"))
