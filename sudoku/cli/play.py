"""``sudoku play``: a terminal game, a thin Textual view on ``sudoku.play_state.Game``.

Only ``sudoku play`` imports this module (Textual is the optional extra ``play``); the game's rules,
history and save format live in ``sudoku.play_state``, which has no Textual in it.

Keys (``KEYS`` is the help line the screen shows):

- arrows move the cursor (wrapping round the edges); a mouse click puts it on a cell. ``h`` is the
  hint, so the vi keys do not move.
- ``1``-``9`` enter a digit; above 9x9 the digits 10.. are the capital letters ``A``.. (shift and
  the letter, as the ``line`` format writes them: 16x16 uses A-G). Lower-case letters are commands.
- ``p`` turns pencil mode on and off: in it, a digit adds or removes a mark instead.
- ``0``, ``.``, backspace, delete or space erase the entry, or the marks when there is no entry.
- ``u`` undo, ``r`` redo; ``h`` hint (``sudoku.hint``: its words, and its cells highlighted);
  ``c`` check against the solution; ``q`` (or ctrl+q, ctrl+c) saves and quits.
- Any other key is ignored.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult, ScreenStackError
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.events import Click, Key
from textual.widget import Widget
from textual.widgets import Static

from sudoku.formats import _SYMBOLS
from sudoku.play_state import Game

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from sudoku.grid import Grid
    from sudoku.hint import Hint

KEYS = ("arrows/click move  1-9 A-P digit  p pencil  0 . space del erase\n"
        "u undo  r redo  h hint  c check  q save+quit")
CELL = 3  # characters a cell takes on screen
STYLE = {
    "given": "bold",
    "entry": "bold cyan",
    "mark": "dim",
    "blank": "dim",
    "conflict": "bold white on red",
    "wrong": "bold red underline",
    "hint": "black on yellow",
    "cursor": "reverse",
}


def save_path(environ: Mapping[str, str] = os.environ) -> Path:
    """Where a game is saved by default: $XDG_STATE_HOME/sudoku/play.json, else
    ~/.local/state/sudoku/play.json."""
    state = environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "sudoku" / "play.json"


def write_save(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write the save atomically (a temporary file, then a rename): a crash never leaves half a save."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def symbol(digit: int) -> str:
    return _SYMBOLS[digit - 1]


def clock_text(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes:02d}:{seconds:02d}"


class Board(Widget):
    """The grid: one line a row, ``CELL`` characters a cell, box-drawing lines between boxes."""

    def __init__(self, game: Game, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.game = game
        self.hinted: set[int] = set()
        self.flagged: set[int] = set()
        box, side = game.puzzle.box, game.side
        self.styles.width = side * CELL + box + 1
        self.styles.height = side + box + 1

    def render(self) -> Text:
        game = self.game
        box, side = game.puzzle.box, game.side
        conflicts = game.conflicts()
        out = Text()

        def rule(left: str, middle: str, right: str) -> None:
            out.append(left + middle.join(["─" * (CELL * box)] * box) + right + "\n")

        rule("┌", "┬", "┐")
        for row in range(side):
            out.append("│")
            for col in range(side):
                cell = row * side + col
                out.append(*self._cell(cell, conflicts))
                if col % box == box - 1:
                    out.append("│")
            out.append("\n")
            if row % box == box - 1 and row != side - 1:
                rule("├", "┼", "┤")
        rule("└", "┴", "┘")
        out.rstrip()
        return out

    def _cell(self, cell: int, conflicts: set[int]) -> tuple[str, str]:
        game = self.game
        value = game.value(cell)
        if value:
            text = f" {symbol(value)} "
            kind = "given" if game.is_given(cell) else "entry"
        elif game.marks[cell]:
            marks = "".join(symbol(d) for d in game.marked(cell))
            if len(marks) > CELL:
                text = marks[: CELL - 1] + "…"  # the status line lists them all
            else:
                text = marks.ljust(CELL)  # left: a lone mark never looks like a digit, which is centred
            kind = "mark"
        else:
            text, kind = " · ", "blank"
        style = STYLE[kind]
        if cell in conflicts:
            style = STYLE["conflict"]
        elif cell in self.flagged:
            style = STYLE["wrong"]
        if cell in self.hinted:
            style += " " + STYLE["hint"]
        if cell == game.cursor:
            style += " " + STYLE["cursor"]
        return text, style

    def cell_at(self, x: int, y: int) -> int | None:
        """The cell under widget offset (x, y), or None on a border line."""
        box, side = self.game.puzzle.box, self.game.side
        x, y = x - 1, y - 1
        if x < 0 or y < 0:
            return None
        band, within = divmod(x, CELL * box + 1)
        stack, line = divmod(y, box + 1)
        if within == CELL * box or line == box or band >= box or stack >= box:
            return None
        return (stack * box + line) * side + band * box + within // CELL

    def on_click(self, event: Click) -> None:
        cell = self.cell_at(event.x, event.y)
        if cell is not None:
            self.app.put_cursor(cell)  # type: ignore[attr-defined]  # the app is a PlayApp


class PlayApp(App[Game]):
    """The game on screen. ``clock`` gives seconds (time.monotonic; tests pass a fixed one)."""

    TITLE = "sudoku play"
    ENABLE_COMMAND_PALETTE = False  # its ctrl+p would open a window of Textual's own commands
    CSS = """
    Screen { layout: vertical; }
    #top { height: auto; }
    Board { margin: 0 1; }
    #side { width: 1fr; height: auto; margin: 0 1; }
    #status { height: auto; }
    #message { height: auto; margin-top: 1; }
    #keys { height: auto; margin: 1 1 0 1; color: $text-muted; }
    """

    def __init__(self, game: Game, *, title: str = "", clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.game = game
        self.label = title
        self.clock = clock
        self.pencil = False
        self.started: float | None = None if game.solved() else clock()
        self.message = f"Solved in {clock_text(game.elapsed_s)}." if game.solved() else ""

    def compose(self) -> ComposeResult:
        self.board = Board(self.game)
        with Horizontal(id="top"):
            yield self.board
            with Vertical(id="side"):
                yield Static(id="status")
                yield Static(id="message")
        yield Static(KEYS, id="keys", markup=False)

    def on_mount(self) -> None:
        self.refresh_view()
        self.set_interval(1.0, self._tick)

    # --- time ----------------------------------------------------------------------------------

    def elapsed(self) -> float:
        """Seconds played, the running stretch included."""
        running = self.clock() - self.started if self.started is not None else 0.0
        return self.game.elapsed_s + running

    def stop_clock(self) -> None:
        """Fold the running stretch into the game (before a save, and on a win)."""
        self.game.elapsed_s = self.elapsed()
        self.started = None if self.game.solved() else self.clock()

    # --- the view ------------------------------------------------------------------------------

    def refresh_view(self) -> None:
        self.board.refresh()
        self.refresh_status()
        self.query_one("#message", Static).update(Text(self.message))

    def _tick(self) -> None:
        """The clock's second: the status again, unless the screen is already gone (a tick can come
        while the app shuts down, after its widgets are removed; seen once in CI)."""
        try:
            self.refresh_status()
        except (NoMatches, ScreenStackError):
            pass

    def refresh_status(self) -> None:
        game = self.game
        row, col = divmod(game.cursor, game.side)
        marks = " ".join(symbol(d) for d in game.marked(game.cursor)) or "none"
        lines = [
            f"{self.label}".strip() or f"{game.side}x{game.side}",
            f"time    {clock_text(self.elapsed())}",
            f"mode    {'pencil' if self.pencil else 'digits'}",
            f"cell    r{row + 1}c{col + 1}",
            f"marks   {marks}",
            f"blanks  {game.blanks()}",
        ]
        self.query_one("#status", Static).update(Text("\n".join(lines)))

    def say(self, message: str) -> None:
        self.message = message
        self.refresh_view()

    # --- input ---------------------------------------------------------------------------------

    def put_cursor(self, cell: int) -> None:
        self.game.cursor = cell
        self.refresh_view()

    def on_key(self, event: Key) -> None:
        """Every key the game knows; the rest are ignored (never an error)."""
        key, char = event.key, event.character
        moves = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
        commands: dict[str | None, Callable[[], None]]
        commands = {"p": self.toggle_pencil, "u": self.undo, "r": self.redo, "h": self.show_hint,
                    "c": self.check, "q": self.save_and_quit}
        event.stop()
        event.prevent_default()
        if key == "ctrl+c":
            self.save_and_quit()
        elif key in moves:
            self.game.move_cursor(*moves[key])
            self.refresh_view()
        elif key in ("backspace", "delete", "space") or char in ("0", "."):
            self.play(self.game.erase)
        elif char in commands:
            commands[char]()
        elif char and char in _SYMBOLS[: self.game.side]:
            digit = _SYMBOLS.index(char) + 1
            self.play(self.game.toggle_mark if self.pencil else self.game.enter, digit)

    def action_quit(self) -> None:  # type: ignore[override]  # Textual's is a coroutine; ours saves first
        """ctrl+q, Textual's quit key (a priority binding, so it never reaches on_key), saves too."""
        self.save_and_quit()

    def play(self, move: Callable[..., bool], *args: int) -> None:
        """Make a move at the cursor; a solved game takes no more moves."""
        if self.game.solved():
            return
        if move(self.game.cursor, *args):
            self.after_move()

    def after_move(self, message: str = "") -> None:
        self.board.hinted = set()
        self.board.flagged = set()
        if self.game.solved():
            self.stop_clock()
            message = f"Solved in {clock_text(self.game.elapsed_s)}! Press q to save and quit."
        self.say(message)

    def toggle_pencil(self) -> None:
        self.pencil = not self.pencil
        self.say(f"pencil marks {'on' if self.pencil else 'off'}")

    def undo(self) -> None:
        if self.game.solved():
            return
        if self.game.undo():
            self.after_move("undone")
        else:
            self.say("nothing to undo")

    def redo(self) -> None:
        if self.game.solved():
            return
        if self.game.redo():
            self.after_move("redone")
        else:
            self.say("nothing to redo")

    def show_hint(self) -> None:
        """Look for the next step in a thread: proving that no technique applies can take seconds, and
        the game keeps taking keys meanwhile. A hint found for a position since left is dropped."""
        if self.game.solved():
            return
        values = self.game.values()
        self.say("hint: looking...")
        self.run_worker(lambda: self._find_hint(values), thread=True, exclusive=True, group="hint")

    def _find_hint(self, values: Grid) -> None:
        from sudoku.hint import hint

        found = hint(values)
        self.call_from_thread(self._show_hint_found, values, found)

    def _show_hint_found(self, values: Grid, found: Hint) -> None:
        if self.game.solved() or self.game.values() != values:
            return
        step = found.step
        if step is None:
            self.board.hinted = set()
            self.say(f"hint: {found.problem}")
            return
        cells = set(step.cells) | {cell for cell, _ in step.eliminations}
        if step.placement:
            cells.add(step.placement[0])
        self.board.hinted = cells
        self.say(f"hint: {found.words}")

    def check(self) -> None:
        game = self.game
        wrong = game.wrong()
        self.board.flagged = set(wrong)
        if game.solved():
            message = f"Solved in {clock_text(game.elapsed_s)}."
        elif wrong:
            names = ", ".join(f"r{c // game.side + 1}c{c % game.side + 1}" for c in wrong[:8])
            more = f" and {len(wrong) - 8} more" if len(wrong) > 8 else ""
            message = f"{len(wrong)} wrong: {names}{more}"
        else:
            message = f"no wrong entries so far; {game.blanks()} blank cells to go"
        self.say(message)

    def save_and_quit(self) -> None:
        self.stop_clock()
        self.exit(self.game)
