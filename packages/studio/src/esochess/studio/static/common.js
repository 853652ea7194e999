// Shared helpers of the studio pages: JSON calls, example lists, highlighted listings.
"use strict";

async function api(path, body) {
  const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                      body: JSON.stringify(body)});
  const data = await response.json();
  if (!response.ok) { throw new Error(data.error || "request failed"); }
  return data;
}

function $(id) { return document.getElementById(id); }

function show(id, text, isError) {
  const el = $(id);
  el.textContent = text;
  el.className = isError ? "error" : "";
}

async function fillExamples(kind, select) {
  const names = await (await fetch("/api/examples/" + kind)).json();
  for (const name of names) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    select.appendChild(option);
  }
}

async function exampleText(kind, name) {
  return (await fetch("/api/examples/" + kind + "/" + encodeURIComponent(name))).text();
}

function debounce(fn, ms) {
  let timer = null;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

// A read-only, highlighted copy of a program with each diagnostic under its line.
async function listing(language, text, diagnostics, target) {
  const data = await api("/api/highlight", {language, text});
  const source = text.split("\n");
  target.innerHTML = "";
  data.lines.forEach((html, i) => {
    const row = document.createElement("div");
    row.innerHTML = html || " ";
    const here = diagnostics.filter(d => d.line === i + 1);
    if (here.length) { row.className = "bad"; }
    target.appendChild(row);
    for (const d of here) {
      const note = document.createElement("div");
      note.className = "note";
      // The caret sits under the column, tabs copied so that it lines up with the line above.
      const before = (source[i] || "").slice(0, Math.max(0, d.column - 1)).replace(/[^\t]/g, " ");
      note.textContent = before + "^ " + d.severity + ": " + d.message;
      target.appendChild(note);
    }
  });
}

// Diagnostics (FILE:LINE:COL: severity: message) read back from the command line's text.
function parseDiagnostics(report) {
  const found = [];
  for (const line of report.split("\n")) {
    const m = line.match(/^[^:\n]*:(\d+):(\d+): (error|warning|runtime error): (.*)$/);
    if (m) { found.push({line: +m[1], column: +m[2], severity: m[3], message: m[4]}); }
  }
  return found;
}

// The Tab key types a tab in a program editor (Chespel's indentation is made of tabs).
function tabTypesTab(textarea) {
  textarea.addEventListener("keydown", event => {
    if (event.key !== "Tab" || event.shiftKey) { return; }
    event.preventDefault();
    const {selectionStart: start, selectionEnd: end, value} = textarea;
    textarea.value = value.slice(0, start) + "\t" + value.slice(end);
    textarea.selectionStart = textarea.selectionEnd = start + 1;
    textarea.dispatchEvent(new Event("input"));
  });
}

// A program editor: its example menu, a check a moment after each change (the command
// line's diagnostics, and the highlighted listing with each under its line), Tab typing a
// tab. `first` is the example shown at the start; `after(result)` sees every clean check.
async function programEditor(language, fallbackName, first, after) {
  const name = () => $("example").value || fallbackName;
  const check = async () => {
    const text = $("source").value;
    try {
      const result = await api(`/api/${language}/check`, {name: name(), text});
      $("checkstatus").textContent = result.ok ? (result.report || "ok: no diagnostics") : result.report;
      $("checkstatus").className = result.ok ? "ok" : "error";
      await listing(language, text, parseDiagnostics(result.report), $("listing"));
      if (result.ok && after) { after(result); }
    } catch (e) { show("checkstatus", e.message, true); }
  };
  const open = async example => {
    $("example").value = example;
    $("source").value = await exampleText(language, example);
    await check();
  };
  await fillExamples(language, $("example"));
  $("example").onchange = () => $("example").value && open($("example").value);
  $("source").addEventListener("input", debounce(check, 400));
  tabTypesTab($("source"));
  if ([...$("example").options].some(o => o.value === first)) { await open(first); }
  return name;
}
