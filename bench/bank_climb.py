"""Climbs from published hardest puzzles to new extreme ones (``make_bank.py --start published``).

Extreme, as ``sudoku.grade`` defines it (nested forcing chains, or a guess), did not turn up in 4.6
million random minimal puzzles, while published hardest puzzles mostly are extreme and have extreme
neighbours. So a lineage starts at a published puzzle (``published_start``: a set of
``../shared/data`` and a line of it) and climbs away from it, one step at a time, keeping the puzzle
unique, minimal and extreme at every step; once it is ``APART`` cells or more from its start (and
from the lineage's earlier entries), the puzzle it stands on is a new puzzle and may enter the bank.

One step (``step``): ``--tries`` random edits of the current puzzle (one or two clues removed, one
or two clues put at blanks, any digit the clues left allow, so the solution may change), counted to
two in one batch of the nb engine (about 10^5 puzzles a CPU-second); the unique ones are ranked by
their distance from the lineage's anchors (its start and entries), farthest first, and at most
``--tests`` of them are tried in that order, skipping those on which the nb search made fewer than
``--min-guesses`` guesses (a free hardness hint from the same batch): made minimal, kept only if
still as far as the current puzzle and not a puzzle the climb has stood on, then the cheap closure
of ``make_bank.stalls_without_nesting`` (which clears a puzzle that cannot be extreme; on these
climbs it never let a non-extreme one through), then ``grade.is_level``. The first that passes is
the next puzzle. An entry must also grade extreme under ``--symmetries`` random symmetries, as
``create`` grades it again after one.

**Distance.** ``differ``: the cells in which two puzzles differ (a clue added, removed or given
another digit counts one; a clue moved counts two). ``apart``: the least, over every symmetry of
the grid, of the cells in which the two clue patterns differ: a lower bound of ``differ`` under any
symmetry (digits ignored), so ``apart(a, b) >= APART`` proves that no variant of ``b`` is within
``APART - 1`` clue changes of ``a``. Entries are checked with ``apart``: against their start, the
lineage's earlier entries (here) and every other extreme entry of the bank (``make_bank``).

**Lineage.** Each move of the climb is recorded as ``STEP:CELL=DIGIT,...`` (the cells it changed
and what they hold after it, 0 for a blank); ``bench/bank_lineage.tsv`` holds, per extreme entry,
the set and line it started from, the seed, the lineage, the step, and the moves from the start,
so anyone with the published set can follow the climb and check each step
(tests/test_bank_climb.py does). Everything is drawn from ``random.Random(derive_seed(SEED, "published
climb", K))``, so a lineage is made again from (seed, K) and the published sets.
"""

import random
from functools import lru_cache
from itertools import permutations

import numpy as np

from bench.common import load_lines
from sudoku.engines import nb
from sudoku.formats import parse_line
from sudoku.generate import derive_seed
from sudoku.grade import is_level
from sudoku.grid import Grid
from sudoku.techniques import geometry

SETS = ("hardest1106", "hardest1905_11plus")
APART = 8
LINEAGE = "bank_lineage.tsv"
LINEAGE_HEADER = "puzzle\tset\tline\tseed\tlineage\tstep\tmoves\n"


@lru_cache(maxsize=4)
def published(name):
    """The puzzle lines of a published set of ``../shared/data`` (``SUDOKU_DATA`` overrides)."""
    return tuple(load_lines(name))


@lru_cache(maxsize=8)
def _order(seed, name):
    lines = published(name)
    return tuple(random.Random(derive_seed(seed, "published", name)).sample(range(len(lines)), len(lines)))


def published_start(seed, lineage, sets=SETS):
    """Lineage ``lineage``'s start: ``(set, line, puzzle)``, line counted from 1. Lineages take the
    sets in turn, and each set's lines in an order shuffled by ``seed``, so no two lineages of a
    run start at the same line."""
    name = sets[lineage % len(sets)]
    order = _order(seed, name)
    number = order[(lineage // len(sets)) % len(order)] + 1
    return name, number, parse_line(published(name)[number - 1])


def differ(a, b):
    """The cells in which puzzles ``a`` and ``b`` (cell sequences) differ."""
    return int(np.count_nonzero(np.asarray(a) != np.asarray(b)))


@lru_cache(maxsize=1)
def _arrangements():
    """The 1,296 orders of 9 lines that keep bands together (bands permuted, lines within each),
    as an index array, and the 6 permutations of 3."""
    three = list(permutations(range(3)))
    orders = [[3 * band + line for band, within in zip(bands, inner) for line in within]
              for bands in three for inner in ((a, b, c) for a in three for b in three for c in three)]
    return np.array(orders), np.array(three)


def apart(a, b):
    """The fewest cells in which the clue pattern of ``a`` differs from that of any variant of
    ``b`` (rows, bands, columns, stacks permuted, transposed): a lower bound of the clue changes
    between them under any symmetry. Exact over all 2 * 6^8 arrangements: for each order of the
    rows, the best order of the columns is chosen stack by stack."""
    orders, three = _arrangements()
    mine = (np.asarray(a.cells) != 0).reshape(9, 9).astype(np.int32)
    theirs = (np.asarray(b.cells) != 0).reshape(9, 9).astype(np.int32)
    best = 81
    for other in (theirs, theirs.T):
        rows = other[orders]  # (1296, 9, 9): b's rows in each band-keeping order
        overlap = np.einsum("rc,nrd->ncd", mine, rows)
        cost = mine.sum(0)[None, :, None] + other.sum(0)[None, None, :] - 2 * overlap  # column c of a against d of b
        blocks = cost.reshape(-1, 3, 3, 3, 3)  # [n, stack of a, column in it, stack of b, column in it]
        # [6 perms, column, n, stack a, stack b]: column i of a's stack against column perm[i] of b's
        within = blocks[:, :, np.arange(3)[None, :], :, three].sum(axis=1)
        pair = within.min(axis=0)  # [n, stack a, stack b]: the best order inside the pair of stacks
        stacks = pair[:, np.arange(3)[None, :], three].sum(axis=2)  # [n, 6]
        best = min(best, int(stacks.min()))
    return best


def minimize(cells, solution, rng):
    """``cells`` (a list) without the clues that can go, tried in random order (nb's ``has_other``)."""
    clues = [i for i, v in enumerate(cells) if v]
    rng.shuffle(clues)
    for cell in clues:
        cells[cell] = 0
        if nb.has_other(Grid(3, cells), solution, cell):
            cells[cell] = solution.cells[cell]
    return cells


def _allowed(cells):
    """Per cell, the digits no peer of it holds in ``cells``."""
    peers = geometry(3).peers
    return [[digit for digit in range(1, 10) if all(cells[peer] != digit for peer in peers[cell])]
            for cell in range(81)]


def edits(puzzle, rng, count):
    """``count`` random edits of ``puzzle`` as rows of a uint8 array: one clue removed (two, one
    time in three), then one or two clues put at random blanks with a digit the puzzle's clues allow there."""
    cells = list(puzzle.cells)
    allowed = _allowed(cells)
    clues = [i for i, v in enumerate(cells) if v]
    out = np.empty((count, 81), np.uint8)
    for row in range(count):
        trial = list(cells)
        for cell in rng.sample(clues, rng.choice((1, 1, 2))):
            trial[cell] = 0
        blanks = [i for i, v in enumerate(trial) if not v]
        for cell in rng.sample(blanks, rng.choice((1, 2))):
            trial[cell] = rng.choice(allowed[cell] or [1])
        out[row] = trial
    return out


def step(here, anchors, visited, rng, args, stalls):
    """The climb's next puzzle from ``here`` and its solution (see the module docstring), or None
    when none of the ``args.tests`` best edits keeps the level. Edits on which the nb search makes
    fewer than ``args.min_guesses`` guesses are passed over (below 20 guesses, 3 in 4,300 neighbours
    were extreme; at 80 or more, 1 in 3); so are puzzles in ``visited`` (where the climb has been).
    ``stalls(puzzle, solution)`` is the cheap closure (make_bank's)."""
    trials = edits(here, rng, args.tries)
    counts, solutions, guesses, _ = nb.solve_batch(trials, limit=2)
    unique = counts == 1
    trials, first = np.unique(trials[unique], axis=0, return_index=True)
    solutions, guesses = solutions[unique][first], guesses[unique][first]
    marks = np.array([anchor.cells for anchor in anchors], np.uint8)
    far = (trials[:, None, :] != marks[None, :, :]).sum(axis=2).min(axis=1)
    now = min(differ(here.cells, anchor.cells) for anchor in anchors)
    keys = np.array([rng.random() for _ in range(len(trials))])
    tested = 0
    for index in np.lexsort((keys, -far)):
        if far[index] < now or tested >= args.tests:
            break
        if guesses[index] < args.min_guesses:
            continue
        solution = Grid(3, solutions[index].tolist())
        cells = minimize(trials[index].tolist(), solution, rng)
        if tuple(cells) in visited or min(differ(cells, anchor.cells) for anchor in anchors) < now:
            continue
        tested += 1
        near = Grid(3, cells)
        if stalls(near, solution) and is_level(near, "extreme", solution=solution):
            return near, solution
    return None


def climb(seed, lineage, args, stalls):
    """Lineage ``lineage``'s climb: ``(set, line, found)``, where ``found`` lists
    ``(step, puzzle, solution, moves)`` for each new puzzle reached (at most ``args.per_lineage``),
    ``moves`` the record from the start. Empty when the start does not grade extreme (2 of 250
    hardest1106 puzzles grade expert) or the climb gets nowhere in ``args.steps`` steps."""
    name, number, start = published_start(seed, lineage)
    rng = random.Random(derive_seed(seed, "published climb", lineage))
    answer = nb.solve(start, limit=2)
    if answer.count != 1 or not is_level(start, "extreme", solution=answer.solution):
        return name, number, []
    anchors, here, visited, moves, found = [start], start, {start.cells}, [], []
    for number_of_step in range(1, args.steps + 1):
        moved = step(here, anchors, visited, rng, args, stalls)
        if moved is None:
            continue
        near, solution = moved
        moves.append(move(number_of_step, here, near))
        here = near
        visited.add(here.cells)
        if (min(apart(here, anchor) for anchor in anchors) >= APART
                and kept_under_symmetries(here, solution, rng, args.symmetries)):
            found.append((number_of_step, here, solution, list(moves)))
            anchors.append(here)
            if len(found) >= args.per_lineage:
                break
    return name, number, found


@lru_cache(maxsize=1)
def _published_keys():
    """Every puzzle of every set in ``../shared/data`` by its ``bank.fingerprint``."""
    from bench.common import DATA
    from sudoku.bank import fingerprint

    keys = {}
    for path in sorted(DATA.glob("*.txt.gz")):
        for line in published(path.name.removesuffix(".txt.gz")):
            keys.setdefault(fingerprint(parse_line(line)), []).append(line)
    return keys


def published_twin(puzzle):
    """A puzzle of ``../shared/data`` that is a variant of ``puzzle`` (the same canonical form),
    or None: only puzzles with its fingerprint are put in canonical form."""
    from sudoku.bank import fingerprint
    from sudoku.canonical import canonical

    lines = _published_keys().get(fingerprint(puzzle), ())
    form = canonical(puzzle) if lines else None
    return next((line for line in lines if canonical(parse_line(line)) == form), None)


def move(number, before, after):
    """A move of the lineage record: ``STEP:CELL=DIGIT,...``, the cells that changed."""
    changes = ",".join(f"{cell}={value}" for cell, (old, value) in enumerate(zip(before.cells, after.cells))
                       if old != value)
    return f"{number}:{changes}"


def replay(start, moves):
    """The puzzles a lineage record's ``moves`` (space-separated) pass through from ``start``."""
    cells = list(start.cells)
    out = []
    for one in moves.split():
        for change in one.split(":", 1)[1].split(","):
            cell, value = change.split("=")
            cells[int(cell)] = int(value)
        out.append(Grid(3, cells))
    return out


def kept_under_symmetries(puzzle, solution, rng, count):
    """Whether ``puzzle`` grades extreme under ``count`` random symmetries too (as ``create``
    re-grades it)."""
    from sudoku.bank import random_symmetry, transform

    for _ in range(count):
        symmetry = random_symmetry(rng)
        if not is_level(transform(puzzle, symmetry), "extreme", solution=transform(solution, symmetry)):
            return False
    return True


def lineage_row(entry_line, name, number, seed, lineage, at, moves):
    return f"{entry_line}\t{name}\t{number}\t{seed}\t{lineage}\t{at}\t{' '.join(moves)}\n"


def parse_lineage(lines):
    """Rows of the lineage file as dicts (header and ``#`` comments skipped)."""
    fields = LINEAGE_HEADER.strip().split("\t")
    rows = []
    for text in lines:
        if not text.strip() or text.startswith("#") or text.startswith("puzzle\t"):
            continue
        rows.append(dict(zip(fields, text.rstrip("\n").split("\t"))))
    return rows
