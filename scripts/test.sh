#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run it (what CI runs).
#   bash scripts/test.sh            # everything: the book build (executes every lesson),
#                                   # then pytest (unit, differential, browser tests), then
#                                   # the context-taking tests on two strict stand-in GPUs
#   bash scripts/test.sh -k engine  # extra arguments go to pytest; no book build first
# The reference MXNet 1.9.1 goes into its own venv (.venv-mxnet) for the differential tests;
# if it cannot be installed those tests are skipped.  No step needs root when the system
# packages (graphviz, fonts-dejavu-core, npm, chromium) are present; a missing one is
# installed by root with apt-get, or named with the command that installs it, and what needs
# it is skipped (without chromium the browser tests; without npm or graphviz the book build).
# Screenshots of the browser tests: _build/screenshots/ (CI keeps the folder).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
setup_system chromium
setup_venv
# Dive into Deep Learning's helper package (pure Python; its "jupyter" requirement is left
# out): tests/test_compat.py imports it on minimx, as course code does
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps 'd2lzh==1.0.0' ||
  echo "note: d2lzh could not be installed; its compat test will be skipped"
if [ ! -x .venv-mxnet/bin/python ] && [ "${MINIMX_SKIP_REFERENCE:-0}" != 1 ]; then
  ("$PYTHON" -m venv .venv-mxnet &&
   .venv-mxnet/bin/python -m pip install -q --disable-pip-version-check \
       'numpy==1.23.5' 'mxnet==1.9.1') ||
    { echo "note: MXNet 1.9.1 could not be installed; differential tests will be skipped"; rm -rf .venv-mxnet; }
fi
if [ -x .venv-mxnet/bin/python ]; then
  export MINIMX_MXNET_PYTHON="$PWD/.venv-mxnet/bin/python"
fi
echo "set-up done after $SECONDS s"
status=0
if [ $# -eq 0 ]; then
  # The book build runs every lesson top to bottom in a fresh kernel and fails on any cell
  # error (the exercises' reference solutions and their tests included), so it is the lesson
  # gate: tests/test_lessons.py runs again only the lessons whose stated figures it checks,
  # and skips the others this build executed (its _build/jupyter_execute/NN-*.ipynb exists;
  # a failing lesson leaves none); tests/browser opens the pages built.
  mkdir -p _build
  start=$SECONDS
  rm -rf _build/jupyter_execute
  why_no_book=$(book_unbuildable)
  if [ -n "$why_no_book" ]; then
    # the book's browser tests skip with the same reason (tests/browser/conftest.py)
    echo "no book build: $why_no_book; tests/test_lessons.py runs the lessons instead"
  else
    echo "building the book (executes every lesson; log: _build/book-build.log)"
    export MINIMX_LESSONS_EXECUTED="$PWD/_build/jupyter_execute"
    if .venv/bin/python tools/build_book.py > _build/book-build.log 2>&1; then
      echo "book built in $((SECONDS - start)) s: _build/html/index.html"
      export MINIMX_BOOK_HTML="$PWD/_build/html"
    else
      tail -n 80 _build/book-build.log
      echo "FAILED: the book build after $((SECONDS - start)) s; tests/test_lessons.py runs"
      echo "the lessons it did not execute and says which cell fails"
      export MINIMX_BOOK_FAILED="$PWD/_build/book-build.log"
      status=1
    fi
  fi
fi
if [ $# -eq 0 ]; then
  # the layer map (.importlinter): every import in the package runs downward
  .venv/bin/lint-imports --no-cache || { echo "FAILED: lint-imports (.importlinter)"; status=1; }
fi
# --durations: the slowest tests of each pass, so the log shows where the time goes
durations=(); [ $# -eq 0 ] && durations=(--durations=25)
.venv/bin/python -m pytest ${durations[@]+"${durations[@]}"} "$@" || status=$?
if [ $# -eq 0 ]; then
  # the tests that take a context, again on two stand-in GPUs that refuse what CuPy refuses
  # (minimx/backend_standin.py): a kernel that mixes host and device arrays fails here;
  # tests marked "programs" run whole programs in subprocesses, the same in both passes
  start=$SECONDS
  echo "the context-taking tests on two strict CuPy stand-in GPUs (MINIMX_TEST_CTX=gpu)"
  MINIMX_TEST_CTX=gpu MINIMX_TEST_STAND_IN_GPUS=2 .venv/bin/python -m pytest -p no:cacheprovider --durations=25 -m 'not programs' \
      tests/op tests/gluon tests/autograd tests/optimizer tests/kvstore tests/module \
      tests/executor tests/symbol tests/rnn tests/io tests/numpy tests/sparse || status=$?
  echo "the stand-in GPU pass took $((SECONDS - start)) s"
fi
echo "scripts/test.sh: $SECONDS s in all; browser screenshots in _build/screenshots/"
exit $status
