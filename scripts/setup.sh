# Shared set-up for scripts/course.sh, scripts/test.sh and scripts/book.sh (sourced, not run).
# Installs, only when missing: Debian packages (graphviz's `dot`, DejaVu fonts, npm for the
# book's vendored scripts, chromium for the browser tests; root with apt-get only, and a
# failure only prints a note: the tests that need them skip), then .venv with minimx and the
# dev + notebook extras, and JupyterLab's settings so that .md lessons open as notebooks.
PYTHON=${PYTHON:-python3}

setup_system() {        # setup_system [chromium]: the Debian packages this run needs
  local wanted=()
  command -v dot >/dev/null 2>&1 || wanted+=(graphviz)
  [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || wanted+=(fonts-dejavu-core)
  command -v npm >/dev/null 2>&1 || wanted+=(npm)
  if [ "${1:-}" = chromium ] && [ ! -x "${MINIMX_CHROMIUM:-/usr/bin/chromium}" ]; then
    wanted+=(chromium)
  fi
  [ ${#wanted[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${wanted[*]} (apt-get)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${wanted[@]}" >/dev/null; } ||
      echo "note: apt-get could not install ${wanted[*]}; the tests needing them will skip"
  else
    echo "note: missing ${wanted[*]} (install them with your package manager)"
  fi
}

setup_venv() {          # .venv with minimx (editable) and everything the lessons and tests use
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,notebook]'
  local settings=.venv/share/jupyter/lab/settings
  mkdir -p "$settings" && cp tools/lab-overrides.json "$settings/overrides.json"
}
