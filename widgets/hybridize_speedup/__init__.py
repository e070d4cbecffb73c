"""The hybridize-speedup view: the seed's benchmark from sliders (issue 6, view 3).

``HybridizeSpeedup(run=True)`` in a notebook; ``run_benchmark`` for the plain data it draws.
"""
from .model import run_benchmark, seed_widths
from .view import HybridizeSpeedup

__all__ = ["HybridizeSpeedup", "run_benchmark", "seed_widths"]
