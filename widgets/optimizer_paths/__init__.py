"""Optimizer trajectories: minimx's SGD, momentum, NAG, AdaGrad, RMSProp, AdaDelta and Adam
on a 2-D loss surface.

Lesson: 13-optimizers.  ``objectives`` holds the surfaces; ``model`` runs the
optimizers (``mx.optimizer.create(...).update``) and computes the contours as
plain data; ``view.js`` replays the paths step by step; ``static`` draws the
final step as SVG where no widget runs.
"""
from .model import OPTIMIZERS, Path, Surface, compute_paths, make_optimizer, surface, trajectory
from .objectives import OBJECTIVES, Objective, get_objective
from .view import OptimizerPaths

__all__ = ["OptimizerPaths", "compute_paths", "trajectory", "surface", "make_optimizer",
           "OPTIMIZERS", "OBJECTIVES", "Objective", "get_objective", "Path", "Surface"]
