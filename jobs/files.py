"""Reading a small file that a run directory or a corpus holds, which may not be what it seems.

A run directory or a corpus is a folder anyone may have touched: a colleague, a disk, an attacker.
Its manifest as a symbolic link to /dev/zero read with ``Path.read_text`` took 24 GB before the OOM
killer came; as a FIFO it blocked the reader for ever, deaf to SIGTERM. ``read_small`` opens without
following a link and without blocking, takes only a regular file, and reads at most ``limit`` bytes,
raising ``NotReadable`` (a ValueError) with a short reason otherwise; the caller names the file in
its own error. ``regular`` says the same of a file another library will open (a Parquet part).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotReadable(ValueError):
    """A file that is not read; the message says why, without the file's name."""


def read_small(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path``: a regular file, not a symbolic link, of at most ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise NotReadable(_why(error)) from None
    with os.fdopen(fd, "rb") as file:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotReadable(_kind(mode))
        try:
            data = file.read(limit + 1)
        except OSError as error:
            raise NotReadable(_why(error)) from None
    if len(data) > limit:
        raise NotReadable(f"larger than {limit} bytes")
    return data


def regular(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` is no file of a run's own to open (a symbolic link, a FIFO, a folder, missing), or
    None when it is a regular file."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as error:
        return _why(error)
    if stat.S_ISLNK(mode):
        return f"a symbolic link (to {os.readlink(path)}), not followed"
    return None if stat.S_ISREG(mode) else _kind(mode)


def _why(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        target = os.readlink(error.filename) if error.filename and Path(error.filename).is_symlink() else "?"
        return f"a symbolic link (to {target}), not followed"
    return error.strerror or str(error)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
             (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
    return next((f"{name}, not a regular file" for test, name in kinds if test(mode)), "not a regular file")
