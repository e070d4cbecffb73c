"""The built book in a real browser: every page loads cleanly, offline, with its figures and widgets.

The site (tools/build_book.py, or the one scripts/test.sh built in the same run)
is served by http.server on a free 127.0.0.1 port and every page of book.yml's
table of contents (plus Sphinx's genindex and search pages) is opened in
headless chromium.  Each page must show: no JavaScript error (only the theme's
known 'THEBE_JS_URL already declared' is ignored), no failed request, no
request leaving 127.0.0.1, no link to a missing local page or anchor, every
image loaded, as many figures as its executed notebook has image/SVG outputs,
and every widget its notebook displayed, drawn.  Screenshots (whole page):
_build/screenshots/book/.
"""
import json
import pathlib
import re
import urllib.parse

import pytest

from .conftest import ROOT, requires_browser, screenshot_dir

yaml = pytest.importorskip("yaml", reason="pyyaml is not installed (pip install -e '.[notebook]')")

pytestmark = [pytest.mark.browser, requires_browser]

IGNORED_ERRORS = ("THEBE_JS_URL",)      # sphinx-thebe declares it twice: harmless theme noise
SPHINX_PAGES = ["genindex", "search"]

# The views, told apart by the widget class their model was made from (anywidget's id) or by
# the CSS class of their ipywidgets box; each with what must be drawn on the page.
WIDGET_KINDS = {
    "queue": ("EngineQueueWidget", ".mmx-eq .mmx-eq-svg"),
    "memory": ("MemoryGrowthWidget", ".mmx-mem .mmx-mem-svg"),
    "graph": ("SymbolGraphWidget", ".mx-symbol-graph .mx-sg-picture svg"),
    "optimizer": ("OptimizerPathsWidget", ".mmx-op .mmx-op-svg"),
    "dashboard": ("TrainingDashboardWidget", ".mmx-td .mmx-td-svg"),
    "speedup": ("mx-hybridize-speedup", ".mx-hybridize-speedup .mx-hs-chart svg"),
}
# Lessons that must show a view (by the number their file name starts with).
LESSON_WIDGETS = {"04": {"queue"}, "05": {"queue"}, "06": {"graph"}, "07": {"graph"},
                  "09": {"speedup"}}
# How myst-nb picks the one output shown for a cell output with several MIME types.
MIME_PRIORITY = ["application/vnd.jupyter.widget-view+json", "application/javascript",
                 "text/html", "image/svg+xml", "image/png", "image/jpeg", "text/markdown",
                 "text/latex", "text/plain"]


def toc_pages():
    """Every document of book.yml's table of contents, in order."""
    toc = yaml.safe_load((ROOT / "book.yml").read_text())["toc"]
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries or ():
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("chapters"))
    walk(toc.get("parts"))
    return [re.sub(r"\.(md|ipynb)$", "", page) for page in pages]


PAGES = toc_pages() + SPHINX_PAGES


# -- what a page should contain, from its executed notebook and its embedded widget state ----

def expected_outputs(book_html, page):
    """Counts of the figures (images; HTML with an SVG/img) and the widget model ids that the
    page's executed notebook displays."""
    executed = book_html.parent / "jupyter_execute" / f"{page}.ipynb"
    counts = {"images": 0, "html_figures": 0, "widgets": []}
    if not executed.exists():
        return counts
    notebook = json.loads(executed.read_text())
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            shown = next((mime for mime in MIME_PRIORITY if mime in data), None)
            if shown == MIME_PRIORITY[0]:
                counts["widgets"].append(data[shown]["model_id"])
            elif shown and shown.startswith("image/"):
                counts["images"] += 1
            elif shown == "text/html":
                html = "".join(data[shown])
                counts["html_figures"] += bool(re.search(r"<(svg|img)\b", html))
    return counts


def widget_state(book_html, page):
    """The widget models embedded in the built page: {model id: state}."""
    html = (book_html / f"{page}.html").read_text(errors="replace")
    found = re.search(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>',
                      html, re.S)
    if not found:
        return {}
    return {key: value.get("state", {})
            for key, value in json.loads(found.group(1)).get("state", {}).items()}


def widget_kind(state):
    for kind, (marker, _) in WIDGET_KINDS.items():
        if marker in str(state.get("_anywidget_id", "")) or marker in state.get("_dom_classes", ()):
            return kind
    return None


def page_widget_kinds(book_html, page):
    """{kind: how many} of the minimx views the page displays."""
    states = widget_state(book_html, page)
    kinds = {}
    for model_id in expected_outputs(book_html, page)["widgets"]:
        kind = widget_kind(states.get(model_id, {}))
        if kind:
            kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


# -- checks in the browser ---------------------------------------------------------------------

def check_links(page, server, book_html):
    """Every link to a local page must resolve to a built file (and its anchor, to an id)."""
    broken = []
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    for href in sorted(set(hrefs)):
        url = urllib.parse.urlsplit(href)
        if url.scheme not in ("http", "https") or f"{url.scheme}://{url.netloc}" != server:
            continue                                    # external or mailto: not followed
        target = book_html / urllib.parse.unquote(url.path).lstrip("/")
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{href} (no file {target.relative_to(book_html)})")
        elif url.fragment and target.suffix == ".html":
            text = target.read_text(errors="replace")
            if not re.search(r'\bid="%s"' % re.escape(urllib.parse.unquote(url.fragment)),
                             text):
                broken.append(f"{href} (no id {url.fragment!r})")
    return broken


def check_widgets(page, kinds):
    """Wait until each view the page displays is drawn; return {kind: drawn count}."""
    drawn = {}
    for kind, count in kinds.items():
        selector = WIDGET_KINDS[kind][1]
        page.wait_for_function("([s, n]) => document.querySelectorAll(s).length >= n",
                               arg=[selector, count], timeout=30_000)
        drawn[kind] = page.locator(selector).count()
    return drawn


def interact(page, kinds):
    """With no kernel: the graph toggles to its other picture, the queue's slider scrubs."""
    if "graph" in kinds:
        graph = page.locator(".mx-symbol-graph").first
        other = graph.locator("button.mx-sg-button:not(.mx-sg-active)").first
        mode = other.get_attribute("data-mode")
        other.click()
        page.wait_for_function("([el, mode]) => el.dataset.mode === mode",
                               arg=[graph.element_handle(), mode], timeout=10_000)
    if "queue" in kinds:
        queue = page.locator(".mmx-eq").first
        head = queue.locator(".mmx-head").element_handle()
        # the page replays the recording once on load (at most 8 s): let it finish first
        page.wait_for_function("el => !el.textContent.includes('replay t =')", arg=head,
                               timeout=20_000)
        queue.locator("input.mmx-slider").focus()
        page.keyboard.press("Home")
        page.wait_for_function("el => el.textContent.includes('replay t =')", arg=head,
                               timeout=10_000)


@pytest.mark.parametrize("name", PAGES)
def test_book_page(book_server, book_html, new_page, name):
    if not (book_html / f"{name}.html").exists():
        pytest.fail(f"{name}.html was not built")
    page, log = new_page()
    page.goto(f"{book_server}/{name}.html", wait_until="load")
    page.wait_for_load_state("networkidle", timeout=30_000)
    expected = expected_outputs(book_html, name)
    kinds = page_widget_kinds(book_html, name)
    try:
        drawn = check_widgets(page, kinds)
        # every widget output was turned into a widget by the page's widget manager
        rendered = page.locator(".cell_output .jupyter-widgets, .cell_output .widget-subarea "
                                "> *").count()
        assert rendered >= len(expected["widgets"]), (rendered, expected["widgets"])
        images = page.eval_on_selector_all(
            "img", "imgs => imgs.map(i => [i.currentSrc || i.src, i.complete && "
                   "i.naturalWidth > 0, !!i.closest('.cell_output')])")
        unloaded = [src for src, loaded, _ in images if not loaded]
        assert not unloaded, f"images that did not load: {unloaded}"
        figures = sum(1 for _, _, in_output in images if in_output)
        assert figures >= expected["images"], (figures, expected)
        html_figures = page.locator(".cell_output .output:has(svg), "
                                    ".cell_output .output:has(img)").count()
        assert html_figures >= expected["html_figures"], (html_figures, expected)
        interact(page, kinds)
        lesson = LESSON_WIDGETS.get(name[:2], set()) if name[:2].isdigit() else set()
        assert lesson <= set(drawn), f"lesson {name} should show {lesson}, shows {drawn}"
        broken = check_links(page, book_server, book_html)
        assert not broken, f"broken links: {broken}"
    finally:
        page.screenshot(path=str(screenshot_dir("book") / f"{name.replace('/', '__')}.png"),
                        full_page=True)
    errors = [e for e in log.errors if not any(noise in e for noise in IGNORED_ERRORS)]
    assert not errors, f"JavaScript errors: {errors}"
    assert not log.failed, f"failed requests: {log.failed}"
    bad = [entry for entry in log.bad_status if not entry.endswith("/favicon.ico")]
    assert not bad, f"HTTP errors: {bad}"
    outside = [url for url in log.requests
               if not url.startswith((book_server + "/", "data:", "blob:", "about:"))]
    assert not outside, f"requests leaving 127.0.0.1: {outside}"


def test_every_built_page_is_checked(book_html):
    """No built page escapes test_book_page (it opens exactly the toc's pages)."""
    built = {str(path.relative_to(book_html).with_suffix("")) for path in book_html.rglob("*.html")
             if not path.relative_to(book_html).parts[0].startswith("_")
             or path.relative_to(book_html).parts[0] == "_widgets_demo"}
    assert built == set(PAGES), (sorted(built - set(PAGES)), sorted(set(PAGES) - built))


def test_queue_graph_and_speedup_views_are_in_the_book(book_html):
    """The issue's minimum: the queue, graph and speedup views appear on some page (each page's
    test then checks that they are drawn)."""
    shown = set()
    for name in PAGES:
        if (book_html / f"{name}.html").exists():
            shown |= set(page_widget_kinds(book_html, name))
    assert {"queue", "graph", "speedup"} <= shown, shown
