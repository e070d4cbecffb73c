"""A released assignment in a real JupyterLab: nbgrader's Validate button runs it and reports.

The course is built for lesson 1 (tools/assignments.py), and JupyterLab serves two copies of
its released notebook as a student would have them: untouched (validation must report the
failing cells) and with the reference solutions typed in (validation must pass).
Screenshots: _build/screenshots/assignments/.
"""
import importlib.util
import pathlib
import sys

import pytest

from .conftest import ROOT, lab_serving, requires_browser, screenshot_dir

pytestmark = [pytest.mark.browser, requires_browser]

if importlib.util.find_spec("nbgrader") is None:
    pytest.skip("nbgrader is not installed (pip install -e '.[notebook]')",
                allow_module_level=True)
sys.path.insert(0, str(ROOT / "tools"))
import assignments  # noqa: E402

LESSON = "01-overview"
VALIDATE_TIMEOUT_MS = 180_000


@pytest.fixture(scope="module")
def student_lab(browser, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    assignments.build(course, [LESSON[:2]])
    samples = assignments.samples(tmp_path_factory.mktemp("samples"), course)
    root = tmp_path_factory.mktemp("student-root")
    for student in ("blank", "reference"):
        target = root / student
        target.mkdir()
        source = samples / student / LESSON / f"{LESSON}.ipynb"
        (target / source.name).write_bytes(source.read_bytes())
    yield from lab_serving(root, tmp_path_factory)


def validate(lab, new_page, folder):
    """Open ``folder``'s notebook, press Validate; return the result dialog's text."""
    page, _ = new_page()
    page.goto(lab.lab_url(f"{folder}/{LESSON}.ipynb"))
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    page.wait_for_selector(f"{panel} .jp-Cell", timeout=90_000)
    button = page.locator(f"{panel} .jp-Toolbar").get_by_text("Validate", exact=True)
    button.wait_for(timeout=60_000)
    button.click()
    dialog = page.locator(".jp-Dialog")
    dialog.filter(has_text="Validat").first.wait_for(timeout=VALIDATE_TIMEOUT_MS)
    body = page.locator(".jp-Dialog-body")
    text = ""
    for _ in range(VALIDATE_TIMEOUT_MS // 500):           # "Validating..." may come first
        text = body.first.inner_text() if body.count() else ""
        if text.strip() and "Validating" not in text:
            break
        page.wait_for_timeout(500)
    shot = pathlib.Path(screenshot_dir("assignments")) / f"validate-{folder}.png"
    page.screenshot(path=str(shot))
    return text


def test_validate_reports_the_unsolved_exercises(student_lab, new_page):
    text = validate(student_lab, new_page, "blank")
    assert "NotImplementedError" in text or "failed" in text.lower(), text[:2000]
    assert "Success" not in text, text[:2000]


def test_validate_passes_the_solved_notebook(student_lab, new_page):
    text = validate(student_lab, new_page, "reference")
    assert "Success" in text and "passes all the tests" in text, text[:2000]
