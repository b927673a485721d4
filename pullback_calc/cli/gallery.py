"""``pullback-calc gallery``: regenerate the ``viz/`` gallery (``rendering/gallery.py``)."""
from __future__ import annotations

from typing import Optional, Sequence


def add(sub) -> None:
    from ..rendering.gallery import FULL_BUDGET
    p = sub.add_parser("gallery", help="regenerate the viz/ gallery (needs graphviz's dot)",
                       allow_abbrev=False,
                       description="Regenerate the viz/ gallery: every example's trace (HTML) "
                                   "and reduction graphs (SVG), and an index.html.")
    p.add_argument("--out", default="viz", metavar="DIR", help="output folder (default viz)")
    p.add_argument("--examples", default=None, metavar="DIR",
                   help="the examples folder (default: the repository's examples/)")
    p.add_argument("--budget", type=int, default=FULL_BUDGET, metavar="N",
                   help=f"terms in the examples' full graphs (default {FULL_BUDGET}; "
                        f"0: no full graphs for the examples)")
    p.set_defaults(run=run)


def run(args, out) -> int:
    from pathlib import Path

    from ..rendering.gallery import build_gallery, default_examples
    examples = Path(args.examples) if args.examples else default_examples()
    files = build_gallery(Path(args.out), examples, args.budget or None)
    out.write(f"wrote {len(files)} files to {args.out}/ (open {args.out}/index.html)\n")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``pullback-calc gallery ARGV…``."""
    from .main import main as cli_main
    return cli_main(["gallery", *(argv or [])])
