#!/usr/bin/env bash
# The course, on a fresh machine: set everything up, then open the lessons in JupyterLab.
#   bash scripts/course.sh              # JupyterLab on notebooks/ (prints the URL to open)
#   bash scripts/course.sh --run [NN..] # no browser: execute every lesson (or lessons NN..)
#                                       # into _build/lessons/*.ipynb
#   PORT=8890 IP=0.0.0.0 bash scripts/course.sh   # another port / listen beyond localhost
# The lessons are jupytext MyST .md files: JupyterLab opens them as notebooks (the settings in
# tools/lab-overrides.json, installed into .venv) and saves your edits back to the .md; a
# lesson only opened and autosaved keeps its bytes (git status stays clean: lessons are
# written in the form jupytext saves, checked by python tools/lesson_roundtrip.py).
# The exercises as assignments (solutions taken out, nbgrader's Validate button in the
# notebook toolbar) are in the folder assignments/: the release scripts/assignments.sh builds
# (built here on the first start; rebuild with bash scripts/assignments.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
setup_system
setup_venv
if [ "${1:-}" = --run ]; then
  shift
  exec .venv/bin/python tools/run_lessons.py "$@"
fi
if [ ! -d _build/course/release ]; then
  echo "building the assignments (the lessons' exercises, solutions taken out) ..."
  .venv/bin/python tools/assignments.py build > /dev/null
fi
ln -sfn ../_build/course/release notebooks/assignments
PORT=${PORT:-8888}
IP=${IP:-127.0.0.1}
ARGS=(--ServerApp.root_dir="$PWD/notebooks" --ip="$IP" --port="$PORT" --no-browser)
[ "$(id -u)" = 0 ] && ARGS+=(--allow-root)
echo "Starting JupyterLab on notebooks/: open the http://$IP:$PORT/lab?token=... URL it prints"
echo "below (Ctrl-C stops it). The book: bash scripts/book.sh"
exec .venv/bin/jupyter lab "${ARGS[@]}"
