// The symbol-graph view in the browser: a traced/planned toggle over two pre-drawn SVGs and a
// panel showing the attributes of the box or arrow under the pointer (or the last one clicked).
// Everything it shows comes from the synced ``data`` payload (view.py), so the toggle and the
// panel also work on a static page with no kernel.
function el_(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function render({ model, el }) {
  const data = model.get("data");
  const root = el_("div", "mx-symbol-graph");
  const bar = el_("div", "mx-sg-toggle");
  const title = el_("span", "mx-sg-title", data.title);
  const body = el_("div", "mx-sg-body");
  const picture = el_("div", "mx-sg-picture");
  const panel = el_("div", "mx-sg-details");
  const caption = el_("div", "mx-sg-caption");
  const note = el_("div", "mx-sg-note", data.note);
  body.append(picture, panel);
  root.append(bar, body, caption, note);
  el.appendChild(root);
  let selected = null;
  let current = data.mode;

  const buttons = data.modes.map((mode) => {
    const button = el_("button", "mx-sg-button", mode === "traced" ? "as traced" : "after passes");
    button.dataset.mode = mode;
    button.addEventListener("click", () => {
      current = mode;
      draw();
    });
    bar.appendChild(button);
    return button;
  });
  bar.appendChild(title);

  function show(id) {
    const info = (data.info[current] || {})[id];
    panel.replaceChildren();
    if (!info) {
      panel.appendChild(el_("div", "mx-sg-hint", "hover over or click a box or an arrow"));
      return;
    }
    panel.appendChild(el_("div", "mx-sg-detail-title", info.title));
    const table = el_("table");
    for (const [key, value] of info.rows) {
      const row = el_("tr");
      row.append(el_("th", "", key), el_("td", "", value));
      table.appendChild(row);
    }
    panel.appendChild(table);
  }

  function target(event) {
    const g = event.target.closest ? event.target.closest("g.node, g.edge") : null;
    return g && picture.contains(g) ? g : null;
  }

  picture.addEventListener("mouseover", (event) => {
    const g = target(event);
    if (g) show(g.id);
  });
  picture.addEventListener("mouseleave", () => show(selected));
  picture.addEventListener("click", (event) => {
    const g = target(event);
    picture.querySelectorAll(".mx-sg-selected")
      .forEach((e) => e.classList.remove("mx-sg-selected"));
    selected = g ? g.id : null;
    if (g) g.classList.add("mx-sg-selected");
    show(selected);
  });

  function draw() {
    picture.innerHTML = data.svgs[current] || "";
    caption.innerHTML = data.captions[current] || "";
    root.dataset.mode = current;
    buttons.forEach((b) => b.classList.toggle("mx-sg-active", b.dataset.mode === current));
    selected = null;
    show(null);
  }
  draw();
}

export default { render };
