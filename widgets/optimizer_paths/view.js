// Optimizer trajectories: a loss surface, each optimizer's path on it, and the losses by step.
// The paths were computed in the kernel by minimx's own optimizers; here they are replayed
// step by step (no kernel needed), and the controls ask the kernel for a new run when one is
// running.  Data layout: widgets/optimizer_paths/model.py (compute_paths) plus `layout`,
// `fills` and `seq` from view.py; static.py draws the same picture as SVG.
const OP_SLIDERS = [
  // key, label, min, max, step, log scale
  ["lr", "learning rate (SGD, momentum, NAG)", -4, 0, 0.05, true],
  ["adaptive_lr", "learning rate (AdaGrad, RMSProp, Adam)", -3, 0.5, 0.05, true],
  ["momentum", "momentum (momentum, NAG)", 0, 0.99, 0.01, false],
  ["steps", "steps", 10, 400, 10, false],
];
const OP_NO_KERNEL_MS = 4000;
const OP_CSS = `
.mmx-op { position: relative; font: 12px sans-serif; color: #222; max-width: 840px; }
.mmx-op-controls { display: grid; grid-template-columns: auto 1fr auto; gap: 2px 8px;
  align-items: center; max-width: 640px; margin-bottom: 4px; }
.mmx-op-controls input[type=range] { width: 100%; }
.mmx-op-bar { display: flex; gap: 8px; align-items: center; margin: 4px 0; }
.mmx-op-status { color: #8a4b00; min-height: 1.3em; }
.mmx-op-legend span { cursor: pointer; margin-right: 12px; user-select: none; }
.mmx-op-legend span.off { opacity: 0.35; text-decoration: line-through; }
.mmx-op-svg { width: 100%; height: auto; display: block; background: white; }
`;

function opFormat(key, value) {
  if (key === "steps") return String(Math.round(value));
  if (key === "momentum") return value.toFixed(2);
  return Number(value.toPrecision(2)).toString();
}

function opPixel(data, x, y) {
  const [x0, x1, y0, y1] = data.objective.box;
  const [left, top, width, height] = data.layout.plot;
  return [left + ((x - x0) / (x1 - x0)) * width, top + height - ((y - y0) / (y1 - y0)) * height];
}

function opInside(data, px, py) {
  const [left, top, width, height] = data.layout.plot;
  return px >= left && px <= left + width && py >= top && py <= top + height;
}

function opGap(data, loss) {
  return Math.max(loss - data.objective.f_min, 1e-12);
}

// The contour panel: bands, level lines, the minimum and the start; returns the group the
// paths go in (data coordinates) and the one their end markers go in (pixels).
function opSurface(svg, data, onPick) {
  const [x0, x1, y0, y1] = data.objective.box;
  const [left, top, width, height] = data.layout.plot;
  mmxEl("rect", { x: left, y: top, width, height, fill: "#fff" }, svg);
  const frame = mmxEl("svg", { x: left, y: top, width, height, preserveAspectRatio: "none",
    viewBox: `${x0} ${-y1} ${x1 - x0} ${y1 - y0}` }, svg);
  const flip = mmxEl("g", { transform: "scale(1,-1)" }, frame);
  data.surface.bands.forEach((band, i) => mmxEl("path", { d: band.d, fill: data.fills[i],
    "fill-rule": "evenodd", stroke: "none" }, flip));
  for (const line of data.surface.lines) {
    mmxEl("path", { d: line.d, fill: "none", stroke: "#8a9aa8", "stroke-width": 0.6,
      "vector-effect": "non-scaling-stroke" }, flip);
  }
  const paths = mmxEl("g", {}, flip);
  const markers = mmxEl("g", {}, svg);
  const [mx, my] = opPixel(data, ...data.objective.minimum);
  mmxEl("text", { x: mx, y: my + 4, "text-anchor": "middle", "font-size": 13, fill: "#333" },
    svg, "★");
  const [sx, sy] = opPixel(data, ...data.settings.start);
  mmxEl("circle", { cx: sx, cy: sy, r: 4, fill: "#222" }, svg);
  mmxEl("rect", { x: left, y: top, width, height, fill: "none", stroke: "#666" }, svg);
  for (const tick of mmxTicks(x0, x1, 6)) {
    mmxEl("text", { x: left + ((tick - x0) / (x1 - x0)) * width, y: top + height + 14,
      "text-anchor": "middle", fill: "#555" }, svg, String(tick));
  }
  for (const tick of mmxTicks(y0, y1, 6)) {
    mmxEl("text", { x: left - 4, y: top + height - ((tick - y0) / (y1 - y0)) * height + 4,
      "text-anchor": "end", fill: "#555" }, svg, String(tick));
  }
  frame.addEventListener("click", (event) => {
    const box = frame.getBoundingClientRect();
    const fx = (event.clientX - box.left) / box.width, fy = (event.clientY - box.top) / box.height;
    onPick([x0 + fx * (x1 - x0), y1 - fy * (y1 - y0)]);
  });
  frame.style.cursor = "crosshair";
  return { paths, markers };
}

// The loss panel: log10(loss - f_min) against the step; returns its y mapping.
function opLossPanel(svg, data) {
  const [left, top, width, height] = data.layout.loss;
  const gaps = data.paths.flatMap((p) => p.losses.map((v) => opGap(data, v)));
  const low = Math.floor(Math.log10(Math.min(...gaps)));
  const high = Math.max(Math.ceil(Math.log10(Math.max(...gaps))), low + 1);
  const y = (v) => top + height - ((Math.log10(opGap(data, v)) - low) / (high - low)) * height;
  const steps = Math.max(1, data.settings.steps);
  const x = (k) => left + (k / steps) * width;
  mmxEl("rect", { x: left, y: top, width, height, fill: "#fff", stroke: "#666" }, svg);
  mmxEl("text", { x: left + width / 2, y: top - 4, "text-anchor": "middle" }, svg,
    "loss − f_min (log scale) against step");
  const every = Math.max(1, Math.ceil((high - low) / 6));
  for (let e = low; e <= high; e += every) {
    const py = top + height - ((e - low) / (high - low)) * height;
    mmxEl("line", { x1: left, x2: left + width, y1: py, y2: py, stroke: "#eee" }, svg);
    mmxEl("text", { x: left - 4, y: py + 4, "text-anchor": "end", fill: "#555" }, svg, `1e${e}`);
  }
  for (const tick of mmxTicks(0, steps, 5)) {
    mmxEl("text", { x: x(tick), y: top + height + 14, "text-anchor": "middle", fill: "#555" },
      svg, String(tick));
  }
  const cursor = mmxEl("line", { y1: top, y2: top + height, stroke: "#c33" }, svg);
  return { x, y, cursor, group: mmxEl("g", {}, svg) };
}

// The whole picture for one data payload; `frame(k, hidden)` shows the first k updates.
function opPicture(data, onPick, tip) {
  const { width, height } = data.layout;
  const svg = mmxEl("svg", { viewBox: `0 24 ${width} ${height - 46}`, class: "mmx-op-svg" });
  const surface = opSurface(svg, data, onPick);
  const loss = opLossPanel(svg, data);
  const items = data.paths.map((path) => {
    const line = mmxEl("polyline", { fill: "none", stroke: path.color, "stroke-width": 2,
      "vector-effect": "non-scaling-stroke" }, surface.paths);
    const head = mmxEl("circle", { r: 4, fill: path.color, stroke: "#fff" }, surface.markers);
    const curve = mmxEl("polyline", { fill: "none", stroke: path.color, "stroke-width": 1.5 },
      loss.group);
    head.addEventListener("mousemove", (event) => tip.show(head.dataset.tip, event));
    head.addEventListener("mouseleave", () => tip.hide());
    return { path, line, head, curve };
  });
  function frame(k, hidden) {
    for (const { path, line, head, curve } of items) {
      const shown = Math.min(k, path.points.length - 1);
      const visible = hidden.has(path.name) ? "none" : null;
      for (const node of [line, head, curve]) node.style.display = visible;
      const drawn = path.points.slice(0, shown + 1);
      line.setAttribute("points", drawn.map((p) => p.join(",")).join(" "));
      curve.setAttribute("points", path.losses.slice(0, shown + 1)
        .map((v, i) => `${loss.x(i).toFixed(1)},${loss.y(v).toFixed(1)}`).join(" "));
      const [px, py] = opPixel(data, ...path.points[shown]);
      head.setAttribute("cx", px);
      head.setAttribute("cy", py);
      if (!opInside(data, px, py)) head.style.display = "none";
      const [x, y] = path.points[shown];
      head.dataset.tip = `${path.name} after ${shown} updates\n(x, y) = (${x.toPrecision(4)}, `
        + `${y.toPrecision(4)})\nloss = ${path.losses[shown].toPrecision(5)}`
        + (path.diverged && shown === path.points.length - 1 ? "\ndiverged: the run stopped" : "");
    }
    loss.cursor.setAttribute("x1", loss.x(k));
    loss.cursor.setAttribute("x2", loss.x(k));
  }
  return { svg, frame };
}

function opControls(root, onChange) {
  const box = mmxEl("div", { class: "mmx-op-controls" }, root);
  mmxEl("span", {}, box, "objective");
  const select = mmxEl("select", {}, box);
  mmxEl("span", {}, box, "");
  const inputs = {};
  for (const [key, label, min, max, step] of OP_SLIDERS) {
    mmxEl("span", {}, box, label);
    const input = mmxEl("input", { type: "range", min, max, step, class: `mmx-op-${key}` }, box);
    const readout = mmxEl("span", { class: "mmx-op-readout" }, box);
    inputs[key] = { input, readout };
    input.addEventListener("input", () => { readout.textContent = opFormat(key, read(key)); });
    input.addEventListener("change", () => onChange(key));
  }
  select.addEventListener("change", () => onChange("objective"));
  function read(key) {
    const spec = OP_SLIDERS.find((s) => s[0] === key);
    const raw = Number(inputs[key].input.value);
    return spec[5] ? Math.pow(10, raw) : raw;
  }
  function write(settings) {
    for (const [key, , , , , log] of OP_SLIDERS) {
      inputs[key].input.value = log ? Math.log10(settings[key]) : settings[key];
      inputs[key].readout.textContent = opFormat(key, settings[key]);
    }
  }
  return { select, read, write };
}

function render({ model, el }) {
  const style = mmxEl("style", {}, el, OP_CSS);
  const root = mmxEl("div", { class: "mmx-op" }, el);
  const head = mmxEl("div", { class: "mmx-head" }, root);
  const sub = mmxEl("div", {}, root);
  let pending = null, noKernel = null, stopReplay = null, picture = null, k = 0;
  const hidden = new Set();
  const controls = opControls(root, (key) => request(key));
  const bar = mmxEl("div", { class: "mmx-op-bar" }, root);
  const play = mmxEl("button", { class: "mmx-replay" }, bar, "▶ replay");
  const scrub = mmxEl("input", { type: "range", min: 0, max: 1, value: 0, step: 1,
    class: "mmx-op-step" }, bar);
  const stepText = mmxEl("span", { class: "mmx-op-steptext" }, bar);
  const status = mmxEl("div", { class: "mmx-op-status" }, root);
  const legend = mmxEl("div", { class: "mmx-op-legend" }, root);
  const holder = mmxEl("div", {}, root);
  const tip = mmxTooltip(root);

  function request(key, start) {
    const data = model.get("data");
    const settings = {};
    for (const [name] of OP_SLIDERS) settings[name] = controls.read(name);
    settings.objective = controls.select.value;
    settings.start = start || (key === "objective" ? null : data.settings.start);
    if (key === "objective") {
      const choice = model.get("choices").find((c) => c.name === settings.objective);
      Object.assign(settings, { lr: choice.lr, adaptive_lr: choice.adaptive_lr,
        steps: choice.steps });
      controls.write(settings);
    }
    settings.seq = Date.now();      // echoed back as data.seq with the new run
    pending = settings.seq;
    model.set("request", settings);
    model.save_changes();
    status.textContent = "recomputing the paths in the kernel…";
    clearTimeout(noKernel);
    noKernel = setTimeout(() => {
      if (pending === null) return;
      pending = null;
      status.textContent = "No kernel is running: this page shows the run recorded when it was "
        + "built. Open the notebook in JupyterLab to try other settings.";
      sync(model.get("data"));
    }, OP_NO_KERNEL_MS);
  }

  function sync(data) {
    controls.write(data.settings);
    const choices = model.get("choices") || [];
    controls.select.textContent = "";
    const names = choices.length ? choices : [data.objective];
    for (const choice of names) {
      const option = mmxEl("option", { value: choice.name }, controls.select, choice.title);
      if (choice.name === data.objective.name) option.selected = true;
    }
  }

  function drawLegend(data) {
    legend.textContent = "";
    for (const path of data.paths) {
      const item = mmxEl("span", { class: hidden.has(path.name) ? "off" : "" }, legend);
      mmxEl("span", { style: `color:${path.color};margin:0` }, item, "■ ");
      item.appendChild(document.createTextNode(path.name + (path.diverged ? " (diverged)" : "")));
      item.title = Object.entries(path.params).map(([a, b]) => `${a}=${b}`).join(", ")
        + ` (mx.optimizer.create('${path.optimizer}', ...))`;
      item.addEventListener("click", () => {
        if (hidden.has(path.name)) hidden.delete(path.name); else hidden.add(path.name);
        drawLegend(data);
        show(k);
      });
    }
  }

  function show(step) {
    const data = model.get("data");
    k = step;
    picture.frame(k, hidden);
    scrub.value = k;
    stepText.textContent = `after ${k} of ${data.settings.steps} updates`;
  }

  function replay() {
    if (stopReplay) stopReplay();
    const steps = model.get("data").settings.steps;
    stopReplay = mmxReplay(steps, Math.min(6, Math.max(2.5, steps / 40)),
      (t) => show(Math.floor(t)), () => { stopReplay = null; show(steps); });
  }

  function draw() {
    const data = model.get("data");
    if (!data || !data.paths) return;
    if (stopReplay) { stopReplay(); stopReplay = null; }
    head.textContent = `${data.objective.title}: f(x, y) = ${data.objective.formula}`;
    sub.textContent = "Paths computed by minimx's optimizers (update() on a 2-element NDArray, "
      + "gradients from autograd). Click the surface to start elsewhere; click a legend entry "
      + "to hide a path.";
    if (data.error) status.textContent = data.error;
    sync(data);
    drawLegend(data);
    picture = opPicture(data, (start) => request("start", start), tip);
    holder.textContent = "";
    holder.appendChild(picture.svg);
    scrub.max = data.settings.steps;
    show(data.settings.steps);
  }

  play.addEventListener("click", replay);
  scrub.addEventListener("input", () => {
    if (stopReplay) { stopReplay(); stopReplay = null; }
    show(Number(scrub.value));
  });
  model.on("change:data", () => {
    const data = model.get("data");
    if (pending !== null && data.seq === pending) {
      pending = null;
      clearTimeout(noKernel);
      status.textContent = data.error || "";
    }
    draw();
    replay();
  });
  draw();
  if (model.get("autoplay")) replay();
  return () => {
    if (stopReplay) stopReplay();
    clearTimeout(noKernel);
    style.remove();
  };
}

export default { render };
