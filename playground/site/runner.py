"""The playground's bridge to the engine, run by worker.js under Pyodide.

A command is a ``pullback-calc`` command line, run by the command line's own
``main`` (parsing, budgets, formatting, error messages and exit statuses are
the CLI's); what it printed comes back as text, exactly as a terminal shows it.
"""
import contextlib
import io
import json
import os
import sys

from pullback_calc.cli import main


def run(argv_json: str, output: str = "") -> str:
    """Run one command line (a JSON list of arguments); ``output`` is a file the
    command writes (``-o``), read back and removed.  JSON: status, stdout,
    stderr, file (None: the command was stopped before it finished)."""
    argv = json.loads(argv_json)
    out, err = io.StringIO(), io.StringIO()
    status = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except KeyboardInterrupt:  # Stop pressed outside main's own handler
        pass
    text = None
    if output and os.path.exists(output):
        if status == 0:
            with open(output, encoding="utf-8") as f:
                text = f.read()
        os.remove(output)
    return json.dumps({"status": status, "stdout": out.getvalue(), "stderr": err.getvalue(),
                       "file": text})


def ready() -> str:
    """Load the engine (the command line imports it on first use) and describe it."""
    import pullback_calc
    run(json.dumps(["jacobian", "-e", "λx. x × x", "--at", "1"]))
    return json.dumps({"version": pullback_calc.__version__, "python": sys.version.split()[0]})
