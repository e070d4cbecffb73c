"""What the training dashboard draws: one record per batch, and what follows from them.

Lesson: 12-training-with-module (and the Gluon training loops after it).  A record holds the
epoch, the batch within it, the time (from an injectable clock), the samples
the batch held and the values reported with it (loss, metrics).  From the
records come the curves, the samples per second over a recent window, and the
progress through the epoch and the run.  Values may arrive as NDArrays: they
are kept as they are and read (``asscalar``, a sync point) only when the view
draws, so watching a loop does not make every batch wait for the engine.
"""
import math
import time
from dataclasses import dataclass, field

__all__ = ["Record", "TrainingHistory"]


@dataclass
class Record:
    """One batch: ``step`` counts batches over the whole run, ``batch`` within the epoch."""

    epoch: int
    batch: int
    step: int
    time: float
    samples: int
    values: dict = field(default_factory=dict)


def _as_float(value):
    """A number from a float, a numpy scalar/array (mean) or an NDArray (mean, synced)."""
    if value is None:
        return None
    if hasattr(value, "asscalar"):
        value = value.mean().asscalar() if value.size > 1 else value.asscalar()
    elif hasattr(value, "mean") and getattr(value, "size", 1) > 1:
        value = value.mean()
    return float(value)


class TrainingHistory:
    """The records of one training run.

    Parameters
    ----------
    batches_per_epoch : int, optional
        For the epoch progress bar; otherwise learnt from the first finished epoch.
    num_epochs : int, optional
        For the overall progress bar.
    window : int
        Samples per second are measured over the last ``window`` batches.
    clock : callable
        Seconds as a float (``time.perf_counter``; tests pass a fake clock).
    """

    def __init__(self, batches_per_epoch=None, num_epochs=None, window=20,
                 clock=time.perf_counter):
        self.batches_per_epoch = batches_per_epoch
        self.num_epochs = num_epochs
        self.window = window
        self.clock = clock
        self.records = []
        self.validation = []            # (epoch, step, {name: value})
        self.epochs_done = []           # epochs whose end was reported
        self.start_time = None
        self.started = False            # start() called: the first batch is timed too

    # -- recording ---------------------------------------------------------------------
    def start(self):
        """Start the clock (the first batch's speed is then measured from here)."""
        if self.start_time is None:
            self.start_time = self.clock()
            self.started = True

    def add_batch(self, epoch, batch, values=None, samples=0):
        """Record a finished batch; ``values`` maps names to numbers or NDArrays."""
        now = self.clock()
        if self.start_time is None:
            self.start_time = now
        record = Record(int(epoch), int(batch), len(self.records), now, int(samples or 0),
                        dict(values or {}))
        self.records.append(record)
        return record

    def end_epoch(self, epoch):
        """Note the end of ``epoch``; the first one tells how many batches an epoch has."""
        self.epochs_done.append(int(epoch))
        if self.batches_per_epoch is None:
            count = sum(1 for r in self.records if r.epoch == epoch)
            self.batches_per_epoch = count or None

    def add_validation(self, epoch, values):
        """Record validation values (e.g. from ``Module.fit``'s ``eval_end_callback``)."""
        step = self.records[-1].step if self.records else 0
        self.validation.append((int(epoch), step, dict(values)))

    def resolve(self):
        """Read every value still held as an array (the only place that syncs)."""
        for record in self.records:
            for name, value in record.values.items():
                if not isinstance(value, float):
                    record.values[name] = _as_float(value)
        for _, _, values in self.validation:
            for name, value in values.items():
                values[name] = _as_float(value)

    # -- what follows from the records -------------------------------------------------
    def names(self):
        """The value names in order of first appearance."""
        seen = {}
        for record in self.records:
            for name in record.values:
                seen.setdefault(name, None)
        return list(seen)

    def series(self, name):
        """``(steps, values)`` of one value name, over the records that reported it."""
        pairs = [(r.step, _as_float(r.values[name])) for r in self.records if name in r.values]
        return [s for s, _ in pairs], [v for _, v in pairs]

    def speed_at(self, index, window=None):
        """Samples per second over the ``window`` batches ending with record ``index``.

        Each batch is timed from the record before it; the first one from
        ``start()`` if it was called, else it has no duration and is left out.
        None when no time has passed.
        """
        return self._rate(max(0, index - (window or self.window) + 1), index)

    def speed(self, window=None):
        """Samples per second over the last ``window`` batches (None before any batch)."""
        return self.speed_at(len(self.records) - 1, window) if self.records else None

    def average_speed(self):
        """Samples per second over the whole run."""
        return self._rate(0, len(self.records) - 1) if self.records else None

    def _rate(self, first, last):
        if first == 0 and not self.started:
            first = 1                   # the first batch began before anything was timed
        if first > last:
            return None
        begin = self.records[first - 1].time if first > 0 else self.start_time
        elapsed = self.records[last].time - begin
        samples = sum(r.samples for r in self.records[first:last + 1])
        return samples / elapsed if elapsed > 0 else None

    def progress(self):
        """Where the run is: epoch, batch, and the fractions done of the epoch and the run."""
        if not self.records:
            return {"epoch": 0, "batch": 0, "epoch_fraction": None, "run_fraction": None}
        last = self.records[-1]
        per_epoch = self.batches_per_epoch
        in_epoch = None if not per_epoch else min(1.0, (last.batch + 1) / per_epoch)
        if last.epoch in self.epochs_done:
            in_epoch = 1.0
        run = None
        if self.num_epochs and in_epoch is not None:
            first_epoch = self.records[0].epoch
            run = min(1.0, (last.epoch - first_epoch + in_epoch) / self.num_epochs)
        return {"epoch": last.epoch, "batch": last.batch, "epoch_fraction": in_epoch,
                "run_fraction": run}

    def to_dict(self, max_points=400):
        """The plain data the views draw; at most ``max_points`` records (evenly picked,
        the last always kept) go into the curves."""
        self.resolve()
        count = len(self.records)
        stride = max(1, math.ceil(count / max_points))
        picked = list(range(0, count, stride))
        if count and picked[-1] != count - 1:
            picked.append(count - 1)
        names = self.names()
        origin = self.start_time or 0.0
        rows = [self.records[i] for i in picked]
        return {
            "names": names,
            "step": [r.step for r in rows],
            "epoch": [r.epoch for r in rows],
            "t": [round(r.time - origin, 4) for r in rows],
            "speed": [_round(self.speed_at(i)) for i in picked],
            "values": {n: [_round(r.values.get(n)) for r in rows] for n in names},
            "epoch_starts": [r.step for prev, r in zip(self.records, self.records[1:])
                             if r.epoch != prev.epoch],
            "validation": [{"epoch": e, "step": s,
                            "values": {k: _round(v) for k, v in vals.items()}}
                           for e, s, vals in self.validation],
            "progress": self.progress(),
            "batches_per_epoch": self.batches_per_epoch,
            "num_epochs": self.num_epochs,
            "batches": count,
            "samples": sum(r.samples for r in self.records),
            "elapsed": round(self.records[-1].time - origin, 4) if count else 0.0,
            "current_speed": _round(self.speed()),
            "average_speed": _round(self.average_speed()),
        }


def _round(value):
    if value is None or not math.isfinite(value):
        return None
    return float(f"{value:.6g}")
