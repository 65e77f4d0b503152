"""A triage group's progress, told from the worker that shrinks it to the run that shows it: each
group at work writes its stage, tries, input size and deadline to a small JSON file (``Watch``), and
the run reads them on its heartbeat (``watched``) for its progress line (``busy_line``). Files, as
the run's workers are processes of their own; a Dask worker on another machine is not watched."""

import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

WATCH_S = 2.0  # seconds between looks at the groups' progress while none finishes


class Watch:
    """A group's ``report`` of its progress: written to a small JSON file (at each new stage and at
    most once a second) that the triage reads on its heartbeat, and given to ``tell`` too when the
    group runs in the triage's own process (one worker: no heartbeat there)."""

    def __init__(self, path: Path, signature: str, until: float | None,
                 tell: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.path, self.signature, self.until, self.tell = path, signature, until, tell
        self.stage, self.written = "", 0.0

    def __call__(self, stage: str, tries: int, size: int) -> None:
        now = time.time()
        if stage == self.stage and now - self.written < 1.0:
            return
        self.stage, self.written = stage, now
        state = {"signature": self.signature, "stage": stage, "tries": tries, "size": size, "until": self.until}
        try:
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(state))
            os.replace(temporary, self.path)
        except OSError:  # progress only: the triage goes on unwatched
            pass
        if self.tell:
            self.tell(state)


def watched(folder: Path, done: Iterable[int]) -> list[dict[str, Any]]:
    """The last progress of each group still being triaged (``Watch``'s files in ``folder``)."""
    finished = {f"{number}.json" for number in done}
    found = []
    for path in sorted(folder.glob("*.json")):
        if path.name in finished:
            continue
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(state, dict):
            found.append(state)
    return found


def busy_line(state: dict[str, Any]) -> str:
    """A group's progress for people: 'SIGNATURE: shrinking, 14 tries, 163 bytes, 23s left'."""
    parts = [str(state.get("stage", "?"))]
    if state.get("tries"):
        parts.append(f"{state['tries']} tries")
    parts.append(f"{state.get('size', 0)} bytes")
    until = state.get("until")
    if isinstance(until, (int, float)):
        parts.append(f"{max(0.0, until - time.time()):.0f}s left")
    return f"{state.get('signature', '?')}: {', '.join(parts)}"
