"""A page opened in JupyterLab and autosaved comes back byte for byte (git status stays clean).

JupyterLab serves a copy of notebooks/ with autosave every second (a student's saves every 2
minutes).  Opening lesson 5 starts the kernel it names, which writes the kernel's metadata
into the notebook (the tab turns "unsaved"); a plain page (index.md) gets its kernel from the
dialog.  The test waits until autosave has written the file and the tab is saved (or saves
with Ctrl+S when JupyterLab found nothing to save) and compares the bytes with the page in the
repository.  tests/test_lesson_roundtrip.py checks every page the same way without a browser
(tools/lesson_roundtrip.py).
"""
import difflib
import sys
import time

import pytest

from .conftest import ROOT, lab_serving, requires_browser
from .test_jupyterlab_widgets import open_notebook, snap

pytestmark = [pytest.mark.browser, requires_browser]
sys.path.insert(0, str(ROOT / "tools"))
import lesson_roundtrip  # noqa: E402

PAGES = ["05-lazy-evaluation.md",   # a lesson: the kernel it names starts at once
         "index.md"]                # a plain page: a kernel is chosen in a dialog
SAVE_TIMEOUT = 30                       # seconds for a save to reach the file


@pytest.fixture(scope="module")
def course_lab(browser, tmp_path_factory):
    root = lesson_roundtrip.copy_pages(lesson_roundtrip.NOTEBOOKS,
                                       tmp_path_factory.mktemp("course-root") / "notebooks")
    yield from lab_serving(root, tmp_path_factory, autosave_interval=1)


def written_after(path, stamp, timeout):
    """Whether ``path`` is written (its mtime moves past ``stamp``) within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.stat().st_mtime_ns != stamp:
            return True
        time.sleep(0.25)
    return False


def settled(page, path, quiet=3.0, timeout=SAVE_TIMEOUT):
    """Wait until no tab is unsaved and ``path`` was not written for ``quiet`` seconds:
    JupyterLab saves twice after opening (the kernelspec arrives first, then the kernel's
    language_info)."""
    dirty = page.locator(".lm-TabBar-tab.jp-mod-dirty")
    deadline = time.monotonic() + timeout
    stamp, since = path.stat().st_mtime_ns, time.monotonic()
    while time.monotonic() < deadline:
        if path.stat().st_mtime_ns != stamp:
            stamp, since = path.stat().st_mtime_ns, time.monotonic()
        elif dirty.count():
            since = time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.25)
    raise AssertionError(f"still saving after {timeout} s (unsaved tabs: {dirty.count()})")


@pytest.mark.parametrize("name", PAGES)
def test_opening_and_autosaving_a_page_leaves_it_unchanged(course_lab, new_page, name):
    copy = course_lab.root_dir / name
    original = (ROOT / "notebooks" / name).read_bytes()
    assert copy.read_bytes() == original
    stamp = copy.stat().st_mtime_ns
    page, log = open_notebook(course_lab, new_page, name)
    saved_by = "autosave"
    if not written_after(copy, stamp, SAVE_TIMEOUT):
        saved_by = "Ctrl+S"
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first.click()
        page.keyboard.press("Control+s")
        assert written_after(copy, stamp, SAVE_TIMEOUT), f"Ctrl+S did not write {name}"
    settled(page, copy)
    snap(page, f"after-save-{name.replace('.md', '')}")
    after = copy.read_bytes()
    assert after == original, f"{name} changed after its {saved_by}:\n" + "".join(
        difflib.unified_diff(original.decode().splitlines(True), after.decode().splitlines(True),
                             f"{name} (repository)", f"{name} (saved by JupyterLab)"))
    uncaught = [error for error in log.errors if error.startswith("uncaught")]
    assert not uncaught, uncaught
