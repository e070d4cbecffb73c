#!/usr/bin/env bash
# The teacher's side of the exercises: the lessons as an nbgrader course, and autograding.
#   bash scripts/assignments.sh              # set up, then build _build/course: source/ (the
#                                            # lessons with nbgrader's metadata), release/ (what
#                                            # students get), gradebook.db (nbgrader's SQLite)
#   bash scripts/assignments.sh grade DIR    # autograde DIR/STUDENT/NN-name/NN-name.ipynb and
#                                            # print each student's points (scores.json beside)
#   bash scripts/assignments.sh check        # build, then grade the two sample submissions:
#                                            # the reference solutions (full marks) and the
#                                            # untouched release (zero)
#   COURSE=/srv/course bash scripts/assignments.sh ...   # another course folder
# Students open the released notebooks with bash scripts/course.sh (folder assignments/).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
setup_system
setup_venv
COURSE=${COURSE:-$PWD/_build/course}
tool() { .venv/bin/python tools/assignments.py "$@" --course "$COURSE"; }
case "${1:-build}" in
  build) tool build ;;
  grade) [ $# -eq 2 ] || { echo "usage: bash scripts/assignments.sh grade DIR" >&2; exit 2; }
         tool grade "$2" --json "$COURSE/scores.json" ;;
  check) tool build
         tool samples "$COURSE/samples"
         tool grade "$COURSE/samples" --json "$COURSE/scores.json" ;;
  *) echo "usage: bash scripts/assignments.sh [build | grade DIR | check]" >&2; exit 2 ;;
esac
