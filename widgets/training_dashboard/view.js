// The training dashboard: status line, progress bars of the epoch and the run, and one panel
// per curve (losses and metrics, then samples per second) against the batch number.  Live
// while `data.final` is false; a finished run that this page never saw live replays its
// recorded times in the browser (no kernel needed).  Data layout:
// widgets/training_dashboard/model.py (TrainingHistory.to_dict); static.py draws the same.
const TD_WIDTH = 820;
const TD_PANEL = { width: 350, height: 150, left: 52, top: 92, gapX: 60, gapY: 44 };
const TD_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];
const TD_SPEED = "samples/sec";

function tdNumber(value) {
  return Math.round(value).toLocaleString("en-US");
}

// The state shown after the first `count` recorded points (all of them when count is null).
function tdStatus(data, count) {
  const n = count === null ? data.step.length : count;
  if (!n) return "waiting for the first batch...";
  const last = n - 1;
  const epoch = data.epoch[last];
  const perEpoch = data.batches_per_epoch;
  const firstOfEpoch = data.epoch_starts.filter((s) => s <= data.step[last]).pop() || 0;
  const batch = count === null ? data.progress.batch : data.step[last] - firstOfEpoch;
  const speed = count === null ? data.current_speed : data.speed[last];
  // epochs and batches count from 1 here, as the totals do (MXNet's epoch 0 is "epoch 1/N")
  const parts = [`epoch ${epoch + 1}${data.num_epochs ? "/" + data.num_epochs : ""}`,
    `batch ${batch + 1}${perEpoch ? "/" + perEpoch : ""}`,
    speed ? `${tdNumber(speed)} samples/s` : "- samples/s"];
  if (count === null) {
    if (data.average_speed) parts[2] += ` (average ${tdNumber(data.average_speed)})`;
    parts.push(`${data.samples.toLocaleString("en-US")} samples in ${data.elapsed.toFixed(2)} s`);
  } else {
    parts.push(`replay t = ${data.t[last].toFixed(2)} s`);
  }
  return parts.join("  ·  ");
}

function tdFractions(data, count) {
  if (count === null) return [data.progress.epoch_fraction, data.progress.run_fraction];
  if (!count) return [0, 0];
  const last = count - 1, perEpoch = data.batches_per_epoch;
  if (!perEpoch) return [null, null];
  const firstOfEpoch = data.epoch_starts.filter((s) => s <= data.step[last]).pop() || 0;
  const inEpoch = Math.min(1, (data.step[last] - firstOfEpoch + 1) / perEpoch);
  const run = data.num_epochs
    ? Math.min(1, (data.epoch[last] - data.epoch[0] + inEpoch) / data.num_epochs) : null;
  return [inEpoch, run];
}

function tdBar(svg, y, label, fraction) {
  const width = TD_WIDTH - 140;
  mmxEl("text", { x: 4, y: y + 11 }, svg, label);
  mmxEl("rect", { x: 90, y, width, height: 14, fill: "#eee", stroke: "#bbb" }, svg);
  mmxEl("rect", { x: 90, y, width: fraction === null ? 0 : width * fraction, height: 14,
    fill: "#5b9bd5", class: `mmx-td-bar-${label}` }, svg);
  mmxEl("text", { x: 96 + width, y: y + 11 }, svg,
    fraction === null ? "?" : `${Math.round(100 * fraction)}%`);
}

function tdPanel(svg, x0, y0, name, data, values, count, color) {
  const { width, height } = TD_PANEL;
  mmxEl("rect", { x: x0, y: y0, width, height, fill: "#fff", stroke: "#888" }, svg);
  mmxEl("text", { x: x0, y: y0 - 5, "font-weight": "bold" }, svg, name);
  const n = count === null ? data.step.length : count;
  const validation = name === TD_SPEED ? [] : data.validation
    .filter((v) => v.values[name] !== null && v.values[name] !== undefined);
  // the axes cover the whole run, so a replay grows into a fixed frame
  const all = values.filter((v) => v !== null).concat(validation.map((v) => v.values[name]));
  if (!all.length) return;
  const lastStep = Math.max(1, data.step[data.step.length - 1]);
  let low = Math.min(...all), high = Math.max(...all);
  if (high - low < 1e-12) { low -= 0.5; high += 0.5; }
  const px = (s) => x0 + (s / lastStep) * width;
  const py = (v) => y0 + height - ((v - low) / (high - low)) * height;
  for (const tick of mmxTicks(low, high, 4)) {
    mmxEl("line", { x1: x0, x2: x0 + width, y1: py(tick), y2: py(tick), stroke: "#eee" }, svg);
    mmxEl("text", { x: x0 - 4, y: py(tick) + 4, "text-anchor": "end", fill: "#555" }, svg,
      String(tick));
  }
  const upTo = n ? data.step[n - 1] : -1;
  for (const start of data.epoch_starts.filter((s) => s <= upTo)) {
    mmxEl("line", { x1: px(start), x2: px(start), y1: y0, y2: y0 + height, stroke: "#bbb",
      "stroke-dasharray": "3,3" }, svg);
  }
  const points = [];
  for (let i = 0; i < n; i++) {
    if (values[i] === null) continue;
    points.push(`${px(data.step[i]).toFixed(1)},${py(values[i]).toFixed(1)}`);
  }
  mmxEl("polyline", { points: points.join(" "), fill: "none", stroke: color,
    "stroke-width": 1.5, class: "mmx-td-curve" }, svg);
  for (const v of validation.filter((v) => v.step <= upTo)) {
    const dot = mmxEl("circle", { cx: px(v.step), cy: py(v.values[name]), r: 4, fill: "#fff",
      stroke: color, "stroke-width": 2 }, svg);
    mmxEl("title", {}, dot, `validation ${name} = ${v.values[name]} (epoch ${v.epoch + 1})`);
  }
  if (n) {
    const latest = values.slice(0, n).filter((v) => v !== null).pop();
    mmxEl("text", { x: x0 + width, y: y0 - 5, "text-anchor": "end", fill: color }, svg,
      latest === undefined ? "" : Number(latest.toPrecision(4)).toString());
    mmxEl("text", { x: x0 + width, y: y0 + height + 14, "text-anchor": "end", fill: "#555" },
      svg, `batch ${data.step[n - 1] + 1}`);
  }
}

function tdDraw(data, count) {
  const names = data.names.concat([TD_SPEED]);
  const rows = Math.ceil(names.length / 2);
  const height = TD_PANEL.top + rows * (TD_PANEL.height + TD_PANEL.gapY) - 10;
  const svg = mmxEl("svg", { viewBox: `0 0 ${TD_WIDTH} ${height}`, class: "mmx-td-svg" });
  const [inEpoch, run] = tdFractions(data, count);
  tdBar(svg, 26, "epoch", inEpoch);
  tdBar(svg, 46, "run", run);
  names.forEach((name, i) => {
    const [row, column] = [Math.floor(i / 2), i % 2];
    const x0 = TD_PANEL.left + column * (TD_PANEL.width + TD_PANEL.gapX);
    const y0 = TD_PANEL.top + row * (TD_PANEL.height + TD_PANEL.gapY);
    const values = name === TD_SPEED ? data.speed : data.values[name];
    if (data.step.length) tdPanel(svg, x0, y0, name, data, values, count, TD_COLORS[i % 6]);
  });
  return svg;
}

function render({ model, el }) {
  const style = mmxEl("style", {}, el, ".mmx-td { font: 12px sans-serif; color: #222; "
    + "max-width: 840px; } .mmx-td-svg { width: 100%; height: auto; display: block; "
    + "background: white; } .mmx-td .mmx-controls { margin: 2px 0; }");
  const root = mmxEl("div", { class: "mmx-td" }, el);
  const head = mmxEl("div", { class: "mmx-head" }, root);
  const controls = mmxEl("div", { class: "mmx-controls" }, root);
  const button = mmxEl("button", { class: "mmx-replay" }, controls, "▶ replay");
  const note = mmxEl("span", { class: "mmx-td-note" }, controls);
  const picture = mmxEl("div", {}, root);
  let count = null, stopReplay = null;

  function draw() {
    const data = model.get("data");
    if (!data || !data.step) return;
    const title = data.title ? `${data.title}: ` : "";
    head.textContent = title + tdStatus(data, count);
    button.disabled = !data.final || !data.step.length;
    note.textContent = data.final ? "" : "live: redrawn while the loop runs";
    picture.textContent = "";
    picture.appendChild(tdDraw(data, count));
  }
  function replay() {
    if (stopReplay) stopReplay();
    const data = model.get("data");
    const tEnd = data.t[data.t.length - 1] || 0;
    stopReplay = mmxReplay(tEnd, Math.min(6, Math.max(2.5, tEnd)), (t) => {
      let n = 0;
      while (n < data.t.length && data.t[n] <= t) n++;
      count = Math.max(1, n);
      draw();
    }, () => { stopReplay = null; count = null; draw(); });
  }
  mmxWireReplay(model, button, replay, draw, () => stopReplay, (data) => data.step.length);
  return () => { if (stopReplay) stopReplay(); style.remove(); };
}

export default { render };
