"""Serve the built playground on 127.0.0.1 (a static folder; any web server will do).

    python3 playground/serve.py [--port 8000] [--dir build/playground]

Browsers run Web Workers and WebAssembly only from http(s) pages, not from
file:// -- hence a server.  This one also sends the two headers that make the
page cross-origin isolated (COOP/COEP), which lets the Stop button interrupt
a reduction in place; under a server without them (``python3 -m http.server``)
Stop ends the engine's worker and starts a fresh one, a few seconds' wait.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import sys
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "build" / "playground"
TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".whl": "application/zip", ".py": "text/plain; charset=utf-8",
         ".json": "application/json"}


class Handler(http.server.SimpleHTTPRequestHandler):
    isolated = True
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def end_headers(self):
        if self.isolated:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def log_message(self, format, *args):  # quiet: one line per request is noise here
        pass


def make_server(root: Path, port: int = 0, isolated: bool = True) -> http.server.HTTPServer:
    """A threaded server of ``root`` on 127.0.0.1 (port 0: any free port)."""
    handler = type("Handler", (Handler,), {"isolated": isolated})
    return http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(root)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="playground/serve.py", description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--no-isolation", action="store_true",
                    help="leave out the COOP/COEP headers (Stop then restarts the engine)")
    args = ap.parse_args(argv)
    if not (args.dir / "manifest.json").is_file():
        print(f"playground/serve.py: error: {args.dir} holds no built playground; build it "
              f"with `.venv/bin/python playground/build.py`", file=sys.stderr)
        return 1
    try:
        server = make_server(args.dir, args.port, not args.no_isolation)
    except OSError as e:
        print(f"playground/serve.py: error: cannot listen on 127.0.0.1:{args.port}: "
              f"{e.strerror or e}", file=sys.stderr)
        return 1
    print(f"serving {args.dir} at http://127.0.0.1:{server.server_port}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
