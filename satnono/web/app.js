// satnono's page: talks to the JSON API of `satnono serve` (satnono/serve/); no build step.
"use strict";

const $ = (id) => document.getElementById(id);
// `action` numbers the actions: a picture requested for an earlier one is never shown.
const state = { text: "", name: "", solution: null, ambiguous: [], controller: null, status: null,
  partial: null, drawing: false, pending: null, action: 0, hinted: { text: null, grid: null } };

// Each new action starts from a clean slate: no picture, verdict or progress of the last one.
function clearResult() {
  state.action += 1; state.pending = false;
  state.solution = null; state.ambiguous = []; state.partial = null; state.status = null;
  $("picture").innerHTML = ""; $("verdict").textContent = ""; $("phase").textContent = "";
  $("partial").textContent = "";
  for (const id of ["download-svg", "download-png"]) $(id).disabled = true;
  $("download-certificate").hidden = true; $("certificate-said").textContent = "";
}

function baseName() {
  const name = (state.name || "").replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "");
  return name || "pasted-text";  // as the server names what it makes of pasted text
}

function options() {
  const query = new URLSearchParams();
  if ($("backend").value) query.set("backend", $("backend").value);
  query.set("timeout", $("timeout").value || "30");
  query.set("max_solutions", $("max").value || "2");
  // Errors name the file, or "pasted text" (its line numbers are the text box's).
  query.set("name", state.name || "pasted text");
  return query;
}

function setPuzzle(text, name) {
  clearResult();
  state.text = text; state.name = name || "";
  $("text").value = text;
  $("verdict").textContent = name ? `Opened ${name}.` : "Puzzle text ready.";
  $("phase").textContent = ""; $("partial").textContent = "";
  drawPicture();
}

// Drawing and converting have a timeout of their own: the form's timeout is the search's
// (0 asks for line logic alone, which must still be drawn).
function drawingOptions() {
  const query = options(); query.set("timeout", "30");
  return query;
}

async function post(path, body, query) {
  const response = await fetch(`${path}?${query || options()}`, { method: "POST", body });
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try { message = (await response.json()).error; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

function verdictText(result) {
  const n = result.solutions_found;
  switch (result.status) {
    case "unique": return "Unique solution";
    case "multiple": return result.complete ? `${n} solutions` : `At least ${n} solutions`;
    case "unsolvable": return `No solution: ${result.reason}`;
    case "timeout": return n ? `Timeout: ${n} solution(s) found` : "Timeout: no solution found yet";
    case "interrupted": return n ? `Cancelled: ${n} solution(s) found` : "Cancelled: no solution found yet";
    default: return "Solved (uniqueness not checked)";
  }
}

async function drawPicture() {
  if (!state.text.trim()) { $("picture").innerHTML = ""; return; }
  const shown = state.solution ? { solution: state.solution } : { partial: state.partial };
  const body = JSON.stringify({ puzzle: state.text, ...shown, highlight: state.ambiguous });
  const action = state.action;
  try {
    const response = await post("/api/picture", body, drawingOptions());
    const picture = await response.text();
    if (action !== state.action) return;  // a new action began meanwhile: not its picture
    $("picture").innerHTML = picture;
    for (const id of ["download-svg", "download-png", "download-puzzle"]) $(id).disabled = false;
  } catch (error) {
    if (action === state.action) $("verdict").textContent = error.message;
  }
}

// The live grid: the latest partial grid (or solution) drawn, one picture request at a time.
async function drawLive() {
  if (state.drawing) { state.pending = true; return; }
  state.drawing = true;
  try {
    // Each pass draws the state of now: a request of a newer action is served here too.
    do { state.pending = false; await drawPicture(); } while (state.pending);
  } finally { state.drawing = false; }
}

const ACTIONS = ["solve", "count", "analyze", "hint"];

// Solve, Count and Analyze stream their work as JSON lines (progress four times a second,
// then the result); Cancel aborts the one running, and the server stops it.
async function streamWork(kind, onEvent) {
  state.controller = new AbortController();
  for (const id of ACTIONS) $(id).disabled = true;
  $("cancel").disabled = false;
  try {
    const response = await fetch(`/api/${kind}/stream?${options()}`,
      { method: "POST", body: state.text, signal: state.controller.signal });
    if (!response.ok) throw new Error((await response.json()).error);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const event = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (event.event === "error") throw new Error(event.error);
        await onEvent(event);
      }
    }
  } finally {
    for (const id of ACTIONS) $(id).disabled = false;
    $("cancel").disabled = true;
    state.controller = null;
  }
}

function failed(error) {
  return error.name === "AbortError" ? "Cancelled." : error.message;
}

async function solve() {
  state.text = $("text").value;
  clearResult();
  if (!state.text.trim()) { $("verdict").textContent = "Open a puzzle first."; return; }
  $("verdict").textContent = "Solving…";
  try {
    await streamWork("solve", handle);
  } catch (error) {
    // A cancel keeps what was decided: the partial grid (or the solutions) stay drawn.
    $("verdict").textContent = failed(error);
    if (state.partial || state.solution) await drawLive();
    return;
  }
  if (state.status === "multiple") await analyze(false);
}

// Hint: the next step from the grid the hints so far filled in (a new puzzle starts empty);
// the cells it decides are outlined.
async function hint() {
  state.text = $("text").value;
  if (!state.text.trim()) { $("verdict").textContent = "Open a puzzle first."; return; }
  const grid = state.text === state.hinted.text ? state.hinted.grid : null;
  clearResult();
  const action = state.action;
  try {
    const body = JSON.stringify({ puzzle: state.text, grid });
    const data = await (await post("/api/hint", body)).json();
    if (action !== state.action) return;
    const step = data.steps[0];
    state.hinted = { text: state.text, grid: data.grid };
    state.partial = data.grid; state.ambiguous = step.cells.map((each) => each.cell);
    $("verdict").textContent = `Hint: ${step.text}`;
    await drawLive();
  } catch (error) { if (action === state.action) $("verdict").textContent = error.message; }
}

function phaseText(event) {
  let phase = event.phase;
  if (event.components > 1) phase += ` (component ${event.component} of ${event.components})`;
  if (event.phase === "backbone" && event.to_settle !== undefined) {
    phase = `backbone: ${event.settled} of ${event.to_settle} cells settled`;
  }
  const parts = [phase];
  if (event.cells_left !== null && event.cells_left !== undefined) parts.push(`${event.cells_left} cells left after line logic`);
  if (event.swept) parts.push(`sweeping${event.both_ways ? " both ways" : ""}, ${event.swept} cells passed, ${event.states.toLocaleString("en")} states`);
  else if (event.nodes) parts.push(`${event.nodes.toLocaleString("en")} nodes searched`);
  const noun = `solution${event.solutions === 1 ? "" : "s"}`;
  const counting = event.phase === "counting" || event.phase === "enumerating";
  parts.push(counting ? `at least ${event.solutions} ${noun} so far` : `${event.solutions} ${noun}`);
  parts.push(`${event.seconds.toFixed(1)} s`);
  return parts.join(" · ");
}

async function handle(event) {
  if (event.event === "progress") {
    $("phase").textContent = phaseText(event);
    if (event.partial && !state.solution && event.partial.join() !== (state.partial || []).join()) {
      state.partial = event.partial;
      drawLive();
    }
  } else if (event.event === "solution") {
    if (!state.solution) { state.solution = event.solution; drawLive(); }
  } else if (event.event === "done") {
    state.status = event.result.status;
    $("verdict").textContent = verdictText(event.result);
    // A verdict that claims something can be proved: its certificate beside it.
    $("download-certificate").hidden = !["unique", "unsolvable", "multiple"].includes(state.status);
    $("phase").textContent = `${event.result.seconds.toFixed(2)} s`;
    await drawLive();  // the solution; after a timeout, the grid as far as it was decided
  }
}

async function analyze(show = true) {
  state.text = $("text").value;
  if (show) { clearResult(); $("verdict").textContent = "Analyzing…"; }
  let data = null;
  try {
    await streamWork("analyze", (event) => {
      if (event.event === "progress") $("phase").textContent = phaseText(event);
      else if (event.event === "done") data = event.result;
    });
  } catch (error) {
    if (show) $("verdict").textContent = failed(error);
    else $("verdict").textContent += error.name === "AbortError" ? " — analysis cancelled" : ` — ${error.message}`;
    return;
  }
  if (!data) return;
  $("phase").textContent = `${data.seconds.toFixed(2)} s`;
  state.ambiguous = data.ambiguous_cells;
  if (show && data.decided) state.partial = data.decided;  // agreed cells; '?' hatched
  const parts = [data.label];
  if (data.ambiguous_cells.length) parts.push(`${data.ambiguous_cells.length} ambiguous cells (outlined)`);
  const text = parts.join("; ");
  if (show) { $("verdict").textContent = text; await drawPicture(); }
  else $("verdict").textContent += ` — ${text}`;
}

// As the CLI words it: a count that stopped is a lower bound, and none counted says so.
function countVerdict(data) {
  const noun = data.count === 1 ? "solution" : "solutions";
  if (data.exact) return `${data.count} ${noun}`;
  if (data.stopped === "limit") return `at least ${data.count} ${noun} (stopped at the limit)`;
  if (data.count) return `at least ${data.count} ${noun} (${data.stopped}: a lower bound)`;
  return `${data.stopped || "timeout"} before any solution was counted`;
}

async function count() {
  state.text = $("text").value;
  clearResult();
  $("verdict").textContent = "Counting…";
  try {
    await streamWork("count", (event) => {
      if (event.event === "progress") $("phase").textContent = phaseText(event);
      else if (event.event === "done") {
        const data = event.result;
        $("verdict").textContent = countVerdict(data) +
          ` (${data.method.join(", ") || "line logic"}, ${data.seconds.toFixed(2)} s)`;
        $("phase").textContent = "";
      }
    });
  } catch (error) { $("verdict").textContent = failed(error); }
}

function download(blob, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob); link.download = name; link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function downloadPicture(type) {
  const shown = state.solution ? { solution: state.solution } : { partial: state.partial };
  const body = JSON.stringify({ puzzle: state.text, ...shown, highlight: state.ambiguous });
  const query = drawingOptions(); query.set("type", type);
  download(await (await post("/api/picture", body, query)).blob(), `${baseName()}.${type}`);
}

async function downloadPuzzle() {
  const format = $("download-format").value;
  const query = drawingOptions(); query.set("to", format);
  download(await (await post("/api/convert", $("text").value, query)).blob(), `${baseName()}.${format}`);
}

// The certificate is made on demand (a proof takes a solve of its own, and can be megabytes).
async function downloadCertificate() {
  const action = state.action, button = $("download-certificate");
  button.disabled = true; $("certificate-said").textContent = "Making the certificate…";
  try {
    const blob = await (await post("/api/certificate", state.text)).blob();
    if (action !== state.action) return;
    download(blob, `${baseName()}-certificate.zip`);
    $("certificate-said").textContent = "Verified by satnono's checker; check it yourself with satnono check-proof.";
  } catch (error) {
    if (action === state.action) $("certificate-said").textContent = error.message;
  } finally { button.disabled = false; }
}

// --- opening ---------------------------------------------------------------------------------
$("file").addEventListener("change", async (e) => {
  const file = e.target.files[0]; if (file) setPuzzle(await file.text(), file.name);
});
$("drop").addEventListener("dragover", (e) => { e.preventDefault(); $("drop").classList.add("over"); });
$("drop").addEventListener("dragleave", () => $("drop").classList.remove("over"));
$("drop").addEventListener("drop", async (e) => {
  e.preventDefault(); $("drop").classList.remove("over");
  const file = e.dataTransfer.files[0]; if (file) setPuzzle(await file.text(), file.name);
});
$("text").addEventListener("input", () => { state.text = $("text").value; state.name = ""; });
$("fetch").addEventListener("click", async () => {
  const id = $("webpbn").value;
  clearResult();  // a failed fetch must not leave the last puzzle's picture under its error
  $("verdict").textContent = `Fetching webpbn #${id}…`;
  try {
    const response = await fetch(`/api/webpbn/${encodeURIComponent(id)}`, { method: "POST" });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error);
    setPuzzle(data.text, data.name);
  } catch (error) { $("verdict").textContent = error.message; }
});
$("solve").addEventListener("click", solve);
$("cancel").addEventListener("click", () => state.controller && state.controller.abort());
$("count").addEventListener("click", count);
$("analyze").addEventListener("click", () => analyze(true));
$("hint").addEventListener("click", hint);
$("download-svg").addEventListener("click", () => downloadPicture("svg"));
$("download-png").addEventListener("click", () => downloadPicture("png"));
$("download-puzzle").addEventListener("click", downloadPuzzle);
$("download-certificate").addEventListener("click", downloadCertificate);

// --- modes -----------------------------------------------------------------------------------
for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    for (const other of document.querySelectorAll(".tab")) other.classList.toggle("active", other === tab);
    $("solve-mode").hidden = tab.dataset.mode !== "solve";
    $("author-mode").hidden = tab.dataset.mode !== "author";
  });
}
