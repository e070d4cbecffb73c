"""The 2-D loss surfaces of the optimizer-trajectory view: a few classics of the literature.

Each objective is one formula written with arithmetic operators only, so the
same function evaluates a numpy grid (for the contours) and a pair of minimx
NDArrays under ``autograd.record()`` (for the gradients the optimizers see).
``start``, ``box`` and the default learning rates are chosen so every
optimizer's path stays in the picture with the defaults; the sliders can then
show what happens when they do not.
"""
from dataclasses import dataclass
from typing import Callable, Tuple

__all__ = ["Objective", "OBJECTIVES", "get_objective"]


@dataclass(frozen=True)
class Objective:
    """A function of two variables with where to look at it and where to start from.

    ``lr`` is the default learning rate of SGD, momentum and NAG; ``adaptive_lr``
    that of AdaGrad, RMSProp and Adam, whose steps do not scale with the gradient;
    ``steps`` the default number of updates.
    """

    name: str
    title: str
    formula: str
    function: Callable
    box: Tuple[float, float, float, float]     # x_min, x_max, y_min, y_max
    start: Tuple[float, float]
    minimum: Tuple[float, float]
    lr: float
    adaptive_lr: float
    steps: int = 80
    log_levels: bool = False     # contour levels spaced by log(loss - min)

    def __call__(self, x, y):
        return self.function(x, y)


def _quadratic(x, y):
    return 0.5 * x ** 2 + 5 * y ** 2


def _rosenbrock(x, y):
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def _beale(x, y):
    return ((1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2
            + (2.625 - x + x * y ** 3) ** 2)


def _saddle(x, y):
    return 0.5 * x ** 2 - 0.5 * y ** 2 + 0.25 * y ** 4


OBJECTIVES = {o.name: o for o in [
    Objective("quadratic", "Elongated quadratic", "0.5 x² + 5 y²", _quadratic,
              box=(-5.0, 5.0, -2.5, 2.5), start=(-4.5, 2.0), minimum=(0.0, 0.0),
              lr=0.05, adaptive_lr=0.3),
    Objective("rosenbrock", "Rosenbrock's banana", "(1 − x)² + 100 (y − x²)²", _rosenbrock,
              box=(-2.0, 2.0, -1.0, 3.0), start=(-1.2, 1.0), minimum=(1.0, 1.0),
              lr=0.0007, adaptive_lr=0.1, steps=150, log_levels=True),
    Objective("beale", "Beale's function",
              "(1.5 − x + xy)² + (2.25 − x + xy²)² + (2.625 − x + xy³)²", _beale,
              box=(-1.0, 4.5, -1.5, 2.0), start=(0.5, 1.5), minimum=(3.0, 0.5),
              lr=0.01, adaptive_lr=0.1, log_levels=True),
    Objective("saddle", "A saddle between two valleys", "0.5 x² − 0.5 y² + 0.25 y⁴", _saddle,
              box=(-3.0, 3.0, -2.0, 2.0), start=(-2.8, 0.01), minimum=(0.0, 1.0),
              lr=0.1, adaptive_lr=0.1),
]}


def get_objective(name):
    """The objective called ``name`` (one of ``OBJECTIVES``), or a ValueError naming them."""
    if isinstance(name, Objective):
        return name
    try:
        return OBJECTIVES[name]
    except KeyError:
        raise ValueError(f"unknown objective {name!r}; expected one of "
                         f"{', '.join(OBJECTIVES)}") from None
