"""The ``pullback-calc`` command line: one module per subcommand.

    main.py      main(): runs a command; errors become one line and an exit status
    parser.py    the parser, assembled from each subcommand's ``add(sub)``
    options.py   value parsers and option groups the subcommands share
    source.py    the term to work on, and where an error in it is
    show.py      numbers, points, JSON traces, notes
    progress.py  progress bars on a terminal's stderr
    reduce.py jacobian.py check.py trace.py step.py graph.py compare.py demo.py
    grad.py vjp.py jvp.py hessian.py tape.py gallery.py
                 the subcommands: add(sub) and run(args, out)

The renderers (``pullback_calc.rendering``) take a trace and options and return
text or bytes; they never import this package (tests/test_layout.py checks).
Importing it is quick: the engine loads inside ``main``, once it guards against
interrupts.
"""
from .main import main
from .options import parse_point


def __getattr__(name):  # the demo's term, without loading the demo's imports eagerly
    if name in ("DEMO_POINT", "DEMO_SOURCE"):
        from . import demo
        return getattr(demo, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["main", "parse_point"]
