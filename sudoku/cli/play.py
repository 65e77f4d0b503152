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
- ``n`` new game: a menu of the sizes and of the levels ``create`` can make at each (the others
  listed with the reason), then the making screen.
- Any other key is ignored.

A new puzzle is made on the **making screen** (``MakingScreen``), in a child process
(``sudoku.cli.making``): the time so far and each try are shown, and Esc (or c, q, ctrl+c) cancels:
back to the game in play, or, when the game starts with it, out of the program.
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
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Static

from sudoku.cli.making import Making, Order
from sudoku.digits import SYMBOLS, symbol
from sudoku.generate import DIFFICULTIES, new_seed, unmade_reason
from sudoku.grid import MADE_SIDES
from sudoku.play_state import Game

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from sudoku.grid import Grid
    from sudoku.hint import Hint

KEYS = ("arrows/click move  1-9 A-P digit  p pencil  0 . space del erase\n"
        "u undo  r redo  h hint  c check  n new game  q save+quit")
CANCEL_KEYS = ("escape", "c", "q", "ctrl+c", "ctrl+q")  # the making screen's
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
    """Write the save whole or not at all, never through a link (``sudoku.files.write_file``: a
    temporary named by this process, then a rename): a crash never leaves half a save, and a link
    planted where the save goes is refused (NotWritable), not written through."""
    from sudoku.files import write_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, json.dumps(data) + "\n")


def clock_text(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes:02d}:{seconds:02d}"


class Board(Widget):
    """The grid: one line a row, ``CELL`` characters a cell, box-drawing lines between boxes."""

    def __init__(self, game: Game, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.show(game)

    def show(self, game: Game) -> None:
        """Show ``game`` (a new game may be of another size)."""
        self.game = game
        self.hinted: set[int] = set()
        self.flagged: set[int] = set()
        box, side = game.puzzle.box, game.side
        self.styles.width = side * CELL + box + 1
        self.styles.height = side + box + 1
        self.refresh()

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
            text = f" {symbol(value, game.side)} "
            kind = "given" if game.is_given(cell) else "entry"
        elif game.marks[cell]:
            marks = "".join(symbol(d, game.side) for d in game.marked(cell))
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
    """The game on screen. ``clock`` gives seconds (time.monotonic; tests pass a fixed one).

    Without a ``game``, ``order`` says what to make: the app opens on the making screen, and
    cancelling it (or a puzzle that could not be made: ``failure``) ends the app with no game.
    ``extra`` is what a save keeps beside the game in play (label, seed, level)."""

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
    MakingScreen, NewGameScreen { align: center middle; }
    #making, #menu { width: auto; max-width: 90%; height: auto; border: round $accent; padding: 1 2; }
    """

    game: Game
    board: Board

    def __init__(self, game: Game | None = None, *, title: str = "", clock: Callable[[], float] = time.monotonic,
                 order: Order | None = None, extra: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if game is None and order is None:
            raise ValueError("a PlayApp needs a game or an order to make one")
        self.clock = clock
        self.order = order
        self.extra = dict(extra or {})
        self.playing = False  # whether a game is on screen (not yet, while the first puzzle is made)
        self.failure = ""
        self.pencil = False
        if game is not None:
            self.start(game, title)

    def start(self, game: Game, title: str, message: str = "") -> None:
        """Make ``game`` the one in play."""
        self.game = game
        self.label = title
        self.pencil = False
        self.started: float | None = None if game.solved() else self.clock()
        self.message = f"Solved in {clock_text(game.elapsed_s)}." if game.solved() else message

    def compose(self) -> ComposeResult:
        if hasattr(self, "game"):
            yield from self._game_widgets()

    def _game_widgets(self) -> list[Widget]:
        self.board = Board(self.game)
        side = Vertical(Static(id="status"), Static(id="message"), id="side")
        return [Horizontal(self.board, side, id="top"), Static(KEYS, id="keys", markup=False)]

    def on_mount(self) -> None:
        if hasattr(self, "game"):
            self._begin_play()
        else:
            self.make(self.order)  # type: ignore[arg-type]  # __init__: no game, so an order

    def _begin_play(self) -> None:
        self.playing = True
        self.refresh_view()
        self.set_interval(1.0, self._tick)

    # --- new games -----------------------------------------------------------------------------

    def make(self, order: Order) -> None:
        """Make a game of ``order`` on the making screen; the game in play (if any) waits under it."""
        self._pause()
        self.push_screen(MakingScreen(order, clock=self.clock), callback=lambda made: self._made(order, made))

    async def _made(self, order: Order, made: tuple[str, Any] | None) -> None:
        if made is None or made[0] == "failed":
            if not self.playing:  # the first game: nothing to go back to
                self.failure = made[1] if made else ""
                self.exit(None)
            else:
                self._resume()
                self.say(f"no new game: {made[1]}" if made else "new game cancelled; back to this one")
            return
        game = Game.from_dict(made[1])
        self.order, self.extra = order, order.extra()
        self.start(game, order.label, f"new game: {order.label}")
        if not self.playing:
            await self.screen_stack[0].mount_all(self._game_widgets())
            self._begin_play()
        else:
            self.board.show(game)
            self.refresh_view()

    def new_game(self) -> None:
        """The menu of sizes and levels; a choice is made on the making screen."""
        box = self.game.puzzle.box
        attempts = self.order.attempts if self.order else None

        def chosen(order: Order | None) -> None:
            if order is not None:
                self.make(order)
            else:
                self._resume()

        self._pause()
        self.push_screen(NewGameScreen(box, attempts), callback=chosen)

    # --- time ----------------------------------------------------------------------------------

    def elapsed(self) -> float:
        """Seconds played, the running stretch included."""
        running = self.clock() - self.started if self.started is not None else 0.0
        return self.game.elapsed_s + running

    def _pause(self) -> None:
        """Stop the clock while a menu or the making screen hides the game."""
        if self.playing and self.started is not None:
            self.game.elapsed_s = self.elapsed()
            self.started = None

    def _resume(self) -> None:
        if self.playing and not self.game.solved():
            self.started = self.clock()

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
        marks = " ".join(symbol(d, game.side) for d in game.marked(game.cursor)) or "none"
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
                    "c": self.check, "n": self.new_game, "q": self.save_and_quit}
        event.stop()
        event.prevent_default()
        if not self.playing:
            return
        if key == "ctrl+c":
            self.save_and_quit()
        elif key in moves:
            self.game.move_cursor(*moves[key])
            self.refresh_view()
        elif key in ("backspace", "delete", "space") or char in ("0", "."):
            self.play(self.game.erase)
        elif char in commands:
            commands[char]()
        elif char and char in SYMBOLS[: self.game.side]:
            digit = SYMBOLS.index(char) + 1
            self.play(self.game.toggle_mark if self.pencil else self.game.enter, digit)

    def action_quit(self) -> None:  # type: ignore[override]  # Textual's is a coroutine; ours saves first
        """ctrl+q, Textual's quit key (a priority binding, so it never reaches on_key), saves too;
        a puzzle being made is cancelled first."""
        if isinstance(self.screen, MakingScreen):
            self.screen.cancel()
        if not self.playing:
            self.exit(None)
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
        if not self.playing:  # ctrl+q while the first puzzle is made: the making screen cancels
            return
        self.stop_clock()
        self.exit(self.game)


class MakingScreen(Screen["tuple[str, Any]"]):
    """"Making a puzzle": what is made, the seconds so far and each try, while a child process
    (``sudoku.cli.making``) makes it. Dismissed with ``("made", save)``, ``("failed", message)``,
    or None when cancelled (any of CANCEL_KEYS); every other key is ignored."""

    def __init__(self, order: Order, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.order = order
        self.clock = clock
        self.began = clock()
        self.said: list[str] = []
        self.making: Making | None = None
        self.over = False  # cancelled or answered: later events are dropped

    def compose(self) -> ComposeResult:
        yield Static(self._text(), id="making", markup=False)

    def on_mount(self) -> None:
        self.set_interval(0.5, self._show)
        self.run_worker(self._make, thread=True, group="making")

    def _text(self) -> str:
        seconds = int(self.clock() - self.began)
        order, side = self.order, self.order.box**2
        lines = [f"Making a {side}x{side} puzzle ({order.level or 'any level'}, seed {order.seed})",
                 f"{seconds} s so far", *self.said[-5:], "", "Esc (or c) cancels"]
        return "\n".join(lines)

    def _show(self) -> None:
        try:
            self.query_one("#making", Static).update(Text(self._text()))
        except (NoMatches, ScreenStackError):  # a tick while the screen goes
            pass

    def _make(self) -> None:
        """The worker thread: start the child and pass on what it says."""
        making = Making(self.order)
        self.making = making
        if self.over:  # cancelled while the child started
            making.cancel()
            return
        for kind, value in making.events():
            self.app.call_from_thread(self._event, kind, value)
        if not making.cancelled:
            making.close()

    def _event(self, kind: str, value: Any) -> None:
        if self.over:
            return
        if kind == "progress":
            self.said.append(str(value))
            self._show()
            return
        self.over = True
        self.dismiss((kind, value))

    def cancel(self) -> None:
        """Kill the child and go back (to the game in play, or out of the app)."""
        if self.over:
            return
        self.over = True
        if self.making is not None:
            self.making.cancel()
        self.dismiss(None)

    def on_key(self, event: Key) -> None:
        event.stop()
        event.prevent_default()
        if event.key in CANCEL_KEYS:
            self.cancel()

    def on_unmount(self) -> None:
        if self.making is not None and not self.over:  # the app closed under it
            self.making.cancel()


class NewGameScreen(ModalScreen[Order]):
    """The new-game menu: ``s`` changes the size, ``0`` is any level, ``1``-``5`` the levels, those
    ``create`` cannot make at the size listed with the reason and not offered; Esc goes back."""

    def __init__(self, box: int, attempts: int | None) -> None:
        super().__init__()
        self.box = box
        self.attempts = attempts

    def compose(self) -> ComposeResult:
        yield Static(self._text(), id="menu", markup=False)

    def offered(self) -> dict[str, str | None]:
        """Each level's key: None for any level, and the offered levels."""
        keys: dict[str, str | None] = {"0": None}
        for number, level in enumerate(DIFFICULTIES, 1):
            if unmade_reason(self.box, level) is None:
                keys[str(number)] = level
        return keys

    def _text(self) -> str:
        side = self.box * self.box
        sizes = " ".join(f"[{s}]" if s == side else str(s) for s in MADE_SIDES)
        lines = ["New game (the game in play is dropped)", "", f"s  size {sizes}", "0  any level"]
        unmade: dict[str, list[str]] = {}  # reason: the levels it keeps out
        for number, level in enumerate(DIFFICULTIES, 1):
            reason = unmade_reason(self.box, level)
            if reason is None:
                lines.append(f"{number}  {level}")
            else:
                unmade.setdefault(reason, []).append(level)
        for reason, levels in unmade.items():
            lines.append(f"not offered: {', '.join(levels)}: {reason}")
        lines += ["", "Esc back to the game"]
        return "\n".join(lines)

    def on_key(self, event: Key) -> None:
        event.stop()
        event.prevent_default()
        offered = self.offered()
        if event.key in ("escape", "n", "q", "ctrl+c"):
            self.dismiss(None)
        elif event.character == "s":
            sides = list(MADE_SIDES)
            side = sides[(sides.index(self.box * self.box) + 1) % len(sides)]
            self.box = int(side**0.5)
            self.query_one("#menu", Static).update(Text(self._text()))
        elif event.character in offered:
            from sudoku.generate import ATTEMPTS

            level = offered[event.character]
            self.dismiss(Order(self.box, level, new_seed(), self.attempts or ATTEMPTS))
