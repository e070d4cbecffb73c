"""The profiler: engine events turned into a Chrome trace and a table of operator times.

Lesson: 05-lazy-evaluation.  Mirrors ``python/mxnet/profiler.py`` (the API) and
``src/profiler/profiler.cc`` (the output).  It never reaches inside the engine:
while running it subscribes to the engine's events and keeps them; ``dump``
writes ``traceEvents`` for chrome://tracing or Perfetto (one complete event per
operation on the worker thread that ran it, plus a frontend lane of pushes),
and ``dumps`` returns per-operator totals.
"""
import json
import os
import threading
import time

from . import engine
from .base import InvalidParameterError, MXNetError
from .engine import events
from .op.registry import OPS

__all__ = ["set_config", "set_state", "pause", "resume", "dump", "dumps", "profiler_set_config",
           "profiler_set_state", "dump_profile", "Domain", "Task", "Frame", "Event", "Counter",
           "Marker", "resident_memory_mb"]

_DEFAULTS = {"profile_all": False, "profile_symbolic": True, "profile_imperative": True,
             "profile_memory": True, "profile_api": True, "filename": "profile.json",
             "continuous_dump": True, "dump_period": 1.0, "aggregate_stats": False,
             "profile_process": "worker"}
_SORT_KEYS = ("total", "avg", "min", "max", "count")
_OPERATOR, _CUSTOM = "operator", "Custom Operator"      # the domains of dumps()' times


class _Profiler:
    """The one profiler of the process: its settings and the events it has seen."""

    def __init__(self):
        self.config = dict(_DEFAULTS)
        self.state = "stop"
        self.paused = False
        self.events = []              # engine events and annotations not yet dumped
        self.dumped_spans = []        # spans already written by dump, kept for dumps()
        self.stats_since = 0.0        # dumps(reset=True) forgets spans that started earlier
        self.origin = time.perf_counter()   # trace time 0
        self.written = []             # events already in the trace file (continuous dumps)
        self.regions = {}             # thread -> the custom operator region it is in
        self.custom = {}              # op_id -> the custom operator it ran inside
        self.memory = []              # (time, resident kB) at each operation's end

    def listen(self, on):
        if on:
            engine.subscribe(self.on_event)
            if self.on_region not in events.region_subscribers:
                events.region_subscribers.append(self.on_region)
        else:
            engine.unsubscribe(self.on_event)
            if self.on_region in events.region_subscribers:
                events.region_subscribers.remove(self.on_region)

    def on_event(self, event):
        self.events.append(event)
        if event.kind == "start" and event.thread in self.regions:
            self.custom[event.op_id] = self.regions[event.thread][0]
        elif (event.kind == "end" and self.config["profile_memory"]
              and (not self.memory or event.time - self.memory[-1][0] > 1e-3)):
            # at most one sample per millisecond: reading the size costs about 20 us
            self.memory.append((event.time, resident_memory_mb() * 1e3))

    def on_region(self, name, phase, thread, moment):
        """A custom operator's Python body: its time is ``<op_type>::pure_python`` in the
        'Custom Operator' domain, and operations run inside it are named after it."""
        if phase == "begin":
            self.regions[thread] = (name, moment)
        elif thread in self.regions:
            _, start = self.regions.pop(thread)
            self.events.append(_Span(f"{name}::pure_python", thread, start, moment,
                                     _CUSTOM))

    def record(self, item):
        if self.state == "run" and not self.paused:
            self.events.append(item)


_profiler = _Profiler()


def _check_process(profile_process):
    if profile_process != "worker":
        raise MXNetError(f"profile_process={profile_process!r}: minimx profiles only the "
                         f"'worker' process (there is no kvstore server process)")


def set_config(**kwargs):
    """Set profiler options (MXNet's names: ``profile_all``, ``filename``, ``aggregate_stats``...).

    Examples
    --------
    >>> mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename='trace.json')
    """
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise InvalidParameterError(
                f"profiler.set_config: unknown argument {key!r}; expected one of "
                f"{', '.join(_DEFAULTS)}")
        _profiler.config[key] = value
    _check_process(_profiler.config["profile_process"])


def set_state(state="stop", profile_process="worker"):
    """Start (``'run'``) or stop (``'stop'``) collecting engine events."""
    _check_process(profile_process)
    if state not in ("run", "stop"):
        raise ValueError(f"profiler state must be 'run' or 'stop', got {state!r}")
    if state == _profiler.state:
        return
    if state == "run":
        _profiler.written = []        # a new run starts a new trace file
    _profiler.state = state
    _profiler.paused = False
    _profiler.listen(state == "run")


def pause(profile_process="worker"):
    """Stop collecting for a while (the state stays ``'run'``)."""
    _check_process(profile_process)
    if _profiler.state == "run" and not _profiler.paused:
        _profiler.paused = True
        _profiler.listen(False)


def resume(profile_process="worker"):
    """Collect again after ``pause``."""
    _check_process(profile_process)
    if _profiler.state == "run" and _profiler.paused:
        _profiler.paused = False
        _profiler.listen(True)


def dump(finished=True, profile_process="worker"):
    """Write everything collected so far to ``filename`` as Chrome-trace JSON.

    ``finished=True`` (the default) also stops collecting, as MXNet stops
    dumping after its final dump.
    """
    _check_process(profile_process)
    events = list(_profiler.events)
    # each dump writes the whole trace so far: the file grows, as MXNet's continuous dump
    trace = chrome_trace(_profiler.written + events)
    with open(_profiler.config["filename"], "w") as file:
        json.dump(trace, file, indent=1)
    # Written events leave the buffer, as in MXNet; operations still running keep their start.
    spans = _durations(events)
    ended = {span[4].op_id for span in spans if not isinstance(span[4], _Span)}
    del _profiler.events[:len(events)]
    _profiler.events[:0] = [event for event in events if getattr(event, "kind", None) == "start"
                            and event.op_id not in ended]
    _profiler.dumped_spans.extend(spans)
    _profiler.written.extend(event for event in events
                             if getattr(event, "kind", None) != "start"
                             or event.op_id in ended)
    if finished:
        _profiler.written = []
        set_state("stop")


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """Per-operator counts and times (ms) as a table or JSON string.

    Empty unless ``set_config(aggregate_stats=True)``.  ``reset=True`` forgets
    the statistics collected so far.
    """
    if format not in ("table", "json"):
        raise ValueError(f"format must be 'table' or 'json', got {format!r}")
    if sort_by not in _SORT_KEYS:
        raise ValueError(f"sort_by must be one of {', '.join(_SORT_KEYS)}, got {sort_by!r}")
    if not _profiler.config["aggregate_stats"]:
        return ""
    since = _profiler.stats_since
    spans = _profiler.dumped_spans + _durations(list(_profiler.events))
    by_domain = {}
    for span in spans:
        if span[2] >= since:
            domain, name = _domain_and_name(span)
            by_domain.setdefault(domain, []).append((name,) + span[1:])
    order = lambda item: item[1][sort_by]     # noqa: E731
    times = {domain: sorted(_aggregate(items).items(), key=order, reverse=not ascending)
             for domain, items in by_domain.items()}
    memory = _memory_stats([kb for moment, kb in _profiler.memory if moment >= since])
    if reset:
        _profiler.dumped_spans = []
        _profiler.stats_since = time.perf_counter()
    if format == "json":
        memory_order = "count" if sort_by == "total" else sort_by
        memory_rows = sorted(memory.items(), key=lambda item: item[1][memory_order],
                             reverse=not ascending)
        return json.dumps({
            "Time": {domain: {name: {key.capitalize(): value for key, value in row.items()}
                              for name, row in rows} for domain, rows in times.items()},
            "Memory": {"cpu/0": {name: {key.capitalize(): value for key, value in row.items()}
                                 for name, row in memory_rows}},
            "Unit": {"Time": "ms", "Memory": "kB"}}, indent=4)
    return "".join(_table(domain, rows) for domain, rows in times.items()) or _table(
        _OPERATOR, [])


def _domain_and_name(span):
    """Which table a span belongs to, and its row name there."""
    name, event = span[0], span[4]
    if isinstance(event, _Span):
        return event.domain, name
    custom = _profiler.custom.get(event.op_id)
    return (_CUSTOM, f"{custom}::{name}") if custom else (_OPERATOR, name)


def _memory_stats(samples):
    """Resident memory at the ends of operations (kB): MXNet reports device memory per
    storage; minimx's host arrays live in the process, so it samples the process."""
    if not samples:
        return {}
    low, high = min(samples), max(samples)
    return {"Memory: cpu/0 (resident) ": {"count": len(samples), "min": low, "max": high,
                                           "avg": _mean(sum(samples), len(samples), low, high)}}


def _mean(total, count, low, high):
    """``total / count``, kept within ``[low, high]``: the mean of equal samples is their
    value, where rounding in the sum and the division could put it an ulp below the min."""
    return min(max(total / count, low), high)


# -- MXNet's older names ------------------------------------------------------------------------
def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated MXNet API: ``mode`` is ``'symbolic'`` or ``'all'``."""
    set_config(profile_all=(mode == "all"), filename=filename)


def profiler_set_state(state="stop"):
    """Deprecated MXNet API: same as ``set_state``."""
    set_state(state)


def dump_profile():
    """Deprecated MXNet API: same as ``dump``."""
    dump(True)


# -- from events to statistics and trace -------------------------------------------------------
def _durations(events):
    """(name, thread, start, end, event) for every operation that started and ended."""
    started = {}
    spans = []
    for event in events:
        if isinstance(event, _Span):
            spans.append((event.name, event.thread, event.start, event.end, event))
        elif getattr(event, "kind", None) == "start":
            started[event.op_id] = event
        elif getattr(event, "kind", None) == "end" and event.op_id in started:
            begin = started.pop(event.op_id)
            spans.append((event.name, event.thread, begin.time, event.time, event))
    return spans


def _aggregate(spans):
    stats = {}
    for name, _, start, end, _ in spans:
        milliseconds = (end - start) * 1e3
        row = stats.setdefault(name, {"count": 0, "total": 0.0, "min": milliseconds,
                                      "max": milliseconds})
        row["count"] += 1
        row["total"] += milliseconds
        row["min"] = min(row["min"], milliseconds)
        row["max"] = max(row["max"], milliseconds)
    for row in stats.values():
        row["avg"] = _mean(row["total"], row["count"], row["min"], row["max"])
    return stats


def _table(domain, rows):
    header = (f"{'Name':<30}{'Total Count':>14}{'Time (ms)':>17}{'Min Time (ms)':>17}"
              f"{'Max Time (ms)':>17}{'Avg Time (ms)':>17}")
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries.",
             domain, "=================", header,
             f"{'----':<30}{'-----------':>14}{'---------':>17}" + f"{'-------------':>17}" * 3]
    for name, row in rows:
        lines.append(f"{name:<30}{row['count']:>14}{row['total']:>17.4f}{row['min']:>17.4f}"
                     f"{row['max']:>17.4f}{row['avg']:>17.4f}")
    return "\n".join(lines) + "\n"


def chrome_trace(events):
    """The Chrome-trace dict for a list of engine events (times in microseconds)."""
    pid = os.getpid()
    origin = _profiler.origin
    lanes = {}                    # thread name -> tid, in order of first appearance

    def tid(thread):
        return lanes.setdefault(thread, len(lanes))

    def micros(seconds):
        return round((seconds - origin) * 1e6, 3)

    trace = []
    for event in events:
        if getattr(event, "kind", None) == "push":
            trace.append({"name": event.name, "cat": "push", "ph": "i", "s": "t", "pid": pid,
                          "tid": tid(event.thread), "ts": micros(event.time),
                          "args": {"pending": event.pending}})
        elif isinstance(event, _Instant):
            trace.append({"name": event.name, "cat": event.category, "ph": event.phase,
                          "s": "t", "pid": pid, "tid": tid(event.thread),
                          "ts": micros(event.time), "args": event.args})
    for name, thread, start, end, event in _durations(events):
        entry = {"name": name, "cat": "operator", "ph": "X", "pid": pid, "tid": tid(thread),
                 "ts": micros(start), "dur": round((end - start) * 1e6, 3)}
        if not isinstance(event, _Span):
            entry["args"] = {"op_id": event.op_id, "reads": list(event.reads),
                             "writes": list(event.writes), "ctx": event.ctx}
            if _computes_on_host(name):
                entry["args"]["host_compute"] = True
            if event.error:
                entry["args"]["error"] = event.error
        trace.append(entry)
    trace.sort(key=lambda entry: entry["ts"])
    metadata = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "minimx"}}]
    for thread, number in lanes.items():
        label = f"{thread} (frontend)" if not thread.startswith("engine-") else thread
        metadata.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": number,
                         "args": {"name": label}})
        metadata.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": number,
                         "args": {"sort_index": number}})
    return {"traceEvents": metadata + trace, "displayTimeUnit": "ms"}


def _computes_on_host(name):
    """Whether operation ``name`` (or its backward) is an operator declared ``host_compute``:
    its work runs on the host even when its arrays live on a GPU."""
    declared = OPS.get(name[len("_backward_"):] if name.startswith("_backward_") else name)
    return bool(declared is not None and declared.host_compute)


# -- user annotations (MXNet's Domain, Task, Frame, Event, Counter, Marker) -----------------
class _Span:
    __slots__ = ("name", "thread", "start", "end", "domain")

    def __init__(self, name, thread, start, end, domain=_OPERATOR):
        self.name, self.thread, self.start, self.end = name, thread, start, end
        self.domain = domain


class _Instant:
    __slots__ = ("name", "category", "phase", "thread", "time", "args")

    def __init__(self, name, category, phase, args):
        self.name, self.category, self.phase, self.args = name, category, phase, args
        self.thread = threading.current_thread().name
        self.time = time.perf_counter()


class Domain:
    """A group of user annotations (MXNet's profiler domain)."""

    def __init__(self, name):
        self.name = name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)

    def __str__(self):
        return self.name


class Event:
    """A user-timed span: ``start()`` ... ``stop()`` shows as one bar on this thread."""

    def __init__(self, name):
        self.name = name
        self.started = None

    def start(self):
        self.started = time.perf_counter()

    def stop(self):
        if self.started is None:
            raise MXNetError(
                f"profiler {type(self).__name__} {self.name!r}: stop() before start()")
        _profiler.record(_Span(self.name, threading.current_thread().name, self.started,
                               time.perf_counter()))
        self.started = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop()

    def __str__(self):
        return self.name


class Task(Event):
    """A span that belongs to a Domain."""

    def __init__(self, domain, name):
        super().__init__(f"{domain}::{name}")
        self.domain = domain


Frame = Task


class Marker:
    """An instant mark in the trace."""

    def __init__(self, domain, name):
        self.domain, self.name = domain, name

    def mark(self, scope="process"):
        _profiler.record(_Instant(f"{self.domain}::{self.name}", "marker", "i",
                                  {"scope": scope}))


class Counter:
    """A named value drawn as a graph in the trace."""

    def __init__(self, domain, name, value=None):
        self.domain, self.name = domain, name
        self.value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        self.value = value
        _profiler.record(_Instant(f"{self.domain}::{self.name}", "counter", "C",
                                  {self.name: value}))

    def increment(self, delta=1):
        self.set_value(self.value + delta)

    def decrement(self, delta=1):
        self.set_value(self.value - delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self


def resident_memory_mb():
    """Resident memory of this process in MB (psutil when installed, else Linux's /proc).

    Not in MXNet's profiler (which counts device memory per operator); lessons, the
    memory-growth view and the benchmarks sample it to show the engine's queue filling up.
    """
    try:
        import psutil
    except ImportError:
        with open("/proc/self/statm") as file:
            return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    return psutil.Process().memory_info().rss / 1e6
