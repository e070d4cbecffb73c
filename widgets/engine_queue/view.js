// The engine queue view: lanes of pushes and runs, dependency edges, queue depth, and the
// operations in flight at a moment.  Live while `data.final` is false; afterwards the recorded
// times replay in the browser (no kernel needed).  Data layout: widgets/engine_queue/payload.py.
const EQ_WIDTH = 860, EQ_LABEL = 170, EQ_LANE = 26, EQ_DEPTH = 90, EQ_TOP = 6;
const EQ_STATES = {
  pushed: ["#c8c8c8", "waiting for inputs"],
  ready: ["#e0a030", "ready, queued for a worker"],
  running: ["#3a8a3a", "running"],
};
const EQ_EDGE_KINDS = ["read after write", "write after write", "write after read"];
// sync points (a frontend waiting for the engine), as static.py draws them
const EQ_SYNC_COLOUR = "#9aa5b1", EQ_VALUE_DEPENDENT_COLOUR = "#8e2c9a";

// op = [id, name index, frontend lane, worker lane, push, ready, start, end, reads, writes, error]
function eqState(op, t) {
  if (op[7] !== null && op[7] <= t) return "done";
  if (op[6] !== null && op[6] <= t) return "running";
  if (op[5] !== null && op[5] <= t) return "ready";
  const first = op[4] !== null ? op[4] : op[6];
  return first !== null && first <= t ? "pushed" : "unpushed";
}

function eqTooltip(data, op) {
  const label = (v) => data.var_labels[String(v)] || `var ${v}`;
  const list = (ids) => (ids.length ? ids.map(label).join(", ") : "-");
  const lines = [`${data.names[op[1]]} (op ${op[0]})`, `reads: ${list(op[8])}`,
    `writes: ${list(op[9])}`];
  if (op[4] !== null && op[6] !== null) {
    const waited = op[5] !== null ? `, waited for inputs ${mmxFmtMs(op[5] - op[4])}` : "";
    lines.push(`queued ${mmxFmtMs(op[6] - op[4])}${waited}`);
  }
  if (op[6] !== null && op[7] !== null) lines.push(`ran ${mmxFmtMs(op[7] - op[6])}`);
  if (op[10]) lines.push(`error: ${op[10]}`);
  return lines.join("\n");
}

// sync = [lane, begin, end, var, waited-for op id, its name, reason, value-dependent]
function eqSyncTooltip(data, sync) {
  const [, begin, end, v, opId, opName, reason, valueDependent] = sync;
  const what = v === null ? "every pushed operation" : data.var_labels[String(v)] || `var ${v}`;
  return [`sync point: ${reason}`
    + (valueDependent ? " (the result's shape needs the input's values)" : ""),
  `waited ${mmxFmtMs(end - begin)} for ${what}`,
  opId !== null ? `until ${opName} (op ${opId}) finished` : "nothing was pending"].join("\n");
}

function eqSyncs(svg, data, t, x, laneY, parts) {
  data.syncs.forEach((sync) => {
    const [lane, begin, end] = sync;
    const valueDependent = sync[7];
    if (lane === null || begin > t) return;
    const colour = valueDependent ? EQ_VALUE_DEPENDENT_COLOUR : EQ_SYNC_COLOUR;
    const nodes = [mmxEl("rect", { x: x(begin), y: laneY(lane) + 6,
      width: Math.max(2, x(Math.min(end, t)) - x(begin)), height: EQ_LANE - 12, fill: colour,
      "fill-opacity": 0.55, class: valueDependent ? "mmx-sync mmx-sync-value" : "mmx-sync" },
    svg)];
    if (valueDependent) {
      const px = x(begin), py = laneY(lane) + EQ_LANE / 2;
      nodes.push(mmxEl("path", { d: `M${px},${py - 6} L${px + 5},${py} L${px},${py + 6} `
        + `L${px - 5},${py} Z`, fill: colour, class: "mmx-sync-mark" }, svg));
    }
    nodes.forEach((node) => {
      node.addEventListener("mouseenter", (event) => parts.tip.show(eqSyncTooltip(data, sync),
        event));
      node.addEventListener("mouseleave", () => parts.tip.hide());
    });
  });
}

// Under the depth legend, when there are sync points: their colours and how many.
function eqSyncLegend(svg, data, top) {
  const s = data.summary;
  if (!s.syncs) return;
  mmxEl("text", { x: EQ_WIDTH - 10, y: top + 38, "text-anchor": "end", fill: EQ_SYNC_COLOUR },
    svg, `sync points: ${s.syncs}`);
  mmxEl("text", { x: EQ_WIDTH - 10, y: top + 52, "text-anchor": "end",
    fill: EQ_VALUE_DEPENDENT_COLOUR }, svg, `value-dependent: ${s.value_dependent_syncs}`);
}

function eqHeadline(data, t, live) {
  const s = data.summary;
  if (!s.operations) return "waiting for engine events...";
  let text = `${s.operations} ops: last pushed at ${mmxFmtMs(s.last_push_ms)}, all finished at `
    + `${mmxFmtMs(s.finished_ms)}; workers busy ${mmxFmtMs(s.busy_ms)} `
    + `(x${s.parallelism.toFixed(2)} parallel); deepest queue ${s.max_depth}`;
  if (s.errors) text += `; ${s.errors} failed`;
  if (live) text = `LIVE - ${text}`;
  else if (t < data.t_end) text = `replay t = ${mmxFmtMs(t)} - ${text}`;
  return (data.title ? `${data.title}: ` : "") + text;
}

function eqDraw(parts, data, t, showEdges) {
  const lanes = data.lanes;
  const tEnd = Math.max(data.t_end || 0, 1e-3);
  const plot = EQ_WIDTH - EQ_LABEL - 10;
  const laneBottom = EQ_TOP + EQ_LANE * lanes.length;
  const height = laneBottom + 30 + EQ_DEPTH + 10;
  const x = (ms) => EQ_LABEL + (plot * (ms || 0)) / tEnd;
  const laneY = (lane) => EQ_TOP + lane * EQ_LANE;
  const svg = mmxEl("svg", { viewBox: `0 0 ${EQ_WIDTH} ${height}`, class: "mmx-eq-svg" });
  for (const tick of mmxTicks(0, tEnd, 6)) {
    mmxEl("line", { x1: x(tick), x2: x(tick), y1: EQ_TOP, y2: laneBottom + 4, stroke: "#ddd" },
      svg);
    mmxEl("text", { x: x(tick), y: laneBottom + 16, "text-anchor": "middle", fill: "#555" },
      svg, String(tick));
  }
  // in the label column, left of the "0" tick: clear of every tick number
  mmxEl("text", { x: EQ_LABEL - 8, y: laneBottom + 16, "text-anchor": "end", fill: "#555" },
    svg, "time (ms)");
  lanes.forEach(([name, kind], i) => {
    mmxEl("rect", { x: EQ_LABEL, y: laneY(i) + 2, width: plot, height: EQ_LANE - 4,
      fill: kind === "frontend" ? "#eef3fb" : "#f6f6f6" }, svg);
    const label = kind === "frontend" ? `${name} (pushes)` : name;
    mmxEl("text", { x: 4, y: laneY(i) + EQ_LANE / 2 + 4, class: "mmx-lane" }, svg,
      label.slice(0, 26));
  });
  const overlay = mmxEl("g", {}, svg);
  if (data.aggregated) eqBins(svg, data, t, x, laneY, parts);
  else eqOps(svg, overlay, data, t, x, laneY, parts, showEdges);
  eqSyncs(svg, data, t, x, laneY, parts);
  svg.appendChild(overlay);     // edges on top, so none hides under a bar
  mmxEl("line", { x1: x(t), x2: x(t), y1: EQ_TOP, y2: height - 10, stroke: "#c33",
    "stroke-width": 1, class: "mmx-cursor" }, svg);
  eqDepth(svg, data, t, x, laneBottom + 30);
  eqSyncLegend(svg, data, laneBottom + 30);
  return svg;
}

// Drawn width of a run bar: 1 px short of its time, so back-to-back runs show a gap.
function eqBarWidth(pixels) {
  return Math.max(1, pixels - 1);
}

// Path of a dependency edge (same shape as static.py's edge_path): a hump over the bars in
// one lane, an S-curve bulging right between lanes; visible even when x2 == x1.
function eqEdgePath(x1, top1, x2, top2) {
  const f = (v) => v.toFixed(1);
  if (top1 === top2) {
    const pad = Math.max(0, (8 - (x2 - x1)) / 2);
    const left = x1 - pad, right = x2 + pad, y = top1 + 4;
    return `M${f(left)},${f(y)} C${f(left)},${f(y - 9)} ${f(right)},${f(y - 9)} `
      + `${f(right)},${f(y)}`;
  }
  const y1 = top1 + EQ_LANE / 2, y2 = top2 + EQ_LANE / 2;
  const bulge = Math.max(16, Math.abs(x2 - x1) / 2);
  return `M${f(x1)},${f(y1)} C${f(x1 + bulge)},${f(y1)} ${f(x2 - bulge)},${f(y2)} `
    + `${f(x2)},${f(y2)}`;
}

function eqOps(svg, overlay, data, t, x, laneY, parts, showEdges) {
  const ops = data.ops;
  const edgesOf = new Map();
  data.edges.forEach((edge) => {
    for (const end of [edge[0], edge[1]]) {
      if (!edgesOf.has(end)) edgesOf.set(end, []);
      edgesOf.get(end).push(edge);
    }
  });
  const edgeLine = (edge, colour, dash) => {
    const a = ops[edge[0]], b = ops[edge[1]];
    if (a[3] === null || b[3] === null || a[7] === null || b[6] === null) return;
    if (a[7] > t || b[6] > t) return;
    mmxEl("path", { d: eqEdgePath(x(a[7]), laneY(a[3]), x(b[6]), laneY(b[3])), fill: "none",
      stroke: colour, "stroke-width": 1, "stroke-dasharray": dash, "pointer-events": "none",
      class: dash ? "mmx-edge" : "mmx-edge mmx-edge-hover" }, overlay);
  };
  if (showEdges) data.edges.forEach((e) => e[4] && edgeLine(e, "#555", "3,2"));
  ops.forEach((op, index) => {
    const state = eqState(op, t);
    if (state === "unpushed") return;
    const colour = mmxCategoryColor(op[1]);
    const hover = (node) => {
      node.addEventListener("mouseenter", (event) => {
        parts.tip.show(eqTooltip(data, op), event);
        (edgesOf.get(index) || []).forEach((e) => edgeLine(e, "#222", null));
      });
      node.addEventListener("mouseleave", () => {
        parts.tip.hide();
        overlay.querySelectorAll(".mmx-edge-hover").forEach((edge) => edge.remove());
      });
    };
    if (op[2] !== null && op[4] !== null) {
      hover(mmxEl("line", { x1: x(op[4]), x2: x(op[4]), y1: laneY(op[2]) + 4,
        y2: laneY(op[2]) + EQ_LANE - 4, stroke: colour, "stroke-width": 2,
        class: "mmx-push" }, svg));
    }
    if (op[3] !== null && op[6] !== null && op[6] <= t) {
      const end = Math.min(op[7] !== null ? op[7] : data.t_end, t);
      hover(mmxEl("rect", { x: x(op[6]), y: laneY(op[3]) + 4,
        width: eqBarWidth(x(end) - x(op[6])), height: EQ_LANE - 8, fill: colour,
        stroke: op[10] ? "#c00" : state === "running" ? "#222" : null,
        "stroke-width": op[10] || state === "running" ? 2 : null, class: "mmx-op",
        "data-op": op[0] }, svg));
    }
  });
}

function eqBins(svg, data, t, x, laneY, parts) {
  const bins = data.bins;
  const width = Math.max(1, x(bins.width_ms) - x(0));
  bins.lanes.forEach((row, lane) => {
    const frontend = data.lanes[lane][1] === "frontend";
    const peak = Math.max(1, ...row);
    row.forEach((value, i) => {
      if (!value || bins.start[i] > t) return;
      const share = frontend ? value / peak : Math.min(1, value);
      const h = (EQ_LANE - 8) * share;
      const names = bins.names[i].map(([n, c]) => `${n} x${c}`).join(", ");
      const text = frontend
        ? `${mmxFmtMs(bins.start[i])}: ${value} pushes`
        : `${mmxFmtMs(bins.start[i])}: busy ${(100 * value).toFixed(0)}%, `
          + `${bins.started[lane][i]} ops started (${names})`;
      const rect = mmxEl("rect", { x: x(bins.start[i]), y: laneY(lane) + EQ_LANE - 4 - h,
        width, height: h, fill: frontend ? "#5b8bd0" : "#6a6", class: "mmx-bin" }, svg);
      rect.addEventListener("mouseenter", (event) => parts.tip.show(text, event));
      rect.addEventListener("mouseleave", () => parts.tip.hide());
    });
  });
}

function eqDepth(svg, data, t, x, top) {
  const points = data.depth.filter((p) => p[0] <= t);
  const peak = Math.max(1, ...data.depth.map((p) => p[1]));
  const y0 = top + EQ_DEPTH;
  const y = (v) => y0 - (EQ_DEPTH * v) / peak;
  mmxEl("text", { x: 4, y: top + 12 }, svg, "queue depth");
  mmxEl("text", { x: 4, y: top + 26, fill: "#555" }, svg, `(pending ops, max ${peak})`);
  mmxEl("line", { x1: EQ_LABEL, x2: EQ_WIDTH - 10, y1: y0, y2: y0, stroke: "#999" }, svg);
  [[1, "#d07b2b", "pending"], [2, "#3a8a3a", "running"]].forEach(([column, colour, name], k) => {
    const coords = [];
    let previous = null;
    for (const p of points) {
      if (previous !== null) coords.push(`${x(p[0])},${y(previous)}`);
      coords.push(`${x(p[0])},${y(p[column])}`);
      previous = p[column];
    }
    if (previous !== null) coords.push(`${x(t)},${y(previous)}`);
    mmxEl("polyline", { points: coords.join(" "), fill: "none", stroke: colour,
      "stroke-width": 1.5, class: `mmx-depth-${name}` }, svg);
    mmxEl("text", { x: EQ_WIDTH - 10, y: top + 10 + 14 * k, "text-anchor": "end",
      fill: colour }, svg, name);
  });
}

function eqQueue(box, data, t) {
  box.textContent = "";
  if (data.aggregated) {
    const before = data.depth.filter((p) => p[0] <= t);
    const last = before.length ? before[before.length - 1] : [0, 0, 0];
    mmxEl("span", {}, box, `in flight at ${mmxFmtMs(t)}: about ${last[1]} pending, `
      + `${last[2]} running (long run: shown in time bins; hover a bin)`);
    return;
  }
  const flight = data.ops.filter((op) => ["pushed", "ready", "running"].includes(eqState(op, t)));
  mmxEl("span", { class: "mmx-queue-title" }, box, `in the engine at ${mmxFmtMs(t)}: `
    + `${flight.length} ops `);
  for (const [state, [colour, label]] of Object.entries(EQ_STATES)) {
    mmxEl("span", { class: "mmx-chip", style: `background:${colour}` }, box, label);
  }
  mmxEl("br", {}, box);
  flight.slice(0, 60).forEach((op) => {
    mmxEl("span", { class: "mmx-chip", title: eqTooltip(data, op),
      style: `background:${EQ_STATES[eqState(op, t)][0]}` }, box, data.names[op[1]]);
  });
  if (flight.length > 60) mmxEl("span", {}, box, ` +${flight.length - 60} more`);
}

function render({ model, el }) {
  const root = mmxEl("div", { class: "mmx-eq" }, el);
  const head = mmxEl("div", { class: "mmx-head" }, root);
  const controls = mmxEl("div", { class: "mmx-controls" }, root);
  const button = mmxEl("button", { class: "mmx-replay" }, controls, "▶ replay");
  const slider = mmxEl("input", { type: "range", min: 0, max: 1000, value: 1000,
    class: "mmx-slider" }, controls);
  const edgeLabel = mmxEl("label", {}, controls);
  const edgeToggle = mmxEl("input", { type: "checkbox", class: "mmx-edges" }, edgeLabel);
  edgeToggle.checked = true;
  mmxEl("span", {}, edgeLabel, " dependency edges (dashed: the later op had to wait)");
  const picture = mmxEl("div", { class: "mmx-picture" }, root);
  const queue = mmxEl("div", { class: "mmx-queue" }, root);
  const parts = { tip: mmxTooltip(root) };
  let cursor = null, stopReplay = null;

  function draw() {
    const data = model.get("data");
    if (!data || !data.lanes) return;
    const live = !data.final;
    const t = cursor === null ? data.t_end || 0 : cursor;
    head.textContent = eqHeadline(data, t, live);
    picture.textContent = "";
    picture.appendChild(eqDraw(parts, data, t, edgeToggle.checked));
    eqQueue(queue, data, t);
    if (cursor === null) slider.value = 1000;
    button.disabled = live;
    slider.disabled = live;
  }
  function replay() {
    if (stopReplay) stopReplay();
    const data = model.get("data");
    const seconds = Math.min(8, Math.max(2.5, (data.t_end || 0) / 1000));
    stopReplay = mmxReplay(data.t_end || 0, seconds, (t) => {
      cursor = t;
      slider.value = Math.round((1000 * t) / Math.max(data.t_end, 1e-9));
      draw();
    }, () => {
      stopReplay = null;
      cursor = null;
      draw();
    });
  }
  edgeToggle.addEventListener("change", draw);
  slider.addEventListener("input", () => {
    if (stopReplay) { stopReplay(); stopReplay = null; }
    const data = model.get("data");
    cursor = (Number(slider.value) / 1000) * (data.t_end || 0);
    draw();
  });
  mmxWireReplay(model, button, replay, draw, () => stopReplay, (data) => data.summary.operations);
  return () => stopReplay && stopReplay();
}

export default { render };
