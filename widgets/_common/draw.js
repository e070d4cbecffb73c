// Drawing helpers shared by minimx's widgets; prepended to each view's module.
// mmxCategoryColor follows svg.py's category_color, so colours match the static picture.
const MMX_SVGNS = "http://www.w3.org/2000/svg";

function mmxEl(tag, attrs, parent, text) {
  const svgTags = ["svg", "g", "rect", "line", "polyline", "path", "text", "circle", "title"];
  const node = svgTags.includes(tag)
    ? document.createElementNS(MMX_SVGNS, tag)
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// Ten colours told apart at a glance (Tableau 10, as svg.py's CATEGORIES), then golden-angle
// hues: the index-th category in order of appearance gets mmxCategoryColor(index).
const MMX_CATEGORIES = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
  "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

function mmxCategoryColor(index) {
  if (index < MMX_CATEGORIES.length) return MMX_CATEGORIES[index];
  return `hsl(${Math.floor(index * 137.508) % 360}, 60%, 50%)`;
}

// Colours for a few series told apart at a glance (same list as svg.py's SERIES).
const MMX_SERIES = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

function mmxTicks(low, high, count) {
  const span = high - low;
  if (!(span > 0)) return [low];
  const rough = span / Math.max(1, count || 6);
  const power = Math.pow(10, Math.floor(Math.log10(rough)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const ticks = [];
  for (let v = Math.ceil(low / step) * step; v <= high + 1e-9 * span; v += step) {
    ticks.push(Math.round(v * 1e12) / 1e12);
  }
  return ticks;
}

function mmxFmtMs(ms) {
  if (ms === null || ms === undefined) return "-";
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 0.1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(0)} us`;
}

// A tooltip div inside `root`; show(text, event) places it next to the pointer.
function mmxTooltip(root) {
  const tip = mmxEl("div", { class: "mmx-tip" }, root);
  tip.style.display = "none";
  return {
    node: tip,
    show(text, event) {
      tip.textContent = text;
      tip.style.display = "block";
      const box = root.getBoundingClientRect();
      const right = event.clientX - box.left + 12;
      const width = tip.offsetWidth;
      const left = right + width > box.width ? event.clientX - box.left - width - 12 : right;
      tip.style.left = `${Math.max(0, left)}px`;
      tip.style.top = `${event.clientY - box.top + 12}px`;
    },
    hide() {
      tip.style.display = "none";
    },
  };
}

// Replays a recording: calls onFrame(t) from 0 to tEnd over `seconds`, then onDone().
function mmxReplay(tEnd, seconds, onFrame, onDone) {
  const began = performance.now();
  const timer = setInterval(() => {
    const share = Math.min(1, (performance.now() - began) / (seconds * 1000));
    onFrame(share * tEnd);
    if (share >= 1) {
      clearInterval(timer);
      onDone();
    }
  }, 60);
  return () => clearInterval(timer);
}

// The live-or-replay wiring of a replaying widget: the button replays; new data redraws
// (not while `replaying()`); on first render a finished run that this page never saw live
// replays by itself when the model's `autoplay` is on and `hasData(data)`, else it is drawn.
function mmxWireReplay(model, button, replay, draw, replaying, hasData) {
  let sawLive = false;
  button.addEventListener("click", replay);
  model.on("change:data", () => {
    if (!model.get("data").final) sawLive = true;
    if (!replaying()) draw();
  });
  const data = model.get("data");
  if (data && !data.final) sawLive = true;
  if (data && data.final && !sawLive && model.get("autoplay") && hasData(data)) replay();
  else draw();
}
