"""What the optimizer-trajectory view draws: a loss surface and each optimizer's path on it.

The paths are not simulated: each comes from minimx's own optimizer
(``mx.optimizer.create('adam', ...)``) calling ``update(index, weight, grad,
state)`` on a 2-element NDArray, with the gradient from ``autograd`` — the loop
``Trainer.step`` runs for every weight of a network, here for one weight you
can see.  The surface is the same formula on a numpy grid, with contour lines
and filled bands as SVG path strings in data coordinates, so the browser and the
static picture draw the same shapes.  Everything is plain data (``to_dict``).
"""
from dataclasses import dataclass, field

import numpy as np

from .objectives import get_objective

__all__ = ["OPTIMIZERS", "Surface", "Path", "surface", "make_optimizer", "trajectory",
           "compute_paths"]

# label, registry name, which learning rate it takes ('lr', 'adaptive' or None), uses momentum,
# colour (the same in the browser and in the static picture)
OPTIMIZERS = (
    ("SGD", "sgd", "lr", False, "#1f77b4"),
    ("Momentum", "sgd", "lr", True, "#ff7f0e"),
    ("NAG", "nag", "lr", True, "#2ca02c"),
    ("AdaGrad", "adagrad", "adaptive", False, "#d62728"),
    ("RMSProp", "rmsprop", "adaptive", False, "#9467bd"),
    ("AdaDelta", "adadelta", None, False, "#8c564b"),
    ("Adam", "adam", "adaptive", False, "#e377c2"),
)
DIVERGED = 1e6      # a coordinate past this, or a loss this many times the first, ends the path


@dataclass
class Surface:
    """The objective on a grid: ``values[i, j]`` is ``f(xs[j], ys[i])``; ``levels`` ascend."""

    xs: np.ndarray
    ys: np.ndarray
    values: np.ndarray
    levels: np.ndarray

    def contours(self):
        """``(bands, lines)``: filled regions between consecutive levels and the level lines,
        each ``{"low", "high", "d"}`` / ``{"level", "d"}`` with ``d`` an SVG path string."""
        import contourpy
        generator = contourpy.contour_generator(self.xs, self.ys, self.values,
                                                line_type="Separate", fill_type="OuterOffset")
        bands = []
        for low, high in zip(self.levels[:-1], self.levels[1:]):
            polygons, offsets = generator.filled(low, high)
            rings = [ring for points, cuts in zip(polygons, offsets)
                     for ring in np.split(points, cuts[1:-1])]
            if rings:
                bands.append({"low": float(low), "high": float(high), "d": _svg_path(rings, True)})
        lines = [{"level": float(level), "d": _svg_path(generator.lines(level), False)}
                 for level in self.levels[1:-1]]
        return bands, [line for line in lines if line["d"]]


def _svg_path(rings, closed):
    parts = []
    for ring in rings:
        if len(ring) < 2:
            continue
        coords = " ".join(f"{x:.4g},{y:.4g}" for x, y in ring)
        parts.append(f"M{coords}" + ("Z" if closed else ""))
    return "".join(parts)


def surface(objective, resolution=90, num_levels=16):
    """The objective on a ``resolution`` x ``resolution`` grid of its box, with contour levels.

    Levels are quantiles of the grid's values (each band covers about the same area),
    or, for objectives spanning many orders of magnitude, evenly spaced in
    ``log(f - f_min)``.  The first and last level are the grid's minimum and maximum.
    """
    objective = get_objective(objective)
    x_min, x_max, y_min, y_max = objective.box
    xs = np.linspace(x_min, x_max, resolution)
    ys = np.linspace(y_min, y_max, resolution)
    grid_x, grid_y = np.meshgrid(xs, ys)
    values = np.asarray(objective(grid_x, grid_y), dtype=np.float64)
    low, high = values.min(), values.max()
    if objective.log_levels:
        floor = min(low, objective(*objective.minimum))
        above = values - floor
        smallest = max(np.quantile(above, 0.002), 1e-9 * (high - floor))
        inner = floor + np.geomspace(smallest, high - floor, num_levels)[:-1]
    else:
        inner = np.quantile(values, np.linspace(0, 1, num_levels + 1)[1:-1])
    levels = np.unique(np.concatenate([[low], inner, [high]]))
    return Surface(xs, ys, values, levels)


def make_optimizer(label, lr, adaptive_lr, momentum):
    """minimx's optimizer for one of the ``OPTIMIZERS`` labels, with the view's settings."""
    import minimx as mx
    _, name, rate, uses_momentum, _ = _row(label)
    kwargs = {}
    if rate == "lr":
        kwargs["learning_rate"] = lr
    elif rate == "adaptive":
        kwargs["learning_rate"] = adaptive_lr
    if uses_momentum:
        kwargs["momentum"] = momentum
    return mx.optimizer.create(name, **kwargs), kwargs


def _row(label):
    for row in OPTIMIZERS:
        if row[0] == label:
            return row
    raise ValueError(f"unknown optimizer {label!r}; expected one of "
                     f"{', '.join(row[0] for row in OPTIMIZERS)}")


@dataclass
class Path:
    """One optimizer's run: ``points[k]`` after ``k`` updates, ``losses[k] = f(points[k])``."""

    name: str
    optimizer: str
    params: dict
    color: str
    points: list = field(default_factory=list)
    losses: list = field(default_factory=list)
    diverged: bool = False

    def to_dict(self):
        return {"name": self.name, "optimizer": self.optimizer, "params": self.params,
                "color": self.color, "diverged": self.diverged,
                "points": [[_short(x), _short(y)] for x, y in self.points],
                "losses": [_short(value) for value in self.losses]}


def _short(value):
    return float(f"{value:.6g}")


def trajectory(objective, optimizer, start, steps):
    """Run ``optimizer`` (a minimx Optimizer) for ``steps`` updates from ``start``.

    Returns ``(points, losses, diverged)``: ``steps + 1`` points (fewer when the
    weights left every sensible range, then ``diverged`` is True) and the loss at each.
    """
    from minimx import autograd, nd
    objective = get_objective(objective)
    weight = nd.array(start, dtype="float32")
    weight.attach_grad()
    state = optimizer.create_state(0, weight)
    points, losses = [], []
    for step in range(steps + 1):
        with autograd.record():
            loss = objective(weight[0], weight[1])
        point, value = tuple(weight.asnumpy().astype(float)), float(loss.asscalar())
        if not (np.isfinite(value) and np.all(np.isfinite(point))):
            return points, losses, True
        points.append(point)
        losses.append(value)
        if np.abs(point).max() > DIVERGED or value > DIVERGED * (abs(losses[0]) + 1):
            return points, losses, True
        if step < steps:
            loss.backward()
            optimizer.update(0, weight, weight.grad, state)
    return points, losses, False


def compute_paths(objective="quadratic", steps=None, lr=None, adaptive_lr=None, momentum=0.9,
                  start=None, names=None, resolution=90):
    """Everything the view draws, as a plain dict (JSON-ready).

    ``lr`` drives SGD, momentum and NAG; ``adaptive_lr`` AdaGrad, RMSProp and Adam
    (None: the objective's defaults, as for ``steps``); AdaDelta has no learning
    rate.  ``momentum`` is that of momentum SGD and NAG.  ``names`` picks some of
    the ``OPTIMIZERS``.
    """
    objective = get_objective(objective)
    steps = objective.steps if steps is None else int(steps)
    lr = objective.lr if lr is None else float(lr)
    adaptive_lr = objective.adaptive_lr if adaptive_lr is None else float(adaptive_lr)
    start = tuple(float(v) for v in (objective.start if start is None else start))
    grid = surface(objective, resolution)
    bands, lines = grid.contours()
    paths = []
    for label in names or [row[0] for row in OPTIMIZERS]:
        optimizer, params = make_optimizer(label, lr, adaptive_lr, momentum)
        path = Path(label, _row(label)[1], params, _row(label)[4])
        path.points, path.losses, path.diverged = trajectory(objective, optimizer, start, steps)
        paths.append(path.to_dict())
    return {
        "objective": {"name": objective.name, "title": objective.title,
                      "formula": objective.formula, "box": list(objective.box),
                      "minimum": list(objective.minimum),
                      "f_min": float(objective(*objective.minimum))},
        "settings": {"steps": int(steps), "lr": lr, "adaptive_lr": adaptive_lr,
                     "momentum": float(momentum), "start": list(start)},
        "surface": {"levels": [_short(v) for v in grid.levels], "bands": bands, "lines": lines},
        "paths": paths,
    }
