"""The bank: 9x9 expert and extreme puzzles we made ourselves, and the grid's symmetries that turn
one of them into many.

Why a bank: expert is about 1 random minimal puzzle in 23, each try a minimal puzzle plus a grade
(a third of a second to a second), so making one on demand takes tens of seconds; extreme is rarer
than 1 in a million (none in 4.6 million), out of reach on demand. The bank holds puzzles found
ahead of time (``bench/make_bank.py``, from seeds); ``sudoku.generate.create`` draws one and
applies a random **symmetry** of the grid, which changes neither uniqueness, minimality nor the
techniques a person needs.

Where the puzzles come from: the expert ones are random minimal puzzles of ours and climbs from
them; the extreme ones are climbs from published hardest puzzles (the benchmark sets
hardest1106 and hardest1905_11plus), each 8 or more clue changes from its start and from every
other entry, under every symmetry, and a variant of no published puzzle: new puzzles, found by
``bench/bank_climb.py``. ``bench/bank_lineage.tsv`` says for each where it started (set and line),
the seed and every move; the published sets themselves are not shipped.

Vocabulary (on top of the package's):

- **entry**: ``Entry(level, score, line, made)``: the grade ``sudoku.grade`` gave the puzzle, the
  puzzle in the ``line`` format, and how it was made (method, seed, lineage and step, tool
  version), so any entry can be made again.
- **symmetry**: a relabelling of the digits, rows permuted within their band, bands permuted,
  columns within their stack, stacks permuted, and an optional transposition:
  9! * 6^8 * 2, about 1.2e12 variants of each entry.
- **fingerprint**: a value that no symmetry changes, used to keep the bank free of puzzles that
  are one another's variants. Equal fingerprints do not prove two puzzles variants, so the check
  errs on the side of calling them the same (it can only drop a puzzle, never keep a twin).

The data file, ``sudoku/data/bank.txt``: ``#`` comments, then one entry a line,
``LEVEL SCORE LINE MADE`` separated by single spaces.
"""

from __future__ import annotations

from collections import namedtuple
from functools import lru_cache

from sudoku.grid import Grid

TYPE_CHECKING = False  # as in sudoku.generate: only the type checker needs these
if TYPE_CHECKING:
    import random

Entry = namedtuple("Entry", "level score line made")

_FILE = "bank.txt"


@lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    """Every entry of the package's bank file, in file order."""
    from importlib.resources import files

    text = files("sudoku").joinpath("data", _FILE).read_text(encoding="utf-8")
    return tuple(parse_entries(text.splitlines()))


def parse_entries(lines: list[str]) -> list[Entry]:
    """Entries of bank-file lines (comments and blank lines skipped); ValueError on a bad line."""
    out = []
    for number, text in enumerate(lines, 1):
        if not text.strip() or text.startswith("#"):
            continue
        parts = text.split(" ", 3)
        if len(parts) != 4 or len(parts[2]) != 81 or not parts[1].isdigit():
            raise ValueError(f"bank line {number} is not LEVEL SCORE LINE MADE: {text[:40]!r}")
        out.append(Entry(parts[0], int(parts[1]), parts[2], parts[3]))
    return out


def format_entry(entry: Entry) -> str:
    """The bank-file line of an entry (without the newline)."""
    return f"{entry.level} {entry.score} {entry.line} {entry.made}"


def at_level(level: str) -> tuple[Entry, ...]:
    """The entries graded at ``level``."""
    return tuple(entry for entry in entries() if entry.level == level)


def draw(level: str, rng: random.Random) -> Grid:
    """A bank entry at ``level`` chosen by ``rng``, under a random symmetry chosen by ``rng``."""
    from sudoku.formats import parse_line

    choices = at_level(level)
    if not choices:
        raise ValueError(f"the bank has no {level} puzzle")
    entry = choices[rng.randrange(len(choices))]
    return transform(parse_line(entry.line), random_symmetry(rng))


def random_symmetry(rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]:
    """``(digits, rows, cols, transpose)``: a new digit for each old one (index d-1), the old row
    each new row comes from, the same for columns, and whether to transpose first."""
    digits = list(range(1, 10))
    rng.shuffle(digits)
    return tuple(digits), _line_order(rng), _line_order(rng), rng.random() < 0.5


def _line_order(rng: random.Random) -> tuple[int, ...]:
    """A permutation of 9 lines that keeps bands (stacks) together: bands shuffled, lines within each."""
    bands = [0, 1, 2]
    rng.shuffle(bands)
    order = []
    for band in bands:
        lines = [3 * band, 3 * band + 1, 3 * band + 2]
        rng.shuffle(lines)
        order.extend(lines)
    return tuple(order)


def transform(grid: Grid, symmetry: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]) -> Grid:
    """``grid`` under a symmetry of ``random_symmetry``'s shape (9x9 only)."""
    digits, rows, cols, transpose = symmetry
    cells = grid.cells
    if transpose:
        cells = tuple(cells[9 * c + r] for r in range(9) for c in range(9))
    return Grid(3, [digits[v - 1] if (v := cells[9 * r + c]) else 0 for r in rows for c in cols])


def fingerprint(grid: Grid) -> tuple[tuple[tuple[tuple[int, int], ...], int, int], ...]:
    """A value no symmetry changes (see the module docstring): per clue, the clue counts of its row
    and band and of its column and stack (as an unordered pair: transposition swaps them), of its
    box, and of its digit; sorted."""
    cells = grid.cells
    row, col, box, band, stack, digit = ([0] * 9 for _ in range(6))
    clues = [(i // 9, i % 9, v) for i, v in enumerate(cells) if v]
    for r, c, v in clues:
        row[r] += 1
        col[c] += 1
        box[r // 3 * 3 + c // 3] += 1
        band[r // 3] += 1
        stack[c // 3] += 1
        digit[v - 1] += 1
    return tuple(sorted((tuple(sorted(((row[r], band[r // 3]), (col[c], stack[c // 3])))),
                         box[r // 3 * 3 + c // 3], digit[v - 1]) for r, c, v in clues))
