# Shared set-up for scripts/course.sh, scripts/test.sh and scripts/book.sh (sourced, not run).
# setup_system checks the Debian packages the commands use (graphviz's `dot`, DejaVu fonts,
# npm for the book's vendored scripts, chromium for the browser tests). Nothing here needs
# root when they are present. A missing one is installed only by root with apt-get; otherwise
# (or when apt-get fails) the run prints each missing package, what it is for and the command
# that installs it, and goes on: what needs it is skipped with that reason. setup_venv makes
# .venv with minimx and the dev + notebook extras, and JupyterLab's settings so that .md
# lessons open as notebooks.
PYTHON=${PYTHON:-python3}
FONT=${MINIMX_FONT:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}   # the font checked for
CHROMIUM=${MINIMX_CHROMIUM:-/usr/bin/chromium}

missing_packages() {    # missing_packages [chromium]: the Debian names of those not present
  command -v dot >/dev/null 2>&1 || echo graphviz
  [ -e "$FONT" ] || echo fonts-dejavu-core
  command -v npm >/dev/null 2>&1 || echo npm
  if [ "${1:-}" = chromium ] && [ ! -x "$CHROMIUM" ]; then echo chromium; fi
}

package_use() {         # package_use NAME: what the commands use it for, and without it
  case "$1" in
    graphviz) echo "dot draws mx.viz.plot_network's graphs (else: the lessons and tests" \
                   "drawing them skip, and the book)";;
    fonts-dejavu-core) echo "the font graphviz and chromium draw text with";;
    npm) echo "fetches the book's scripts on its first build (else: no book; its tests skip)";;
    chromium) echo "the browser tests/browser drives (else: those tests skip)";;
  esac
}

setup_system() {        # setup_system [chromium]: the Debian packages this run uses
  local missing
  missing=$(missing_packages "$@")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $(echo $missing) (apt-get)"
    # shellcheck disable=SC2086  # one word per package
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends $missing >/dev/null; } || echo "note: apt-get failed"
    missing=$(missing_packages "$@")
    [ -z "$missing" ] && return 0
  fi
  echo "note: these system packages are missing; the run goes on without them:"
  local name
  for name in $missing; do
    printf '  %-18s %s\n' "$name" "$(package_use "$name")"
  done
  local sudo="sudo "
  [ "$(id -u)" = 0 ] && sudo=""
  echo "  install them (Debian, Ubuntu; root or sudo needed):" \
       "${sudo}apt-get install $(echo $missing)"
  echo "  (another system: the same packages from its package manager)"
}

setup_venv() {          # .venv with minimx (editable) and everything the lessons and tests use
  if [ ! -x .venv/bin/python ] && ! "$PYTHON" -m venv .venv; then
    rm -rf .venv            # a half-made one (no pip) would fail on the next run too
    echo "FAILED: $PYTHON -m venv .venv; Debian and Ubuntu ship Python's venv module as a"
    echo "  package of its own: sudo apt-get install python3-venv"
    return 1
  fi
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,notebook]'
  local settings=.venv/share/jupyter/lab/settings
  mkdir -p "$settings" && cp tools/lab-overrides.json "$settings/overrides.json"
}

book_unbuildable() {    # prints why the book cannot be built here (dot or npm missing), or nothing
  .venv/bin/python -c 'import sys; sys.path.insert(0, "tools"); import build_book
print(build_book.missing_programs() or "")' || true     # any other fault: the build says
}
