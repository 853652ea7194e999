// CQL: check a query, run it over a PGN file with progress, browse the matched games.
"use strict";

let matches = [];
let game = null;
let ply = 0;
let queryName = () => "query.cql";

async function run() {
  const body = {name: queryName(), text: $("source").value};
  const file = $("upload").files[0];
  if (file) { body.upload = await file.text(); body.upload_name = file.name; } else { body.pgn = $("pgn").value; }
  $("summary").textContent = "running…"; $("errors").textContent = "";
  $("progress").value = 0;
  const response = await fetch("/api/cql/run", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  if (!response.ok) { show("summary", (await response.json()).error, true); return; }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) { break; }
    buffer += decoder.decode(value, {stream: true});
    let at;
    while ((at = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, at));
      buffer = buffer.slice(at + 1);
      if (message.total !== undefined) {
        $("progress").max = Math.max(1, message.total); $("progress").value = message.read;
        $("summary").textContent = `${message.read} / ${message.total} games`;
      } else if (message.error) {
        show("summary", message.error, true);
      } else if (message.result) {
        showResult(message.result);
      }
    }
  }
}

function showResult(result) {
  $("summary").textContent = result.summary;
  $("summary").className = "";
  $("errors").textContent = result.errors.join("\n");
  matches = result.matches;
  const select = $("games");
  select.innerHTML = "";
  matches.forEach((m, i) => {
    const option = document.createElement("option");
    option.value = i; option.textContent = `#${m.number} ${m.title}`;
    select.appendChild(option);
  });
  if (matches.length) { openGame(0); } else { $("board").innerHTML = ""; $("moves").textContent = ""; }
}

function firstMarked(m) {
  const i = m.plies.findIndex(p => p.cql);
  return i < 0 ? 0 : i + 1;
}

function openGame(i) {
  game = matches[i];
  const moves = $("moves");
  moves.innerHTML = "";
  game.plies.forEach((p, k) => {
    const span = document.createElement("span");
    span.textContent = (k % 2 === 0 ? `${Math.floor(k / 2) + 1}. ` : "") + p.san;
    if (p.cql) { span.className = "marked"; span.title = "CQL: " + p.cql; }
    span.onclick = () => goPly(k + 1);
    moves.appendChild(span);
  });
  goPly(firstMarked(game));
}

async function goPly(k) {
  if (!game) { return; }
  ply = Math.max(0, Math.min(k, game.plies.length));
  const p = ply ? game.plies[ply - 1] : null;
  const fen = p ? p.fen : game.start_fen;
  try {
    const board = await api("/api/board", {fen, lastmove: p ? p.uci : null});
    $("board").innerHTML = board.svg;
  } catch (e) { show("comment", e.message, true); return; }
  const cql = p ? p.cql : game.start_cql;
  $("comment").textContent = cql ? "marked by CQL: " + cql : "";
  $("gamecomment").textContent = p ? p.comment : "";
  [...$("moves").children].forEach((s, i) => s.classList.toggle("at", i === ply - 1));
}

window.addEventListener("load", async () => {
  await fillExamples("pgn", $("pgn"));
  queryName = await programEditor("cql", "query.cql", "mate.cql", null);
  $("run").onclick = run;
  $("games").onchange = () => openGame(+$("games").value);
  $("first").onclick = () => goPly(0);
  $("prev").onclick = () => goPly(ply - 1);
  $("next").onclick = () => goPly(ply + 1);
  $("last").onclick = () => goPly(game ? game.plies.length : 0);
  $("nextmark").onclick = () => {
    if (!game) { return; }
    const i = game.plies.findIndex((p, k) => k >= ply && p.cql);
    if (i >= 0) { goPly(i + 1); }
  };
});
