"""The memory-growth view: its model on recorded samples, a real (small) run, and its drawing."""
import doctest
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widgets.memory_growth import MemoryGrowth, MemoryGrowthExperiment, downsample, growth_mb
from widgets.memory_growth import model, payload, static, view

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

samples_lists = st.lists(st.tuples(st.floats(0, 100), st.floats(0, 1e4)), min_size=1,
                         max_size=300).map(sorted)


def test_growth_is_the_highest_sample_above_the_baseline():
    samples = [(0.0, 100.0), (0.1, 180.0), (0.2, 120.0)]
    assert growth_mb(samples, 100.0) == 80.0
    assert growth_mb([(0.0, 90.0)], 100.0) == 0.0        # memory fell: no growth


@settings(max_examples=50, deadline=None)
@given(samples_lists, st.integers(2, 60))
def test_downsample_keeps_peaks_order_and_bounds(samples, count):
    kept = downsample(samples, count)
    assert set(kept) <= set(samples)
    assert kept == sorted(kept)
    assert max(mb for _, mb in kept) == max(mb for _, mb in samples)
    assert min(mb for _, mb in kept) == min(mb for _, mb in samples)
    assert len(kept) <= max(len(samples) if len(samples) <= count else 0, 2 * (count // 2) + 2)


def test_run_growth_and_peak():
    run = model.MemoryRun("x", 50.0, samples=[(0, 50.0), (1, 75.5), (2, 60.0)])
    assert run.growth_mb == 25.5 and run.peak_mb == 75.5


@pytest.fixture(scope="module")
def small_experiment():
    experiment = MemoryGrowthExperiment(batches=4, batch_size=16, width=8, interval=0.002)
    experiment.run()
    return experiment


def test_a_small_run_records_every_case(small_experiment):
    runs = small_experiment.runs
    assert [run.label for run in runs] == ["sync every batch", "no sync",
                                           "no sync, max_pending(8)"]
    for run in runs:
        assert run.done and len(run.batches_pushed) == 4
        assert run.batches_pushed == sorted(run.batches_pushed)
        assert 0 <= run.loop_s <= run.finished_s
        times = [t for t, _ in run.samples]
        assert len(times) >= 2 and times == sorted(times)
        assert run.samples[-1][0] >= run.finished_s         # sampled until the end


GROWTH_RUN = """
import json
from widgets.memory_growth import MemoryGrowthExperiment
experiment = MemoryGrowthExperiment(batches=16, batch_size=1024, width=16, max_pending=4)
print(json.dumps([[run.growth_mb, run.loop_s, run.finished_s] for run in experiment.run()]))
"""


def test_without_sync_memory_grows_and_a_bound_keeps_it_low():
    # 16 batches of 1024x1024 float32 inputs (4 MB each): without a sync the workers create
    # the inputs of many batches before the network consumes them.  Resident memory is
    # measured in a fresh process, as in a fresh kernel: in a long test process the
    # allocator serves the new arrays from memory earlier tests freed, so the resident size
    # need not grow at all (a gate saw 17.6 MB of growth where 20 was asked).
    done = subprocess.run([sys.executable, "-c", GROWTH_RUN], capture_output=True, text=True,
                          timeout=300, cwd=REPO, env=dict(os.environ, PYTHONPATH=REPO))
    assert done.returncode == 0, done.stderr[-2000:]
    sync, lazy, bounded = json.loads(done.stdout.splitlines()[-1])
    assert lazy[0] > sync[0] + 16
    assert bounded[0] < lazy[0]
    # the loop without sync returns before its work is done (a structural fact; comparing the
    # two loops' times would be a timing assertion, which a busy machine can turn around)
    assert lazy[1] < lazy[2] and sync[1] <= sync[2]


def test_payload_and_static_picture(small_experiment):
    data = payload.build_payload(small_experiment, max_points=10)
    assert [run["label"] for run in data["runs"]] == [label for label, _, _ in
                                                     small_experiment.cases]
    for run, source in zip(data["runs"], small_experiment.runs):
        assert len(run["t"]) == len(run["mb"]) <= 12
        # the curve may fall below its baseline (memory released); growth is never negative
        assert max(max(run["mb"]), 0.0) == pytest.approx(source.growth_mb, abs=0.01)
    svg = static.render_svg(data)
    root = ElementTree.fromstring(svg)
    lines = root.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 3
    for run in data["runs"]:
        assert static.legend_line(run) in svg


def test_view_outside_a_kernel_shows_the_static_picture(small_experiment):
    shown = MemoryGrowth(display=False)
    shown.experiment = small_experiment
    bundle = shown._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert "sync every batch" in bundle["text/plain"] and "<svg" in bundle["text/html"]


def test_javascript_legend_matches_python(small_experiment, run_js):
    data = payload.build_payload(small_experiment)
    result = run_js("memory_growth/view.js", ["mgLegend", "mgValueAt"],
                    "out({legend: DATA.runs.map(mgLegend),"
                    " at: DATA.runs.map((r) => mgValueAt(r, r.loop_s))});", data)
    assert result["legend"] == [static.legend_line(run) for run in data["runs"]]
    assert result["at"] == [static._value_at(run, run["loop_s"]) for run in data["runs"]]


def test_docstring_examples():
    failures, _ = doctest.testmod(view, extraglobs={"MemoryGrowth": MemoryGrowth})
    assert failures == 0


@pytest.mark.parametrize("y_max", [95.3, 96.0, 19.1, 190.6])     # a tick just under the top
def test_the_axis_title_clears_a_tick_label_at_the_top(small_experiment, y_max):
    """A maximum just above a round number puts a tick label at the plot's top edge: the
    axis title above the plot must not be drawn over it (12 px text: 14 px apart)."""
    data = dict(payload.build_payload(small_experiment, max_points=10), y_max=y_max)
    texts = ElementTree.fromstring(static.render_svg(data)).iter(
        "{http://www.w3.org/2000/svg}text")
    rows = {element.text: float(element.get("y")) for element in texts}
    top_tick = min(y for text, y in rows.items()
                   if text.replace(".", "").isdigit() and y < static.TOP + 20)
    assert rows["MB above baseline"] <= top_tick - 14
