"""Every lesson notebook runs top to bottom without an error (its exercises check themselves)."""
import importlib.util
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
if importlib.util.find_spec("nbclient") is None or importlib.util.find_spec("jupytext") is None:
    pytest.skip("nbclient/jupytext not installed (pip install -e '.[dev]')", allow_module_level=True)
sys.path.insert(0, str(ROOT / "tools"))
import run_lessons  # noqa: E402

LESSONS = run_lessons.lesson_paths()


# scripts/test.sh builds the book first: that build executes every lesson of book.yml in a fresh
# kernel and fails on any cell error, so the lessons it executed are not run a second time.
EXECUTED = os.environ.get("MINIMX_LESSONS_EXECUTED")


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_runs(path):
    if EXECUTED and (pathlib.Path(EXECUTED) / f"{path.stem}.ipynb").exists():
        pytest.skip("executed by this run's book build (scripts/test.sh)")
    run_lessons.execute(path, timeout=300)
