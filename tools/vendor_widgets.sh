#!/usr/bin/env bash
# Fetch the browser-side scripts the built book needs from the npm registry (no CDN at page
# load): the Jupyter widget manager, require.js, anywidget's loader and MathJax.  The result
# goes to notebooks/_vendor/ (ignored by git) and is copied into the site by Sphinx.
set -euo pipefail
cd "$(dirname "$0")/.."
WIDGETS=notebooks/_vendor/widgets
MATHJAX=notebooks/_vendor/mathjax
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WIDGETS/anywidget" "$MATHJAX"
(cd "$WORK" && npm pack --silent @jupyter-widgets/html-manager@1.0.15 requirejs@2.3.7 \
    mathjax@3.2.2 >/dev/null)
tar -xzf "$WORK"/jupyter-widgets-html-manager-1.0.15.tgz -C "$WORK"
cp "$WORK"/package/dist/embed-amd.js "$WIDGETS/"
cp "$WORK"/package/dist/*.woff "$WORK"/package/dist/*.woff2 "$WORK"/package/dist/*.ttf \
   "$WORK"/package/dist/*.eot "$WORK"/package/dist/*.svg "$WIDGETS/" 2>/dev/null || true
rm -rf "$WORK/package"
tar -xzf "$WORK"/requirejs-2.3.7.tgz -C "$WORK" package/require.js
cp "$WORK"/package/require.js "$WIDGETS/"
rm -rf "$WORK/package"
PREFIX=$(python -c 'import sys; print(sys.prefix)')
if [ -f "$PREFIX/share/jupyter/nbextensions/anywidget/index.js" ]; then
  cp "$PREFIX/share/jupyter/nbextensions/anywidget/index.js" "$WIDGETS/anywidget/index.js"
fi
cp tools/widgets-config.js "$WIDGETS/"
tar -xzf "$WORK"/mathjax-3.2.2.tgz -C "$WORK"
cp "$WORK"/package/es5/tex-mml-chtml.js "$MATHJAX/"
cp -r "$WORK"/package/es5/input "$WORK"/package/es5/output "$WORK"/package/es5/a11y \
      "$WORK"/package/es5/ui "$WORK"/package/es5/sre "$WORK"/package/es5/adaptors "$MATHJAX/"
echo "vendored widget manager, require.js and MathJax into notebooks/_vendor/"
