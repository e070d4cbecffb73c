"""Run the project's own test files from a lesson: the tests of the machinery it teaches.

    from widgets.project_tests import run_project_tests
    run_project_tests("gluon/test_block.py", "-k", "hybrid")

Paths are relative to the repository's ``tests/`` folder, found from this file, so a lesson
runs them from wherever its notebook was opened.  Prints pytest's summary line and raises
``AssertionError`` (with the tail of the output) if a test failed.
"""
import pathlib
import subprocess
import sys

TESTS = pathlib.Path(__file__).resolve().parent.parent / "tests"


def run_project_tests(*arguments):
    if not TESTS.is_dir():
        raise FileNotFoundError(f"the project's tests are not at {TESTS}: run the lessons from "
                                f"a clone of the repository (pip install -e .)")
    paths = [str(TESTS / a) if not a.startswith("-") and (TESTS / a).exists() else a
             for a in arguments]
    done = subprocess.run([sys.executable, "-m", "pytest", "-x", "--color=no", "-p",
                           "no:cacheprovider", *paths], capture_output=True, text=True,
                          cwd=TESTS.parent)
    lines = done.stdout.strip().splitlines()
    print(lines[-1] if lines else done.stderr.strip()[-500:])
    assert done.returncode == 0, "\n".join(lines[-30:])
    return lines[-1] if lines else ""
