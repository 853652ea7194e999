// The CHAZZ board debugger: edit the board, then step the reference interpreter.
"use strict";

const PIECES = ["", "P", "p", "N", "n", "B", "b", "R", "r", "Q", "q", "K", "k"];
let fen = "";
let rows = 0, cols = 0;
let brush = "P";
let step = 0;

function setUrl() {
  const url = new URL(location.href);
  url.searchParams.set("fen", fen);
  history.replaceState(null, "", url);
}

function drawBoard(board) {
  fen = board.fen; rows = board.rows; cols = board.cols;
  $("fen").value = fen; $("rows").value = rows; $("cols").value = cols;
  $("board").innerHTML = board.svg;
  setUrl();
}

async function load(text) {
  try {
    drawBoard(await api("/api/chazz/board", {fen: text}));
    show("message", "");
    await goto(0);
  } catch (e) { show("message", e.message, true); }
}

function mark(square) {
  const svg = $("board").querySelector("svg");
  const old = svg.querySelector("#current");
  if (old) { old.remove(); }
  if (!square) { return; }
  const size = svg.viewBox.baseVal.width / cols;
  const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  rect.id = "current";
  rect.setAttribute("x", square[1] * size); rect.setAttribute("y", square[0] * size);
  rect.setAttribute("width", size); rect.setAttribute("height", size);
  rect.setAttribute("fill", "none"); rect.setAttribute("stroke", "#e03010"); rect.setAttribute("stroke-width", size / 8);
  svg.appendChild(rect);
}

async function goto(target) {
  const limit = Math.max(1, +$("limit").value || 100000);
  target = Math.max(0, Math.min(target, limit));
  try {
    const snap = await api("/api/chazz/step", {fen, input: $("input").value, step: target, prompt: $("prompt").checked});
    step = snap.step;
    $("step").textContent = snap.step;
    let status = snap.status;
    if (snap.finished && snap.step === 0) { status += ": no instruction was executed"; }
    else if (snap.finished) { status += ` after ${snap.step} steps (the tape as before the last one)`; }
    else if (target >= limit) { status = `step limit ${limit} reached`; }
    $("status").textContent = status;
    $("next").textContent = snap.square ? `${snap.piece} at row ${snap.square[0]}, column ${snap.square[1]}` : "—";
    $("output").textContent = snap.output;
    const tape = $("tape");
    tape.innerHTML = "";
    const head = tape.insertRow(), body = tape.insertRow();
    for (const [index, value] of snap.tape) {
      const h = head.insertCell(), c = body.insertCell();
      h.textContent = index; c.textContent = value;
      if (index === snap.pointer) { h.className = c.className = "ptr"; }
    }
    mark(snap.square);
    show("message", "");
  } catch (e) { show("message", e.message, true); }
}

async function clickBoard(event) {
  const svg = $("board").querySelector("svg");
  if (!svg || event.target.tagName !== "rect" || event.target.id === "current") { return; }
  const index = Array.prototype.indexOf.call(svg.querySelectorAll("rect:not(#current)"), event.target);
  if (index < 0) { return; }
  const row = Math.floor(index / cols), col = index % cols;
  try {
    drawBoard(await api("/api/chazz/edit", {fen, row, col, piece: brush}));
    await goto(0);
  } catch (e) { show("message", e.message, true); }
}

function palette() {
  for (const piece of PIECES) {
    const b = document.createElement("button");
    b.textContent = piece || "empty";
    b.dataset.piece = piece;
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
  await fillExamples("chazz", $("example"));
  $("example").onchange = async () => {
    if ($("example").value) { await load((await exampleText("chazz", $("example").value)).split("\n")[0]); }
  };
  $("load").onclick = () => load($("fen").value);
  $("resize").onclick = async () => {
    try {
      drawBoard(await api("/api/chazz/edit", {fen, rows: +$("rows").value, cols: +$("cols").value}));
      await goto(0);
    } catch (e) { show("message", e.message, true); }
  };
  $("board").onclick = clickBoard;
  $("forward").onclick = () => goto(step + 1);
  $("back").onclick = () => goto(step - 1);
  $("reset").onclick = () => goto(0);
  $("end").onclick = () => goto(+$("limit").value);
  $("goto").onclick = () => goto(+$("target").value);
  const given = new URL(location.href).searchParams.get("fen");
  if (given) { await load(given); return; }
  const names = [...$("example").options].map(o => o.value);
  if (names.includes("hello.fen")) {
    $("example").value = "hello.fen";
    await load((await exampleText("chazz", "hello.fen")).split("\n")[0]);
  } else { await load("8/8/8/8/8/8/8/8 w"); }
});
