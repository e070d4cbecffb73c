#!/bin/bash
# Run pages of Dive into Deep Learning (d2l-en v1.0.3, MXNet tab) on minimx and on MXNet 1.9.1,
# interleaved, on stand-in data (no network):
#
#   tools/run_d2l_pages.sh [--sub REGEX REPLACEMENT]... WORK PAGE.md|CHAPTER_FOLDER...
#
# WORK is a scratch folder: stand-ins go to WORK/files (tools/d2l_standins.py and, for the
# NLP chapters, tools/d2l_standins_nlp.py: the files d2l.download fetches) and WORK/mxhome (MXNET_HOME: FashionMNIST and MNIST stand-ins), the
# generated scripts and both sides' output to WORK/keep, the table to WORK/out.json.
# Each leading ``--sub REGEX REPLACEMENT`` edits the generated scripts the same way on both
# sides (tools/run_chapters.py --sub): a slow page shortened, e.g. fewer epochs.
# Pages read ../data relative to their own folder: run on a copy of the book per session.
# Settings (environment): MINIMX_PYTHON (default /work/main/.venv/bin/python),
# MXNET_PYTHON (/work/main/.venv-mxnet/bin/python), D2L_PRINT_FIGURES=1 (each plotted curve's last
# point printed at the end: tools/d2l_site/sitecustomize.py), D2L_CPU_DEVICES=1 (d2l.try_all_gpus() gives
# [cpu()] without a GPU: tools/d2l_site/sitecustomize.py), SITE_MINI / SITE_MX (folders put on
# PYTHONPATH for packages a venv lacks: pandas for minimx's, matplotlib/pandas/PIL for
# MXNet's), TIMEOUT (seconds per page and side, default 600), JSON (default WORK/out.json).
# tools/d2l_table.py WORK/keep WORK/out.json turns a run into a Markdown table of both sides.
# tools/d2l_seeds.py runs pages once per seed on both sides and tables each figure's spread
# (issue 27: is a difference more than either side's run-to-run spread?).
set -euo pipefail
subs=()
while [ "${1:-}" = --sub ]; do
    [ $# -ge 3 ] || { echo "--sub needs REGEX and REPLACEMENT" >&2; exit 2; }
    subs+=(--sub "$2" "$3"); shift 3
done
work=$(realpath -m "$1"); shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
minimx_python=${MINIMX_PYTHON:-/work/main/.venv/bin/python}
mxnet_python=${MXNET_PYTHON:-/work/main/.venv-mxnet/bin/python}
book=$(realpath "$1")   # the book: the first folder above the first page that holds d2l/mxnet.py
while [ ! -f "$book/d2l/mxnet.py" ]; do
    [ "$book" != / ] || { echo "no d2l/mxnet.py above $1" >&2; exit 2; }
    book=$(dirname "$book")
done
mkdir -p "$work"
if [ ! -f "$work/files/.done" ]; then
    "$minimx_python" "$here/d2l_standins.py" "$work"
fi
pages=(); for page in "$@"; do pages+=("$(realpath "$page")"); done
cd "$repo"
PYTHONPATH="$here/d2l_site:$repo:$book:${SITE_MINI:-}" D2L_STANDINS="$work/files" \
    "$minimx_python" tools/run_chapters.py --tab mxnet --timeout "${TIMEOUT:-600}" \
    --reference "$mxnet_python" \
    --env PYTHONPATH="$here/d2l_site:$book:${SITE_MX:-}" --env D2L_ACCEPT_MXNET_HOME=1 \
    --env-both MXNET_HOME="$work/mxhome" --env-both D2L_STANDINS="$work/files" \
    --keep "$work/keep" --json "${JSON:-$work/out.json}" ${subs[@]+"${subs[@]}"} "${pages[@]}"
