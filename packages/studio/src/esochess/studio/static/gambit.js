// Gambit: check a program, seat controllers, play with option buttons, record and replay.
"use strict";

let seats = null;
let answers = [];
let seed = null;
let recordText = null;
let replayStep = 0, replayTotal = 0;
let programName = () => "program.gmb";

function seatControls(low, high) {
  if (seats && seats[0] === low && seats[1] === high) { return; }
  seats = [low, high];
  const box = $("seats");
  box.innerHTML = "Seats: ";
  for (let i = 1; i <= low; i++) {
    const input = document.createElement("input");
    input.type = "text"; input.value = i === 1 ? "human" : "random"; input.size = 9;
    input.className = "seat"; input.title = "human, random, mcts or mcts:N";
    box.append(`Player ${i} `, input, " ");
  }
}

function players() { return [...document.querySelectorAll(".seat")].map(i => i.value.trim()).join(","); }

async function advance() {
  try {
    const played = await api("/api/gambit/play", {name: programName(), text: $("source").value, players: players(), seed, answers});
    seed = played.seed;
    $("seed").value = seed;
    $("log").textContent = played.log;
    $("log").scrollTop = $("log").scrollHeight;
    const box = $("decision");
    box.innerHTML = "";
    $("result").textContent = played.result ? "Result: " + played.result : "";
    $("result").className = "";
    if (played.message) { show("result", played.message, true); }
    if (played.pending) {
      const d = played.pending;
      const head = document.createElement("p");
      head.textContent = d.header;
      box.appendChild(head);
      const picked = [];
      for (const [index, label] of d.options) {
        const b = document.createElement("button");
        b.textContent = `${index}) ${label}`;
        b.className = "option";
        b.onclick = () => {
          if (d.choose === null) { answers.push(String(index)); advance(); return; }
          picked.push(index); b.disabled = true;
          if (picked.length === d.choose) { answers.push(picked.join(" ")); advance(); }
        };
        box.appendChild(b);
      }
    }
    const link = $("download");
    if (!played.pending && played.record) {
      link.href = URL.createObjectURL(new Blob([played.record], {type: "application/json"}));
      link.style.display = "";
    } else { link.style.display = "none"; }
  } catch (e) { show("result", e.message, true); }
}

async function replay(step) {
  if (recordText === null) { return; }
  try {
    const r = await api("/api/gambit/replay", {name: programName(), text: $("source").value, record: recordText, step});
    replayTotal = r.total;
    replayStep = Math.min(step, r.total);
    $("rstep").textContent = replayStep; $("rtotal").textContent = r.total;
    $("replaylog").textContent = r.log;
    $("replaylog").className = "";
  } catch (e) { show("replaylog", e.message, true); }
}

window.addEventListener("load", async () => {
  programName = await programEditor("gambit", "program.gmb", "tic-tac-toe.gmb",
                                    result => seatControls(result.seats[0], result.seats[1]));
  $("start").onclick = () => {
    answers = [];
    seed = $("seed").value === "" ? null : +$("seed").value;
    advance();
  };
  $("recordfile").onchange = async () => {
    const file = $("recordfile").files[0];
    if (file) { recordText = await file.text(); await replay(0); }
  };
  $("rforward").onclick = () => replay(Math.min(replayStep + 1, replayTotal));
  $("rback").onclick = () => replay(Math.max(replayStep - 1, 0));
});
