#!/usr/bin/env bash
# Set up the course on a fresh machine and run every lesson notebook.
#   bash scripts/course.sh          # executes notebooks/*.md into _build/lessons/*.ipynb
# Then open the lessons in JupyterLab with: .venv/bin/jupyter lab notebooks/
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[notebook]'
exec .venv/bin/python tools/run_lessons.py "$@"
