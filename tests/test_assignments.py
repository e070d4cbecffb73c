"""The lessons' exercises as an nbgrader course (tools/assignments.py): the layout rules, then
the whole grading loop -- reference solutions score full marks, the released notebooks zero on
every graded cell, and a wrong solution loses exactly the points of the tests it breaks."""
import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
for needed in ("jupytext", "nbformat", "nbgrader"):
    if importlib.util.find_spec(needed) is None:
        pytest.skip(f"{needed} is not installed (pip install -e '.[dev,notebook]')",
                    allow_module_level=True)
sys.path.insert(0, str(ROOT / "tools"))
import assignments  # noqa: E402
import jupytext  # noqa: E402
import nbformat  # noqa: E402
from nbgrader.nbgraderformat import MetadataValidator  # noqa: E402

LESSONS = assignments.lesson_paths()


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_lesson_has_graded_exercises(path):
    graded = assignments.graded_cells(jupytext.read(path), path.stem)
    solutions = [g for g, kind, _ in graded if kind == "solution"]
    assert len(solutions) >= 3, f"{path.name}: {len(solutions)} exercises"
    assert len(assignments.exercises(jupytext.read(path), path.stem)) == len(solutions)
    for exercise in solutions:
        tests = [(g, points) for g, kind, points in graded if g.startswith(exercise + "-")]
        assert tests, f"{path.name}: {exercise} has no test cell"
    notebook = assignments.source_notebook(path)
    MetadataValidator().validate_nb(notebook)          # nbgrader's own schema check
    for cell in notebook.cells:
        meta = cell.metadata["nbgrader"]
        if meta["solution"] and cell.cell_type == "code":
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
        assert cell.metadata.get("assignment") != "omit"


def test_a_misplaced_or_untagged_exercise_cell_is_refused():
    notebook = jupytext.reads("```{code-cell} ipython3\n:exercise: test\n:points: 1\n"
                              "assert True\n```\n", fmt="md:myst")
    with pytest.raises(ValueError, match="before the first solution"):
        assignments.graded_cells(notebook, "99-demo")
    notebook = jupytext.reads("```{code-cell} ipython3\n:exercise: solution\nx = 1\n```\n",
                              fmt="md:myst")
    with pytest.raises(ValueError, match="hide-input"):
        assignments.graded_cells(notebook, "99-demo")
    notebook = jupytext.reads("```{code-cell} ipython3\n:exercise: solution\n"
                              ":tags: [hide-input]\nx = 1\n```\n\n```{code-cell} ipython3\n"
                              ":exercise: test\nassert x\n```\n", fmt="md:myst")
    with pytest.raises(ValueError, match="points"):
        assignments.graded_cells(notebook, "99-demo")


# A wrong submission for lesson 1: layer_of takes the module's last part (right for NDArray
# and Symbol, whose modules end in their folder's name, wrong for the optimizer), and
# operator_file keeps the dots.  It must lose exactly the points of the cells these break.
WRONG = {
    'return type(thing).__module__.split(".")[1]': 'return type(thing).__module__.split(".")[-1]',
    '.replace(".", "/") + ".py"': ' + ".py"',
}
BROKEN_BY_WRONG = {"ex01_2-hidden-test2", "ex01_3-test1", "ex01_3-hidden-test2"}


def make_wrong(reference, target):
    notebook = nbformat.read(reference, as_version=4)
    for old, new in WRONG.items():
        cells = [cell for cell in notebook.cells if old in cell.source]
        assert len(cells) == 1, f"the wrong submission's edit no longer applies: {old!r}"
        cells[0].source = cells[0].source.replace(old, new)
    target.parent.mkdir(parents=True)
    nbformat.write(notebook, target)


@pytest.mark.timeout(1500)
def test_grading_loop_full_zero_and_partial_marks(tmp_path):
    course = tmp_path / "course"
    made = assignments.build(course)
    assert made == [p.stem for p in LESSONS]
    assert (course / "gradebook.db").exists()
    for name in made:
        released = (course / "release" / name / f"{name}.ipynb").read_text()
        assert "### BEGIN SOLUTION" not in released and "HIDDEN TESTS" not in released
        assert "raise NotImplementedError()" in released
    submissions = assignments.samples(tmp_path / "submitted", course)
    lesson = "01-overview"
    make_wrong(submissions / "reference" / lesson / f"{lesson}.ipynb",
               submissions / "wrong" / lesson / f"{lesson}.ipynb")
    scores = assignments.grade(submissions, course)
    for name in made:
        reference, blank = scores["reference"][name], scores["blank"][name]
        assert reference and all(score == most for score, most in reference.values()), \
            (name, {g: s for g, s in reference.items() if s[0] != s[1]})
        assert set(blank) == set(reference)
        assert all(score == 0 for score, _ in blank.values()), (name, blank)
    wrong = scores["wrong"][lesson]
    lost = {grade_id for grade_id, (score, most) in wrong.items() if score != most}
    assert lost == BROKEN_BY_WRONG, lost
    assert all(wrong[g][0] == 0 for g in lost)
