"""The optimizer-trajectory view: minimx's optimizers against numpy re-implementations of each
update rule, losses going down, the grid and contour levels, and the pictures."""
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from widgets.optimizer_paths import (OBJECTIVES, OPTIMIZERS, OptimizerPaths, compute_paths,
                                     get_objective, make_optimizer, surface, trajectory)
from widgets.optimizer_paths.static import render_svg

LABELS = [row[0] for row in OPTIMIZERS]


def quadratic_grad(w):
    """The gradient of 0.5 x^2 + 5 y^2."""
    return np.array([w[0], 10.0 * w[1]])


def numpy_rule(label, lr, adaptive_lr, momentum):
    """One update rule as written in MXNet's documentation: ``step(w, g, t) -> new w``."""
    state = {"m": np.zeros(2), "v": np.zeros(2)}

    def sgd(w, g, t):
        return w - lr * g

    def heavy_ball(w, g, t):
        state["m"] = momentum * state["m"] - lr * g
        return w + state["m"]

    def nesterov(w, g, t):
        state["m"] = momentum * state["m"] - lr * g
        return w + momentum * state["m"] - lr * g

    def adagrad(w, g, t):
        state["v"] = state["v"] + g * g
        return w - adaptive_lr * g / np.sqrt(state["v"] + 1e-7)

    def rmsprop(w, g, t):
        state["v"] = 0.9 * state["v"] + 0.1 * g * g
        return w - adaptive_lr * g / np.sqrt(state["v"] + 1e-8)

    def adadelta(w, g, t):
        rho, eps = 0.9, 1e-5
        state["v"] = rho * state["v"] + (1 - rho) * g * g
        delta = np.sqrt(state["m"] + eps) / np.sqrt(state["v"] + eps) * g
        state["m"] = rho * state["m"] + (1 - rho) * delta * delta
        return w - delta

    def adam(w, g, t):
        b1, b2 = 0.9, 0.999
        state["m"] = b1 * state["m"] + (1 - b1) * g
        state["v"] = b2 * state["v"] + (1 - b2) * g * g
        rate = adaptive_lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return w - rate * state["m"] / (np.sqrt(state["v"]) + 1e-8)
    return {"SGD": sgd, "Momentum": heavy_ball, "NAG": nesterov, "AdaGrad": adagrad,
            "RMSProp": rmsprop, "AdaDelta": adadelta, "Adam": adam}[label]


def _coordinate(bound):
    """0, or a magnitude from 1e-3 to ``bound``: the float32 optimizer and the float64
    reference part ways below that, where a gradient's square underflows float32 (Adam then
    divides by epsilon instead of the gradient's size; hypothesis found y = 1.4e-45)."""
    return st.one_of(st.just(0.0), st.floats(1e-3, bound), st.floats(-bound, -1e-3))


@pytest.mark.parametrize("label", LABELS)
@settings(max_examples=4, deadline=None)
@given(x=_coordinate(4.5), y=_coordinate(2.0), lr=st.floats(0.01, 0.15),
       adaptive_lr=st.floats(0.01, 0.5), momentum=st.floats(0.0, 0.95))
def test_trajectory_matches_numpy_update_rule(label, x, y, lr, adaptive_lr, momentum):
    optimizer, _ = make_optimizer(label, lr, adaptive_lr, momentum)
    points, losses, diverged = trajectory("quadratic", optimizer, (x, y), steps=6)
    assert not diverged and len(points) == 7
    rule = numpy_rule(label, lr, adaptive_lr, momentum)
    w = np.array([x, y], dtype=np.float32).astype(np.float64)
    expected = [w]
    for t in range(1, 7):
        w = rule(w, quadratic_grad(w), t)
        expected.append(w)
    np.testing.assert_allclose(np.array(points), np.array(expected), rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(losses, [0.5 * a ** 2 + 5 * b ** 2 for a, b in expected],
                               rtol=2e-4, atol=1e-5)


def test_each_optimizer_decreases_the_loss_on_the_quadratic():
    data = compute_paths("quadratic")
    assert [path["name"] for path in data["paths"]] == LABELS
    for path in data["paths"]:
        assert not path["diverged"], path["name"]
        assert len(path["points"]) == data["settings"]["steps"] + 1
        assert path["losses"][-1] < path["losses"][0], path["name"]
        if path["name"] != "AdaDelta":          # no learning rate: it starts very slowly
            assert path["losses"][-1] < 0.1 * path["losses"][0], path["name"]


def test_gradient_from_autograd_on_rosenbrock():
    """One SGD step from a point equals a step along the analytic gradient."""
    optimizer, _ = make_optimizer("SGD", 1e-3, 0.1, 0.0)
    points, _, _ = trajectory("rosenbrock", optimizer, (-1.2, 1.0), steps=1)
    x, y = -1.2, 1.0
    grad = np.array([-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)])
    np.testing.assert_allclose(points[1], np.array([x, y]) - 1e-3 * grad, rtol=1e-5)


def test_a_step_too_large_diverges_and_stops_the_path():
    optimizer, _ = make_optimizer("SGD", 0.5, 0.1, 0.0)     # 0.5 * curvature 10 > 2
    points, losses, diverged = trajectory("quadratic", optimizer, (1.0, 1.0), steps=200)
    assert diverged and len(points) < 201 and len(points) == len(losses)
    assert all(math.isfinite(v) for v in losses)


@pytest.mark.parametrize("name", sorted(OBJECTIVES))
def test_grid_and_levels(name):
    objective = get_objective(name)
    grid = surface(name, resolution=23, num_levels=9)
    assert grid.xs.shape == (23,) and grid.ys.shape == (23,) and grid.values.shape == (23, 23)
    x_min, x_max, y_min, y_max = objective.box
    assert (grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1]) == (x_min, x_max, y_min, y_max)
    assert grid.values[4, 7] == pytest.approx(objective(grid.xs[7], grid.ys[4]))
    assert np.all(np.diff(grid.levels) > 0) and 3 <= len(grid.levels) <= 10
    assert grid.levels[0] == grid.values.min() and grid.levels[-1] == grid.values.max()
    bands, lines = grid.contours()
    assert bands and lines and all(item["d"].startswith("M") for item in bands + lines)
    assert all(b["low"] < b["high"] for b in bands)


def test_unknown_names_say_what_is_expected():
    with pytest.raises(ValueError, match="quadratic"):
        get_objective("himmelblau")
    with pytest.raises(ValueError, match="Adam"):
        make_optimizer("LBFGS", 0.1, 0.1, 0.9)


def test_payload_is_json_and_static_picture_draws_every_path():
    view = OptimizerPaths("saddle", steps=12, names=["SGD", "NAG", "Adam"])
    data = view.payload()
    assert json.loads(json.dumps(data)) == data
    assert len(data["fills"]) == len(data["surface"]["bands"])
    svg = render_svg(data)
    assert svg.count("<polyline") == 6        # a path on the surface and a loss curve each
    assert "A saddle between two valleys" in svg
    bundle = view._repr_mimebundle_()
    assert bundle["text/html"].startswith('<div class="mmx-optimizer-paths"><svg')


def test_controls_request_a_new_run_and_errors_are_shown():
    view = OptimizerPaths("quadratic", steps=4, names=["SGD"])
    view._on_request({"new": {"seq": 41, "objective": "beale", "lr": 0.02, "adaptive_lr": 0.1,
                              "momentum": 0.5, "steps": 7, "start": None}})
    data = view.payload()
    assert data["seq"] == 41 and data["objective"]["name"] == "beale"
    assert data["settings"]["start"] == list(OBJECTIVES["beale"].start)
    assert len(data["paths"][0]["points"]) == 8 and data["error"] == ""
    view._on_request({"new": {"seq": 42, "objective": "himmelblau"}})
    assert view.payload()["seq"] == 42 and "himmelblau" in view.payload()["error"]
    assert view.payload()["objective"]["name"] == "beale"      # the last good run stays


def test_js_loss_gap_and_pixels_match_python(run_js):
    from widgets.optimizer_paths.static import LAYOUT, _to_pixels, loss_gap
    data = OptimizerPaths("saddle", steps=3, names=["SGD"]).payload()
    out = run_js("optimizer_paths/view.js", ["opGap", "opPixel"],
                 "out([opGap(DATA, DATA.paths[0].losses[3]), opPixel(DATA, 1.5, -0.5)])", data)
    assert out[0] == pytest.approx(loss_gap(data["paths"][0]["losses"][3],
                                            data["objective"]["f_min"]))
    assert out[1] == pytest.approx(list(_to_pixels(data["objective"]["box"], LAYOUT["plot"],
                                                   1.5, -0.5)))


def test_docstring_examples():
    import doctest
    from widgets.optimizer_paths import view
    assert doctest.testmod(view).failed == 0
