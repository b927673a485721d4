// Graphviz's layout (Viz.js, WebAssembly) off the page's thread: DOT in, SVG text out.
importScripts("viz/viz-global.js");

const viz = Viz.instance();

onmessage = async (e) => {
  const { id, dot } = e.data;
  try {
    const r = (await viz).render(dot, { format: "svg" });
    if (r.status === "success") postMessage({ id, svg: r.output });
    else postMessage({ id, error: r.errors.map((x) => x.message).join("\n") });
  } catch (err) {
    postMessage({ id, error: String(err && err.message || err) });
  }
};
