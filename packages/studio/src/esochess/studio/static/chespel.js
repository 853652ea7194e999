// Chespel: edit with live diagnostics, evaluate a position, play against the engine.
"use strict";

let startFen = "startpos";
let moves = [];
let selected = null;
let programName = () => "program.chp";
let brush = null;  // null: clicks play moves; "" or a piece letter: clicks set up the board

async function drawPosition() {
  const position = await api("/api/chespel/position", {fen: startFen, moves, selected});
  $("board").innerHTML = position.svg;
  $("moves").textContent = position.san.join(" ");
  if (position.result) { $("engineinfo").textContent = "game over: " + position.result; }
  return position;
}

async function engineTurn(extra) {
  const body = Object.assign({name: programName(), text: $("source").value, fen: startFen, moves, movetime: +$("movetime").value}, extra);
  $("engineinfo").textContent = "engine thinking…";
  const answer = await api("/api/chespel/move", body);
  moves = answer.position.moves.slice();
  selected = null;
  const e = answer.engine;
  $("engineinfo").textContent = answer.position.result ? "game over: " + answer.position.result
    : e && e.move ? `engine: ${answer.position.san[answer.position.san.length - 1]} · depth ${e.depth ?? "–"} · score ${e.score ?? "–"}` : "";
  await drawPosition();
}

async function clickBoard(event) {
  const rect = event.target.closest("rect");
  if (!rect) { return; }
  const square = [...rect.classList].find(c => /^[a-h][1-8]$/.test(c));
  if (!square) { return; }
  if (brush !== null) { await placePiece(square); return; }
  try {
    if (selected && selected !== square) {
      const origin = selected;
      selected = null;
      await engineTurn({from: origin, to: square});
    } else {
      selected = selected === square ? null : square;
      await drawPosition();
    }
  } catch (e) { selected = null; show("evaluation", e.message, true); await drawPosition(); }
}

// Setting up a position: each click puts the chosen piece (or nothing) on a square.
async function placePiece(square) {
  try {
    const placed = await api("/api/chespel/place", {fen: $("fen").value.trim() || "startpos", square, piece: brush, turn: $("turn").value});
    $("fen").value = placed.fen;
    startFen = placed.fen; moves = []; selected = null;
    $("board").innerHTML = placed.svg;
    $("moves").textContent = "";
    show("evaluation", "");
  } catch (e) { show("evaluation", e.message, true); }
}

function palette() {
  const choices = [[null, "play moves"], ["", "empty"], ..."KQRBNPkqrbnp".split("").map(p => [p, p])];
  for (const [piece, label] of choices) {
    const b = document.createElement("button");
    b.textContent = label;
    b.onclick = () => {
      brush = piece;
      for (const other of $("palette").querySelectorAll("button")) { other.classList.toggle("on", other === b); }
    };
    if (piece === brush) { b.classList.add("on"); }
    $("palette").appendChild(b);
  }
}

window.addEventListener("load", async () => {
  palette();
  programName = await programEditor("chespel", "program.chp", "material.chp", null);
  $("board").onclick = clickBoard;
  $("turn").onchange = () => {
    const fields = $("fen").value.trim().split(/\s+/);
    if (fields.length > 1) { fields[1] = $("turn").value === "white" ? "w" : "b"; $("fen").value = fields.join(" "); }
  };
  $("setup").onclick = async () => {
    startFen = $("fen").value.trim() || "startpos"; moves = []; selected = null;
    try { await drawPosition(); show("evaluation", ""); } catch (e) { show("evaluation", e.message, true); }
  };
  $("evaluate").onclick = async () => {
    try {
      const position = await drawPosition();
      show("evaluation", (await api("/api/chespel/eval", {name: programName(), text: $("source").value, fen: position.fen})).output);
    } catch (e) { show("evaluation", e.message, true); }
  };
  $("newgame").onclick = async () => {
    startFen = $("fen").value.trim() || "startpos"; moves = []; selected = null;
    try {
      const position = await drawPosition();
      if (position.turn === $("side").value) { await engineTurn({}); }
    } catch (e) { show("evaluation", e.message, true); }
  };
  await drawPosition();
});
