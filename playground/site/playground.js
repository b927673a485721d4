// The playground page: an editor, a command, and what the engine (worker.js) printed.
// Each run is a pullback-calc command line; the page shows the same line for a terminal.
"use strict";

// What each command takes: a point (--at), --ascii; sympy: loads sympy first
const COMMANDS = {
  reduce: { point: false, ascii: true },
  jacobian: { point: true, ascii: true },
  grad: { point: true, ascii: true },
  check: { point: true, ascii: false, sympy: true },
  compare: { point: true, ascii: true, sympy: true },
  trace: { point: true, ascii: true },
  graph: { point: true, ascii: true },
};
const TRACE_FILE = "trace.html";
const SHORTCUTS = { KeyL: "λ", Comma: "⟨", Period: "⟩", KeyO: "Ω", KeyS: "⋆", KeyP: "⊕",
                    KeyX: "×", KeyJ: "·" };
const DEFAULT_EXAMPLE = "running_example";

const $ = (id) => document.getElementById(id);
const ui = {
  status: $("status"), examples: $("examples"), term: $("term"), command: $("command"),
  point: $("point"), budget: $("budget"), ascii: $("ascii"), run: $("run"), stop: $("stop"),
  cmdline: $("cmdline"), permalink: $("permalink"), stdout: $("stdout"), stderr: $("stderr"),
  outcome: $("outcome"), traceBox: $("trace-box"), stepper: $("stepper"),
  openStepper: $("open-stepper"), graphBox: $("graph-box"), graph: $("graph"), dot: $("dot"),
  versions: $("versions"),
};

// ---- the engine's worker ------------------------------------------------------------------
// Stop interrupts Python in place where the page is cross-origin isolated (a shared
// interrupt buffer: the CLI then prints "interrupted", as on Ctrl-C); elsewhere it ends
// the worker and starts a new one.
const interrupt = self.crossOriginIsolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
let worker = null;
let ready = false;
let examples = [];
let current = null;   // the run in progress: {id, cmd, argv}
let nextId = 1;

function startWorker() {
  ready = false;
  worker = new Worker("worker.js", { type: "module" });
  worker.onmessage = (e) => onWorker(e.data);
  worker.onerror = (e) => engineFailed(e.message || "the engine's worker failed to start");
  worker.postMessage({ type: "init", interrupt });
}

function onWorker(m) {
  if (m.type === "status") {
    setStatus(m.text);
  } else if (m.type === "ready") {
    ready = true;
    window.pcPlayground.bootMs = m.bootMs;
    window.pcPlayground.phasesMs = m.phasesMs;
    ui.versions.textContent = `pullback-calc ${m.version} · Python ${m.python} on Pyodide ` +
      `${m.pyodide} · Graphviz by Viz.js ${m.viz}`;
    setStatus(current ? "running…" : `ready (loaded in ${(m.bootMs / 1000).toFixed(1)} s)`);
  } else if (m.type === "result" && current && m.id === current.id) {
    finish(m);
  } else if (m.type === "failed") {
    engineFailed(m.text);
  }
}

function engineFailed(text) {
  worker.terminate();
  if (!ready) {  // it never started: a broken or partial build, or a browser without WebAssembly
    setStatus("the engine could not load");
    settle({ status: null, stderr: `playground: error: the engine could not load: ${text}` },
           "failed");
    ui.run.disabled = true;
    return;
  }
  // e.g. the browser's stack overflowed inside Python: Pyodide cannot go on after that
  settle({ status: null, stderr: `playground: error: the engine stopped: ${text}` +
    (/call stack/i.test(text) ? " (the term is nested too deeply for the browser's stack; " +
      "the command line has no such limit)" : "") }, "failed; the engine restarts");
  startWorker();
}

// ---- running a command ----------------------------------------------------------------------

function argv(s) {
  const c = COMMANDS[s.cmd];
  const a = [s.cmd, "-e", s.term];
  if (c.point && s.at) {
    if (s.cmd === "trace") a.push("--jacobian");
    a.push("--at", s.at);
  }
  if (s.steps) a.push("--max-steps", String(s.steps));
  if (s.ascii && c.ascii) a.push("--ascii");
  if (s.cmd === "trace") a.push("--format", "html", "-o", TRACE_FILE);
  if (s.cmd === "graph") a.push("--format", "dot");
  return a;
}

function shellQuote(x) {
  return /^[A-Za-z0-9_.,=:\/+-]+$/.test(x) ? x : "'" + x.replace(/'/g, "'\\''") + "'";
}

function commandLine(args) {
  // a term of several lines reads better from a file: term.pb holds the editor's text
  const long = args[2].includes("\n") || args[2].length > 160;
  const shown = args.map((a, i) => i === 2 && long ? '"$(cat term.pb)"' : shellQuote(a));
  return "$ pullback-calc " + shown.join(" ");
}

function settings() {
  return { cmd: ui.command.value, term: ui.term.value, at: ui.point.value.trim(),
           steps: ui.budget.value.trim(), ascii: ui.ascii.checked };
}

function run() {
  if (current) return;
  const s = settings();
  const args = argv(s);
  saveToFragment(s);
  ui.cmdline.textContent = commandLine(args);
  clearOutput();
  current = { id: nextId++, cmd: s.cmd, argv: args };
  ui.run.disabled = true;
  ui.stop.disabled = false;
  ui.outcome.textContent = ready ? "running…" : "waiting for the engine to load…";
  if (interrupt) interrupt[0] = 0;
  worker.postMessage({ type: "run", id: current.id, argv: args,
                       output: s.cmd === "trace" ? TRACE_FILE : "",
                       sympy: !!COMMANDS[s.cmd].sympy });
}

function finish(m) {
  const cmd = current.cmd;
  setStatus("ready");
  settle(m, m.status === null ? "stopped"
    : `exit status ${m.status} · ${(m.ms / 1000).toFixed(2)} s in the browser`);
  if (cmd === "graph" && m.status === 0) showGraph(m.stdout);
  else ui.stdout.textContent = m.stdout;
  if (cmd === "trace" && m.file) showStepper(m.file);
}

// The run in progress ends (a result, a stop, a failure): record it, free the buttons.
function settle(m, outcome) {
  const last = { argv: current ? current.argv : null, status: m.status,
                 stdout: m.stdout || "", stderr: m.stderr || "", file: m.file || null,
                 ms: m.ms || null };
  ui.stderr.textContent = last.stderr;
  ui.outcome.textContent = outcome;
  current = null;
  idle();
  if (last.argv) {
    window.pcPlayground.last = last;
    window.pcPlayground.runs += 1;
  }
}

function stop() {
  if (!current) return;
  if (interrupt && ready) {
    interrupt[0] = 2;  // SIGINT: KeyboardInterrupt at Python's next check
    const id = current.id;
    // Python checks the buffer between bytecodes; should it be stuck elsewhere, restart
    setTimeout(() => { if (current && current.id === id) restart(); }, 5000);
  } else {
    restart();
  }
}

function restart() {
  worker.terminate();
  settle({ status: null }, "stopped (the engine restarts)");
  startWorker();
}

function idle() {
  ui.run.disabled = false;
  ui.stop.disabled = true;
}

// ---- output ----------------------------------------------------------------------------

function clearOutput() {
  for (const k of ["stdout", "stderr", "outcome", "dot"]) ui[k].textContent = "";
  ui.graph.replaceChildren();
  ui.traceBox.hidden = true;
  ui.graphBox.hidden = true;
  if (ui.stepper.dataset.url) URL.revokeObjectURL(ui.stepper.dataset.url);
  ui.stepper.removeAttribute("src");
}

function showStepper(html) {
  // the page `pullback-calc trace --format html` writes, as it is
  const url = URL.createObjectURL(new Blob([html], { type: "text/html" }));
  ui.stepper.dataset.url = url;
  ui.stepper.src = url;
  ui.openStepper.href = url;
  ui.traceBox.hidden = false;
}

let viz = null;
let vizId = 0;
function showGraph(dot) {
  ui.dot.textContent = dot;
  ui.graphBox.hidden = false;
  ui.graph.textContent = "laying the graph out (Graphviz)…";
  if (!viz) viz = new Worker("viz-worker.js");
  const id = ++vizId;
  viz.onmessage = (e) => {
    if (e.data.id !== id) return;
    if (e.data.svg) ui.graph.innerHTML = e.data.svg;  // Graphviz's SVG of the engine's DOT
    else ui.graph.textContent = "Graphviz: " + e.data.error;
  };
  viz.postMessage({ id, dot });
}

function setStatus(text) {
  ui.status.textContent = text;
}

// ---- examples, the editor, the permalink ------------------------------------------------------

function fillExamples(list) {
  examples = list;
  ui.examples.replaceChildren(new Option("(choose an example)", ""));
  for (const e of list) {
    const o = new Option(`${e.name} — ${e.description}`, e.name);
    o.title = e.description;
    ui.examples.add(o);
  }
  if (!ui.term.value) loadExample(DEFAULT_EXAMPLE);
}

function loadExample(name) {
  const e = examples.find((x) => x.name === name);
  if (!e) return;
  ui.examples.value = name;
  ui.term.value = e.source;
  ui.point.value = e.point ? e.point.join(",") : "";
  ui.command.value = e.point ? "jacobian" : "reduce";
  commandChanged();
}

function insert(text) {
  const t = ui.term;
  t.setRangeText(text, t.selectionStart, t.selectionEnd, "end");
  t.focus();
}

function commandChanged() {
  const c = COMMANDS[ui.command.value];
  ui.point.disabled = !c.point;
  ui.ascii.disabled = !c.ascii;
}

function saveToFragment(s) {
  const p = new URLSearchParams({ cmd: s.cmd });
  if (s.at) p.set("at", s.at);
  if (s.steps) p.set("steps", s.steps);
  if (s.ascii) p.set("ascii", "1");
  p.set("term", s.term);
  const hash = "#" + p.toString();
  history.replaceState(null, "", hash);
  ui.permalink.href = hash;
}

function loadFromFragment() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (!p.has("term")) return false;
  ui.term.value = p.get("term");
  if (p.get("cmd") in COMMANDS) ui.command.value = p.get("cmd");
  ui.point.value = p.get("at") || "";
  if (p.has("steps")) ui.budget.value = p.get("steps");
  ui.ascii.checked = p.get("ascii") === "1";
  commandChanged();
  return true;
}

ui.examples.addEventListener("change", () => loadExample(ui.examples.value));
ui.command.addEventListener("change", commandChanged);
ui.run.addEventListener("click", run);
ui.stop.addEventListener("click", stop);
for (const b of document.querySelectorAll(".sym")) {
  b.addEventListener("click", () => insert(b.dataset.insert));
}
document.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  } else if (e.key === "Escape" && current) {
    stop();
  } else if (e.altKey && !e.ctrlKey && !e.metaKey && e.target === ui.term && SHORTCUTS[e.code]) {
    e.preventDefault();
    insert(SHORTCUTS[e.code]);
  }
});

// for tests and benchmarks: the last result, the runs finished, the engine's load time
window.pcPlayground = { runs: 0, last: null, bootMs: null, isolated: !!interrupt };
const fromLink = loadFromFragment();
commandChanged();
startWorker();
fetch("examples.json").then((r) => r.json()).then(fillExamples, () => {
  ui.examples.replaceChildren(new Option("(the examples could not be loaded)", ""));
});
if (fromLink) run();
