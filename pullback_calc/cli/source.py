"""The term a command works on (a file, standard input or ``-e TEXT``), and where
an error in it is (``SOURCE:LINE:COLUMN`` with the offending line)."""
from __future__ import annotations

import codecs
import sys
from typing import IO, Optional

from ..errors import PullbackCalcError

#: the longest program read, in bytes: a file or stream that goes on past it (``/dev/zero``)
#: is refused, not read until the memory runs out (the largest programs the front end is
#: made for, 10⁶-deep nestings, are about 10 MB)
MAX_PROGRAM = 100 * 2 ** 20


def read_program(stream: IO[bytes], name: str) -> str:
    """The UTF-8 text of a program, read a chunk at a time: bytes that are not UTF-8 are
    an error at the first one (``/dev/urandom``), a stream longer than MAX_PROGRAM an
    error once it is, and a byte-order mark that starts it (Windows editors write one)
    is no character of the program."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts, size = [], 0
    while True:
        chunk = stream.read(1 << 20)
        final = not chunk
        held = len(decoder.getstate()[0])  # (a character cut by the last chunk, read before)
        try:
            parts.append(decoder.decode(chunk, final=final))
        except UnicodeDecodeError as e:
            raise PullbackCalcError(f"{name}: not UTF-8 text ({e.reason} at byte "
                                    f"{size - held + e.start})") from None
        if final:
            break
        size += len(chunk)
        if size > MAX_PROGRAM:
            raise PullbackCalcError(f"{name}: longer than {MAX_PROGRAM // 2 ** 20} MB, too long "
                                    f"for a program (is it the file you meant?)")
    return _without_mark("".join(parts))


def _without_mark(text: str) -> str:
    """The text without the byte-order mark that may start it (one, as an editor writes)."""
    return text[1:] if text.startswith("\ufeff") else text


class Source:
    """The text of the term and a name for error messages."""

    def __init__(self, args):
        if args.expr is not None:
            self.name, self.text = "<-e>", args.expr
        elif args.file == "-":
            self.name = "<stdin>"
            if sys.stdin is None:
                raise PullbackCalcError("<stdin>: standard input is closed")
            if hasattr(sys.stdin, "buffer"):
                self.text = read_program(sys.stdin.buffer, self.name)
            else:  # (a text stream put in its place, as tests do)
                self.text = _without_mark(sys.stdin.read())
        else:
            self.name = args.file
            with open(args.file, "rb") as f:
                self.text = read_program(f, args.file)

        self.program = None
        self.declared: dict = {}
        for group in getattr(args, "free", None) or ():
            self.declared.update(group)
        self.no_check = bool(getattr(args, "no_check", False))

    def term(self):
        from ..syntax.parser import parse_program
        self.program = parse_program(self.text)
        return self.program.term

    @property
    def free(self) -> dict:
        """The declared free variables: the file's ``free`` lines, then --free."""
        out = dict(self.program.free) if self.program is not None else {}
        out.update(self.declared)
        return out

    def typecheck(self, term):
        """Type-check ``term`` as a closed term up to the declared free variables
        (an undeclared one is an error with a did-you-mean); --no-check skips it."""
        if self.no_check:
            return None
        from ..typing import typecheck
        return typecheck(term, self.free, closed=True)


def where(source: Optional[Source], pos) -> str:
    if pos is None:
        return f"{source.name}: " if source is not None else ""
    line, col = getattr(pos, "line", None), getattr(pos, "column", None)
    if line is None:
        return f"{source.name}: " if source is not None else f"{pos}: "
    name = source.name if source is not None else "<input>"
    return f"{name}:{line}:{col}: "


def excerpt(source: Optional[Source], pos) -> list[str]:
    """The offending source line with a caret under the column."""
    if source is None or pos is None or getattr(pos, "line", None) is None:
        return []
    lines = source.text.split("\n")
    if not 1 <= pos.line <= len(lines):
        return []
    text = lines[pos.line - 1].rstrip()
    if not text.strip() or len(text) > 200:
        return []
    col = max(pos.column, 1)
    return ["    " + text, "    " + " " * (col - 1) + "^"]


def output_count(term, point, source: Optional[Source] = None) -> int:
    """m, for f : ℝⁿ → ℝᵐ (type-checks f against the point's dimension, as a
    closed term up to the source's declared free variables)."""
    from ..results.rows import coordinate_paths, function_type
    if source is not None and not source.no_check:
        _, cod = function_type(term, len(point), env=source.free, closed=True)
    else:
        _, cod = function_type(term, len(point))
    return len(coordinate_paths(cod, "output"))
