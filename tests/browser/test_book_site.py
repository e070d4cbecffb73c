"""The built book in a real browser: every page loads cleanly, offline, with its figures and widgets.

The site (tools/build_book.py, or the one scripts/test.sh built in the same run)
is served by http.server on a free 127.0.0.1 port and every page of book.yml's
table of contents (plus Sphinx's genindex and search pages) is opened in
headless chromium.  Each page must show: no console error or warning of any
kind and no uncaught exception, no failed request and no HTTP error (the
favicon included), no request leaving 127.0.0.1, no link to a missing local
page or anchor, every image loaded, as many figures as its executed notebook
has image/SVG outputs, every widget its notebook displayed, drawn, once (no
cell shows the same view twice), inside each view no text drawn over another,
and nothing printed beside a view wider than the text column.  The index page lists every lesson, and no page's title names the
book twice.  Screenshots (whole page): _build/screenshots/book/.
"""
import json
import pathlib
import re
import urllib.parse

import pytest

from .conftest import ROOT, requires_browser, screenshot_dir

yaml = pytest.importorskip("yaml", reason="pyyaml is not installed (pip install -e '.[notebook]')")

pytestmark = [pytest.mark.browser, requires_browser]

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
LESSON_WIDGETS = {"03": {"queue"}, "05": {"queue"}, "06": {"queue"}, "07": {"graph"},
                  "08": {"graph"}, "10": {"speedup"}}
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
BOOK_TITLE = yaml.safe_load((ROOT / "book.yml").read_text())["title"]
LESSON_PAGES = [page for page in PAGES if page[:2].isdigit()]


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


def views_shown_twice(book_html, page):
    """["cell n: model id"] for every widget a single cell of the page's executed notebook
    displays more than once (e.g. a ``with`` block that displays its view, and the view again
    as the cell's last expression)."""
    executed = book_html.parent / "jupyter_execute" / f"{page}.ipynb"
    if not executed.exists():
        return []
    twice = []
    for number, cell in enumerate(json.loads(executed.read_text()).get("cells", [])):
        shown = [output.get("data", {}).get(MIME_PRIORITY[0], {}).get("model_id")
                 for output in cell.get("outputs", [])]
        shown = [model for model in shown if model]
        twice += [f"cell {number}: {model}" for model in sorted(set(shown))
                  if shown.count(model) > 1]
    return twice


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
    """{kind: how many} of the minimx views the page displays (one per widget model: a model
    displayed twice is one view, which should be drawn once)."""
    states = widget_state(book_html, page)
    kinds = {}
    for model_id in dict.fromkeys(expected_outputs(book_html, page)["widgets"]):
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


# Every text a view draws, as boxes: an SVG <text> by its bounding box, an HTML text node by
# the boxes of its lines (not its element's block, which spans the whole width), each cut to
# what its scrolling or clipping ancestors let show.  Two boxes of one view that intersect by
# more than SLACK px both ways are two labels drawn over each other.
OVERLAPS_JS = """([selector, slack]) => {
  const shown = el => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0')
        return false;
    }
    return true;
  };
  const visiblePart = (el, box) => {
    let [left, top, right, bottom] = [box.left, box.top, box.right, box.bottom];
    for (let e = el.parentElement; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const clip = e.getBoundingClientRect();
      [left, top] = [Math.max(left, clip.left), Math.max(top, clip.top)];
      [right, bottom] = [Math.min(right, clip.right), Math.min(bottom, clip.bottom)];
    }
    return right - left > 0 && bottom - top > 0 ? {left, top, right, bottom} : null;
  };
  const name = (el, text) => `<${el.tagName.toLowerCase()} class="${
      el.getAttribute('class') || ''}"> ${JSON.stringify(text.trim().slice(0, 70))}`;
  const found = [];
  document.querySelectorAll(selector).forEach((view, index) => {
    const boxes = [];
    view.querySelectorAll('svg text').forEach(el => {
      if (!el.textContent.trim() || !shown(el)) return;
      const box = visiblePart(el, el.getBoundingClientRect());
      if (box) boxes.push([box, name(el, el.textContent)]);
    });
    const walker = document.createTreeWalker(view, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!node.textContent.trim() || parent.closest('svg') || !shown(parent)
          || ['SCRIPT', 'STYLE', 'OPTION', 'TITLE'].includes(parent.tagName)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const line of range.getClientRects()) {
        const box = visiblePart(parent, line);
        if (box) boxes.push([box, name(parent, node.textContent)]);
      }
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, aName] = boxes[i], [b, bName] = boxes[j];
        const wide = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const high = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (wide > slack && high > slack)
          found.push(`${selector} #${index}: ${aName} overlaps ${bName} ` +
                     `(${wide.toFixed(0)} x ${high.toFixed(0)} px)`);
      }
    }
  });
  return found;
}"""
SLACK_PX = 2


# What a cell prints next to a view it draws, wider than the text column: the reader scrolls
# sideways to read it.
WIDE_OUTPUTS_JS = """(views) => Array.from(document.querySelectorAll('.cell'))
  .filter(cell => cell.querySelector(views))
  .flatMap(cell => Array.from(cell.querySelectorAll('.cell_output pre')))
  .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
  .map(pre => {
    const widest = pre.innerText.split('\\n').reduce((a, b) => b.length > a.length ? b : a, '');
    return `${pre.scrollWidth - pre.clientWidth} px past the edge: ${widest.slice(0, 90)}`;
  })"""


def overlapping_text(page, kinds):
    """["view: text overlaps text (w x h px)"] over every view of the given kinds."""
    found = []
    for kind in kinds:
        root = WIDGET_KINDS[kind][1].split()[0]
        found += page.evaluate(OVERLAPS_JS, [root, SLACK_PX])
    return found


def check_widgets(page, kinds):
    """Wait until each view the page displays is drawn; return {kind: drawn count}."""
    drawn = {}
    for kind, count in kinds.items():
        selector = WIDGET_KINDS[kind][1]
        page.wait_for_function("([s, n]) => document.querySelectorAll(s).length >= n",
                               arg=[selector, count], timeout=30_000)
        drawn[kind] = page.locator(selector).count()
    return drawn


def check_views_drawn_once(page, kinds):
    """As many views of each kind on the page as the notebook made: none drawn twice."""
    extra = {}
    for kind, count in kinds.items():
        roots = page.locator(WIDGET_KINDS[kind][1].split()[0]).count()
        if roots != count:
            extra[kind] = f"{roots} drawn, {count} displayed"
    return extra


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
    assert page.title().count(BOOK_TITLE) <= 1, f"the title names the book twice: {page.title()}"
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
        assert not views_shown_twice(book_html, name), \
            f"a cell displays the same view twice: {views_shown_twice(book_html, name)}"
        assert not check_views_drawn_once(page, kinds), check_views_drawn_once(page, kinds)
        overlaps = overlapping_text(page, kinds)
        assert not overlaps, "text drawn over text inside a view:\n  " + "\n  ".join(overlaps)
        wide = page.evaluate(WIDE_OUTPUTS_JS, ", ".join(
            selector.split()[0] for _, selector in WIDGET_KINDS.values()))
        assert not wide, "printed beside a view, too wide:\n  " + "\n  ".join(wide)
        lesson = LESSON_WIDGETS.get(name[:2], set()) if name[:2].isdigit() else set()
        assert lesson <= set(drawn), f"lesson {name} should show {lesson}, shows {drawn}"
        broken = check_links(page, book_server, book_html)
        assert not broken, f"broken links: {broken}"
    finally:
        page.screenshot(path=str(screenshot_dir("book") / f"{name.replace('/', '__')}.png"),
                        full_page=True)
    assert not log.errors, f"JavaScript errors: {log.errors}"
    assert not log.warnings, f"console warnings: {log.warnings}"
    assert not log.failed, f"failed requests: {log.failed}"
    assert not log.bad_status, f"HTTP errors: {log.bad_status}"
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


def test_the_index_page_lists_every_lesson(book_server, book_html, new_page):
    """The first page a reader opens links every lesson from its own text, not only from the
    sidebar, each with a line saying what it is about."""
    page, _ = new_page()
    page.goto(f"{book_server}/index.html", wait_until="load")
    items = page.eval_on_selector_all(
        "article.bd-article li:has(a[href])",
        "items => items.map(li => [li.querySelector('a').getAttribute('href'), li.innerText])")
    listed = {re.sub(r"\.html(#.*)?$", "", href): text for href, text in items}
    missing = [lesson for lesson in LESSON_PAGES if lesson not in listed]
    assert not missing, f"lessons the index page does not list: {missing}"
    bare = [lesson for lesson in LESSON_PAGES if len(listed[lesson].split()) < 6]
    assert not bare, f"lessons listed with no line about them: {bare}"


# How test code names the views' parts: CSS classes (.mmx-eq, rect.mmx-op), DOM terms.
TEST_TALK = re.compile(r"\.mm?x-[a-z]|\b(?:rect|input|button|span|div)\.[a-z]|browser tests?\b|"
                       r"tests/browser|\bDOM\b")


@pytest.mark.parametrize("name", [page for page in PAGES if page.startswith("_widgets_demo/")]
                         + ["widget-gallery"])
def test_widget_pages_speak_to_students(book_html, name):
    """The gallery's pages explain what a view shows and how to read it; the selectors the
    tests use stay in the tests."""
    html = (book_html / f"{name}.html").read_text(errors="replace")
    article = re.search(r'<article class="bd-article">(.*?)</article>', html, re.S).group(1)
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<(pre|script|style)\b.*?</\1>", "", article,
                                           flags=re.S))                # code and outputs out
    found = sorted(set(match.group(0) for match in TEST_TALK.finditer(text)))
    assert not found, f"{name}.html speaks to test writers: {found}"
