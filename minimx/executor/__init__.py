"""``minimx.executor``: bind a Symbol to arrays, plan it once, run it many times.

Lesson: 08-executors.  Mirrors ``python/mxnet/executor.py``.
"""
from .bind import bind, simple_bind
from .executor import Executor
from .plan import PlanReport
from . import subgraph  # noqa: F401  (registers the control-flow operators' body runner)

__all__ = ["Executor", "PlanReport", "bind", "simple_bind"]
