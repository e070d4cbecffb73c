"""Every module's ``Lesson:`` line names lessons that exist in notebooks/."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSON_NAME = re.compile(r"\b\d\d-[a-z][a-z-]*[a-z]\b")


def lesson_lines():
    for folder in ("minimx", "widgets"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if re.match(r"\s*Lessons?:", line):
                    yield f"{path.relative_to(ROOT)}:{number}", line


def test_lesson_lines_name_existing_lessons():
    lessons = {path.stem for path in (ROOT / "notebooks").glob("[0-9][0-9]-*.md")}
    lines = list(lesson_lines())
    assert len(lines) > 100                     # the search itself works
    wrong = [(where, name) for where, line in lines for name in LESSON_NAME.findall(line)
             if name not in lessons]
    assert not wrong, f"unknown lessons (existing: {sorted(lessons)}): {wrong}"
    unnamed = [where for where, line in lines if not LESSON_NAME.search(line)]
    assert not unnamed
