"""Opening and saving a page of notebooks/ the way JupyterLab does leaves its bytes unchanged.

tools/lesson_roundtrip.py opens every page of a copy of notebooks/ through jupytext's contents
manager (the one JupyterLab uses), adds the kernel's metadata as JupyterLab does and saves it;
a page whose bytes change would leave ``git status`` dirty after a student only looked at it.
The real JupyterLab does the same in tests/browser/test_lesson_unchanged.py.
"""
import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
for needed in ("jupytext", "jupyter_server", "ipykernel"):
    if importlib.util.find_spec(needed) is None:
        pytest.skip(f"{needed} is not installed (pip install -e '.[notebook]')",
                    allow_module_level=True)
sys.path.insert(0, str(ROOT / "tools"))
import lesson_roundtrip  # noqa: E402

LESSON_HEADER = """---
jupytext:
  notebook_metadata_filter: -jupytext.text_representation.format_version,\
-jupytext.text_representation.jupytext_version
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3 (ipykernel)
  language: python
---
"""
CELL = "\n# A lesson\n\n```{code-cell} ipython3\n:tags: [hide-input]\n\nx = 1\n```\n"


def test_every_page_comes_back_unchanged():
    pages = lesson_roundtrip.pages(lesson_roundtrip.NOTEBOOKS)
    assert "05-lazy-evaluation.md" in pages and "_widgets_demo/engine_queue.md" in pages
    assert "index.md" in pages
    for page in pages:       # a recorded jupytext version would change with every upgrade
        text = (lesson_roundtrip.NOTEBOOKS / page).read_text()
        assert "jupytext_version:" not in text and "format_version:" not in text, page
    changed = lesson_roundtrip.changed_by_save()
    assert not changed, ("opening and saving these pages changes them (rewrite them with "
                         "python tools/lesson_roundtrip.py --write):\n" + "\n".join(
                             changed.values()))


def test_a_lesson_in_jupytexts_form_is_kept(tmp_path):
    (tmp_path / "lesson.md").write_text(LESSON_HEADER + CELL)
    (tmp_path / "page.md").write_text("# A plain page\n\nNo code here.\n")
    assert lesson_roundtrip.changed_by_save(tmp_path) == {}


@pytest.mark.parametrize("before, after", [
    ("\n\nx = 1", "\nx = 1"),                                     # no blank line after options
    ("  display_name: Python 3 (ipykernel)", "  display_name: Python 3"),
    ("  name: python3\n  display_name: Python 3 (ipykernel)\n",   # keys sorted by name
     "  display_name: Python 3 (ipykernel)\n  name: python3\n"),
    ("  notebook_metadata_filter: -jupytext.text_representation.format_version,"
     "-jupytext.text_representation.jupytext_version\n", ""),  # records jupytext's version
])
def test_a_lesson_in_another_form_is_reported_and_rewritten(tmp_path, before, after):
    text = (LESSON_HEADER + CELL).replace(before, after)
    assert text != LESSON_HEADER + CELL
    (tmp_path / "lesson.md").write_text(text)
    changed = lesson_roundtrip.changed_by_save(tmp_path)
    assert list(changed) == ["lesson.md"]
    assert (tmp_path / "lesson.md").read_text() == text           # checked on a copy
    assert lesson_roundtrip.main(["--write", str(tmp_path)]) == 0
    assert lesson_roundtrip.changed_by_save(tmp_path) == {}


def test_the_round_trip_runs_where_an_event_loop_already_runs():
    """A notebook, or a test process whose browser tests left a loop running: asyncio.run
    alone would refuse ("cannot be called from a running event loop")."""
    import asyncio
    import concurrent.futures

    async def inside_a_loop():
        return lesson_roundtrip.run_to_completion(lambda: asyncio.sleep(0, result="done"))

    # on a thread of its own: this test process may already run a loop on the main thread
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        assert pool.submit(asyncio.run, inside_a_loop()).result() == "done"
