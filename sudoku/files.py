"""The one guarded way to read and write what a run directory, a corpus, a feedback folder or a saved
game holds, which may not be what it seems. It sits in the lowest room (``sudoku``), so every tool's
files go through it, ``sudoku play``'s save among them.

A run directory or a corpus is a folder anyone may have touched: a colleague, a disk, an attacker.
Its manifest as a symbolic link to /dev/zero read with ``Path.read_text`` took 24 GB before the OOM
killer came; as a FIFO it blocked the reader for ever, deaf to SIGTERM. ``read_small`` opens without
following a link and without blocking, takes only a regular file, and reads at most ``limit`` bytes,
raising ``NotReadable`` (a ValueError) with a short reason otherwise; the caller names the file in
its own error. ``regular`` says the same of a file another library will open (a Parquet part).

Writes never go through a link either: ``write_file`` (bytes in memory) and ``replacing`` (a stream:
records.csv, a manifest) write a temporary beside the file and rename it over; ``open_append`` opens a
log; ``make_folders`` makes folders. A link, a folder or a FIFO where a file goes, or a file where a
folder goes, is ``NotWritable`` (exit 2: the folder was tampered with); a write the system refuses is
an OSError naming the file (exit 3), its temporary removed.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO


class NotReadable(ValueError):
    """A file that is not read; the message says why, without the file's name."""


def read_small(path: str | os.PathLike[str], limit: int, *, follow: bool = False) -> bytes:
    """The bytes of ``path``: a regular file, not a symbolic link, of at most ``limit`` bytes.
    ``follow``: a link is followed (a file the user named, such as a grading rule, not one found in a
    run's folders), a FIFO or a device still refused."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise NotReadable(_why(error)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # before fdopen, which raises IsADirectoryError of its own on a folder
        os.close(fd)
        raise NotReadable(_kind(mode))
    with os.fdopen(fd, "rb") as file:
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


def real_folder(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` is no folder of a run's own to list (a symbolic link: another run's parts; a file),
    or None when it is a real folder or absent."""
    mode = _mode(path)
    if not isinstance(mode, int):
        return mode
    if stat.S_ISLNK(mode):
        return f"a symbolic link (to {os.readlink(path)}), not followed"
    return None if stat.S_ISDIR(mode) else _kind(mode).replace("regular file", "folder")


def _mode(path: str | os.PathLike[str]) -> int | str | None:
    """The mode of ``path`` itself (a link not followed), None when it is absent, or why it cannot be
    looked at."""
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        return _why(error)


def _why(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        target = os.readlink(error.filename) if error.filename and Path(error.filename).is_symlink() else "?"
        return f"a symbolic link (to {target}), not followed"
    return error.strerror or str(error)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
             (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
    return next((f"{name}, not a regular file" for test, name in kinds if test(mode)), "not a regular file")


class NotWritable(ValueError):
    """A path a run does not write: a symbolic link, a folder or another kind of file where a file
    goes, or a folder on the way that is a link. Exit 2 (bad input: the folder was tampered with),
    said in one line by any tool's edge (``sudoku.cli.scaffold.main`` reads ``exit_code``)."""

    exit_code = 2


def write_file(path: str | os.PathLike[str], data: bytes | str, *, within: str | os.PathLike[str] | None = None) -> Path:
    """Write ``data`` to ``path`` whole or not at all, never through a link (``replacing``)."""
    with replacing(path, within=within) as out:
        out.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


@contextmanager
def replacing(path: str | os.PathLike[str], *, within: str | os.PathLike[str] | None = None,
              temporary: str | os.PathLike[str] | None = None) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through, whole or not at all, never through a link: a temporary
    beside it (``temporary``, when the caller's own clean-up knows its name; else one named with this
    process's id), opened without following links and exclusively, renamed over ``path`` when the
    block ends; removed when the write fails (disk full, ``ulimit -f``) or the block raises, and the
    OSError raised naming ``path`` (exit 3 at the edge). ``within``: the folder the write belongs to
    (a run directory, a feedback folder): no folder between it and ``path`` may be a link, and
    ``path`` must be inside it. NotWritable when ``path`` or a folder on the way is of the wrong kind."""
    path = Path(path)
    check_inside(path.parent, within)
    why = _not_a_file_to_replace(path)
    if why:
        raise NotWritable(f"{path}: {why}")
    if temporary is None:
        temporary = path.parent / f".{path.name}.{os.getpid()}.tmp"
    else:
        _remove(Path(temporary))  # a stale one of a write that never finished (never followed: unlinked)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as out:
            yield out
        os.replace(temporary, path)
    except OSError as error:
        _remove(Path(temporary))
        raise OSError(error.errno, error.strerror, str(path)) from None
    except BaseException:
        _remove(Path(temporary))
        raise


def open_append(path: str | os.PathLike[str], *, within: str | os.PathLike[str] | None = None) -> TextIO:
    """``path`` opened to append text (a run's log), made if absent: never through a link, never a
    FIFO (opening one to write blocks until a reader comes), a folder or a device: NotWritable, as
    for ``write_file``."""
    path = Path(path)
    check_inside(path.parent, within)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):  # a link; a folder; a FIFO with no reader
            raise NotWritable(f"{path}: {_not_a_file_to_replace(path) or _why(error)}") from None
        raise OSError(error.errno, error.strerror, str(path)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # a FIFO that had a reader, a device
        os.close(fd)
        raise NotWritable(f"{path}: {_kind(mode)}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a", encoding="utf-8")


def make_folders(path: str | os.PathLike[str], *, within: str | os.PathLike[str] | None = None) -> Path:
    """``mkdir -p path``, refusing (NotWritable) a link or a file on the way from ``within`` (see
    ``write_file``), so nothing is made through a link planted in a run's folders. Above ``within``
    (or with none: a folder the user named) a file on the way is the system's error, exit 3."""
    path = Path(path)
    check_inside(path, within)
    path.mkdir(parents=True, exist_ok=True)
    return path


def check_inside(folder: str | os.PathLike[str], within: str | os.PathLike[str] | None) -> None:
    """NotWritable unless ``folder`` is under ``within`` and every existing folder from ``within`` down
    to it is a real folder, not a link (None: no check). ``within`` itself was named by the user (a
    link to a folder is taken), but must be a folder."""
    if within is None:
        return
    folder, top = Path(folder), Path(within)
    try:
        rest = folder.relative_to(top)
    except ValueError:
        raise NotWritable(f"{folder}: outside {top}, not written") from None
    if ".." in rest.parts:
        raise NotWritable(f"{folder}: outside {top}, not written")
    if os.path.exists(top) and not os.path.isdir(top):
        raise NotWritable(f"{top}: not a folder")
    place = top
    for part in rest.parts:
        place = place / part
        try:
            mode = os.lstat(place).st_mode
        except FileNotFoundError:
            return  # made fresh from here down
        except OSError as error:
            raise OSError(error.errno, error.strerror, str(place)) from None
        if stat.S_ISLNK(mode):
            raise NotWritable(f"{place}: a symbolic link (to {os.readlink(place)}), not written through")
        if not stat.S_ISDIR(mode):
            raise NotWritable(f"{place}: {_kind(mode).replace('regular file', 'folder')}")


def _not_a_file_to_replace(path: Path) -> str | None:
    """Why ``path`` may not be replaced by a new file (a link, a folder, a FIFO...), None when it is a
    regular file or absent."""
    mode = _mode(path)
    if not isinstance(mode, int):
        return mode
    if stat.S_ISLNK(mode):
        return f"a symbolic link (to {os.readlink(path)}), not written through"
    return None if stat.S_ISREG(mode) else _kind(mode)


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
