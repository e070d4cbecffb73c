"""Operation records from a saved profiler trace (``minimx.profiler.dump``'s Chrome JSON).

Lesson: 05-lazy-evaluation.  The trace has one complete event (``ph: X``) per
operation on the thread that ran it, carrying ``op_id``, vars and context, and
one instant event (``cat: push``) per push on the frontend thread, carrying
only the name.  Pushes are matched to operations by name, in order: the k-th
push of ``dot`` is the k-th ``dot`` by operation id (ids grow with pushes),
skipping operations that started before the next push (pushed before tracing).
The trace does not say when an operation became ready, so ``waiting`` is unknown.
"""
import collections
import json
import os

from .model import EngineRecording, OpRecord

__all__ = ["recording_from_trace", "load_trace"]


def load_trace(source):
    """The trace dict from a path, a JSON string, or a dict as it is."""
    if isinstance(source, dict):
        return source
    if isinstance(source, (str, os.PathLike)) and os.path.exists(source):
        with open(source) as file:
            return json.load(file)
    return json.loads(source)


def _thread_names(events):
    """tid -> thread name (the profiler labels frontend threads 'NAME (frontend)')."""
    names = {}
    for event in events:
        if event.get("ph") == "M" and event.get("name") == "thread_name":
            label = event["args"]["name"]
            names[event["tid"]] = label.removesuffix(" (frontend)")
    return names


def recording_from_trace(source):
    """An ``EngineRecording`` from a profiler trace (path, JSON text or dict)."""
    events = load_trace(source)["traceEvents"]
    threads = _thread_names(events)
    records = []
    for event in events:
        if event.get("ph") == "X" and event.get("cat") == "operator" and "args" in event:
            args = event["args"]
            start = event["ts"] / 1e6
            records.append(OpRecord(
                args["op_id"], event["name"], args.get("ctx", ""), tuple(args.get("reads", ())),
                tuple(args.get("writes", ())), worker=threads.get(event["tid"], str(event["tid"])),
                start=start, end=start + event["dur"] / 1e6, error=args.get("error", "")))
    _attach_pushes(records, events, threads)
    times = [record.push for record in records if record.push is not None]
    origin = min(times + [record.start for record in records], default=0.0)
    return EngineRecording(records, origin=origin)


def _attach_pushes(records, events, threads):
    pushes = collections.defaultdict(list)
    for event in sorted((e for e in events if e.get("cat") == "push"), key=lambda e: e["ts"]):
        pushes[event["name"]].append(event)
    by_name = collections.defaultdict(list)
    for record in sorted(records, key=lambda record: record.op_id):
        by_name[record.name].append(record)
    for name, named in by_name.items():
        queue = collections.deque(pushes.get(name, ()))
        for record in named:
            # A push later than the start belongs to a later operation: this one was
            # pushed before the profiler started.
            if queue and queue[0]["ts"] / 1e6 <= record.start:
                push = queue.popleft()
                record.push = push["ts"] / 1e6
                record.frontend = threads.get(push["tid"], str(push["tid"]))
