"""Outputs that never destroy: every file a command writes goes through :func:`output`.

* ``-`` is standard output (text outputs; a binary output refuses it before any work);
* a symbolic link is written through: its target gets the new contents, the link stays;
* a device, FIFO or socket (``/dev/stdout``, ``/dev/null``, a named pipe) is written in place,
  never replaced;
* a regular file (or a new one) is written to a temporary file beside its real path and renamed
  over it only when everything was written: a failed or interrupted run leaves the old file
  (or none), never a partial one; the old file's permissions are kept;
* a failed write (a full disk, ``/dev/full``) is an error naming the option and the path.

>>> import io, contextlib, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "t.tsv")
>>> with output(path, "--out") as fh:
...     _ = fh.write("a\\n")
>>> open(path).read()
'a\\n'
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from pathlib import Path

__all__ = ["output", "check_output", "check_folder", "OutputError", "standard_stream",
           "to_stdout"]


class OutputError(OSError):
    """An output that could not be written (its option and path in the message)."""


def _special(path: str) -> bool:
    """Whether ``path`` (links followed) is a device, FIFO or socket."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or \
        stat.S_ISSOCK(mode)


_STDOUT = {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}
_STDERR = {"/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"}


def standard_stream(path):
    """``sys.stdout`` for ``-`` and ``/dev/stdout`` (and their /dev/fd, /proc spellings),
    ``sys.stderr`` for ``/dev/stderr``: written through Python's own stream, so that what the
    command prints and what it writes keep their order; else None."""
    if path in _STDOUT:
        return sys.stdout
    if path in _STDERR:
        return sys.stderr
    return None


def to_stdout(*paths) -> bool:
    """Whether any of ``paths`` is standard output (the command's report then goes to
    standard error, so that the results are alone on standard output)."""
    return any(p in _STDOUT for p in paths if p is not None)


def check_output(path, flag: str, *, binary: bool = False) -> None:
    """Refuse, before any work, an output that cannot be written: ``-`` for a binary output,
    a folder, a folder that does not exist or is not writable, a file that is not writable."""
    if path is None:
        return
    if path == "-":
        if binary:
            raise ValueError(f"{flag} -: this output is binary and cannot go to standard "
                             "output; name a file")
        return
    if standard_stream(path) is not None:
        return
    real = os.path.realpath(path)
    if _special(path):
        if not os.access(path, os.W_OK):
            raise ValueError(f"{flag} {path}: is not writable")
        return
    target = Path(real)
    if target.is_dir():
        raise ValueError(f"{flag} {path}: is a folder, not a file")
    parent = target.parent
    if not parent.is_dir():
        raise ValueError(f"{flag} {path}: the folder {Path(path).parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{flag} {path}: the folder {Path(path).parent} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{flag} {path}: the file exists and is not writable")


def check_folder(folder, flag: str) -> None:
    """Refuse an output folder that is a file or whose parent does not exist."""
    if not folder:
        return
    p = Path(folder)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{flag} {folder}: is a file; {flag} takes a folder")
    parent = p if p.is_dir() else p.parent
    if str(parent) and not parent.exists():
        raise ValueError(f"{flag} {folder}: the folder {parent} does not exist")


#: errno values of a write that failed for want of room or a broken device.
_WRITE_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EROFS}


def _failed(path, flag: str, exc: OSError) -> OutputError:
    return OutputError(f"{flag} {path}: could not write ({exc.strerror or exc})")


@contextlib.contextmanager
def _guarded(path, flag: str):
    """Errors of writing inside the block as :class:`OutputError`; others as they are."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        if exc.errno in _WRITE_ERRNOS:
            raise _failed(path, flag, exc) from None
        raise


@contextlib.contextmanager
def output(path, flag: str, *, binary: bool = False):
    """A file object to write ``path`` through (module docstring); yields None for None."""
    if path is None:
        yield None
        return
    stream = standard_stream(path)
    if stream is not None:
        with _guarded(path, flag):
            if binary:
                stream.flush()
                yield stream.buffer
                stream.buffer.flush()
            else:
                yield stream
                stream.flush()
        return
    mode = "wb" if binary else "w"
    text = {} if binary else {"encoding": "utf-8", "newline": ""}
    real = os.path.realpath(path)
    if _special(path):
        try:
            fh = open(path, mode, **text)
        except OSError as exc:
            raise _failed(path, flag, exc) from None
        with _guarded(path, flag):
            try:
                yield fh
            finally:
                fh.close()
        return
    tmp = os.path.join(os.path.dirname(real), f".{os.path.basename(real)}.{os.getpid()}.part")
    try:
        with _guarded(path, flag):
            with open(tmp, mode, **text) as fh:
                yield fh
            if os.path.exists(real):
                os.chmod(tmp, stat.S_IMODE(os.stat(real).st_mode))
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
            try:
                os.replace(tmp, real)
            except OSError as exc:
                raise _failed(path, flag, exc) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
