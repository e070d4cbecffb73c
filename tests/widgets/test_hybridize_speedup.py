"""The hybridize benchmark's model (pushes per forward, sane timings) and its view."""
import json
import math

import pytest

from minimx import engine, nd
from widgets.hybridize_speedup import HybridizeSpeedup, run_benchmark, seed_widths
from widgets.hybridize_speedup.chart import chart_svg
from widgets.hybridize_speedup.model import MODES, count_pushes

SMALL = dict(batch_size=2, in_units=8, out_units=3, calls=4, repeats=1)


def test_seed_widths_halve_from_the_first():
    assert seed_widths(256, 2) == (256, 128)
    assert seed_widths(16, 6) == (16, 8, 4, 2, 2, 2)


def test_count_pushes_of_a_known_function():
    x = nd.ones((3,))

    def two_ops():
        return (x + 1) * 2

    pushes, names = count_pushes(two_ops, calls=3)
    assert pushes == 2
    assert len(names) == 2


@pytest.mark.parametrize("engine_type", ["NaiveEngine", "ThreadedEngine"])
@pytest.mark.parametrize("widths", [(6,), (6, 5, 4)])
def test_pushes_per_forward_and_sane_timings(engine_type, widths):
    before = engine.get_engine().name
    result = run_benchmark(widths=widths, engine_type=engine_type, **SMALL)
    assert engine.get_engine().name == before
    by_mode = {r["mode"]: r for r in result["results"]}
    assert list(by_mode) == list(MODES)
    operator_nodes = 2 * len(widths) + 1          # Dense+relu per hidden layer, then Dense
    assert result["graph_ops"] == operator_nodes
    assert by_mode["imperative"]["pushes_per_forward"] == operator_nodes
    assert set(by_mode["imperative"]["pushed_ops"]) == {"FullyConnected", "Activation"}
    for mode in ("hybridized", "static_alloc"):
        assert by_mode[mode]["pushes_per_forward"] == 1
        assert by_mode[mode]["pushed_ops"] == ["CachedOp"]
    assert by_mode["numpy"]["pushes_per_forward"] == 0
    for r in result["results"]:
        assert 0 < r["seconds_per_call"] < 10 and math.isfinite(r["seconds_per_call"])
        assert r["first_call_ms"] > 0
        assert r["max_abs_diff"] < 1e-4            # every mode computes the same network
        assert math.isclose(result["speedup"][r["mode"]],
                            by_mode["imperative"]["seconds_per_call"] / r["seconds_per_call"])
    json.dumps(result)


def test_progress_callback_and_unknown_mode():
    seen = []
    run_benchmark(widths=(4,), modes=("imperative", "hybridized"),
                  on_result=lambda r: seen.append(len(r["results"])), **SMALL)
    assert seen == [1, 2]
    with pytest.raises(ValueError, match="unknown modes"):
        run_benchmark(modes=("jit",), **SMALL)


def test_view_runs_from_its_controls_and_draws_every_mode():
    view = HybridizeSpeedup(width=16, depth=1, calls=10, in_units=8, repeats=1, run=True)
    assert view.result["config"]["widths"] == [16]
    svg = chart_svg(view.result)
    assert all(f'data-mode="{mode}"' in svg for mode in MODES)
    assert "<svg" in view._repr_mimebundle_()["text/html"]
    if view.widget is None:
        pytest.skip("ipywidgets is not installed")
    view.controls["depth"].value = 3
    view.controls["engine_type"].value = "NaiveEngine"
    view.button.click()
    assert view.result["config"]["widths"] == [16, 8, 4]
    assert view.result["config"]["engine_type"] == "NaiveEngine"
    assert "mx-hybridize-chart" in view.chart.value
    assert not view.button.disabled


BOOK_COLUMN_PX = 688        # the text column of the built book (sphinx-book-theme, 1280 px wide)


def test_chart_fits_the_book_column_and_scales_below_it():
    import re
    result = run_benchmark(widths=(6, 5), **SMALL)
    result["config"].update(batch_size=512, in_units=1024, widths=[1024, 512, 256, 128],
                            calls=2000, engine_type="ThreadedEngine")
    result["machine"].update(python="3.11.7", numpy="2.4.6", cpus=16, processor="x86_64")
    for row in result["results"]:                 # the widest numbers the labels can show
        row.update(ms_per_call=999.0 if row["mode"] == "imperative" else 99.99,
                   pushes_per_forward=1000 if row["mode"] == "imperative" else 1)
    svg = chart_svg(result)
    width = float(re.search(r'<svg[^>]* width="([\d.]+)"', svg).group(1))
    assert width <= BOOK_COLUMN_PX
    assert "width:100%" in svg and f"max-width:{width:g}px" in svg and "height:auto" in svg
    # no left-aligned text runs past the right edge (12 px sans-serif: under 7.5 px a char)
    for x, text in re.findall(r'<text x="([\d.]+)"(?![^>]*text-anchor="end")[^>]*>([^<]*)<',
                              svg):
        assert float(x) + 7.5 * len(text) <= width, text


def test_no_text_runs_into_the_next_text_on_its_line():
    """Left-aligned texts on one baseline (the column headers, a bar's value and the pushes bar
    beside it) end before the next one starts (12 px sans-serif: under 7.5 px a char)."""
    import re
    result = run_benchmark(widths=(6, 5), **SMALL)
    for row in result["results"]:                 # the widest time label: "999 ms  ×99.99"
        row.update(ms_per_call=999.0, pushes_per_forward=1000)
    result["speedup"] = {mode: 99.99 for mode in result["speedup"]}
    svg = chart_svg(result)
    lines = {}
    for x, y, text in re.findall(r'<text x="([\d.]+)" y="([\d.]+)"(?![^>]*text-anchor="end")'
                                 r'[^>]*>([^<]*)<', svg):
        lines.setdefault(float(y), []).append((float(x), text))
    for y, texts in lines.items():
        texts.sort()
        for (x, text), (next_x, next_text) in zip(texts, texts[1:]):
            assert x + 7.5 * len(text) <= next_x, (y, text, next_text)
