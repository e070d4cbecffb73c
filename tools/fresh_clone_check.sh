#!/usr/bin/env bash
# The "new machine" check: run the README's test command on a fresh clone of this repository's
# HEAD (committed work only), in an environment that cannot see anything installed by hand.
#   bash tools/fresh_clone_check.sh                 # clone HEAD into a scratch folder, test it
#   bash tools/fresh_clone_check.sh -k engine       # extra arguments go to scripts/test.sh
#   KEEP=1 bash tools/fresh_clone_check.sh          # keep the scratch folder (kept on failure)
#   BASE_PYTHON=/path/to/python3 bash tools/fresh_clone_check.sh   # another interpreter
# The interpreter is the one a newcomer has: the operating system's /usr/bin/python3 (Debian
# 12: 3.11.2), not the caller's `python3`, which on a developer's machine is often newer
# (pyenv, conda) and hides what the stock one lacks (tarfile's extractall(filter=) did).
# What the run cannot see:
#   - the base interpreter's packages: PYTHON (which makes .venv and .venv-mxnet) is a venv
#     with no packages at all (made with --without-pip from the machine's python3);
#   - a bare `python`, `python3`, `pip` or `pip3` on PATH: each is a tripwire that prints who
#     called it and fails, so a script that forgets the venv's interpreter fails loudly;
#   - the caller's environment: env -i, a fresh HOME (no ~/.jupyter, ~/.local, caches),
#     PYTHONNOUSERSITE=1, no PYTHONPATH or VIRTUAL_ENV; only the machine's pip and npm
#     registry settings (PIP_* variables; /etc/pip.conf is read anyway) are passed on.
# The log is scratch/test.log; the summary lines are printed at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${BASE_PYTHON:-}" ]; then
  if [ -x /usr/bin/python3 ]; then BASE_PYTHON=/usr/bin/python3; else BASE_PYTHON=$(command -v python3); fi
fi
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/minimx-fresh.XXXXXX")
echo "fresh clone of $(git -C "$ROOT" rev-parse --short HEAD) in $SCRATCH"
echo "interpreter: $BASE_PYTHON ($("$BASE_PYTHON" --version 2>&1))"
git clone -q --no-hardlinks "file://$ROOT" "$SCRATCH/minimx"

"$BASE_PYTHON" -m venv --without-pip "$SCRATCH/plain"
mkdir -p "$SCRATCH/tripwires" "$SCRATCH/home"
for name in python python3 pip pip3; do
  cat > "$SCRATCH/tripwires/$name" <<EOF
#!/bin/sh
echo "fresh_clone_check: a bare '$name \$*' was called (from \$PWD); call the venv's" >&2
echo "interpreter by path (.venv/bin/python) instead" >&2
exit 127
EOF
  chmod +x "$SCRATCH/tripwires/$name"
done

pass_on=()
while IFS='=' read -r name _; do
  case "$name" in PIP_*|npm_config_*|NPM_CONFIG_*|http_proxy|https_proxy|no_proxy|HTTP_PROXY|HTTPS_PROXY|NO_PROXY)
    pass_on+=("$name=${!name}");;
  esac
done < <(env)
[ -f "$HOME/.npmrc" ] && cp "$HOME/.npmrc" "$SCRATCH/home/.npmrc"   # registry settings only

status=0
(cd "$SCRATCH/minimx" &&
 env -i "${pass_on[@]}" HOME="$SCRATCH/home" LANG=C.UTF-8 TERM=dumb PYTHONNOUSERSITE=1 \
     PATH="$SCRATCH/tripwires:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
     PYTHON="$SCRATCH/plain/bin/python" \
     bash scripts/test.sh "$@") > "$SCRATCH/test.log" 2>&1 || status=$?
grep -E "bare '|set-up done|book built|FAILED|passed|failed|scripts/test.sh:" "$SCRATCH/test.log" |
  tail -n 40 || true
echo "fresh_clone_check: scripts/test.sh exited $status (log: $SCRATCH/test.log)"
[ "$status" = 0 ] && [ "${KEEP:-0}" != 1 ] && rm -rf "$SCRATCH"
exit $status
