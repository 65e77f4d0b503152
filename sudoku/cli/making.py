"""Making a game's puzzle in a process of its own, so ``sudoku play`` keeps its screen while it waits.

A 16x16 puzzle takes 10-20 s, and a level that needs many tries longer: in a thread it would share
the interpreter with the screen and could not be stopped half-way (a grade cannot be cut short).
A child process keeps the screen responsive, says each try as it goes (``create``'s ``progress``),
and is killed at once when the player cancels. No Textual here: the child never loads it.

- **Order**: what to make (box, level, seed, attempts) and the game's label.
- **Making**: one order under way: ``events()`` yields ``("progress", words)``, then one
  ``("made", save)`` (``Game.to_dict()``, the solution found in the child too: a 16x16 count is
  not for the screen's process) or ``("failed", message)``; ``cancel()`` kills the child.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


@dataclass(frozen=True)
class Order:
    """A new game to make: a ``box`` puzzle at ``level`` (None: any) from ``seed``."""

    box: int
    level: str | None
    seed: int
    attempts: int

    @property
    def label(self) -> str:
        side = self.box * self.box
        return f"{side}x{side}, {self.level or 'any level'}, seed {self.seed}"

    def extra(self) -> dict[str, Any]:
        """What a save keeps beside the game (``Game.to_dict``'s extra keys)."""
        return {"label": self.label, "seed": self.seed, "level": self.level}


class Making:
    """``order`` being made in a child process (started here); see the module docstring."""

    def __init__(self, order: Order) -> None:
        import subprocess
        import sys

        import sudoku

        # a fresh interpreter, not a fork (the screen's process runs threads, and a fork copies their
        # locks) nor multiprocessing (its helper process wants a real stderr, and Textual holds it)
        home = os.path.dirname(os.path.dirname(os.path.abspath(sudoku.__file__)))
        path = os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH", "")) if p)
        self.order = order
        self.cancelled = False
        self._child = subprocess.Popen(
            [sys.executable, "-m", "sudoku.cli.making", str(order.box), order.level or "", str(order.seed),
             str(order.attempts), str(os.getpid())],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": path})

    def events(self) -> Iterator[tuple[str, Any]]:
        """What the child says, in order, until it ends (or is cancelled: then nothing more)."""
        import json

        for line in self._child.stdout or ():
            kind, value = json.loads(line)
            yield kind, value
            if kind != "progress":
                return
        if not self.cancelled:
            yield "failed", f"making the puzzle stopped (exit code {self._child.wait()})"

    def cancel(self) -> None:
        """Kill the child now; ``events()`` ends without a result."""
        self.cancelled = True
        if self._child.poll() is None:
            self._child.kill()
        self._child.wait()

    def close(self) -> None:
        """Reap the child once its answer is read (killed if it has not ended within 5 s)."""
        import subprocess

        try:
            self._child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.cancel()
        if self._child.stdout is not None:
            self._child.stdout.close()


def _make(order: Order, parent: int) -> None:
    """The child: make the puzzle, find its solution, send the game as JSON lines on stdout."""
    import json
    import sys

    from sudoku.generate import GenerationFailed, create
    from sudoku.interrupts import die_with
    from sudoku.play_state import Game

    die_with(parent)

    def send(kind: str, value: Any) -> None:
        sys.stdout.write(json.dumps([kind, value]) + "\n")
        sys.stdout.flush()

    try:
        puzzle = create(order.box, seed=order.seed, difficulty=order.level, attempts=order.attempts,
                        progress=lambda words: send("progress", words))
        send("progress", "puzzle made; finding its solution")
        send("made", Game.of(puzzle).to_dict())
    except GenerationFailed as error:
        send("failed", str(error))
    except Exception as error:  # noqa: BLE001 - said on the screen, never a traceback over it
        send("failed", f"making the puzzle failed: {type(error).__name__}: {error}")


if __name__ == "__main__":
    import sys

    box, level, seed, attempts, parent = sys.argv[1:]
    _make(Order(int(box), level or None, int(seed), int(attempts)), int(parent))
