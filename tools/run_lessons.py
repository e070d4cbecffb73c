"""Execute every lesson (jupytext MyST ``.md`` in notebooks/) and save the executed notebooks.

Used by ``scripts/course.sh`` and by ``tests/test_lessons.py``.  A cell error
stops the run with the lesson's name and the failing cell.
"""
import pathlib
import sys
import time

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "notebooks"
OUTPUT = ROOT / "_build" / "lessons"


def lesson_paths():
    """Every lesson source, in course order (file names start with the lesson number)."""
    return sorted(path for path in LESSONS.glob("*.md") if path.name[:2].isdigit())


def execute(path, timeout=600, then=""):
    """Run one lesson top to bottom (then the code ``then``, in the same kernel, if given);
    return the executed notebook."""
    notebook = jupytext.read(path)
    if then.strip():
        notebook.cells.append(nbformat.v4.new_code_cell(then))
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return notebook


def main(names):
    OUTPUT.mkdir(parents=True, exist_ok=True)
    paths = [p for p in lesson_paths() if not names or any(n in p.name for n in names)]
    for path in paths:
        start = time.perf_counter()
        notebook = execute(path)
        target = OUTPUT / (path.stem + ".ipynb")
        nbformat.write(notebook, target)
        seconds = time.perf_counter() - start
        print(f"{path.name}: ran in {seconds:.1f} s -> {target.relative_to(ROOT)}")
    print(f"{len(paths)} lesson(s) executed; open them with: .venv/bin/jupyter lab notebooks/")


if __name__ == "__main__":
    main(sys.argv[1:])
