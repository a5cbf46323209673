// satnono's page, the author's mode: paint a grid, see its clues, and learn at once whether
// they have one solution (POST /api/author). Uses app.js's helpers ($, post, download,
// setPuzzle). While a stroke is painted the board keeps its place: the clue margins keep the
// size they had when it began, and the cells a fast pointer skipped over are painted too.
"use strict";

const author = { width: 10, height: 10, grid: [], palette: [{ char: "#", rgb: "#000000" }], brush: "#",
                 timer: null, ambiguous: new Set(), undo: [], frozen: null };

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
function fillClue(clue, blocks) {
  clue.innerHTML = "";
  if (!blocks.length) blocks = [{ length: 0, char: "." }];
  for (const block of blocks) {
    const number = document.createElement("span"); number.textContent = block.length;
    if (author.palette.length > 1 && block.char !== ".") {
      number.className = "colored"; number.style.background = rgbOf(block.char);
      number.style.color = textOn(rgbOf(block.char));
    }
    clue.appendChild(number);
  }
}

function textOn(rgb) {
  const v = parseInt(rgb.slice(1), 16);
  const luminance = 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return luminance > 150 ? "#000" : "#fff";
}

function rgbOf(char) { return (author.palette.find((c) => c.char === char) || {}).rgb || "#fff"; }

const column = (c) => author.grid.map((row) => row[c]);

function drawBoard() {
  const board = $("author-board");
  board.innerHTML = "";
  // While a stroke is painted the margins keep their size (a clue that grows is clipped
  // until the stroke ends), so that no cell moves under the pointer.
  const margin = author.frozen || { left: "auto", top: "auto" };
  board.style.gridTemplateColumns = `${margin.left} repeat(${author.width}, 24px)`;
  board.style.gridTemplateRows = `${margin.top} repeat(${author.height}, 24px)`;
  board.appendChild(document.createElement("div"));
  for (let c = 0; c < author.width; c++) {
    const clue = document.createElement("div"); clue.className = "clue column"; clue.id = `clue-c${c}`;
    fillClue(clue, runs(column(c))); board.appendChild(clue);
  }
  for (let r = 0; r < author.height; r++) {
    const clue = document.createElement("div"); clue.className = "clue row"; clue.id = `clue-r${r}`;
    fillClue(clue, runs(author.grid[r])); board.appendChild(clue);
    for (let c = 0; c < author.width; c++) {
      const cell = document.createElement("div");
      cell.className = "cell"; cell.dataset.row = r; cell.dataset.col = c;
      cell.id = `cell-${r}-${c}`;
      const char = author.grid[r][c];
      cell.style.background = char === "." ? "white" : rgbOf(char);
      if (author.ambiguous.has(`${r + 1},${c + 1}`)) cell.classList.add("ambiguous");
      board.appendChild(cell);
    }
  }
}

function remember() {
  author.undo.push({ grid: author.grid.map((row) => row.slice()), width: author.width, height: author.height });
  if (author.undo.length > 200) author.undo.shift();
  $("author-undo").disabled = false;
}

function newGrid() {
  if (author.grid.length) remember();
  author.width = Math.max(1, Math.min(60, +$("author-width").value || 10));
  author.height = Math.max(1, Math.min(60, +$("author-height").value || 10));
  author.grid = Array.from({ length: author.height }, () => Array(author.width).fill("."));
  author.ambiguous = new Set(); $("author-verdict").textContent = "Paint some cells.";
  drawBoard();
}

function undo() {
  const last = author.undo.pop();
  if (!last) return;
  author.grid = last.grid; author.width = last.width; author.height = last.height;
  $("author-width").value = last.width; $("author-height").value = last.height;
  $("author-undo").disabled = !author.undo.length;
  author.ambiguous = new Set(); drawBoard(); check();
}

// One cell painted in place (its clues redrawn, nothing else moves); false if unchanged.
function paintCell(r, c) {
  if (r < 0 || c < 0 || r >= author.height || c >= author.width) return false;
  if (author.grid[r][c] === painting) return false;
  author.grid[r][c] = painting;
  const cell = $(`cell-${r}-${c}`);
  cell.style.background = painting === "." ? "white" : rgbOf(painting);
  cell.classList.remove("ambiguous");
  fillClue($(`clue-r${r}`), runs(author.grid[r]));
  fillClue($(`clue-c${c}`), runs(column(c)));
  return true;
}

let painting = null;
let last = null;  // the cell the stroke painted last: a fast move paints every cell between

function paintTo(target) {
  if (!target || !target.classList || !target.classList.contains("cell")) return;
  const r = +target.dataset.row, c = +target.dataset.col;
  const from = last || { r, c };
  const steps = Math.max(Math.abs(r - from.r), Math.abs(c - from.c));
  let changed = false;
  for (let i = 0; i <= steps; i++) {
    const t = steps ? i / steps : 0;
    changed = paintCell(Math.round(from.r + (r - from.r) * t), Math.round(from.c + (c - from.c) * t)) || changed;
  }
  last = { r, c };
  if (changed) { author.ambiguous = new Set(); check(); }
}

function endStroke() {
  if (painting === null) return;
  painting = null; last = null; author.frozen = null;
  drawBoard();  // the margins fit the clues again
}

$("author-board").addEventListener("pointerdown", (e) => {
  if (!e.target.classList.contains("cell")) return;
  e.preventDefault();
  const board = $("author-board");
  const corner = board.firstElementChild.getBoundingClientRect();  // sub-pixel sizes kept
  author.frozen = { left: `${corner.width}px`, top: `${corner.height}px` };
  board.style.gridTemplateColumns = `${author.frozen.left} repeat(${author.width}, 24px)`;
  board.style.gridTemplateRows = `${author.frozen.top} repeat(${author.height}, 24px)`;
  remember();
  painting = e.button === 2 ? "." : author.brush;
  paintTo(e.target);
});
$("author-board").addEventListener("pointermove", (e) => {
  // A touch keeps its first target: find the cell under the finger instead.
  if (painting !== null) paintTo(document.elementFromPoint(e.clientX, e.clientY));
});
$("author-board").addEventListener("contextmenu", (e) => e.preventDefault());
document.addEventListener("pointerup", endStroke);
document.addEventListener("pointercancel", endStroke);
document.addEventListener("keydown", (e) => {
  const mode = $("author-mode");
  if (!mode.hidden && (e.ctrlKey || e.metaKey) && e.key === "z" && e.target.tagName !== "INPUT") {
    e.preventDefault(); undo();
  }
});

function title() { return $("author-title").value.trim() || "my puzzle"; }

function fileName() {
  const slug = title().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  return `${slug || "puzzle"}.non`;
}

// The puzzle of the grid as painted now, and (unless `analyze` is false) its analysis.
async function authorRequest(analyze) {
  const rows = author.grid.map((row) => row.join(""));
  const body = JSON.stringify({ rows, palette: author.palette, title: title() });
  const query = new URLSearchParams({ timeout: "20" });
  if (!analyze) query.set("analyze", "0");
  return (await post("/api/author", body, query)).json();
}

function check() {
  clearTimeout(author.timer);
  author.timer = setTimeout(async () => {
    const rows = author.grid.map((row) => row.join(""));
    if (!rows.some((row) => /[^.]/.test(row))) { $("author-verdict").textContent = "Paint some cells."; return; }
    $("author-verdict").textContent = "Checking…";
    try {
      const data = await authorRequest(true);
      const a = data.analysis;
      author.ambiguous = new Set(a.ambiguous_cells.map(([r, c]) => `${r},${c}`));
      let text = a.difficulty === "ambiguous"
        ? `Not unique: ${a.ambiguous_cells.length} ambiguous cells (outlined in red)`
        : `Unique — ${a.label}`;
      if (a.difficulty === "unknown") text = "Could not decide in time";
      $("author-verdict").textContent = text;
      if (painting === null) drawBoard();  // mid-stroke the outlines wait for its end
    } catch (error) { $("author-verdict").textContent = error.message; }
  }, 300);
}

// Export and Solve take the puzzle as painted and titled now, never an earlier check's.
async function currentPuzzle() {
  try {
    return (await authorRequest(false)).non;
  } catch (error) { $("author-verdict").textContent = error.message; return null; }
}

$("author-resize").addEventListener("click", newGrid);
$("author-clear").addEventListener("click", newGrid);
$("author-undo").addEventListener("click", undo);
$("author-title").addEventListener("input", check);
$("add-color").addEventListener("click", () => {
  const used = new Set(author.palette.map((c) => c.char));
  const char = "abcdefghijklmnopqrstuvwxyz".split("").find((l) => !used.has(l));
  if (!char) return;
  if (author.palette.length === 1 && author.palette[0].char === "#") {
    author.palette[0].char = "k"; // several colors: every color gets a letter
    author.grid = author.grid.map((row) => row.map((x) => (x === "#" ? "k" : x)));
    author.undo = author.undo.map((step) => ({ ...step, grid: step.grid.map((row) => row.map((x) => (x === "#" ? "k" : x))) }));
    document.querySelector('.swatch[data-char="#"]').dataset.char = "k";
    if (author.brush === "#") author.brush = "k";
  }
  author.palette.push({ char, rgb: $("new-color").value });
  const swatch = document.createElement("button");
  swatch.className = "swatch"; swatch.dataset.char = char; swatch.style.background = $("new-color").value;
  $("palette").insertBefore(swatch, $("new-color"));
  chooseBrush(swatch);  // the color just added is the one to paint with
  drawBoard(); check();
});
function chooseBrush(swatch) {
  author.brush = swatch.dataset.char;
  for (const s of document.querySelectorAll(".swatch")) s.classList.toggle("active", s === swatch);
}
$("palette").addEventListener("click", (e) => {
  if (e.target.classList.contains("swatch")) chooseBrush(e.target);
});
$("author-export").addEventListener("click", async () => {
  const non = await currentPuzzle();
  if (non) download(new Blob([non], { type: "text/plain" }), fileName());
});
$("author-solve").addEventListener("click", async () => {
  const non = await currentPuzzle();
  if (!non) return;
  setPuzzle(non, fileName());
  $("tab-solve").click();
});
newGrid();
author.undo = []; $("author-undo").disabled = true;
