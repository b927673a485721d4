// The engine's thread: Pyodide runs pullback-calc here, so that a long reduction never
// freezes the page. Everything is loaded from this folder (manifest.json lists the wheels).
//
// Messages in:  {type: "init", interrupt?: Uint8Array on a SharedArrayBuffer}
//               {type: "run", id, argv, output?, sympy?}
// Messages out: {type: "status", text}, {type: "ready", version, python, pyodide, viz, bootMs, phasesMs}
//               {type: "result", id, status, stdout, stderr, file, ms}, {type: "failed", text}
import { loadPyodide } from "./pyodide/pyodide.mjs";

let py = null;
let runner = null;
let manifest = null;
const installed = new Set();

const say = (text) => postMessage({ type: "status", text });

async function install(wheels) {
  const extractDir = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
  const files = wheels.filter((w) => !installed.has(w.file));
  const data = await Promise.all(files.map(async (w) => {
    const r = await fetch("wheels/" + w.file);
    if (!r.ok) throw new Error(`wheels/${w.file}: HTTP ${r.status}`);
    return r.arrayBuffer();
  }));
  files.forEach((w, i) => {
    py.unpackArchive(data[i], "wheel", { extractDir });
    installed.add(w.file);
  });
}

async function boot(interrupt) {
  const t0 = performance.now();
  say("loading Python (Pyodide)…");
  manifest = await (await fetch("manifest.json")).json();
  py = await loadPyodide({ indexURL: new URL("pyodide/", location.href).href });
  if (interrupt) py.setInterruptBuffer(interrupt);
  const t1 = performance.now();
  say("installing pullback-calc…");
  await install(manifest.wheels.filter((w) => !w.lazy));
  py.FS.writeFile("/home/pyodide/playground_runner.py", await (await fetch("runner.py")).text());
  const t2 = performance.now();
  say("loading the engine…");
  runner = py.pyimport("playground_runner");
  const info = JSON.parse(runner.ready());
  const t3 = performance.now();
  postMessage({ type: "ready", ...info, pyodide: manifest.pyodide, viz: manifest.viz,
                bootMs: t3 - t0, phasesMs: { pyodide: t1 - t0, wheels: t2 - t1, engine: t3 - t2 } });
}

let booted = null;

onmessage = async (e) => {
  const m = e.data;
  try {
    if (m.type === "init") {
      booted = boot(m.interrupt);
      await booted;
    } else if (m.type === "run") {
      await booted;
      if (m.sympy) {
        say("loading sympy (the first time only)…");
        await install(manifest.wheels.filter((w) => w.lazy));
      }
      say("running…");
      const t = performance.now();
      const res = JSON.parse(runner.run(JSON.stringify(m.argv), m.output || ""));
      postMessage({ type: "result", id: m.id, ...res, ms: performance.now() - t });
    }
  } catch (err) {
    postMessage({ type: "failed", id: m.id, text: String(err && err.message || err) });
  }
};
