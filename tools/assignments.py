"""The lessons' exercises as an nbgrader course: build it, release it, autograde submissions.

    .venv/bin/python tools/assignments.py build [--course DIR] [NN ...]
    .venv/bin/python tools/assignments.py grade SUBMISSIONS [--course DIR] [--json FILE]
    .venv/bin/python tools/assignments.py samples DIR [--course DIR]
    .venv/bin/python tools/assignments.py list

``build`` writes an nbgrader course folder (default ``_build/course``): ``source/NN-name/``
holds each lesson as a notebook with nbgrader's cell metadata, ``release/`` the same with the
reference solutions and hidden tests taken out (what students get), and ``gradebook.db`` the
SQLite gradebook nbgrader keeps.  ``grade`` copies a folder of submissions laid out as
``STUDENT/NN-name/NN-name.ipynb`` into the course, autogrades them and prints each student's
points per assignment.  ``samples`` writes two submissions made from the release, for checking
a course before handing it out: ``DIR/reference/`` (every solution cell filled in with the
reference solution: it must score full marks) and ``DIR/blank/`` (the release untouched: zero).

A lesson marks its exercises with cell options (jupytext MyST), which this file turns into
nbgrader metadata -- the only place that knows nbgrader's schema:

    :exercise: solution      the student's cell: the reference solution sits between
                             ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (nbgrader puts
                             ``raise NotImplementedError()`` there in the release); tagged
                             ``hide-input``, so the book folds it away
    :exercise: test          a graded test cell, shown to the student; ``:points: N``
    :exercise: hidden-test   a graded test cell whose code the student never sees (it is
                             empty in the release and restored for grading); ``:points: N``;
                             tagged ``remove-cell``, so the book leaves it out
    :assignment: omit        a lesson cell left out of the assignment (it runs the project's
                             own test files, which are not beside a student's notebook)

Every other cell is locked: autograding runs the lesson's own code, whatever a student typed.
Each exercise opens with a heading ``### Exercise N.M: title (P points)``, where P is the sum of
its test cells' points (checked); ``list`` prints every exercise with its points.
"""
import argparse
import json
import re
import os
import pathlib
import shutil
import subprocess
import sys

import jupytext
import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "notebooks"
COURSE = ROOT / "_build" / "course"
BIN = pathlib.Path(sys.executable).parent            # nbgrader runs alembic from PATH
HIDDEN = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
HEADING = re.compile(r"^### Exercise (\d+)\.(\d+): (.+) \((\d+) points?\)$", re.M)
BOOK_TAG = {"solution": "hide-input", "hidden-test": "remove-cell"}   # how the book shows them
CONFIG = """c = get_config()
c.CourseDirectory.course_id = "minimx"
c.CourseDirectory.root = {root!r}
c.Execute.timeout = 900            # a lesson's training cells take longer than nbgrader's 30 s
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
"""


def lesson_paths(names=()):
    paths = sorted(p for p in LESSONS.glob("*.md") if p.name[:2].isdigit())
    return [p for p in paths if not names or any(p.name.startswith(n) for n in names)]


def nbgrader_metadata(kind, grade_id, points=None):
    """nbgrader's cell metadata (schema 3) for one kind of cell."""
    meta = {"grade": kind in ("test", "hidden-test"), "solution": kind == "solution",
            "locked": kind != "solution", "grade_id": grade_id, "schema_version": 3}
    if meta["grade"]:
        meta["points"] = points
    return meta


def graded_cells(notebook, lesson):
    """[(grade_id, kind, points)] of a lesson's exercise cells, in order; checks the layout."""
    found, number = [], 0
    for cell in notebook.cells:
        kind = cell.metadata.get("exercise")
        if kind is None:
            continue
        if kind not in ("solution", "test", "hidden-test"):
            raise ValueError(f"{lesson}: unknown exercise kind {kind!r} (solution, test, "
                             f"hidden-test)")
        tag = BOOK_TAG.get(kind)
        if tag and tag not in cell.metadata.get("tags", []):
            raise ValueError(f"{lesson}: a {kind} cell must be tagged {tag!r} (the book would "
                             f"show it): {cell.source[:60]!r}")
        if kind == "solution":
            number += 1
            found.append((f"ex{lesson[:2]}_{number}", kind, None))
            continue
        if number == 0:
            raise ValueError(f"{lesson}: a {kind} cell before the first solution cell")
        points = cell.metadata.get("points")
        if not isinstance(points, (int, float)) or points <= 0:
            raise ValueError(f"{lesson}: exercise {number}'s {kind} cell needs :points: > 0, "
                             f"got {points!r}")
        same = sum(1 for g, k, _ in found if g.startswith(f"ex{lesson[:2]}_{number}-"))
        found.append((f"ex{lesson[:2]}_{number}-{kind}{same + 1}", kind, points))
    return found


def exercises(notebook, lesson):
    """[(number, title, points)] of a lesson's exercises, from their ``### Exercise N.M: title
    (P points)`` headings; a heading's points must be the sum of its test cells' points."""
    headings = [match for cell in notebook.cells if cell.cell_type == "markdown"
                for match in HEADING.finditer(cell.source)]
    graded = graded_cells(notebook, lesson)
    solutions = [g for g, kind, _ in graded if kind == "solution"]
    if len(headings) != len(solutions):
        raise ValueError(f"{lesson}: {len(headings)} exercise headings for {len(solutions)} "
                         f"solution cells")
    table = []
    for index, (heading, exercise) in enumerate(zip(headings, solutions), 1):
        lesson_number, number, title, claimed = heading.groups()
        points = sum(p for g, _, p in graded if g.startswith(exercise + "-"))
        if (int(lesson_number), int(number)) != (int(lesson[:2]), index) or \
                int(claimed) != points:
            raise ValueError(f"{lesson}: heading {heading.group(0)!r} should be exercise "
                             f"{int(lesson[:2])}.{index} with {points} points (its tests)")
        table.append((f"{int(lesson_number)}.{number}", title, points))
    return table


def source_notebook(path):
    """A lesson as nbgrader's source notebook: exercise cells marked, the rest locked."""
    notebook = jupytext.read(path)
    notebook.cells = [c for c in notebook.cells if c.metadata.get("assignment") != "omit"]
    graded = iter(graded_cells(notebook, path.stem))
    for index, cell in enumerate(notebook.cells):
        kind = cell.metadata.get("exercise")
        if kind is None:
            cell.metadata["nbgrader"] = nbgrader_metadata("locked", f"lesson-cell-{index}")
            continue
        grade_id, _, points = next(graded)
        cell.metadata["nbgrader"] = nbgrader_metadata(kind, grade_id, points)
        if kind == "hidden-test":
            cell.source = f"{HIDDEN[0]}\n{cell.source}\n{HIDDEN[1]}"
    notebook.metadata.pop("jupytext", None)
    return notebook


def nbgrader(course, *arguments):
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    command = [str(BIN / "nbgrader"), *arguments]
    done = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def build(course=COURSE, names=()):
    """Write the course folder; return the assignment names."""
    course = pathlib.Path(course).resolve()
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG.format(root=str(course)))
    assignments = []
    for path in lesson_paths(names):
        folder = course / "source" / path.stem
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        nbformat.write(source_notebook(path), folder / f"{path.stem}.ipynb")
        nbgrader(course, "generate_assignment", path.stem, "--force")
        assignments.append(path.stem)
    return assignments


def grade(submissions, course=COURSE):
    """Autograde ``submissions/STUDENT/ASSIGNMENT/*.ipynb``; return {student: {assignment:
    {grade_id: (score, max_score)}}}."""
    course = pathlib.Path(course).resolve()
    submissions = pathlib.Path(submissions).resolve()
    pairs = sorted((s.name, a.name) for s in submissions.iterdir() if s.is_dir()
                   for a in s.iterdir() if a.is_dir())
    for student, assignment in pairs:
        target = course / "submitted" / student / assignment
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(submissions / student / assignment, target)
    for assignment in sorted({assignment for _, assignment in pairs}):
        students = {student for student, a in pairs if a == assignment}
        everyone = {folder.parent.name for folder in
                    (course / "submitted").glob(f"*/{assignment}")}
        if students == everyone:         # one nbgrader process grades all their copies
            nbgrader(course, "autograde", assignment, "--create", "--force")
            continue
        for student in sorted(students):  # leave the course's other submissions alone
            nbgrader(course, "autograde", assignment, "--student", student, "--create",
                     "--force")
    from nbgrader.api import Gradebook
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, assignment in pairs:
            submission = gradebook.find_submission(assignment, student)
            scores.setdefault(student, {})[assignment] = {
                g.name: (g.score, g.max_score) for n in submission.notebooks for g in n.grades}
    return scores


def samples(target, course=COURSE):
    """Write ``target/reference`` (the release with the reference solutions filled in) and
    ``target/blank`` (the release as it is), one submission per assignment."""
    course, target = pathlib.Path(course).resolve(), pathlib.Path(target)
    for source in sorted((course / "source").glob("*/*.ipynb")):
        assignment = source.parent.name
        solutions = {c.metadata["nbgrader"]["grade_id"]: c.source
                     for c in nbformat.read(source, as_version=4).cells
                     if c.metadata.get("nbgrader", {}).get("solution")}
        for student in ("reference", "blank"):
            folder = target / student / assignment
            folder.mkdir(parents=True, exist_ok=True)
            notebook = nbformat.read(course / "release" / assignment / source.name,
                                     as_version=4)
            if student == "reference":
                for cell in notebook.cells:
                    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                    if grade_id in solutions:
                        cell.source = solutions[grade_id]
            nbformat.write(notebook, folder / source.name)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["build", "grade", "samples", "list"])
    parser.add_argument("paths", nargs="*",
                        help="build: lesson numbers; grade: SUBMISSIONS; samples: DIR")
    parser.add_argument("--course", default=str(COURSE))
    parser.add_argument("--json", help="grade: write every cell's score to this file")
    options = parser.parse_args(argv)
    if options.command == "list":
        total = 0
        for path in lesson_paths(options.paths):
            for number, title, points in exercises(jupytext.read(path), path.stem):
                print(f"{number:>5}  {points} points  {title}")
                total += points
        print(f"{total} points in all")
        return 0
    if options.command == "build":
        made = build(options.course, options.paths)
        print(f"{len(made)} assignment(s) in {options.course}: source/, release/, gradebook.db")
        return 0
    if len(options.paths) != 1:
        parser.error(f"{options.command} takes one folder (STUDENT/ASSIGNMENT/*.ipynb)")
    if options.command == "samples":
        print("sample submissions in", samples(options.paths[0], options.course))
        return 0
    scores = grade(options.paths[0], options.course)
    for student, assignments in scores.items():
        for assignment, cells in assignments.items():
            got = sum(score for score, _ in cells.values())
            best = sum(most for _, most in cells.values())
            print(f"{student:12s} {assignment:32s} {got:5.1f} / {best:.1f}")
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps(scores, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
