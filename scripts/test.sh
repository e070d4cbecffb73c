#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run it.
#   bash scripts/test.sh            # the whole suite
#   bash scripts/test.sh -k engine  # extra arguments go to pytest
# The reference MXNet 1.9.1 goes into its own venv (.venv-mxnet) for the
# differential tests; if it cannot be installed those tests are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
if [ ! -x .venv-mxnet/bin/python ] && [ "${MINIMX_SKIP_REFERENCE:-0}" != 1 ]; then
  ("$PYTHON" -m venv .venv-mxnet &&
   .venv-mxnet/bin/python -m pip install -q --disable-pip-version-check \
       'numpy==1.23.5' 'mxnet==1.9.1') ||
    { echo "note: MXNet 1.9.1 could not be installed; differential tests will be skipped"; rm -rf .venv-mxnet; }
fi
if [ -x .venv-mxnet/bin/python ]; then
  export MINIMX_MXNET_PYTHON="$PWD/.venv-mxnet/bin/python"
fi
exec .venv/bin/python -m pytest "$@"
