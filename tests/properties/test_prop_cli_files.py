"""The command line never damages a user's file: whatever path names the output, the
program it reads survives, and an output that *is* the program is a usage error.

Drawn: a command that writes a file (``trace`` in each format, ``graph``), and a
spelling of the output path -- another file, or the program itself by its name, with
``./``, through ``dir/..``, absolutely, by a symbolic or hard link, or through a linked
folder.  (Found by hand: ``trace prog.pb -o prog.pb`` replaced the program by its trace.)
"""
import contextlib
import io
import os
import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st

from pullback_calc.cli.main import main

PROGRAM = "Ω(λx. sin(x) × x) (λz. λw. w) 0.5\n"

COMMANDS = st.sampled_from([
    ["trace"], ["trace", "-f", "json"], ["trace", "-f", "latex"], ["trace", "-f", "html"],
    ["trace", "-f", "jsonl"], ["trace", "--no-premises", "-f", "text"],
    ["graph", "--format", "dot"], ["graph", "--format", "svg"],
])

#: how the output names a file: the program (an alias) or another file
ALIASES = st.sampled_from(["name", "dot-slash", "dir-dotdot", "absolute", "symlink",
                           "hard link", "linked folder", "other", "other in a folder"])


def _output(kind: str, root: Path) -> tuple[str, bool]:
    """(the -o argument, whether it names the program)."""
    (root / "d").mkdir(exist_ok=True)
    if kind == "symlink":
        (root / "link.pb").symlink_to(root / "prog.pb")
        return "link.pb", True
    if kind == "hard link":
        os.link(root / "prog.pb", root / "hard.pb")
        return "hard.pb", True
    if kind == "linked folder":
        (root / "here").symlink_to(root)
        return "here/prog.pb", True
    return {"name": ("prog.pb", True), "dot-slash": ("./prog.pb", True),
            "dir-dotdot": ("d/../prog.pb", True), "absolute": (str(root / "prog.pb"), True),
            "other": ("result", False), "other in a folder": ("d/result", False)}[kind]


@settings(max_examples=30)
@given(command=COMMANDS, alias=ALIASES)
def test_the_output_never_replaces_the_program(command, alias):
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        (root / "prog.pb").write_text(PROGRAM, encoding="utf-8")
        os.chdir(root)
        try:
            out, is_program = _output(alias, root)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                status = main([*command, "prog.pb", "-o", out])
        finally:
            os.chdir(cwd)
        assert (root / "prog.pb").read_text(encoding="utf-8") == PROGRAM, err.getvalue()
        assert "Traceback" not in err.getvalue()
        if is_program:
            assert status == 2 and "is the input file prog.pb" in err.getvalue(), err.getvalue()
        else:
            assert status == 0, err.getvalue()
            assert (root / out).stat().st_size > 0


# ---- hostile program files -------------------------------------------------------------

#: how a program file may come: as an editor saved it, or not a program at all
SPELLINGS = st.sampled_from(["plain", "byte-order mark", "CRLF", "mark and CRLF", "tabs",
                             "NUL inside", "not UTF-8", "cut in a character", "empty",
                             "a comment only", "/dev/zero", "/dev/urandom", "a folder"])
GOOD = {"plain", "byte-order mark", "CRLF", "mark and CRLF", "tabs"}


def _program_file(kind: str, root: Path) -> str:
    text = "# the running example\nΩ(λx. sin(x) × x)\n  (λz. λw. w) 0.5\n"
    data = {"plain": text.encode(), "byte-order mark": b"\xef\xbb\xbf" + text.encode(),
            "CRLF": text.replace("\n", "\r\n").encode(),
            "mark and CRLF": b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode(),
            "tabs": text.replace("  ", "\t").encode(), "NUL inside": b"1 +\x00 2",
            "not UTF-8": b"1 + \xff", "cut in a character": "1 + λ".encode()[:-1],
            "empty": b"", "a comment only": b"# nothing\n"}.get(kind)
    if data is None:
        return {"a folder": str(root)}.get(kind, kind)
    (root / "prog.pb").write_bytes(data)
    return "prog.pb"


@settings(max_examples=40, deadline=None)
@given(kind=SPELLINGS, command=st.sampled_from([["reduce"], ["trace", "-f", "json"],
                                                ["check"]]))
def test_a_program_file_is_read_or_refused_in_one_line(kind, command):
    """Never a hang, a traceback or a wrong reading: a file an editor saved (a byte-order
    mark, CRLF line ends) means its program; anything else is one line and status 1.
    (Found by hand: a byte-order mark was an "unexpected character"; /dev/zero was read
    until the memory ran out.)"""
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        os.chdir(root)
        try:
            src = _program_file(kind, root)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                status = main([*command, src])
        finally:
            os.chdir(cwd)
    assert "Traceback" not in err.getvalue()
    if kind in GOOD:
        assert status == 0, err.getvalue()
        if command == ["reduce"]:
            assert "normal form: λdx. 0.9182168195493894 × dx" in out.getvalue()
    else:
        assert status == 1 and err.getvalue().count("\n") <= 3, err.getvalue()
        assert err.getvalue().startswith("pullback-calc: error: "), err.getvalue()
