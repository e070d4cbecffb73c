"""The memory-growth view: what lazy evaluation costs when nothing waits, and two fixes.

Lesson: 05-lazy-evaluation.  ``model`` runs the experiment and samples memory;
``payload`` packs the samples for the browser; ``view.js`` draws them live and
replays them; ``static`` draws them as SVG where no widget runs.
"""
from .model import MemoryGrowthExperiment, MemoryRun, MemorySampler, downsample, growth_mb
from .view import MemoryGrowth

__all__ = ["MemoryGrowth", "MemoryGrowthExperiment", "MemoryRun", "MemorySampler", "downsample",
           "growth_mb"]
