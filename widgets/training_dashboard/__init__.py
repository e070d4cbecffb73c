"""The training dashboard: live loss and metric curves, samples per second, progress bars.

Lesson: 12-training-with-module.  ``model`` keeps the per-batch records (plain data, with an
injectable clock); ``view`` is the callback for ``Module.fit`` and the recorder
for Gluon loops; ``view.js`` draws it live and replays a finished run;
``static`` draws it as SVG where no widget runs.
"""
from .model import Record, TrainingHistory
from .view import TrainingDashboard

__all__ = ["TrainingDashboard", "TrainingHistory", "Record"]
