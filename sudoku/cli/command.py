"""The ``sudoku`` command: create, solve and check puzzles on stdin and stdout.

This is the edge of the library: it reads and writes text, turns InvalidPuzzle into one line on
stderr, and maps outcomes to exit codes. Nothing heavy is imported here, so a single ``solve``
starts in milliseconds; a plain one is read by ``sudoku.cli.quick`` and never imports argparse (the
parser, its help and the exit-code text are made on first use, by ``_parser``).
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache

from sudoku import engines, formats
from sudoku.budget import Budget, BudgetExceeded
from sudoku.check import check
from sudoku.cli.process import (FAILED, INTERRUPTED, IO_ERROR, OK, TIME_LIMIT, USAGE, main as run_as_command, say,
                                use_colour)
from sudoku.cli.quick import solve_args
from sudoku.generate import (ATTEMPTS, DIFFICULTIES, GenerationFailed, create, derive_seed, new_seed,
                             refuse_impossible, unmade_reason)
from sudoku.grid import MADE_SIDES as SIZES, InvalidPuzzle, box_of_side, find_clash

TYPE_CHECKING = False  # typing costs ~3 ms at start-up; only the type checker needs these
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable, Iterator
    from typing import IO, Any, TypeVar

    from sudoku.cli.scaffold import Parser
    from sudoku.grade import Grade
    from sudoku.grid import Grid
    from sudoku.hint import Hint

    T = TypeVar("T")

MAX_LINE = 65536


class Usage(Exception):
    """A command line or input the command cannot act on: exit 2 with one line."""


class _ReadError(Exception):
    """An input file that fails while it is read: exit 3 with one line naming it."""


class _WriteError(Exception):
    """A file that cannot be written (play's save): exit 3 with one line naming it."""


class _TimeLimit(Exception):
    """A --timeout reached: exit 124 with one line naming the limit."""


@lru_cache(maxsize=None)
def _parser() -> Parser:
    """The argument parser, built once per process (in-process callers run many commands), and only
    for a command line the quick reading (``sudoku.cli.quick``) leaves to it."""
    from sudoku.cli.scaffold import Parser, add_color_option, add_version_option, exit_codes

    codes = exit_codes({  # the help's text, made here: textwrap is no solve's business
        OK: None,
        FAILED: "no solution, a check that fails, or a puzzle that could not be made",
        USAGE: "malformed input, an input file that cannot be opened",
        IO_ERROR: "an input file that fails while it is read, a save that cannot be written",
        TIME_LIMIT: "--timeout, as `timeout` uses",
        INTERRUPTED: None,
    })
    parser = Parser(
        prog="sudoku",
        description="Create, solve and check Sudoku puzzles (4x4 up to 81x81).",
        epilog="examples:\n  sudoku create --seed 7 | sudoku solve\n  sudoku create -n 100 --format line"
        " > puzzles.txt\n  sudoku solve --count < puzzles.txt\n\n" + codes,
    )
    add_version_option(parser, "sudoku")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, example: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help,
            description=help,
            epilog=f"example:\n  {example}\n\n{codes}",
        )

    create_p = command(
        "create",
        "print random puzzles, each with a unique solution",
        "sudoku create --seed 7 --size 16 --format line",
    )
    create_p.add_argument("level", nargs="?", choices=DIFFICULTIES, metavar="DIFFICULTY",
                          help="easy, medium, hard, expert or extreme (the `create hard` form)")
    create_p.add_argument("side", nargs="?", type=int, choices=SIZES, metavar="SIZE",
                          help="grid side, as in `create easy 16`")
    create_p.add_argument("-n", "--count", type=int, default=1, help="how many puzzles (default 1)")
    create_p.add_argument("--size", type=int, choices=SIZES, help="grid side: 4, 9 (default), 16 or 25")
    create_p.add_argument("--seed", type=int, help="seed for reproducible puzzles (default: a fresh one)")
    create_p.add_argument("--blanks", type=int, help="at least this many blanks (default: 40 at 9x9, half the cells otherwise)")
    create_p.add_argument("--difficulty", choices=DIFFICULTIES,
                          help="the level `sudoku grade` gives, by the hardest technique a person needs: easy (singles), "
                               "medium (locked candidates, pairs, triples), hard (quads, fish, wings, colouring, "
                               "x-chains, AIC: no assumption), expert (forcing chains: one assumption), extreme "
                               "(nested forcing chains, or guessing). Levels by size: 4x4 easy only; 9x9 all five "
                               "(expert and extreme from the bank, in about a second); 16x16 and 25x25 easy and medium "
                               "(hard and up are minimal puzzles graded: tens of seconds a try, rarely at the level)")
    create_p.add_argument("--attempts", type=int, default=ATTEMPTS,
                          help=f"puzzles made and graded before giving up on a level (default {ATTEMPTS}); at 9x9 "
                               "about 1 try in 5 is medium and 1 in 3 hard; expert and extreme come from a bank of "
                               "puzzles made ahead (extreme: new puzzles climbed to from published hardest puzzles), "
                               "under a random symmetry and graded again (no tries); with --symmetric they are made "
                               "and graded: expert 1 try in 23, extreme rarer than 1 in a million (none in 4.6 "
                               "million random minimal puzzles: docs/benchmarks.md)")
    create_p.add_argument("--minimal", action="store_true", help="remove clues until none can go")
    create_p.add_argument("--symmetric", action="store_true",
                          help="clue pattern symmetric under a half turn (blanks removed in pairs)")
    create_p.add_argument("--format", choices=formats.OUTPUT_FORMATS, default="grid", help="output format (default "
                          "grid; --format json is --json, kept for one release)")
    create_p.add_argument("--json", action="store_true", help='each puzzle as a JSON grid object, one a line: '
                          '{"schema": "sudoku.grid", "version": 1, "rows": [[...], ...]}')
    create_p.add_argument("--engine", choices=engines.names(), help="engine that fills and proves uniqueness "
                          "(default py up to 9x9, big from 16x16)")
    create_p.add_argument("-v", "--verbose", action="store_true",
                          help="say the seed and counts on stderr, and each try of a leveled create")
    _timeout_option(create_p, "the whole command")

    solve_p = command("solve", "solve puzzles read from files or stdin", "sudoku solve puzzle.txt")
    _input_options(solve_p)
    solve_p.add_argument("--count", action="store_true", help="print how many solutions, up to --limit")
    solve_p.add_argument("--json", action="store_true",
                         help='JSON: each solution as a grid object (as --to json), or with --count one object a '
                              'puzzle, {"schema": "sudoku.solve", "version": 2, "puzzle": K, "count": ...}')
    solve_p.add_argument("--limit", type=int, default=2, help="count solutions up to this (default 2)")
    solve_p.add_argument("--to", choices=formats.OUTPUT_FORMATS, help="output format (default: the input's; "
                         "--to json is --json, kept for one release)")
    solve_p.add_argument("--engine", choices=engines.names(),
                         help="solver engine (default auto: py up to 9x9, a route over sat, big and py from 16x16)")
    solve_p.add_argument("-q", "--quiet", action="store_true", help="do not mention several solutions")
    solve_p.add_argument("-v", "--verbose", action="store_true", help="say guesses and nodes on stderr")
    _timeout_option(solve_p, "the whole input")

    check_p = command("check", "say whether a grid is complete, incomplete or invalid", "sudoku check grid.txt")
    _input_options(check_p)
    check_p.add_argument("--json", action="store_true",
                         help='one JSON object a grid, {"schema": "sudoku.check", "version": 2, "puzzle": K, '
                              '"verdict": ..., "detail": ...}')
    add_color_option(check_p)

    grade_p = command("grade", "rate puzzles by the techniques a person needs: level and score", "sudoku grade --steps < puzzle.txt")
    _input_options(grade_p)
    grade_p.add_argument("--steps", action="store_true", help="list every step after the grade")
    grade_p.add_argument("--json", action="store_true", help="one JSON object per puzzle")
    _timeout_option(grade_p, "the whole input")

    hint_p = command("hint", "say the next logical step for a partly filled grid", "sudoku hint < grid.txt")
    _input_options(hint_p)
    hint_p.add_argument("--json", action="store_true", help="one JSON object per grid")
    _timeout_option(hint_p, "the whole input")

    play_p = command("play", "play in the terminal: a new puzzle, one from a FILE, or the saved game "
                     "(needs the extra: pip install 'sudoku-toolkit[play]')", "sudoku play --size 9 --difficulty medium")
    play_p.add_argument("file", nargs="?", metavar="FILE", help="play the first puzzle of this file (any input format)")
    play_p.add_argument("--format", choices=formats.INPUT_FORMATS, help="FILE's format (default: detected)")
    play_p.add_argument("--size", type=int, choices=SIZES, help="grid side of a new puzzle: 4, 9 (default), 16 or 25")
    play_p.add_argument("--difficulty", choices=DIFFICULTIES,
                        help="level of a new puzzle, of those play offers at the size: 4x4 easy; 9x9 all five; "
                             "16x16 and 25x25 easy and medium (the n key's menu says why)")
    play_p.add_argument("--seed", type=int, help="seed of a new puzzle (default: a fresh one, shown on screen)")
    play_p.add_argument("--attempts", type=int, default=ATTEMPTS,
                        help=f"as create's: puzzles made and graded before giving up on a level (default {ATTEMPTS})")
    play_p.add_argument("--save", metavar="FILE", help="save file (default $XDG_STATE_HOME/sudoku/play.json, "
                        "else ~/.local/state/sudoku/play.json)")
    play_p.add_argument("--resume", action="store_true", help="go on with the saved game")
    return parser


def _timeout_option(parser: argparse.ArgumentParser, scope: str) -> None:
    parser.add_argument(
        "--timeout", type=float, metavar="SECONDS",
        help=f"give up after this many seconds for {scope}: one line on stderr, exit 124 "
             "(what was finished before stays printed)",
    )


def _budget(args: argparse.Namespace) -> Budget | None:
    """The command's Budget (None without --timeout), started now: it covers the whole command."""
    if args.timeout is None:
        return None
    if not args.timeout > 0 or args.timeout != args.timeout or args.timeout == float("inf"):
        raise Usage(f"--timeout must be a positive number of seconds, not {args.timeout:g}")
    engine = getattr(args, "engine", None)  # grade and hint have no --engine
    if engine is not None and "budget" not in engines.info(engine).capabilities:
        raise Usage(f"engine {engine!r} cannot stop at a time limit; --timeout needs one of "
                    f"{', '.join(engines.bounded())}")
    return Budget(seconds=args.timeout)


def _input_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="read puzzles from these files in turn (- or none: stdin); one batch, numbered across files")
    parser.add_argument("--format", choices=formats.INPUT_FORMATS, help="input format (default: detected)")


def read_lines(stream: IO[bytes], max_line: int = MAX_LINE) -> Iterator[str]:
    """Text lines of a binary stream, each at most ``max_line`` bytes, decoded as UTF-8."""
    number = 0
    while True:
        raw = stream.readline(max_line + 1)
        if not raw:
            return
        number += 1
        if len(raw) > max_line and not raw.endswith(b"\n"):
            raise InvalidPuzzle(f"line is longer than {max_line} characters", line=number)
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as error:
            byte = raw[error.start]
            raise InvalidPuzzle(f"byte 0x{byte:02x} is not text", line=number, column=error.start + 1) from None


def _write(text: str) -> None:
    sys.stdout.write(text)


def _warn(text: str) -> None:
    say("sudoku", text)


def run_create(args: argparse.Namespace) -> int:
    difficulty = args.difficulty or args.level
    if args.level and args.difficulty and args.level != args.difficulty:
        raise Usage(f"difficulty given twice: {args.level} and {args.difficulty}")
    side = args.size or args.side or 9
    if args.count < 1:
        raise Usage(f"-n must be at least 1, not {args.count}")
    if args.attempts < 1:
        raise Usage(f"--attempts must be at least 1, not {args.attempts}")
    if args.json:  # as --format json
        if args.format not in ("grid", "json"):  # grid: the default, not asked
            raise Usage(f"--json prints each puzzle as JSON: not with --format {args.format}")
        args.format = "json"
    box = box_of_side(side)
    engine = args.engine or engines.default_for(box)
    if engine not in engines.names():
        raise Usage(f"unknown engine {engine!r}; known: {', '.join(engines.names())}")
    if "fill" not in engines.info(engine).capabilities:
        raise Usage(f"engine {engine!r} cannot create puzzles")
    if not engines.supports(engine, box):
        raise Usage(f"engine {engine!r} does not make {side}x{side} grids")
    try:  # a request no puzzle can meet is bad usage, told before any work
        refuse_impossible(box, difficulty, args.blanks)
    except GenerationFailed as error:
        raise Usage(str(error)) from None
    budget = _budget(args)
    seed = new_seed() if args.seed is None else args.seed
    if args.verbose:
        _warn(f"seed {seed}")
    batch_gap = "\n" if args.format in ("grid", "header", "pretty") and args.count > 1 else ""
    for index in range(args.count):
        # one seed, one puzzle: the first is sudoku.create(box, seed=seed)'s, so `create --seed 7` and
        # `create -n 3 --seed 7` begin alike; puzzle i + 1 uses derive_seed(seed, i), its own seed
        puzzle_seed = derive_seed(seed, index) if index else seed
        progress = (lambda text, number=index + 1: _warn(f"puzzle {number}: {text}")) if args.verbose else None
        try:
            puzzle = create(box, seed=puzzle_seed, blanks=args.blanks, difficulty=difficulty,
                            minimal=args.minimal, engine=engine, budget=budget, attempts=args.attempts,
                            symmetric=args.symmetric, progress=progress)
        except BudgetExceeded as error:
            raise _TimeLimit(f"{error} (making puzzle {index + 1} of {args.count})") from None
        except GenerationFailed as error:
            if difficulty != "extreme":
                raise
            raise GenerationFailed(f"{error} (extreme puzzles are rare: see `sudoku create --help`)") from None
        if args.verbose:
            _warn(f"puzzle {index + 1} (seed {puzzle_seed}): {puzzle.clues} clues, {puzzle.blanks} blanks")
        _write((batch_gap if index else "") + formats.render(puzzle, args.format))
    return OK


def run_solve(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise Usage(f"--limit must be at least 1, not {args.limit}")
    if args.json and not args.count:  # the solutions as JSON grids, as --to json
        if args.to not in (None, "json"):
            raise Usage(f"--json prints the solutions as JSON: not with --to {args.to}")
        args.to = "json"
    budget = _budget(args)
    limit = args.limit if args.count else (1 if args.quiet else 2)
    out_fmt = None
    status = OK
    for number, puzzle, fmt, batch in _puzzles(args):
        out_fmt = out_fmt or args.to or fmt  # the first input's format, for the whole output
        # grid, header and pretty answers are blocks of lines with a blank line between (as create -n
        # writes them); a puzzle with no solution gets an empty block, so block k answers puzzle k
        gap = "\n" if out_fmt not in formats.BATCH_FORMATS and number > 1 else ""
        prefix = f"puzzle {number}: " if batch else ""
        engine = args.engine or "auto"
        if not engines.supports(engine, puzzle.box):
            raise Usage(f"engine {engine!r} does not solve {puzzle.side}x{puzzle.side} grids")
        if out_fmt == "line" and puzzle.box > formats.LINE_MAX_BOX and not args.count:
            raise Usage(f"a {puzzle.side}x{puzzle.side} grid has no line form (up to 25x25); use --to grid")
        clash = find_clash(puzzle)
        try:
            if clash is not None:
                answer = None
            else:
                answer = engines.solve(puzzle, limit=limit, engine=engine, budget=budget)
        except BudgetExceeded as error:
            doing = "counting" if args.count else "solving"
            which = prefix.rstrip(": ") if batch else f"the {puzzle.side}x{puzzle.side} puzzle"
            raise _TimeLimit(f"{error} ({doing} {which})") from None
        count = answer.count if answer else 0
        if args.verbose and answer:
            from sudoku.display import counted

            _warn(f"{prefix}{counted(count, 'solution')} counting to {limit}; "
                  f"guesses {answer.counters.guesses}, nodes {answer.counters.nodes}")
        if args.count and args.json:
            counters = answer.counters if answer else None
            _write(_json_line("solve", puzzle=number, count=count, limit=limit, detail=clash,
                              guesses=counters and counters.guesses, nodes=counters and counters.nodes))
        elif args.count:
            _write(f"{count}\n")
        elif count == 0:
            _warn(f"{prefix}{clash or 'no solution'}")
            status = FAILED
            if batch:
                _write(gap or ("\n" if out_fmt in formats.BATCH_FORMATS else ""))  # output k answers puzzle k
        else:
            if count > 1 and not args.quiet:
                _warn(f"{prefix}several solutions; printing one")
            _write(gap + formats.render(answer.solution, out_fmt))  # type: ignore[union-attr, arg-type]  # count > 0: solved
    return status


JSON_VERSION = 2  # the shape of every --json line (check, solve --count, grade, hint); bump it on any change
# 2: each object names its schema, "sudoku.COMMAND", as every tool's JSON does (docs/json.md)


def _json_line(command: str, **fields: Any) -> str:
    """One --json line of ``command``: its schema and version first, as every tool's JSON."""
    import json

    return json.dumps({"schema": f"sudoku.{command}", "version": JSON_VERSION, **fields},
                      separators=(", ", ": ")) + "\n"


def _puzzles(args: argparse.Namespace) -> Iterator[tuple[int, Grid, str, bool]]:
    """Each puzzle of the inputs, in order, as ``(number, grid, format, batch)``.

    The inputs are ``args.files`` (``-`` or none: stdin), read one after another like ``cat``'s;
    ``number`` counts puzzles from 1 across all of them. ``batch`` is whether answers need a
    ``puzzle K:`` prefix: several inputs, a line or json input, or more than one grid in a grid or
    header input (found by reading one grid ahead). Every file is opened once first, so a missing one
    stops the command before any answer (exit 2).
    """
    names = args.files or ["-"]
    for name in names:
        if name != "-":
            try:
                open(name, "rb").close()
            except OSError as error:
                raise Usage(f"cannot read {name}: {error.strerror or error}") from None
    number = 0
    for name in names:
        for grid, fmt, batch in _grids_of(name, args.format, several=len(names) > 1):
            number += 1
            yield number, grid, fmt, batch


def _grids_of(name: str, format: str | None, *, several: bool) -> Iterator[tuple[Grid, str, bool]]:
    """``(grid, format, batch)`` for each grid of one input; errors name the file (not stdin)."""
    stream = None
    try:
        stream = sys.stdin.buffer if name == "-" else open(name, "rb")
        fmt, grids = formats.read(read_lines(stream), format=format)
        if several or fmt in formats.BATCH_FORMATS:
            for grid in grids:
                yield grid, fmt, True
        else:
            for grid, more in _with_more(grids):
                yield grid, fmt, more
    except InvalidPuzzle as error:
        if name == "-":
            raise
        raise Usage(f"{name}: {error}") from None
    except OSError as error:
        raise _ReadError(f"cannot read {'stdin' if name == '-' else name}: {error.strerror or error}") from None
    finally:
        if stream is not None and name != "-":
            stream.close()


def _with_more(grids: Iterable[Grid]) -> Iterator[tuple[Grid, bool]]:
    """Each grid with whether it is one of several, read one grid ahead. When the next one is
    malformed, the grid before it is still given (as one of a batch) before the error is raised."""
    grids = iter(grids)
    current = next(grids, None)
    several = False
    while current is not None:
        try:
            following = next(grids, None)
        except InvalidPuzzle:
            yield current, True
            raise
        several = several or following is not None
        yield current, several
        current = following


VERDICT_STYLES = {"complete": "good", "incomplete": "warn", "invalid": "bad"}  # check's colours on a terminal


def run_check(args: argparse.Namespace) -> int:
    from sudoku.colour import paint

    status = OK
    for number, grid, _, batch in _puzzles(args):
        verdict = check(grid)
        if args.json:
            _write(_json_line("check", puzzle=number, verdict=verdict.status, detail=verdict.detail))
        else:
            prefix = f"puzzle {number}: " if batch else ""
            _write(f"{prefix}{paint(verdict.status, VERDICT_STYLES.get(verdict.status))}: {verdict.detail}\n")
        if verdict.status != "complete":
            status = FAILED
    return status


def run_grade(args: argparse.Namespace) -> int:
    """Level and score per puzzle (sudoku.grade, loaded only here); 1 if one cannot be graded."""
    from sudoku.grade import grade, tally
    from sudoku.hint import describe

    budget = _budget(args)
    status = OK
    for number, puzzle, _, batch in _puzzles(args):
        prefix = f"puzzle {number}: " if batch else ""
        result: Grade
        result = _bounded(budget, lambda inner, puzzle=puzzle: grade(puzzle, budget=inner), f"grading {puzzle.side}x"
                          f"{puzzle.side} puzzle {number}")
        if result.problem:
            _warn(f"{prefix}{result.problem}")
            status = FAILED
            _write(_json_line("grade", puzzle=number, error=result.problem) if args.json else "")
            continue
        said = [describe(step, puzzle.box) for step in result.steps] if args.steps else []
        if args.json:
            record: dict[str, Any]
            record = {"puzzle": number, "level": result.level, "score": result.score, "guesses": result.guesses,
                      "techniques": tally(result.steps)}
            if args.steps:
                record["steps"] = said
            _write(_json_line("grade", **record))
            continue
        _write(f"{prefix}{result.level}, score {result.score}, {len(result.steps)} steps"
               f"{f', {result.guesses} guess' + 'es' * (result.guesses > 1) if result.guesses else ''}\n")
        for step_number, words in enumerate(said, 1):
            _write(f"  {step_number}. {words}\n")
    return status


def run_hint(args: argparse.Namespace) -> int:
    """The next logical step per grid (sudoku.hint, loaded only here); 1 if an entry breaks it."""
    from sudoku.hint import hint

    budget = _budget(args)
    status = OK
    for number, grid, _, batch in _puzzles(args):
        prefix = f"puzzle {number}: " if batch else ""
        result: Hint
        result = _bounded(budget, lambda inner, grid=grid: hint(grid), f"a hint for {grid.side}x{grid.side} "
                          f"grid {number}")
        if result.broken:
            status = FAILED
        if args.json:
            record: dict[str, Any]
            record = {"puzzle": number, "hint": result.words, "problem": result.problem}
            if result.step:
                record.update(technique=result.step.technique, placement=result.step.placement,
                              eliminations=[list(e) for e in result.step.eliminations])
            _write(_json_line("hint", **record))
        elif result.broken:
            _warn(f"{prefix}{result.problem}")
        else:
            _write(f"{prefix}{result.words or result.problem}\n")
    return status


def _bounded(budget: Budget | None, work: Callable[..., T], doing: str) -> T:
    """``work(inner)`` within the command's budget (sudoku.budget.within: a forked child killed at the
    deadline, since a pass of forcing chains cannot be stopped half-way); _TimeLimit past it."""
    if budget is None:
        return work(None)
    from sudoku.budget import within

    try:
        return within(budget, work)
    except BudgetExceeded as error:
        raise _TimeLimit(f"{error} ({doing})") from None


SAVE_BYTES = 8 << 20  # a 25x25 save with a full history of moves is under 4 MB
SAVE_DEPTH = 8  # a save nests 4 deep (a move's before and after)


def run_play(args: argparse.Namespace) -> int:
    """The game (sudoku.cli.play, Textual: loaded only here); saves on quit. 0 once saved."""
    import argparse

    from sudoku.cli.making import Order
    from sudoku.play_state import BadSave, Game, Unplayable

    try:
        from sudoku.cli import play
    except ImportError as error:
        if (error.name or "").split(".")[0] not in ("textual", "rich"):
            raise
        raise Usage("play needs Textual: pip install 'sudoku-toolkit[play]' (or pip install textual)") from None
    path = args.save or str(play.save_path())
    new = args.size or args.difficulty or args.seed is not None
    if args.resume and (args.file or new):
        raise Usage("--resume goes on with the saved game: no FILE, --size, --difficulty or --seed")
    if args.file and new:
        raise Usage("a FILE brings its own puzzle: no --size, --difficulty or --seed")
    if args.file == "-":
        raise Usage("play reads its puzzle from a file, not stdin (the game needs the terminal)")
    extra: dict[str, Any] = {}
    game: Game | None = None
    order: Order | None = None
    if args.resume:
        from sudoku.files import read_small
        from sudoku.untrusted import loads

        if not os.path.lexists(path):
            raise Usage(f"no saved game at {path}")
        try:  # a regular file of at most SAVE_BYTES, not through a link the game did not make (it saves by
            # renaming a file into place), opened without blocking: a FIFO cannot hang it before its first frame
            data = loads(read_small(path, SAVE_BYTES), max_depth=SAVE_DEPTH)
            game = Game.from_dict(data)
        except (ValueError, BadSave) as error:  # NotReadable and BadJSON are ValueErrors
            raise Usage(f"{path}: not a saved game this version can read: {error}") from None
        extra = {key: data[key] for key in ("label", "seed", "level") if key in data}
    elif args.file:
        _, grid, _, _ = next(_puzzles(argparse.Namespace(files=[args.file], format=args.format)))
        if grid.box > formats.LINE_MAX_BOX:
            raise Usage(f"{args.file}: play goes up to 25x25, not {grid.side}x{grid.side}")
        try:
            game = Game.of(grid)
        except Unplayable as error:
            _warn(f"{args.file}: {error}")
            return FAILED
        extra = {"label": os.path.basename(args.file)}
    else:
        side = args.size or 9
        if args.attempts < 1:
            raise Usage(f"--attempts must be at least 1, not {args.attempts}")
        if args.difficulty and (reason := unmade_reason(box_of_side(side), args.difficulty)):
            raise Usage(f"play does not offer {args.difficulty} at {side}x{side}: {reason}")
        order = Order(box_of_side(side), args.difficulty, new_seed() if args.seed is None else args.seed,
                      args.attempts)
    _needs_terminal()
    # a new puzzle is made inside the app, on its making screen (with a cancel key)
    app = play.PlayApp(game, title=extra.get("label", ""), order=order, extra=extra)
    app.run()
    if app.return_code:  # the app failed (Textual has shown why)
        return app.return_code
    if app.return_value is None:
        if app.failure:
            raise GenerationFailed(app.failure)
        _warn("cancelled before the puzzle was made; nothing saved")
        return INTERRUPTED
    game, extra = app.return_value, app.extra
    from sudoku.files import NotWritable

    try:
        play.write_save(path, game.to_dict(**extra))
    except NotWritable as error:  # a link, a folder or a FIFO where the save goes: never written through
        raise Usage(f"cannot save the game: {error}") from None
    except OSError as error:
        raise _WriteError(f"cannot save the game to {path}: {error.strerror or error}") from None
    done = f"solved in {play.clock_text(game.elapsed_s)}; " if game.solved() else ""
    again = "sudoku play --resume" + (f" --save {args.save}" if args.save else "")
    _write(f"{done}game saved to {path} ({again} goes on with it)\n")
    return OK


def _needs_terminal() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise Usage("play needs a terminal (stdin and stdout)")


def run(argv: list[str] | None = None) -> int:
    """The command without process-wide set-up: parse ``argv``, act, return the exit code.

    Reads ``sys.stdin.buffer`` and writes ``sys.stdout``/``sys.stderr`` as they are at call time, so
    a harness can call it in-process with its own streams (``fuzz``'s engine target does). A plain
    ``solve`` is read without argparse (``sudoku.cli.quick``); any other command line by the parser.
    """
    words = sys.argv[1:] if argv is None else argv
    args = solve_args(words) or _parser().parse_args(words)
    use_colour(args)
    commands = {"create": run_create, "solve": run_solve, "check": run_check, "grade": run_grade,
                "hint": run_hint, "play": run_play}
    if args.command is None:
        *rest, last = commands
        _warn(f"a command is needed: {', '.join(rest)} or {last} (see sudoku --help)")
        return USAGE
    command = commands[args.command]
    try:
        return command(args)
    except InvalidPuzzle as error:
        _warn(str(error))
        return USAGE
    except Usage as error:
        _warn(str(error))
        return USAGE
    except GenerationFailed as error:
        _warn(str(error))
        return FAILED
    except (_ReadError, _WriteError) as error:
        _warn(str(error))
        return IO_ERROR
    except _TimeLimit as error:
        _warn(str(error))
        return TIME_LIMIT


def main(argv: list[str] | None = None) -> int:
    """The console entry point: ``run`` as the process's command (``sudoku.cli.process.main``).
    SIGINT, SIGTERM and SIGHUP end a command alike: quietly, with exit 128+n, after the ``finally``
    blocks on the way have run (so a forked solve child is killed)."""
    return run_as_command(lambda: run(argv), "sudoku")
