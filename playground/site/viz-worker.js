// Graphviz's layout (Viz.js, WebAssembly) off the page's thread: DOT in, SVG text out.
//
// Graphviz in WebAssembly cannot measure the page's fonts: it estimates each text's width
// from built-in tables of a few families, byte by byte -- Times for a family it does not
// know (too narrow for the DejaVu fonts the engine's DOT names: texts overlap), and a
// space's width for each byte of a non-ASCII character (a no-break space counts twice).
// So the layout sees Courier and plain spaces, and the drawing a monospaced font of
// Courier's widths (0.6 em, as DejaVu Sans Mono; bold too) and the no-break spaces back.
importScripts("viz/viz-global.js");

const viz = Viz.instance();
const MONO = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace";

function forLayout(dot) {
  return dot.replace(/(fontname|face)="[^"]*"/g, '$1="Courier"').replace(/&#160;/g, " ");
}

function forDrawing(svg) {
  return svg.replace(/font-family="Courier[^"]*"/g, `font-family="${MONO}"`)
    .replace(/(<text[^>]*>)([^<]*)(<\/text>)/g,
             (m, open, body, close) => open + body.replace(/ /g, "&#160;") + close);
}

onmessage = async (e) => {
  const { id, dot } = e.data;
  try {
    const r = (await viz).render(forLayout(dot), { format: "svg" });
    if (r.status === "success") postMessage({ id, svg: forDrawing(r.output) });
    else postMessage({ id, error: r.errors.map((x) => x.message).join("\n") });
  } catch (err) {
    postMessage({ id, error: String(err && err.message || err) });
  }
};
