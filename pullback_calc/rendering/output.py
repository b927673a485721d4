"""Files written whole or not at all.

``atomic_file(path)`` writes into a temporary file beside ``path`` and renames
it into place when the block ends normally; on any failure -- an exception,
an interrupt (SIGINT, SIGTERM as the command line raises them), a full disk --
the temporary file is removed and whatever ``path`` held before is untouched.
The rename is atomic (POSIX ``rename``), so a reader never sees half a file,
and a process killed outright (SIGKILL, a power cut) leaves at most a hidden
``.NAME.…tmp`` beside it, never a damaged ``NAME``.

Not a regular file (a pipe, a terminal), or a name in ``/dev`` or ``/proc``
(``/dev/stdout``, which may stand for a regular file: ``> log``): written in
place, as there is nothing to keep and a rename would replace the device or
the file the stream writes into.  A
symbolic link is followed: its target is replaced, the link stays.
"""
from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import IO, Iterator, Union

__all__ = ["atomic_file", "write_atomic"]


@contextlib.contextmanager
def atomic_file(path: Union[str, Path], binary: bool = False,
                encoding: str = "utf-8") -> Iterator[IO]:
    """An open file whose contents replace ``path`` when the block ends normally."""
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if (st is not None and not stat.S_ISREG(st.st_mode)) or _special(path, target):
        # appending: a stream's file (``> log``) keeps what is written before us
        with open(path, "ab" if binary else "a", encoding=None if binary else encoding) as f:
            yield f
        return
    if st is not None and not os.access(target, os.W_OK):  # as `> OUT` would refuse
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    folder, name = os.path.split(target)
    try:
        fd, tmp = _create(folder or ".", name)
    except OSError as e:  # (a folder not there, or not writable: name the file asked for)
        raise OSError(e.errno, e.strerror, str(path)) from None
    try:
        if st is not None:  # the new file keeps the old one's permissions
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        with os.fdopen(fd, "wb" if binary else "w",
                       encoding=None if binary else encoding) as f:
            fd = -1
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as e:
        _discard(fd, tmp)
        if e.filename is None:  # (a failed write names no file: name the one asked for)
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise
    except BaseException:
        _discard(fd, tmp)
        raise


def write_atomic(path: Union[str, Path], data: Union[str, bytes]) -> None:
    """``path`` holds ``data`` (text as UTF-8), or -- on any failure -- what it held."""
    with atomic_file(path, binary=isinstance(data, bytes)) as f:
        f.write(data)


def _special(path, target: str) -> bool:
    """``/dev/stdout`` and its like: a stream already open (which may be a regular
    file, ``> log``), to write to where it stands -- never to replace."""
    return any(p == d or p.startswith(d + os.sep) for p in (os.path.abspath(path), target)
               for d in ("/dev", "/proc"))


def _create(folder: str, name: str) -> tuple[int, str]:
    """A new hidden file beside ``name`` (the umask applies to its permissions)."""
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def _discard(fd: int, tmp: str) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)
