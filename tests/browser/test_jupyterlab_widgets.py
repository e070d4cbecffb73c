"""The widgets in a real JupyterLab: each demo notebook is opened, run, and each view is used once.

JupyterLab 4 runs on a free localhost port (conftest.py) with lab-overrides.json,
so the jupytext ``.md`` demos open as notebooks.  For each demo page in
notebooks/_widgets_demo/ the test runs all cells, waits for every view's DOM,
performs one interaction per view (move a slider, toggle traced -> planned,
click replay) and checks that the DOM responds.  Screenshots:
_build/screenshots/jupyterlab/.
"""
import re
import time

import pytest

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:                     # the tests are skipped then (conftest.requires_browser)
    PlaywrightTimeout = TimeoutError

from .conftest import requires_browser, screenshot_dir

pytestmark = [pytest.mark.browser, requires_browser]

RUN_TIMEOUT = 300               # seconds for a whole demo notebook to finish
PROMPT = re.compile(r"\[(\*|\d+)\]")


# -- driving JupyterLab ----------------------------------------------------------------------

def dismiss_dialogs(page, seen=None):
    """Close any modal dialog (e.g. a kernel choice) that would swallow the clicks."""
    for _ in range(3):
        dialog = page.locator(".jp-Dialog")
        if not dialog.count():
            return
        if seen is not None:
            seen.append(dialog.first.inner_text())
        choice = dialog.locator("select")
        if choice.count():          # "Select Kernel" (kernel specs not loaded yet): Python 3
            labels = choice.first.locator("option").all_inner_texts()
            python = [label for label in labels if label.startswith("Python")]
            if python:
                choice.first.select_option(label=python[0])
        button = dialog.locator(".jp-Dialog-button.jp-mod-accept")
        if button.count():
            button.first.click()
        else:
            page.keyboard.press("Escape")
        page.wait_for_timeout(300)


def prompts(page):
    # textContent, not innerText: JupyterLab 4 skips rendering the cells scrolled far out of
    # view (content-visibility), and a skipped cell's innerText is empty
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt") \
        .all_text_contents()


def run_all(page, attempts=6):
    """Run menu -> Run All Cells, retried until an execution prompt shows ([*] or [n]):
    right after the kernel turns idle the first request is sometimes ignored."""
    dialogs = []
    for _ in range(attempts):
        dismiss_dialogs(page, dialogs)
        try:
            page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click(
                timeout=5000)
            page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click(
                timeout=5000)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")       # a dialog appeared meanwhile, or a menu is open
            continue
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if any(PROMPT.search(text) for text in prompts(page)):
                return
            page.wait_for_timeout(250)
    raise AssertionError(f"Run All Cells never started: prompts {prompts(page)}, "
                         f"dialogs {dialogs}")


def wait_until_done(page, timeout=RUN_TIMEOUT):
    """Wait until every code cell has a number in its prompt; fail on an error output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        texts = prompts(page)
        errors = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) "
                              "[data-mime-type='application/vnd.jupyter.error']")
        if errors.count():
            raise AssertionError("a cell failed:\n" + errors.first.inner_text()[-3000:])
        if texts and all(re.search(r"\[\d+\]", text) for text in texts):
            return
        page.wait_for_timeout(500)
    raise AssertionError(f"the notebook did not finish in {timeout} s: prompts {prompts(page)}")


def open_notebook(jupyterlab, new_page, name):
    """Open ``name`` in a new page; return (page, log) once its Python kernel is idle."""
    page, log = new_page()
    page.goto(jupyterlab.lab_url(name))
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell", timeout=90_000)
    kernel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar-kernelName")
    deadline = time.monotonic() + 90
    while not kernel.inner_text().startswith("Python"):
        assert time.monotonic() < deadline, f"no Python kernel: {kernel.inner_text()!r}"
        dismiss_dialogs(page)
        page.wait_for_timeout(250)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                           timeout=90_000)
    return page, log


def open_and_run(jupyterlab, new_page, name):
    page, log = open_notebook(jupyterlab, new_page, name)
    run_all(page)
    wait_until_done(page)
    return page, log


def at_least(locator, minimum=1, timeout=30):
    """Wait until ``locator`` matches ``minimum`` elements (views redraw after the cell ends)."""
    deadline = time.monotonic() + timeout
    while locator.count() < minimum:
        assert time.monotonic() < deadline, f"fewer than {minimum} of {locator}"
        time.sleep(0.2)
    return locator.count()


def text_changes(locator, before, timeout=15):
    """Wait until the element's text differs from ``before``; return the new text."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = locator.inner_text()
        if text != before:
            return text
        time.sleep(0.2)
    raise AssertionError(f"the text stayed {before!r}")


def snap(page, name, locator=None):
    folder = screenshot_dir("jupyterlab")
    if locator is not None:
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(folder / f"{name}.png"))
    else:
        page.screenshot(path=str(folder / f"{name}.png"))


# -- one check per demo notebook ------------------------------------------------------------

def check_engine_queue(page):
    queues = page.locator(".mmx-eq")
    queues.nth(2).wait_for()                          # three timelines in the demo
    first = queues.first
    at_least(first.locator(".mmx-eq-svg rect.mmx-op"))               # runs on worker lanes
    at_least(queues.nth(1).locator("rect.mmx-bin"))                  # the long run: time bins
    at_least(first.locator(".mmx-eq-svg rect.mmx-sync"))             # c.wait_to_read()
    head = first.locator(".mmx-head")
    page.wait_for_function("el => el.textContent.includes('3 ops')",
                           arg=head.element_handle())              # 2 dots and a sum, final
    before = head.inner_text()
    first.locator("input.mmx-slider").focus()
    page.keyboard.press("Home")                                    # slider to t = 0
    assert "replay t =" in text_changes(head, before)
    snap(page, "engine_queue-timeline", first)

    memory = page.locator(".mmx-mem").first
    memory.locator(".mmx-mem-svg polyline.mmx-mem-line").first.wait_for(state="attached")
    note = memory.locator(".mmx-controls span")
    before = note.inner_text()
    memory.locator("button.mmx-replay").click()
    assert "replay t =" in text_changes(note, before)
    snap(page, "engine_queue-memory", memory)


def check_symbol_graph(page):
    graphs = page.locator(".mx-symbol-graph")
    graphs.nth(2).wait_for()                          # three graphs in the demo
    first = graphs.first
    assert first.get_attribute("data-mode") == "traced"
    at_least(first.locator(".mx-sg-picture svg"))
    traced = first.locator(".mx-sg-picture").inner_html()
    first.locator("button.mx-sg-button[data-mode='planned']").click()
    page.wait_for_function("el => el.dataset.mode === 'planned'", arg=first.element_handle())
    assert first.locator(".mx-sg-picture").inner_html() != traced
    first.locator(".mx-sg-picture g.node").first.hover()
    assert first.locator(".mx-sg-details .mx-sg-detail-title").inner_text().strip()
    snap(page, "symbol_graph-planned", first)


def check_hybridize_speedup(page):
    view = page.locator(".mx-hybridize-speedup").first
    view.wait_for()
    at_least(view.locator(".mx-hs-chart svg"))                     # the measured chart
    status = view.locator(".widget-html-content").first
    before = status.inner_text()
    assert "→" in before                                           # "network: 512 → ..."
    handle = view.locator(".mx-hs-depth .noUi-handle, .mx-hs-depth [role='slider']").first
    handle.focus()
    page.keyboard.press("ArrowRight")                              # one more hidden layer
    after = text_changes(status, before)                           # redrawn by the kernel
    assert after.count("→") == before.count("→") + 1
    snap(page, "hybridize_speedup-widget", view)


def check_optimizer_paths(page):
    views = page.locator(".mmx-op")
    views.nth(1).wait_for()
    first = views.first
    at_least(first.locator(".mmx-op-svg path"))                     # contours and paths
    step_text = first.locator(".mmx-op-steptext")
    before = step_text.inner_text()
    first.locator("input.mmx-op-step").focus()
    page.keyboard.press("Home")                                     # back to the start
    assert text_changes(step_text, before).startswith("after 0 ")
    snap(page, "optimizer_paths-widget", first)


def check_training_dashboard(page):
    views = page.locator(".mmx-td")
    views.nth(1).wait_for()
    first = views.first
    at_least(first.locator(".mmx-td-svg polyline.mmx-td-curve"), 2)   # loss, accuracy
    head = first.locator(".mmx-head")
    before = head.inner_text()
    first.locator("button.mmx-replay").click()
    assert "replay t =" in text_changes(head, before)
    snap(page, "training_dashboard-widget", first)


CHECKS = {
    "engine_queue.md": check_engine_queue,
    "symbol_graph.md": check_symbol_graph,
    "hybridize_speedup.md": check_hybridize_speedup,
    "optimizer_paths.md": check_optimizer_paths,
    "training_dashboard.md": check_training_dashboard,
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_widget_demo_in_jupyterlab(jupyterlab, new_page, name):
    page, log = open_and_run(jupyterlab, new_page, name)
    try:
        CHECKS[name](page)
    finally:
        snap(page, name.replace(".md", ""))
    uncaught = [error for error in log.errors if error.startswith("uncaught")]
    assert not uncaught, uncaught
