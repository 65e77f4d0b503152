"""Case families: each a named way to make a question for a target, with its right answer.

A case is rebuilt from (run seed, case index, run size) alone: every ``CREATE_EVERY``-th case asks
the target to create (often enough that a bug on 30 % of creates is missed with probability under
1e-4: see ``create_calls``); for the others the index's derived seed drives a ``random.Random`` that
picks the family and its details. Unique puzzles come from small pools
(our generator, one pool per 200 cases, and at 9x9 a shipped corpus of known hard puzzles), varied
by a random symmetry (digit relabelling, row/column permutations within bands and stacks, band and
stack permutations, transposition), which keeps uniqueness, difficulty and the known solution.

Every family is made at any size: a run has a ``size`` (a grid side: 4, 9, 16, 25) or ``"mixed"``
(each case draws one), and nothing here assumes 9 (``side`` and ``box`` name the size).
"""

import random
import re
from math import isqrt
from collections import namedtuple
from functools import lru_cache
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import Any, cast

from sudoku import Grid, InvalidPuzzle, create, derive_seed, engines, find_clash, parse, render
from sudoku.grid import MADE_SIDES

Case = namedtuple("Case", "family command text puzzle count solution calls side verdict", defaults=(1, 9, None))
Case.__doc__ = """``command`` is 'solve' or 'create'; ``text`` the bytes given on stdin; ``puzzle`` the puzzle
(None for malformed text and creates); ``count`` its solutions up to 2 (None when the text is
malformed); ``solution`` the unique solution when count is 1; ``calls`` how many times the target
is asked (creates: every answer is judged, and two must not be the same); ``side`` the grid side the
case is about (what a target's answer is read as); ``verdict`` the right word for a checker
('complete', 'incomplete', 'invalid'; None when the text is malformed or the case is no check)."""

SIZES = MADE_SIDES  # a run's sizes: "mixed" draws one of these per case
POOL_SPAN = 200
# What a target's solver must do, the levels of the unique_* families: easy = singles alone solve it,
# medium = only with hidden singles (the engine's rating, sudoku.engines.py.rate), hard = a search.
# This is the solver's scale, not `sudoku grade`'s human levels (grading a pool's puzzles took 30x
# longer and finds no more bugs). The levels each size makes in a second or so: a family asking for
# another takes one of these.
LEVELS = {2: ("easy",), 3: ("easy", "medium", "hard"), 4: ("easy", "medium"), 5: ("easy",)}
_RATING = {"medium": "hidden", "hard": "guess"}
_TRIES = 40  # made puzzles looked at for a rating: at 9x9 about 6 in 10 minimal ones need search
CORPUS = Path(__file__).with_name("data") / "hard.txt"
# The solve families (FAMILY, WEIGHTS, SOLVE_FAMILIES) are defined at the end, once their makers are.

MAX_INPUT = 1 << 20  # bytes of the largest input a case gives, a corpus saves and reads back (fuzz.corpus)
# A unique puzzle solved in a working folder where no file can be made, by root either
# (``fuzz.targets.unwritable_folder``): programs that save their board beside them (``board.out``) and
# crash on the failed open (``fclose(NULL)``) are caught; the right answer is the solution as ever.
UNWRITABLE_FOLDER = "unwritable_folder"
CREATE_EVERY = 20  # case 0, 20, 40, ... asks the target to create
ROUNDTRIP_EVERY = 50  # case 25, 75, 125, ... is a round trip: create, then solve what it printed
MIN_CREATES = 30  # a bug on 30 % of creates slips through 30 creates with probability 0.7**30 < 1e-4
REPLAY_CREATES = 20  # creates asked when a saved create reproducer is replayed


def create_calls(n: int, every: int = CREATE_EVERY) -> int:
    """Creates asked per create case in a run of ``n`` cases, one case in ``every`` a create: at least
    two (two answers must differ), and enough that the run asks at least max(30, n/10) creates."""
    create_cases = -(-n // every)
    return max(2, -(-MIN_CREATES // create_cases))


# --mode check: a checker reads a grid and says complete, incomplete or invalid. Each breaking family
# breaks one kind of unit alone (a row, a column or a box), with or without blanks elsewhere.
CHECK_WEIGHTS = {
    "check_complete": 4, "check_blanks": 4,
    "check_row": 2, "check_column": 2, "check_box": 2,
    "check_row_blanks": 2, "check_column_blanks": 2, "check_box_blanks": 2,
    "malformed_fewer_rows": 1, "malformed_more_rows": 1, "malformed_fewer_columns": 1,
    "malformed_more_columns": 1, "malformed_letter": 1, "malformed_out_of_range": 1, "malformed_negative": 1,
    "malformed_empty_input": 1, "malformed_binary": 1,
}
CHECK_FAMILIES = tuple(CHECK_WEIGHTS)


def make_check_case(seed: int, index: int, *, header: bool = False, size: int | str = 9,
                    only: Sequence[str] | None = None) -> Case:
    """Case ``index`` of a checker run (``--mode check``); ``only``: the families it draws from
    (``select``; None: all)."""
    side = side_of(size, seed, index)
    rng = random.Random(derive_seed(seed, "check", index))
    drawn = [name for name in CHECK_FAMILIES if name in only] if only else CHECK_FAMILIES
    family = rng.choices(drawn, weights=[CHECK_WEIGHTS[f] for f in drawn])[0]
    _, solution = _unique("unique_easy", rng, _pool(derive_seed(seed, "pool", index // POOL_SPAN), isqrt(side)))
    if family.startswith("malformed_"):
        return Case(family, "check", _malformed(family, rng, _text(solution, header), side), None, None, None, 1,
                    side)
    grid = _broken(family, rng, solution)
    if family.endswith("blanks"):
        keep = _clash_cells(grid)
        cells = [0 if i not in keep and rng.random() < 0.3 else v for i, v in enumerate(grid.cells)]
        free = [i for i in range(len(cells)) if i not in keep]
        if free:  # at least one blank (a 4x4 box break may leave no cell out of the clash)
            cells[rng.choice(free)] = 0
        grid = Grid(grid.box, cells)
    from sudoku.check import check

    return Case(family, "check", _text(grid, header), grid, None, None, 1, side, check(grid).status)


def _broken(family: str, rng: random.Random, solution: Grid) -> Grid:
    """A full valid grid with one kind of unit broken: two cells of one column and box swapped breaks
    two rows alone; of one row and box, two columns alone; two rows of different bands swapped break
    boxes alone (every row and column still holds each digit once)."""
    if family.startswith(("check_complete", "check_blanks")):
        return solution
    for _ in range(100):  # two rows of different bands may hold the same digits in a stack: try again
        grid = _swap(family, rng, solution)
        clash = find_clash(grid)
        if clash and clash.startswith(family.removeprefix("check_").removesuffix("_blanks")):
            return grid
    raise AssertionError(f"no {family} grid from {solution!r}")


def _swap(family: str, rng: random.Random, solution: Grid) -> Grid:
    box, side = solution.box, solution.side
    rows = solution.rows
    band, r, c = rng.randrange(box), rng.randrange(side), rng.randrange(side)
    a, b = rng.sample(range(box), 2)
    if family.startswith("check_row"):  # swap within a column, inside one box
        r1, r2 = band * box + a, band * box + b
        rows[r1][c], rows[r2][c] = rows[r2][c], rows[r1][c]
    elif family.startswith("check_column"):  # swap within a row, inside one box
        c1, c2 = band * box + a, band * box + b
        rows[r][c1], rows[r][c2] = rows[r][c2], rows[r][c1]
    else:  # check_box: two rows of different bands change places
        b1, b2 = rng.sample(range(box), 2)
        r1, r2 = b1 * box + rng.randrange(box), b2 * box + rng.randrange(box)
        rows[r1], rows[r2] = rows[r2], rows[r1]
    return Grid(box, [v for row in rows for v in row])


def _clash_cells(grid: Grid) -> set[int]:
    """The cells whose values repeat in one of their units (kept when a breaking case gets blanks)."""
    from sudoku.grid import geometry

    cells: set[int] = set()
    for unit in geometry(grid.box).units:
        seen: dict[int, list[int]] = {}
        for cell in unit:
            value = grid.cells[cell]
            if value:
                seen.setdefault(value, []).append(cell)
        cells.update(cell for group in seen.values() if len(group) > 1 for cell in group)
    return cells


def side_of(size: int | str, seed: int, index: int) -> int:
    """The grid side of case ``index``: the run's ``size``, or drawn per case when it is 'mixed'."""
    if size == "mixed":
        return random.Random(derive_seed(seed, "size", index)).choice(SIZES)
    return int(size)


def make_case(seed: int, index: int, *, n: int, header: bool = False, size: int | str = 9,
              only: Sequence[str] | None = None) -> Case:
    """Case ``index`` of a run of ``n`` cases with ``seed`` at ``size`` (a side, or 'mixed').

    ``only`` (``select``; None: all) narrows the families: a create and a round trip keep their
    places (case 0, 20, ... and 25, 75, ...) when chosen, the solve families chosen are drawn for the
    others by their weights; with no solve family chosen every case is a create or a round trip, in
    turn. Each case is still rebuilt from (seed, index, n, only) alone."""
    side = side_of(size, seed, index)
    drawn = [name for name in SOLVE_FAMILIES if name in only] if only else SOLVE_FAMILIES
    whole = [name for name in ("create", "roundtrip") if not only or name in only]
    if not drawn:  # creates and round trips alone
        kind = whole[index % len(whole)]
        return (create_case(create_calls(n, len(whole)), side=side) if kind == "create"
                else Case("roundtrip", "roundtrip", b"", None, None, None, 2, side))
    if index % CREATE_EVERY == 0 and "create" in whole:
        return create_case(create_calls(n), side=side)
    if index % ROUNDTRIP_EVERY == ROUNDTRIP_EVERY // 2 and "roundtrip" in whole:
        return Case("roundtrip", "roundtrip", b"", None, None, None, 2, side)
    rng = random.Random(derive_seed(seed, "case", index))
    family = rng.choices(drawn, weights=[WEIGHTS[f] for f in drawn])[0]
    pool = _pool(derive_seed(seed, "pool", index // POOL_SPAN), isqrt(side))
    return build(family, rng, pool, header=header)


def create_case(calls: int = REPLAY_CREATES, *, side: int = 9) -> Case:
    return Case("create", "create", b"", None, None, None, calls, side)


def _check_case(family: str, text: bytes, side: int) -> Case:
    from sudoku.check import check

    try:
        grids = list(parse(text.decode("utf-8").splitlines(keepends=True)))
    except (InvalidPuzzle, UnicodeDecodeError):
        grids = []
    if len(grids) != 1 or grids[0].side != side:
        return Case(family, "check", text, None, None, None, 1, side)
    return Case(family, "check", text, grids[0], None, None, 1, side, check(grids[0]).status)


def solve_after_create(text: bytes, *, side: int = 9, header: bool = False) -> Case | None:
    """The solve half of a round trip (``fuzz.tasks.round_trip``):
    the target's own ``create`` output, exactly as printed, given to its own ``solve``. Its right
    answer is that of the puzzle our lenient reader finds in the text; None when it finds none."""
    from fuzz.read import find_grid

    grid = find_grid(text, side=side, header=header).grid
    if grid is None:
        return None
    count, solution = (0, None) if find_clash(grid) else count_solutions(grid)
    return Case("roundtrip", "solve", text, grid, count, solution, 1, side)


def build(family: str, rng: random.Random, pool: dict[str, tuple[Grid, Grid]], *, header: bool = False) -> Case:
    """A case of solve ``family`` (a name in FAMILY), drawn with ``rng`` from a unique puzzle of ``pool``."""
    puzzle, solution = _unique(family, rng, pool)
    return cast(Case, FAMILY[family].make(family, rng, puzzle, solution, header))


def _solve_case(family: str, text: bytes, puzzle: Grid, count: int, solution: Grid | None) -> Case:
    return Case(family=family, command="solve", text=text, puzzle=puzzle, count=count, solution=solution,
                side=puzzle.side)


def _as_given(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    """The unique puzzle itself."""
    return _solve_case(family, _text(puzzle, header), puzzle, 1, solution)


def _respelled(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    """The unique puzzle in an unusual but allowed spelling (``_whitespace``)."""
    return _solve_case(family, _whitespace(family, rng, _text(puzzle, header)), puzzle, 1, solution)


def _broken_text(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    """The puzzle's text broken in the family's way (``_malformed``): no puzzle, no count."""
    return Case(family=family, command="solve", text=_malformed(family, rng, _text(puzzle, header), puzzle.side),
                puzzle=None, count=None, solution=None, side=puzzle.side)


@lru_cache(maxsize=8)
def known_good(*, header: bool = False, side: int = 9) -> bytes:
    """The text of an easy unique puzzle, for checking that a target starts at all."""
    return _text(create(isqrt(side), seed=1, difficulty="easy"), header)


def _text(grid: Grid, header: bool) -> bytes:
    return render(grid, "header" if header else "grid").encode()


@lru_cache(maxsize=16)
def _pool(seed: int, box: int = 3) -> dict[str, tuple[Grid, Grid]]:
    """One generated unique puzzle per difficulty our generator makes at ``box``, with its solution."""
    pool: dict[str, tuple[Grid, Grid]] = {}
    for level in LEVELS[box]:
        puzzle = _rated(box, derive_seed(seed, level), level)
        if puzzle is not None:
            pool[level] = (puzzle, cast(Grid, engines.solve(puzzle, limit=1).solution))
    return pool


def pool_maker(box: int) -> str | None:
    """The engine that makes a pool's puzzles at ``box``: the compiled ``nb`` at 9x9, else the
    default (``big`` above, ``py`` at 4x4). Every worker makes the pool of each span its chunks
    touch (a chunk is about 100 cases, a span 200): with ``py`` that was 45 ms a 9x9 pool, a fifth
    of a fuzz worker's time against our own engine; with ``nb``, 4 ms."""
    return "nb" if box == 3 else None


def _rated(box: int, seed: int, level: str) -> Grid | None:
    """A puzzle of ``box`` at ``level`` of LEVELS' scale (None if _TRIES made none): easy ones made
    so, the others the first made puzzle the engine rates so."""
    maker = pool_maker(box)
    if level == "easy":
        return create(box, seed=seed, difficulty="easy", engine=maker)
    rate = engines.load("py").rate
    for tries in range(_TRIES):
        puzzle = create(box, seed=derive_seed(seed, tries), engine=maker)
        if rate(puzzle) == _RATING[level]:
            return puzzle
    return None


@lru_cache(maxsize=1)
def _corpus() -> list[tuple[Grid, Grid]]:
    from sudoku.formats import parse_line

    pairs: list[tuple[Grid, Grid]] = []
    for line in CORPUS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            puzzle, solution = line.split(":")
            pairs.append((parse_line(puzzle), parse_line(solution)))
    return pairs


def _unique(family: str, rng: random.Random, pool: dict[str, tuple[Grid, Grid]]) -> tuple[Grid, Grid]:
    """A unique puzzle and its solution, under a random symmetry."""
    box = next(iter(pool.values()))[0].box
    if family == "unique_corpus" and box == 3:
        puzzle, solution = rng.choice(_corpus())
    else:
        level = family.removeprefix("unique_")
        puzzle, solution = pool[level if level in pool else rng.choice(sorted(pool))]
    mapping = symmetry(rng, box)
    return mapping(puzzle), mapping(solution)


def symmetry(rng: random.Random, box: int = 3) -> Callable[[Grid], Grid]:
    """A random validity-preserving transformation of grids of ``box``, as a function Grid -> Grid."""
    side = box * box
    digits = list(range(1, side + 1))
    rng.shuffle(digits)
    relabel = [0] + digits

    def lines() -> list[int]:
        bands = rng.sample(range(box), box)
        return [band * box + r for band in bands for r in rng.sample(range(box), box)]

    rows, cols = lines(), lines()
    transpose = rng.random() < 0.5

    def apply(grid: Grid) -> Grid:
        cells = grid.cells
        out: list[int] = []
        for r in range(side):
            for c in range(side):
                rr, cc = (cols[c], rows[r]) if transpose else (rows[r], cols[c])
                out.append(relabel[cells[rr * side + cc]])
        return Grid(box, out)

    return apply


COUNT_SECONDS = 5.0  # a count that takes longer than this is unknown (a shrink candidate is then skipped)


class CountUnknown(Exception):
    """Counting a text's solutions ran past its budget: its class (unique or not) is not known."""


def counter(box: int) -> str:
    """The engine that counts a grid's solutions for the harness: a compiled one where there is one
    (``band`` at 9x9: ~0.1 ms for a 12-clue grid, where the pure-Python engine took up to 48 s of CPU
    on sparse shrink candidates), ``py`` at 4x4 (instant there), ``big`` from 16x16 up, bounded."""
    if box == 3:
        return "band"
    return "py" if box == 2 else "big"


def count_solutions(puzzle: Grid, *, seconds: float = COUNT_SECONDS, engine: str | None = None) -> tuple[int, Grid | None]:
    """(solutions up to 2, the solution when unique) of a clash-free ``puzzle``, by ``engine`` or the
    fast engine for its size; CountUnknown past ``seconds`` (only engines with a budget are bounded:
    ``band`` counts any 9x9 grid to 2 in milliseconds)."""
    from sudoku.budget import Budget, BudgetExceeded

    engine = engine or counter(puzzle.box)
    budget = Budget(seconds=seconds) if "budget" in engines.info(engine).capabilities else None
    try:
        answer = engines.solve(puzzle, limit=2, engine=engine, budget=budget)
    except BudgetExceeded:
        raise CountUnknown(f"counting a {puzzle.side}x{puzzle.side} grid took more than {seconds:g}s") from None
    return answer.count, answer.solution if answer.count == 1 else None



def _multiple(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    side = solution.side
    # 9x9: fewer than 17 clues is never unique. Any size: with at most side - 2 clues, two digits
    # are missing, and swapping them gives a second solution.
    clues = rng.randint(8, 16) if side == 9 else rng.randint(1, side - 2)
    keep = set(rng.sample(range(side * side), clues))
    few = Grid(solution.box, [v if i in keep else 0 for i, v in enumerate(solution.cells)])
    return _solve_case(family, _text(few, header), few, 2, None)


def _no_solution(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    """A blank set to a digit no peer holds but the unique solution does not have there: givens do not
    clash, yet every solution would be a solution of the original puzzle, whose only one differs."""
    from sudoku.grid import geometry

    peers = geometry(puzzle.box).peers
    cells = list(puzzle.cells)
    blanks = [i for i, v in enumerate(cells) if not v]
    rng.shuffle(blanks)
    for cell in blanks:
        seen = {cells[p] for p in peers[cell]}
        options = [d for d in range(1, puzzle.side + 1) if d not in seen and d != solution.cells[cell]]
        if options:
            cells[cell] = rng.choice(options)
            bad = Grid(puzzle.box, cells)
            return _solve_case(family, _text(bad, header), bad, 0, None)
    return _clashing("clashing", rng, puzzle, solution, header)


def _no_solution_deep(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    """No solution, no clash, and the contradiction only in the last row: one digit has no place
    left there (every blank of the row sees it in its box or column). A solver that propagates
    (hidden singles) says so at once; plain backtracking in reading order fills every row above
    first, in every way the few givens allow: hours, as in programs seen in the wild. The
    ``no_solution_early`` and ``no_solution_middle`` families set the same trap in the first and
    the middle band: the search meets it after fewer rows (a solver that hangs on one depth only)."""
    box, side = puzzle.box, puzzle.side
    trap = {"no_solution_early": 0, "no_solution_middle": box // 2}.get(family, box - 1)
    digit = rng.randint(1, side)
    cells = [0] * (side * side)
    last = trap * box + box - 1  # the trap's row: the last of its band
    # the trap band's boxes but the last: the digit on a row above the trap's row, one row each
    rows = rng.sample(range(last - box + 1, last), box - 1)
    for stack, row in enumerate(rows):
        cells[row * side + stack * box + rng.randrange(box)] = digit
    # the last box's columns but its last: the digit in the other bands, one each
    others = [band for band in range(box) if band != trap]
    for band, column in zip(rng.sample(others, box - 1), range(side - box, side - 1)):
        cells[(band * box + rng.randrange(box)) * side + column] = digit
    cells[last * side + side - 1] = rng.choice([d for d in range(1, side + 1) if d != digit])
    grid = Grid(box, cells)
    for cell in rng.sample(range(side * side), side):  # a few more givens from anywhere, never clashing
        value = solution.cells[cell]
        if not cells[cell] and value != digit and not (cell // side == last):
            trial = grid.with_cell(cell, value)
            if find_clash(trial) is None:
                grid = trial
    return _solve_case(family, _text(grid, header), grid, 0, None)


def _clashing(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    """Two equal givens in one row, column or box."""
    from sudoku.grid import geometry

    geo = geometry(puzzle.box)
    cells = list(puzzle.cells)
    unit = rng.choice(geo.units)
    givens = [c for c in unit if cells[c]]
    blanks = [c for c in unit if not cells[c]]
    if givens and blanks:
        cells[rng.choice(blanks)] = cells[rng.choice(givens)]
    else:
        a, b = rng.sample(unit, 2)
        cells[a] = cells[b] = rng.randint(1, puzzle.side)
    bad = Grid(puzzle.box, cells)
    return _solve_case(family, _text(bad, header), bad, 0, None)


def _full_broken(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    """A full grid with one cell wrong: a clash (another digit there, so its row, column or box holds
    one twice), or a number out of range (malformed text). Programs that take a full grid as solved
    (an ``is_full()`` check before any other) print it back, exit 0."""
    cell = rng.randrange(len(solution.cells))
    if family == "full_out_of_range":
        values = [str(v) for v in solution.cells]
        values[cell] = str(rng.choice((solution.side + 1, 10 * solution.side)))
        rows = [" ".join(values[r * solution.side:(r + 1) * solution.side]) for r in range(solution.side)]
        head = [str(solution.box)] if header else []
        return Case(family=family, command="solve", text=("\n".join(head + rows) + "\n").encode(), puzzle=None,
                    count=None, solution=None, side=solution.side)
    wrong = rng.choice([d for d in range(1, solution.side + 1) if d != solution.cells[cell]])
    bad = solution.with_cell(cell, wrong)
    return _solve_case(family, _text(bad, header), bad, 0, None)


def _empty(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    empty = Grid.empty(puzzle.box)
    return _solve_case(family, _text(empty, header), empty, 2, None)


def _full(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    return _solve_case(family, _text(solution, header), solution, 1, solution)


def _one_blank(family: str, rng: random.Random, puzzle: Grid, solution: Grid, header: bool) -> Case:
    one = solution.with_cell(rng.randrange(len(solution.cells)), 0)
    return _solve_case(family, _text(one, header), one, 1, solution)


def _whitespace(family: str, rng: random.Random, text: bytes) -> bytes:
    """Valid text in an unusual but allowed spelling."""
    lines = text.decode().split("\n")[:-1]
    if family == "whitespace_tabs":
        lines = [line.replace(" ", "\t") for line in lines]
    elif family == "whitespace_crlf":
        return ("\r\n".join(lines) + "\r\n").encode()
    elif family == "whitespace_no_final_newline":
        return "\n".join(lines).encode()
    elif family == "whitespace_trailing_spaces":
        lines = [line + " " * rng.randint(1, 3) for line in lines]
    elif family == "whitespace_double_spaces":
        lines = [line.replace(" ", "  ") for line in lines]
    elif family == "whitespace_blank_lines_at_end":
        lines += [""] * rng.randint(1, 3)
    elif family.startswith("whitespace_space_after_each"):
        return space_after_each(text, b"\r\n" if family.endswith("_crlf") else b"\n")
    return ("\n".join(lines) + "\n").encode()


def space_after_each(text: bytes, end: bytes = b"\n") -> bytes:
    """``text`` (lines of numbers, each ending in a newline) with a space after every number and
    ``end`` closing each line: the spelling some strict readers need, as they take a number only
    when a space follows it."""
    return b"".join(line + b" " + end for line in text.split(b"\n")[:-1])


def respaced(case: Case) -> Case:
    """A solve case spelled with a space after every number (``space_after_each``), for a target that
    reads only that spelling (``fuzz.engine.preflight``): its solver, and its reader's handling of
    malformed text, are then tested past its need for the space. Valid text in an odd spelling (the
    whitespace families, whose spelling is their point), and create or check cases, stay as they are."""
    if case.command != "solve" or lenient(case.family) or not case.text:
        return case
    return case._replace(text=space_after_each(case.text))


def _malformed(family: str, rng: random.Random, text: bytes, side: int) -> bytes:
    """Text that breaks the contract in one named way."""
    lines = text.decode().split("\n")[:-1]
    head = lines[:1] if lines and len(lines[0].split()) == 1 else []  # keep a header line as it is
    rows = lines[len(head):]
    r = rng.randrange(len(rows))
    row = rows[r].split(" ")
    if family == "malformed_fewer_rows":
        del rows[r]
    elif family == "malformed_more_rows":  # a copied row inside, or a row of zeros after the last
        if rng.random() < 0.5:
            rows.insert(r, rows[rng.randrange(len(rows))])
        else:
            rows.append(" ".join(["0"] * side))
    elif family == "malformed_fewer_columns":
        del row[rng.randrange(len(row))]
        rows[r] = " ".join(row)
    elif family == "malformed_more_columns":
        row.insert(rng.randrange(len(row) + 1), str(rng.randint(0, side)))
        rows[r] = " ".join(row)
    elif family == "malformed_letter":
        row[rng.randrange(len(row))] = rng.choice("abxXoO")
        rows[r] = " ".join(row)
    elif family == "malformed_out_of_range":
        row[rng.randrange(len(row))] = str(rng.choice((side + 1, side + 2, 42 + side, 99 + side, 123456789)))
        rows[r] = " ".join(row)
    elif family == "malformed_negative":
        row[rng.randrange(len(row))] = str(-rng.randint(1, side))
        rows[r] = " ".join(row)
    elif family == "malformed_empty_input":
        return b""
    elif family == "malformed_binary":
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))) + b"\xff\x00"
    elif family == "malformed_huge_line":  # as long as a saved input may be (the corpus reads it back)
        return ("1 " * ((MAX_INPUT - 1) // 2)).encode() + b"\n"
    return ("\n".join(head + rows) + "\n").encode()


def from_text(family: str, command: str, text: bytes, *, side: int = 9, engine: str | None = None) -> Case:
    """A case for any text, its answer worked out by our own parser and engine (for shrinking and
    replay): malformed when our parser rejects it or reads a grid of another side than ``side``
    (the size the target is asked about), else the puzzle with its solution count (by ``engine``,
    or the size's ``counter``)."""
    if command == "create":
        return create_case(side=side)
    if command == "check":
        return _check_case(family, text, side)
    if family == "roundtrip":  # a target's own create output: read as leniently as it was written
        return solve_after_create(text, side=side) or Case(family, command, text, None, None, None, 1, side)
    malformed = Case(family, command, text, None, None, None, 1, side)
    try:
        grids = list(parse(text.decode("utf-8").splitlines(keepends=True)))
    except (InvalidPuzzle, UnicodeDecodeError):
        return malformed
    if len(grids) != 1 or grids[0].side != side:
        return malformed
    puzzle = grids[0]
    if find_clash(puzzle):
        return Case(family, command, text, puzzle, 0, None, 1, side)
    count, solution = count_solutions(puzzle, engine=engine)
    return Case(family, command, text, puzzle, count, solution, 1, side)


def malformed_place(text: bytes, side: int) -> dict[str, int] | None:
    """Where our parser finds ``text`` breaks the grid format: ``{"line": k}``, with ``"column": c``
    (the c-th number on that line) when one number is the slip (a ``10``, a letter), or None."""
    try:
        grids = list(parse(text.decode("utf-8").splitlines(keepends=True)))
    except InvalidPuzzle as error:
        if error.line is None:
            return None
        return {"line": error.line, **({"column": error.column} if error.column else {})}
    except UnicodeDecodeError as error:
        return {"line": text[: error.start].count(b"\n") + 1}
    if len(grids) != 1 or grids[0].side != side:  # a grid of another size: its first line is the slip
        return {"line": 1}
    return None


# --- what makes a family what it is: kept by shrinking, named in failure signatures ---------------

_INT = re.compile(rb"-?\d+")


def case_class(case: Case) -> str:
    """The kind of question a case asks, as a bug signature sees it: ``create``, ``check``,
    ``malformed`` (text to reject), ``unsolvable`` (a grid to reject: no solution, or clashing
    givens) or ``solvable`` (one solution or several). One bug shows the same way on every family
    of a class (a program that changes givens does so on easy, hard, full and multi-solution grids
    alike, and whitespace variants are grids like any other), so families are not part of it."""
    if case.command in ("create", "roundtrip"):  # a round trip with no solve half failed in its create
        return "create"
    if case.command == "check":
        return "check" if case.verdict is not None else "malformed"
    if case.count is None:
        return "malformed"
    return "unsolvable" if case.count == 0 else "solvable"


def answer_class(case: Case) -> str:
    """What a right answer to a solve case is, finer than ``case_class``: a shrink keeps it, so a
    unique puzzle stays unique (a hang on a 17-clue puzzle must not become a hang on a sparse grid
    with many solutions), a clash stays a clash and text that must be rejected stays so."""
    if case.count is None:
        return "malformed"
    if case.count == 0:
        return "clash" if case.puzzle is not None and find_clash(case.puzzle) else "no_solution"
    return "unique" if case.count == 1 else "multiple"


def _whole_rows(text: bytes, side: int) -> bool:
    """Whether every row of ``text`` holds ``side`` numbers."""
    return all(len(row) == side for row in _rows(text))


def _shaped(text: bytes, side: int, length: Callable[[int], bool] | None = None) -> bool:
    """Whether ``text`` has ``side`` rows, each of a ``length`` that passes (default: ``side`` numbers)."""
    rows = _rows(text)
    return len(rows) == side and all(length(len(row)) if length else len(row) == side for row in rows)


def _rows(text: bytes) -> list[list[bytes]]:
    """The rows of a text's numbers, without a box-size header line."""
    rows = [line.split() for line in text.replace(b"\r", b"").split(b"\n") if line.strip()]
    return rows[1:] if len(rows) > 1 and len(rows[0]) == 1 and len(rows[1]) > 1 else rows


_PROPERTIES: dict[str, Callable[[bytes, Any], bool]] = {
    "whitespace_tabs": lambda text, case: b"\t" in text,
    "whitespace_crlf": lambda text, case: b"\r\n" in text,
    "whitespace_no_final_newline": lambda text, case: bool(text.strip()) and not text.endswith(b"\n"),
    "whitespace_trailing_spaces": lambda text, case: any(line.endswith(b" ") for line in text.split(b"\n")),
    "whitespace_double_spaces": lambda text, case: b"  " in text,
    "whitespace_blank_lines_at_end": lambda text, case: text.rstrip(b" \t").endswith(b"\n\n"),
    # too few or too many rows, each of them whole: a shrunk row count bug that also packed digits
    # together or cut rows short would show another bug under this one's name
    "malformed_fewer_rows": lambda text, case: 0 < len(_rows(text)) < case.side and _whole_rows(text, case.side),
    "malformed_more_rows": lambda text, case: len(_rows(text)) > case.side and _whole_rows(text, case.side),
    # one defect in a grid of the right shape otherwise: shrunk to rows of one number, a row of ten
    # would show a reader that pads short rows under the name of one that drops a tenth number
    "malformed_fewer_columns": lambda text, case: _shaped(text, case.side, lambda n: 0 < n <= case.side)
    and any(len(row) < case.side for row in _rows(text)),
    "malformed_more_columns": lambda text, case: _shaped(text, case.side, lambda n: n >= case.side)
    and any(len(row) > case.side for row in _rows(text)),
    "malformed_letter": lambda text, case: _shaped(text, case.side) and any(bytes([b]).isalpha() for b in text),
    "malformed_out_of_range": lambda text, case: _shaped(text, case.side)
    and any(int(t) > case.side for t in _INT.findall(text) if not t.startswith(b"-")),
    "malformed_negative": lambda text, case: _shaped(text, case.side)
    and any(t.startswith(b"-") and int(t) for t in _INT.findall(text)),
    "malformed_empty_input": lambda text, case: not text.strip(),
    "malformed_binary": lambda text, case: _binary(text),
    "malformed_huge_line": lambda text, case: max((len(line) for line in text.split(b"\n")), default=0) > 4096,
    # full: no blank left (a shrink that blanks a cell would show another bug under this one's name)
    "full_clashing": lambda text, case: case.puzzle is not None and not case.puzzle.blanks,
    "full_out_of_range": lambda text, case: _shaped(text, case.side) and b"0" not in text.split()
    and any(int(t) > case.side for t in _INT.findall(text)),
    "whitespace_space_after_each": lambda text, case: is_spaced(text),
    "whitespace_space_after_each_crlf": lambda text, case: _space_after_each(text, b"\r\n"),
}


def is_spaced(text: bytes) -> bool:
    """Whether ``text`` has a space after every number (``space_after_each``, LF line ends)."""
    return _space_after_each(text, b"\n")


def _space_after_each(text: bytes, end: bytes) -> bool:
    lines = text.split(end)
    return len(lines) > 1 and not lines[-1] and all(line.endswith(b" ") and b"\n" not in line
                                                   for line in lines[:-1])


def _binary(text: bytes) -> bool:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return any(b < 32 and b not in b"\t\r\n" for b in text)


def keeps_class(original: Case, candidate: Case) -> bool:
    """Whether ``candidate`` (a shrink candidate of ``original``) is still the same kind of case:
    the same right answer (``answer_class``: unique stays unique, several solutions stay several, a
    clash stays a clash, malformed stays malformed) and what defines its family (the CRLF of a CRLF
    case, the out-of-range number of an out-of-range case). Without it a shrunk case shows another
    bug under the old one's name."""
    if answer_class(candidate) != answer_class(original):
        return False
    family = FAMILY.get(original.family)
    check = family.keeps if family is not None else _PROPERTIES.get(original.family)
    return check is None or bool(check(candidate.text, candidate))


# --- the solve families: each one object, its weight, maker and defining property -----------------

Family = namedtuple("Family", "name weight make keeps text lenient about")
Family.__doc__ = """A solve family: its ``name``; its relative ``weight`` in a run; ``make(name, rng, puzzle,
solution, header) -> Case`` from a unique puzzle; ``keeps(text, case) -> bool``, what defines it
beyond the case's class, kept by shrinking (None: the class alone); ``text``, whether its point is
the text rather than the puzzle (shrinking zeroes its digits instead of blanking givens);
``lenient``, valid text the classic contract never promises (a clean rejection passes); and
``about``, what its cases ask, in a line (``fuzz run --list-families``)."""


def _family(name: str, weight: int, make: Callable[..., Case], about: str, *, text: bool = False,
            lenient: bool = False) -> Family:
    return Family(name, weight, make, _PROPERTIES.get(name), text, lenient, about)


_SPELLINGS = {  # the whitespace families: (weight, the spelling)
    "tabs": (2, "tabs between the numbers"), "crlf": (2, "CRLF line ends"),
    "no_final_newline": (2, "no newline after the last row"), "trailing_spaces": (2, "spaces at the ends of rows"),
    "double_spaces": (2, "two spaces between the numbers"), "blank_lines_at_end": (2, "blank lines after the grid"),
    "space_after_each": (2, "a space after every number"),
    "space_after_each_crlf": (1, "a space after every number, CRLF line ends")}
_BREAKS = {  # the malformed families: (weight, how the text is broken)
    "fewer_rows": (2, "a row missing"), "more_rows": (2, "a row too many (a copy inside, or zeros after)"),
    "fewer_columns": (2, "a number missing from a row"), "more_columns": (2, "a number too many in a row"),
    "letter": (2, "a letter for a number"), "out_of_range": (2, "a number above the side (10 at 9x9)"),
    "negative": (2, "a negative number"), "empty_input": (1, "no input at all"),
    "binary": (1, "random bytes"), "huge_line": (1, "one line of 1 MB")}

FAMILY = {family.name: family for family in (
    _family("unique_easy", 10, _as_given, "one solution; singles alone solve it"),
    _family("unique_medium", 10, _as_given, "one solution; needs hidden singles"),
    _family("unique_hard", 10, _as_given, "one solution; needs a search"),
    _family("unique_corpus", 2, _as_given, "one solution; a hard puzzle shipped in fuzz/data/hard.txt"),
    _family("multiple", 8, _multiple, "several solutions (fewer than 17 clues at 9x9): any one, givens kept"),
    _family("no_solution", 6, _no_solution, "no solution, though no givens clash: a clean refusal"),
    _family("no_solution_deep", 3, _no_solution_deep, "no solution, met only at the last row (backtracking "
            "in reading order runs for hours)"),
    _family("no_solution_middle", 2, _no_solution_deep, "no solution, met only at the middle band"),
    _family("no_solution_early", 2, _no_solution_deep, "no solution, met at the first band"),
    _family("full_clashing", 2, _full_broken, "a full grid with one cell wrong: no solution"),
    _family("full_out_of_range", 2, _full_broken, "a full grid with a number out of range: malformed", text=True),
    _family(UNWRITABLE_FOLDER, 2, _as_given, "one solution, solved in a working folder where no file can be "
            "made"),
    _family("clashing", 6, _clashing, "two equal givens in a row, column or box: no solution"),
    _family("empty", 1, _empty, "the empty grid: any full grid"),
    _family("full", 3, _full, "a solved grid: itself"),
    _family("one_blank", 3, _one_blank, "a solved grid with one blank"),
    *(_family(f"whitespace_{kind}", weight, _respelled, f"one solution, spelled with {what} (may be refused "
              "cleanly)", text=True, lenient=True) for kind, (weight, what) in _SPELLINGS.items()),
    *(_family(f"malformed_{kind}", weight, _broken_text, f"malformed: {what}; to be refused", text=True)
      for kind, (weight, what) in _BREAKS.items()),
)}
WEIGHTS = {name: family.weight for name, family in FAMILY.items()}
SOLVE_FAMILIES = tuple(FAMILY)
FAMILIES = SOLVE_FAMILIES + ("create", "roundtrip")
ABOUT = {  # the families that are no solve family, in a line each
    "create": "create: every answer one solution with enough blanks, and two answers not the same",
    "roundtrip": "create, then solve exactly what create printed (as course scripts test create | solve)",
    "check_complete": "a full valid grid: complete", "check_blanks": "a valid grid with blanks: incomplete",
    **{f"check_{unit}": f"a full grid whose {units} alone break: invalid"
       for unit, units in (("row", "rows"), ("column", "columns"), ("box", "boxes"))},
    **{f"check_{unit}_blanks": f"a grid with blanks whose {units} alone break: invalid"
       for unit, units in (("row", "rows"), ("column", "columns"), ("box", "boxes"))},
}


GROUPS = ("unique", "whitespace", "malformed", "check")  # --family NAME takes every family named NAME_...


def families(mode: str = "solve") -> dict[str, str]:
    """{family: what its cases ask} of a run of ``mode``, in the order a run lists them."""
    if mode == "check":
        return {name: ABOUT.get(name) or FAMILY[name].about for name in CHECK_FAMILIES}
    return {**{name: family.about for name, family in FAMILY.items()}, "create": ABOUT["create"],
            "roundtrip": ABOUT["roundtrip"]}


def groups(mode: str = "solve") -> dict[str, list[str]]:
    """{group: its families} of a run of ``mode``: ``GROUPS``, each the families named GROUP_..."""
    named = {group: [name for name in families(mode) if name.startswith(group + "_")] for group in GROUPS}
    return {group: names for group, names in named.items() if names}


def shown(chosen: Sequence[str], mode: str = "solve") -> str:
    """The families a run chose, for people: a whole group by its name, the rest by theirs, and how
    many of the mode's ('malformed (10 of 36)')."""
    names: list[str] = []
    left = list(chosen)
    for group, members in groups(mode).items():
        if set(members) <= set(left):
            names.append(group)
            left = [name for name in left if name not in members]
    return f"{', '.join(names + left)} ({len(chosen)} of {len(families(mode))})"


class UnknownFamily(ValueError):
    """A ``--family`` name that chooses no family of the run's mode (``name``)."""

    def __init__(self, name: str, mode: str) -> None:
        super().__init__(name)
        self.name, self.mode = name, mode


def select(names: Sequence[str], mode: str = "solve") -> tuple[str, ...]:
    """The families ``names`` choose, each a family, a group (``groups``) or a shell pattern
    (``no_solution*``), in the order a run lists them: the same choice in any order or spelling
    makes the same cases. UnknownFamily for a name that chooses none."""
    from fnmatch import fnmatchcase

    known, grouped = families(mode), groups(mode)
    chosen: set[str] = set()
    for name in names:
        found = ([name] if name in known else grouped.get(name)
                 or [family for family in known if fnmatchcase(family, name)])
        if not found:
            raise UnknownFamily(name, mode)
        chosen.update(found)
    return tuple(name for name in known if name in chosen)


def in_unwritable_folder(case: Case) -> bool:
    """Whether ``case`` runs in a working folder where no file can be made (the ``UNWRITABLE_FOLDER``
    family: ``fuzz.targets.run_contained``)."""
    return bool(case.family == UNWRITABLE_FOLDER)


def lenient(family: str) -> bool:
    """Whether ``family`` is valid text the classic contract never promises (whitespace variants)."""
    return family in FAMILY and FAMILY[family].lenient


def about_text(family: str) -> bool:
    """Whether a ``family`` case is about its text, not its puzzle (malformed and respelled text)."""
    return family in FAMILY and FAMILY[family].text
