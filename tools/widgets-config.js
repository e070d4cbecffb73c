// Loaded between require.js and the widget manager: resolve widget modules and their fonts
// next to this file instead of on a CDN.
(function () {
  var script = document.currentScript.src;
  var base = script.substring(0, script.lastIndexOf("/"));
  require.config({ paths: {
    "@jupyter-widgets": base,
    "@jupyter-widgets/html-manager/dist": base,
    "anywidget": base + "/anywidget/index"
  } });
})();
