"""Execute every lesson (jupytext MyST ``.md`` in notebooks/) and save the executed notebooks.

Used by ``scripts/course.sh`` and by ``tests/test_lessons.py``.  A cell error
stops the run with the lesson's name and the failing cell.
"""
import pathlib
import shutil
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


def missing_program(path):
    """Why lesson ``path`` cannot run here, or None: it draws a graph with
    ``mx.viz.plot_network``, whose display runs Graphviz's ``dot``, and ``dot`` is missing."""
    if shutil.which("dot") is not None:
        return None
    if any("plot_network(" in cell.source for cell in jupytext.read(path).cells
           if cell.cell_type == "code"):
        return (f"{path.name} draws with mx.viz.plot_network, which needs Graphviz's dot "
                "(Debian: sudo apt-get install graphviz)")
    return None


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
    executed = 0
    for path in paths:
        missing = missing_program(path)
        if missing:
            print(f"not run: {missing}")
            continue
        start = time.perf_counter()
        notebook = execute(path)
        target = OUTPUT / (path.stem + ".ipynb")
        nbformat.write(notebook, target)
        seconds = time.perf_counter() - start
        print(f"{path.name}: ran in {seconds:.1f} s -> {target.relative_to(ROOT)}")
        executed += 1
    print(f"{executed} of {len(paths)} lesson(s) executed; open them with: "
          ".venv/bin/jupyter lab notebooks/")


if __name__ == "__main__":
    main(sys.argv[1:])
