"""The processes of this machine as Linux's /proc tells them: what the runner's Dask backend and the
fuzz harness's containment read to find their children and what their targets left running.
Without /proc (another system) every function finds nothing, and the callers' signals are all
there is."""

from __future__ import annotations

import os
from collections.abc import Iterator


def stat_of(path: str) -> list[bytes] | None:
    """The fields of a /proc stat file after the command name (state first, then the parent's pid),
    or None when it is gone. The name, in parentheses, may hold anything: it is cut at the last ')'."""
    try:
        with open(path, "rb") as file:
            return file.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def processes() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, stat fields) of every process."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for name in entries:
        if name.isdigit() and (fields := stat_of(f"/proc/{name}/stat")):
            yield int(name), fields


def parent_of(pid: int) -> int | None:
    """The pid of ``pid``'s parent, or None when it is gone."""
    fields = stat_of(f"/proc/{pid}/stat")
    return int(fields[1]) if fields else None
