// satnono's page: talks to the JSON API of `satnono serve` (satnono/serve/); no build step.
"use strict";

const $ = (id) => document.getElementById(id);
// `action` numbers the actions: a picture requested for an earlier one is never shown.
const state = { text: "", name: "", solution: null, ambiguous: [], controller: null, status: null,
  partial: null, drawing: false, pending: null, action: 0 };

// Each new action starts from a clean slate: no picture, verdict or progress of the last one.
function clearResult() {
  state.action += 1; state.pending = false;
  state.solution = null; state.ambiguous = []; state.partial = null; state.status = null;
  $("picture").innerHTML = ""; $("verdict").textContent = ""; $("phase").textContent = "";
  $("partial").textContent = "";
  for (const id of ["download-svg", "download-png"]) $(id).disabled = true;
}

function baseName() {
  const name = (state.name || "").replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "");
  return name || "puzzle";
}

function options() {
  const query = new URLSearchParams();
  if ($("backend").value) query.set("backend", $("backend").value);
  query.set("timeout", $("timeout").value || "30");
  query.set("max_solutions", $("max").value || "2");
  if (state.name) query.set("name", state.name);
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
  const action = state.action;
  try {
    do { state.pending = false; await drawPicture(); } while (state.pending && action === state.action);
  } finally { state.drawing = false; }
}

const ACTIONS = ["solve", "count", "analyze"];

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

function phaseText(event) {
  let phase = event.phase;
  if (event.components > 1) phase += ` (component ${event.component} of ${event.components})`;
  if (event.phase === "backbone" && event.to_settle !== undefined) {
    phase = `backbone: ${event.settled} of ${event.to_settle} cells settled`;
  }
  const parts = [phase];
  if (event.cells_left !== null && event.cells_left !== undefined) parts.push(`${event.cells_left} cells left after line logic`);
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
$("download-svg").addEventListener("click", () => downloadPicture("svg"));
$("download-png").addEventListener("click", () => downloadPicture("png"));
$("download-puzzle").addEventListener("click", downloadPuzzle);

// --- modes -----------------------------------------------------------------------------------
for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    for (const other of document.querySelectorAll(".tab")) other.classList.toggle("active", other === tab);
    $("solve-mode").hidden = tab.dataset.mode !== "solve";
    $("author-mode").hidden = tab.dataset.mode !== "author";
  });
}

// --- the author's mode -----------------------------------------------------------------------
const author = { width: 10, height: 10, grid: [], palette: [{ char: "#", rgb: "#000000" }], brush: "#",
                 timer: null, ambiguous: new Set(), non: "" };

// A line's clue as blocks [{length, char}], read off the painted cells.
function runs(line) {
  const out = []; let i = 0;
  while (i < line.length) {
    if (line[i] === ".") { i++; continue; }
    let j = i; while (j < line.length && line[j] === line[i]) j++;
    out.push({ length: j - i, char: line[i] }); i = j;
  }
  return out;
}

// A clue's numbers, each in its block's color when the puzzle has colors ("0" when empty).
function clueElement(blocks, className) {
  const clue = document.createElement("div"); clue.className = className;
  if (!blocks.length) blocks = [{ length: 0, char: "." }];
  for (const block of blocks) {
    const number = document.createElement("span"); number.textContent = block.length;
    if (author.palette.length > 1 && block.char !== ".") {
      number.className = "colored"; number.style.background = rgbOf(block.char);
      number.style.color = textOn(rgbOf(block.char));
    }
    clue.appendChild(number);
  }
  return clue;
}

function textOn(rgb) {
  const v = parseInt(rgb.slice(1), 16);
  const luminance = 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return luminance > 150 ? "#000" : "#fff";
}

function rgbOf(char) { return (author.palette.find((c) => c.char === char) || {}).rgb || "#fff"; }

function drawBoard() {
  const board = $("author-board");
  board.innerHTML = "";
  board.style.gridTemplateColumns = `auto repeat(${author.width}, 24px)`;
  board.style.gridTemplateRows = `auto repeat(${author.height}, 24px)`;
  board.appendChild(document.createElement("div"));
  for (let c = 0; c < author.width; c++) {
    board.appendChild(clueElement(runs(author.grid.map((row) => row[c])), "clue column"));
  }
  for (let r = 0; r < author.height; r++) {
    board.appendChild(clueElement(runs(author.grid[r]), "clue row"));
    for (let c = 0; c < author.width; c++) {
      const cell = document.createElement("div");
      cell.className = "cell"; cell.dataset.row = r; cell.dataset.col = c;
      const char = author.grid[r][c];
      cell.style.background = char === "." ? "white" : rgbOf(char);
      if (author.ambiguous.has(`${r + 1},${c + 1}`)) cell.classList.add("ambiguous");
      board.appendChild(cell);
    }
  }
}

function newGrid() {
  author.width = Math.max(1, Math.min(60, +$("author-width").value || 10));
  author.height = Math.max(1, Math.min(60, +$("author-height").value || 10));
  author.grid = Array.from({ length: author.height }, () => Array(author.width).fill("."));
  author.ambiguous = new Set(); $("author-verdict").textContent = "Paint some cells.";
  drawBoard();
}

let painting = null;
function paint(target) {
  if (!target.classList.contains("cell")) return;
  const r = +target.dataset.row, c = +target.dataset.col;
  if (author.grid[r][c] === painting) return;
  author.grid[r][c] = painting; author.ambiguous = new Set(); drawBoard(); check();
}
$("author-board").addEventListener("pointerdown", (e) => {
  e.preventDefault(); painting = e.button === 2 ? "." : author.brush; paint(e.target);
});
$("author-board").addEventListener("pointermove", (e) => {
  // A touch keeps its first target: find the cell under the finger instead.
  if (painting !== null) paint(document.elementFromPoint(e.clientX, e.clientY));
});
$("author-board").addEventListener("contextmenu", (e) => e.preventDefault());
document.addEventListener("pointerup", () => { painting = null; });
document.addEventListener("pointercancel", () => { painting = null; });

function check() {
  clearTimeout(author.timer);
  author.timer = setTimeout(async () => {
    const rows = author.grid.map((row) => row.join(""));
    if (!rows.some((row) => /[^.]/.test(row))) { $("author-verdict").textContent = "Paint some cells."; return; }
    $("author-verdict").textContent = "Checking…";
    try {
      const data = await (await post("/api/author", JSON.stringify({ rows, palette: author.palette }),
                                     new URLSearchParams({ timeout: "20" }))).json();
      author.non = data.non;
      const a = data.analysis;
      author.ambiguous = new Set(a.ambiguous_cells.map(([r, c]) => `${r},${c}`));
      let text = a.difficulty === "ambiguous"
        ? `Not unique: ${a.ambiguous_cells.length} ambiguous cells (outlined in red)`
        : `Unique — ${a.label}`;
      if (a.difficulty === "unknown") text = "Could not decide in time";
      $("author-verdict").textContent = text;
      drawBoard();
    } catch (error) { $("author-verdict").textContent = error.message; }
  }, 300);
}

$("author-resize").addEventListener("click", newGrid);
$("author-clear").addEventListener("click", newGrid);
$("add-color").addEventListener("click", () => {
  const used = new Set(author.palette.map((c) => c.char));
  const char = "abcdefghijklmnopqrstuvwxyz".split("").find((l) => !used.has(l));
  if (!char) return;
  if (author.palette.length === 1 && author.palette[0].char === "#") {
    author.palette[0].char = "k"; // several colors: every color gets a letter
    author.grid = author.grid.map((row) => row.map((x) => (x === "#" ? "k" : x)));
    document.querySelector('.swatch[data-char="#"]').dataset.char = "k";
    if (author.brush === "#") author.brush = "k";
  }
  author.palette.push({ char, rgb: $("new-color").value });
  const swatch = document.createElement("button");
  swatch.className = "swatch"; swatch.dataset.char = char; swatch.style.background = $("new-color").value;
  $("palette").insertBefore(swatch, $("new-color"));
  drawBoard(); check();
});
$("palette").addEventListener("click", (e) => {
  if (!e.target.classList.contains("swatch")) return;
  author.brush = e.target.dataset.char;
  for (const s of document.querySelectorAll(".swatch")) s.classList.toggle("active", s === e.target);
});
$("author-export").addEventListener("click", () => {
  if (author.non) download(new Blob([author.non], { type: "text/plain" }), "my-puzzle.non");
});
$("author-solve").addEventListener("click", () => {
  if (!author.non) return;
  setPuzzle(author.non, "my-puzzle.non");
  $("tab-solve").click();
});
newGrid();
