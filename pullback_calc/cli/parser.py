"""The command line's parser: one subparser per module of this package, in the order
``pullback-calc --help`` lists them."""
from __future__ import annotations

import argparse

from . import (check, compare, demo, gallery, grad, graph, hessian, jacobian, jvp, reduce, step,
               tape, trace, vjp)
from .options import PROG, Parser

SUBCOMMANDS = (reduce, jacobian, check, trace, step, graph, compare, demo, grad, vjp, jvp,
               hessian, tape, gallery)


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    parser = Parser(prog=PROG, allow_abbrev=False,
                    description="Mak & Ong's differential-form pullback calculus, by reduction.",
                    epilog="Terms use Unicode or ASCII spellings (λ or \\, ⟨⟩ or <>, Ω or "
                           "pullback, …); '#' starts a comment.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    quiet_arg(parser, False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for module in SUBCOMMANDS:
        module.add(sub)
    for p in sub.choices.values():  # before or after the command: -q reduce … or reduce … -q
        quiet_arg(p, argparse.SUPPRESS)
    return parser


def quiet_arg(p: argparse.ArgumentParser, default) -> None:
    p.add_argument("-q", "--quiet", action="store_true", default=default,
                   help="no notes and no progress bars on standard error (errors are still "
                        "reported)")
