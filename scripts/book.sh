#!/usr/bin/env bash
# Build the course book from book.yml (Jupyter Book 1.x, offline; executes every lesson) and
# serve it on http://127.0.0.1:8000 (Ctrl-C stops).  PORT=8001 for another port;
# bash scripts/book.sh --no-serve only builds (_build/html/index.html).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
setup_system
setup_venv
if [ "${1:-}" = --no-serve ]; then
  exec .venv/bin/python tools/build_book.py
fi
exec .venv/bin/python tools/build_book.py --serve --port "${PORT:-8000}"
