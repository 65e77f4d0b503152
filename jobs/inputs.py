"""Reading ``--input``: its lines, each at most 64 KiB, and the digest of the file as stored.

Memory stays flat whatever the file holds: a line is read at most ``MAX_LINE + 1`` bytes at a time,
and the rest of a longer line is skipped in pieces of that size (iterating a binary file would read
a whole line first: /dev/zero, one endless line, would grow without bound). Such a line becomes a
rejected case, as the ``sudoku`` command rejects it. A line that runs past ``MAX_SKIP`` bytes ends the
reading with an error: no puzzle file has one, and /dev/zero would never end.

The digest (sha256 of the bytes read, compressed ones for .gz) lets a resume refuse a file that
changed since the run began.
"""

import gzip
import hashlib
import io
import zlib
from collections.abc import Iterator
from os import PathLike
from typing import Any

from sudoku import InvalidPuzzle

MAX_LINE = 65536  # as the `sudoku` command
MAX_SKIP = 1 << 30
SHOWN = 80  # characters of an over-long line kept in its record


class InputError(Exception):
    """An input file that cannot be read to its end (missing, not gzip, endless); one line for people."""


class _Hashing(io.RawIOBase):
    """A raw binary file that hashes every byte read through it."""

    def __init__(self, raw: io.FileIO) -> None:
        self.raw = raw
        self.hash = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        count = self.raw.readinto(buffer)
        if count:
            self.hash.update(memoryview(buffer)[:count])
        return count

    def close(self) -> None:
        self.raw.close()
        super().close()


def read_input(path: str | PathLike[str]) -> tuple[list[tuple[int, str, str | None]], str]:
    """((line number, text, reason or None) of every non-blank line, sha256 hex digest of the file).

    ``reason`` is set for a line that is rejected already (longer than MAX_LINE); other bad lines are
    kept as read, for the task to reject with its parser's reason.
    """
    try:
        hashing = _Hashing(open(path, "rb", buffering=0))
        with io.BufferedReader(hashing, 1 << 16) as stored:
            stream = gzip.GzipFile(fileobj=stored) if str(path).endswith(".gz") else stored
            lines = list(_lines(stream, path))  # to the end, so the digest covers every byte
            return lines, hashing.hash.hexdigest()
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"cannot read --input {path}: {getattr(error, 'strerror', None) or error}") from None


def _lines(stream: io.BufferedIOBase, path: str | PathLike[str]) -> Iterator[tuple[int, str, str | None]]:
    number = 0
    while raw := stream.readline(MAX_LINE + 1):
        number += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            shown = raw[:SHOWN].decode("utf-8", "replace") + "..."
            _skip_rest_of_line(stream, path, number, len(raw))
            yield number, shown, str(InvalidPuzzle(f"longer than {MAX_LINE} bytes", line=number))
            continue
        text = raw.decode("utf-8", "replace").strip()
        if text:
            yield number, text, None


def _skip_rest_of_line(stream: io.BufferedIOBase, path: str | PathLike[str], number: int, read: int) -> None:
    while read <= MAX_SKIP:
        piece = stream.readline(MAX_LINE + 1)
        read += len(piece)
        if not piece or piece.endswith(b"\n"):
            return
    raise InputError(f"cannot read --input {path}: line {number} runs past {MAX_SKIP >> 20} MiB without "
                     "a newline; not a puzzle file (reading stopped there)")
