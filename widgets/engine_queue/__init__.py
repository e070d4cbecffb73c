"""The engine queue view: operations pushed, waiting, running and done, on a timeline.

Lesson: 05-lazy-evaluation.  ``model`` turns engine events (or a profiler trace,
``trace``) into plain data; ``payload`` packs it for the browser; ``view.js``
draws it live and replays it; ``static`` draws it as SVG where no widget runs.
"""
from .model import Bin, Edge, EngineRecording, Lane, OpRecord
from .trace import recording_from_trace
from .view import EngineTimeline

__all__ = ["EngineTimeline", "EngineRecording", "OpRecord", "Lane", "Edge", "Bin",
           "recording_from_trace"]
