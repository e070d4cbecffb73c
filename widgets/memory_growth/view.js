// The memory view: MB above baseline over time, one line per case, drawn live while the cases
// run and replayed from the recorded samples afterwards (no kernel needed).
// Data layout: widgets/memory_growth/payload.py.
const MG_WIDTH = 760, MG_HEIGHT = 300, MG_LEFT = 60, MG_RIGHT = 20, MG_TOP = 30, MG_BOTTOM = 40;

function mgLegend(run) {
  let text = `${run.label}: +${run.growth_mb.toFixed(0)} MB`;
  if (run.loop_s !== null) text += `, loop returned after ${run.loop_s.toFixed(2)} s`;
  if (run.finished_s !== null) text += `, finished after ${run.finished_s.toFixed(2)} s`;
  return text;
}

function mgValueAt(run, moment) {
  let value = run.mb.length ? run.mb[0] : 0;
  for (let i = 0; i < run.t.length && run.t[i] <= moment; i++) value = run.mb[i];
  return value;
}

function mgDraw(data, t, parts) {
  const plotW = MG_WIDTH - MG_LEFT - MG_RIGHT, plotH = MG_HEIGHT - MG_TOP - MG_BOTTOM;
  const yMax = data.y_max * 1.05;
  const x = (s) => MG_LEFT + (plotW * s) / data.t_end;
  const y = (mb) => MG_TOP + plotH * (1 - Math.max(0, mb) / yMax);
  const height = MG_HEIGHT + 18 * data.runs.length;
  const svg = mmxEl("svg", { viewBox: `0 0 ${MG_WIDTH} ${height}`, class: "mmx-mem-svg" });
  for (const tick of mmxTicks(0, data.t_end, 6)) {
    mmxEl("line", { x1: x(tick), x2: x(tick), y1: MG_TOP, y2: MG_TOP + plotH, stroke: "#eee" },
      svg);
    mmxEl("text", { x: x(tick), y: MG_TOP + plotH + 14, "text-anchor": "middle", fill: "#555" },
      svg, String(tick));
  }
  for (const tick of mmxTicks(0, yMax, 5)) {
    mmxEl("line", { x1: MG_LEFT, x2: MG_LEFT + plotW, y1: y(tick), y2: y(tick), stroke: "#eee" },
      svg);
    mmxEl("text", { x: MG_LEFT - 4, y: y(tick) + 4, "text-anchor": "end", fill: "#555" }, svg,
      String(tick));
  }
  mmxEl("text", { x: MG_LEFT + plotW, y: MG_TOP + plotH + 30, "text-anchor": "end",
    fill: "#555" }, svg, "seconds since the case began");
  // the axis title sits well above the plot: a tick label at the very top (a maximum just
  // over a round number) would otherwise be drawn over it
  mmxEl("text", { x: 4, y: MG_TOP - 16, fill: "#555" }, svg, "MB above baseline");
  data.runs.forEach((run, index) => {
    const colour = MMX_SERIES[index % MMX_SERIES.length];
    const coords = [];
    for (let i = 0; i < run.t.length && run.t[i] <= t; i++) {
      coords.push(`${x(run.t[i])},${y(run.mb[i])}`);
    }
    const line = mmxEl("polyline", { points: coords.join(" "), fill: "none", stroke: colour,
      "stroke-width": 2, class: "mmx-mem-line" }, svg);
    line.addEventListener("mouseenter", (event) => parts.tip.show(mgLegend(run), event));
    line.addEventListener("mouseleave", () => parts.tip.hide());
    [[run.loop_s, colour], [run.finished_s, "white"]].forEach(([moment, fill]) => {
      if (moment === null || moment > t || !run.t.length) return;
      mmxEl("circle", { cx: x(moment), cy: y(mgValueAt(run, moment)), r: 4, fill,
        stroke: colour, "stroke-width": 2 }, svg);
    });
    const legendY = MG_HEIGHT + 18 * index;
    mmxEl("rect", { x: MG_LEFT, y: legendY - 9, width: 14, height: 4, fill: colour }, svg);
    mmxEl("text", { x: MG_LEFT + 20, y: legendY - 4, class: "mmx-legend" }, svg,
      mgLegend(run));
  });
  return svg;
}

function render({ model, el }) {
  const root = mmxEl("div", { class: "mmx-mem" }, el);
  const head = mmxEl("div", { class: "mmx-head" }, root);
  const controls = mmxEl("div", { class: "mmx-controls" }, root);
  const button = mmxEl("button", { class: "mmx-replay" }, controls, "▶ replay");
  const note = mmxEl("span", {}, controls);
  const picture = mmxEl("div", { class: "mmx-picture" }, root);
  const parts = { tip: mmxTooltip(root) };
  let cursor = null, stopReplay = null;

  function draw() {
    const data = model.get("data");
    if (!data || !data.runs) return;
    const p = data.params;
    const t = cursor === null ? data.t_end : cursor;
    const title = data.title || `Resident memory while pushing ${p.batches} batches of `
      + `${p.batch_size}x1024 (Dense ${p.width}, ${p.width}, 1)`;
    head.textContent = (data.final ? "" : "LIVE - ") + title;
    note.textContent = data.final
      ? (cursor === null ? "filled dot: the Python loop returned; ring: all work finished"
        : `replay t = ${t.toFixed(2)} s`)
      : `running case ${data.runs.length} of ${data.cases.length}...`;
    picture.textContent = "";
    picture.appendChild(mgDraw(data, t, parts));
    button.disabled = !data.final;
  }
  function replay() {
    if (stopReplay) stopReplay();
    const data = model.get("data");
    const seconds = Math.min(8, Math.max(3, data.t_end));
    stopReplay = mmxReplay(data.t_end, seconds, (t) => { cursor = t; draw(); }, () => {
      stopReplay = null;
      cursor = null;
      draw();
    });
  }
  mmxWireReplay(model, button, replay, draw, () => stopReplay, (data) => data.runs.length);
  return () => stopReplay && stopReplay();
}

export default { render };
