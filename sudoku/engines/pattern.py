"""Near-empty grids solved by matching the givens to a transformed pattern grid.

Why: a grid with few givens (an 81x81 with 3, a 64x64 with 64) has astronomically many solutions,
yet depth-first search and CDCL both stall on it: the first half fills at once and the last rows
run into dead ends that only a lot of backtracking undoes (the issue measured no answer in 120 s
for an 81x81 grid with 3 givens; CaDiCaL gives none in 10 s either). Every such grid has solutions
of a known shape, though: the pattern grid ``P(R, C) = (box * (R % box) + R // box + C) % side`` is
valid, and so is every grid made from it by permuting bands, rows within a band, stacks, columns
within a stack, transposing, and relabelling digits. This module searches that family for a member
that agrees with the givens:

- puzzle row ``r`` goes to some pattern row (its band to a pattern band, itself to a row within
  it), the same for columns, and a digit ``d`` stands for a pattern value, one-to-one;
- those choices are a small SAT problem (``_encode``: a value splits into a high and a low part
  that each depend on only some of the choices), handed to CaDiCaL, with the transposed family as
  a second try. Measured on the big-grid set and on givens drawn from grids of no pattern: up to
  ``side`` givens always fitted (tens to thousands of conflicts, at most ~1.4 s at 81x81); with
  twice that many they no longer fit, and the solver says so in about a second. Tried first and
  dropped: depth-first search over the same choices, most constrained given first: the 81x81
  fits in milliseconds, but none of the 64x64 ones with 64 givens in 20,000 nodes (10 s).

When nothing fits, ``match`` returns None, so alone it is no engine: it never proves that a grid
has no solution, nor that it has exactly one. The default route (``auto``) uses it for grids with at
most ``side`` givens, which it fits whatever grid they came from.

Dense grids too, opt-in: many generators make big puzzles by blanking a shuffled pattern grid, and
there a match exists at any number of givens. Every member shares two partitions of its digits (see
``_partitions_fit``) that givens from any other grid break at once when there are a few per box,
so ``may_fit`` rules the family out in about a millisecond and the SAT problem is only built for
grids that may fit; and it is built from a few givens first (``_fit_some``). That is the engine
``pattern`` (``solve``, ``--engine pattern``): the match, then ``sat`` for the count it does not
prove, or alone where nothing fits. It is off the default route because it helps only that
family, which our own ``create`` does not make; on it, the hard band included, it answers where
CaDiCaL alone takes seconds to minutes (docs/engines.md, section ``pattern``).

Counting: a match is a solution; others follow from it without search. Permuting the digits no
given shows moves every cell that holds one (``free``! solutions), and permuting the given-free
rows of a band (or columns of a stack) gives distinct rows. So ``count`` is the larger of those two
numbers, capped at ``limit``; when that is below ``limit`` the count is not proven and ``match``
returns None, leaving the count to search.
"""

from __future__ import annotations

from math import factorial

from sudoku.engines import Answer, Counters
from sudoku.grid import Grid

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs Budget here
if TYPE_CHECKING:
    from typing import Any

    from sudoku.budget import Budget

CONFLICTS = 50_000  # the solver's allowance: the fits measured took at most ~8,000 conflicts


def pattern_value(box: int, row: int, col: int) -> int:
    """The pattern grid's value (0..side-1) at pattern row ``row``, column ``col``."""
    side = box * box
    return (box * (row % box) + row // box + col) % side


class _Vars:
    """Variable numbers, made on first use."""

    def __init__(self) -> None:
        self.ids: dict[tuple[Any, ...], int] = {}

    def __call__(self, *key: Any) -> int:
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.ids) + 1
        return found


def _at_most_one(clauses: list[list[int]], lits: list[int]) -> None:
    """Pairwise (these groups have at most ``box`` or as many members as there are given digits)."""
    clauses.extend([-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:])


def _exactly_one(clauses: list[list[int]], lits: list[int]) -> None:
    clauses.append(lits)
    _at_most_one(clauses, lits)


def _encode(box: int, givens: list[tuple[int, int, int]]) -> tuple[list[list[int]], _Vars]:
    """CNF whose models are the family's members that agree with ``givens`` (row, col, digit).

    A pattern row is (band x, inner i) and a pattern column (stack t, inner y), so the value there is
    ``box * h + l`` with ``l = (x + y) % box`` and ``h = (i + t + carry) % box``, ``carry`` being
    ``x + y >= box``. Variables: ``B`` puzzle band -> pattern band, ``I`` puzzle row -> inner row,
    ``S`` and ``J`` the same for columns (each one-to-one where it matters), ``K`` the carry of a
    (band, column) pair, ``L`` and ``H`` a digit's value parts, ``V`` a digit standing for a value
    (at most one digit per value: digits are relabelled one-to-one).
    """
    var = _Vars()
    clauses: list[list[int]] = []
    rng = range(box)
    bands = sorted({r // box for r, _, _ in givens})
    stacks = sorted({c // box for _, c, _ in givens})
    rows = sorted({r for r, _, _ in givens})
    cols = sorted({c for _, c, _ in givens})
    digits = sorted({d for _, _, d in givens})
    for kind, keys in (("B", bands), ("S", stacks)):
        for key in keys:
            _exactly_one(clauses, [var(kind, key, x) for x in rng])
        for x in rng:
            _at_most_one(clauses, [var(kind, key, x) for key in keys])
    for kind, lines in (("I", rows), ("J", cols)):
        for line in lines:
            _exactly_one(clauses, [var(kind, line, i) for i in rng])
        for group in {line // box for line in lines}:
            members = [line for line in lines if line // box == group]
            for i in rng:
                _at_most_one(clauses, [var(kind, line, i) for line in members])
    for d in digits:
        _exactly_one(clauses, [var("L", d, part) for part in rng])
        _exactly_one(clauses, [var("H", d, part) for part in rng])
        for h in rng:
            for low in rng:
                clauses.append([-var("L", d, low), -var("H", d, h), var("V", d, box * h + low)])
    for value in range(box * box):
        _at_most_one(clauses, [var("V", d, value) for d in digits])
    for r, c, d in givens:
        band, stack = r // box, c // box
        carry = var("K", band, c)
        for x in rng:
            for y in rng:
                lits = [-var("B", band, x), -var("J", c, y)]
                clauses.append(lits + [carry if x + y >= box else -carry])
                clauses.append(lits + [var("L", d, (x + y) % box)])
        for i in rng:
            for t in rng:
                for k in (0, 1):
                    clauses.append([-var("I", r, i), -var("S", stack, t), -carry if k else carry,
                                    var("H", d, (i + t + k) % box)])
    return clauses, var


def _fit(box: int, givens: list[tuple[int, int, int]], conflicts: int) -> tuple[Grid | None, int]:
    """(a member of the family that agrees with ``givens``, or None; the conflicts it took)."""
    from sudoku.engines.sat import loader, new_solver  # here, not at the top: the 9x9 path never loads it

    side = box * box
    clauses, var = _encode(box, givens)
    with new_solver() as sat:
        loader(sat)(clauses)
        sat.conf_budget(conflicts)
        found = sat.solve_limited()
        spent = sat.accum_stats().get("conflicts", 0)
        if not found:
            return None, spent
        true = {lit for lit in sat.get_model() if lit > 0}
    meaning = {number: key for key, number in var.ids.items() if number in true}
    chosen = {(key[0], key[1]): key[2] for key in meaning.values() if key[0] in "BISJ"}
    parts = {(key[0], key[1]): key[2] for key in meaning.values() if key[0] in "LH"}  # not V: only implied
    values = {d: box * parts["H", d] + parts["L", d] for kind, d in parts if kind == "L"}

    def lines(band_kind: str, inner_kind: str) -> list[int]:
        """Pattern line per puzzle line: the model's choices, undecided parts given free values in order."""
        used = {chosen[band_kind, b] for b in range(box) if (band_kind, b) in chosen}
        free_bands = iter(x for x in range(box) if x not in used)
        band = [chosen[band_kind, b] if (band_kind, b) in chosen else next(free_bands) for b in range(box)]
        out: list[int] = []
        for b in range(box):
            members = range(b * box, b * box + box)
            used = {chosen[inner_kind, line] for line in members if (inner_kind, line) in chosen}
            free = iter(x for x in range(box) if x not in used)
            out.extend(band[b] * box + (chosen[inner_kind, line] if (inner_kind, line) in chosen else next(free))
                       for line in members)
        return out

    row_of, col_of = lines("B", "I"), lines("S", "J")
    digit_of = [0] * side
    for d, value in values.items():
        digit_of[value] = d
    free_digits = iter(d for d in range(1, side + 1) if d not in values)
    for value in range(side):
        if not digit_of[value]:
            digit_of[value] = next(free_digits)
    cells = [digit_of[pattern_value(box, row_of[r], col_of[c])] for r in range(side) for c in range(side)]
    return Grid(box, cells), spent


def _partitions_fit(box: int, givens: list[tuple[int, int, int]]) -> bool:
    """Whether ``givens`` pass two necessary conditions of the untransposed family.

    In a member, every box's column segments hold one partition of the digits into ``box`` classes
    of ``box`` digits (the segment of pattern column ``C`` in band ``b`` holds the values congruent
    to ``b + C`` modulo ``box``), the same in the whole grid; and within a band every box's row
    segments hold one partition (runs of ``box`` consecutive values). So digits given in one
    segment share a class, a class lies in one segment of each box, and it has at most ``box``
    digits. Givens from a grid outside the family break this at once when there are more than a few
    per box: ~1 ms, where ``_fit`` takes 0.2-1 s to say no (36x36 and 49x49 grids at 45-70 % blank,
    bench/README.md)."""
    by_columns: dict[tuple[Any, ...], list[int]] = {}  # (scope, box, segment) -> digits given there
    by_rows: dict[tuple[Any, ...], list[int]] = {}
    for r, c, d in givens:
        band, stack = r // box, c // box
        by_columns.setdefault((0, (band, stack), c), []).append(d)
        by_rows.setdefault((band, stack, r), []).append(d)
    return _classes_fit(box, by_columns) and _classes_fit(box, by_rows)


def _classes_fit(box: int, segments: dict[tuple[Any, ...], list[int]]) -> bool:
    """Whether the digits of ``segments`` ((scope, box, segment) -> digits) can be split, in each
    scope, into classes of at most ``box`` digits, each lying in one segment of every box."""
    parent: dict[tuple[int, int], tuple[int, int]] = {}  # (scope, digit) -> one of its class

    def find(key: tuple[int, int]) -> tuple[int, int]:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for (scope, _, _), digits in segments.items():
        first = find((scope, digits[0]))
        for d in digits[1:]:
            parent[find((scope, d))] = first
    segment_of: dict[tuple[Any, ...], int] = {}  # (box, class) -> the segment holding it
    for (scope, where, segment), digits in segments.items():
        if segment_of.setdefault((where, find((scope, digits[0]))), segment) != segment:
            return False
    sizes: dict[tuple[int, int], int] = {}
    for key in parent:
        root = find(key)
        sizes[root] = sizes.get(root, 0) + 1
        if sizes[root] > box:
            return False
    return True


def _fit_some(box: int, givens: list[tuple[int, int, int]], conflicts: int) -> tuple[Grid | None, int]:
    """``_fit`` on a few of ``givens``, adding those the member found disagrees with until it agrees
    with all (a subset no member fits means no member fits them all). Building the SAT problem is
    most of a dense grid's match, ~200 clauses per given at 49x49: up to two per row, column and
    digit first (at most ``6 * side``) usually settle the maps, and the rest are only checked."""
    side = box * box
    seen: dict[tuple[str, int], int] = {}
    some = []
    for r, c, d in givens:
        if min(seen.get(("r", r), 0), seen.get(("c", c), 0), seen.get(("d", d), 0)) < 2:
            some.append((r, c, d))
            for key in (("r", r), ("c", c), ("d", d)):
                seen[key] = seen.get(key, 0) + 1
    spent = 0
    while True:
        found, used = _fit(box, some, conflicts)
        spent += used
        if found is None:
            return None, spent
        wrong = [(r, c, d) for r, c, d in givens if found.cells[r * side + c] != d]
        if not wrong:
            return found, spent
        some.extend(wrong[:side])


def may_fit(puzzle: Grid) -> bool:
    """Whether ``puzzle``'s givens pass the necessary conditions of the family (``_partitions_fit``)
    as they are or transposed: False proves that no member agrees with them; True proves nothing."""
    side = puzzle.side
    givens = [(i // side, i % side, v) for i, v in enumerate(puzzle.cells) if v]
    return _partitions_fit(puzzle.box, givens) or _partitions_fit(puzzle.box, [(c, r, d) for r, c, d in givens])


def _provable_count(puzzle: Grid, limit: int) -> int:
    """How many solutions, up to ``limit``, follow from one match without search (see the module)."""
    box, side = puzzle.box, puzzle.side
    cells = puzzle.cells
    free = side - len({v for v in cells if v})
    relabelled = factorial(free)
    empty_rows = [all(cells[r * side + c] == 0 for c in range(side)) for r in range(side)]
    empty_cols = [all(cells[r * side + c] == 0 for r in range(side)) for c in range(side)]
    rows_moved = cols_moved = 1
    for b in range(box):
        rows_moved *= factorial(sum(empty_rows[b * box:(b + 1) * box]))
        cols_moved *= factorial(sum(empty_cols[b * box:(b + 1) * box]))
    moved = max(rows_moved, cols_moved)
    return min(limit, max(relabelled, moved))


def match(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None, conflicts: int = CONFLICTS) -> Answer | None:
    """A solution of ``puzzle`` from the pattern family and the count it proves, or None (see the module).

    None means only that this shortcut does not apply: no member fits (within ``conflicts`` of the
    SAT solver), or fewer than ``limit`` solutions follow from the one found. ``budget`` is charged
    the solver's conflicts (each is well under a millisecond, so a time cap is checked between tries).
    """
    count = _provable_count(puzzle, limit)
    if count < limit:
        return None
    found, spent = _member(puzzle, budget=budget, conflicts=conflicts)
    if found is None:
        return None
    return Answer(count, found, Counters(guesses=spent, nodes=spent + 1))


def _member(puzzle: Grid, *, budget: Budget | None = None, conflicts: int = CONFLICTS) -> tuple[Grid | None, int]:
    """(a member of the family that agrees with ``puzzle``'s givens, or None; the solver's conflicts),
    the untransposed family tried first. ``budget`` as in ``match``."""
    side = puzzle.side
    givens = [(i // side, i % side, v) for i, v in enumerate(puzzle.cells) if v]
    spent = 0
    for transposed in (False, True):
        if transposed:
            givens = [(c, r, d) for r, c, d in givens]
        if not _partitions_fit(puzzle.box, givens):
            continue
        found, used = _fit_some(puzzle.box, givens, conflicts)
        spent += used
        if budget is not None:
            budget.charge(max(1, used))
        if found is not None:
            if transposed:
                found = Grid(puzzle.box, [found.cells[c * side + r] for r in range(side) for c in range(side)])
            return found, spent
    return None, spent


def solve(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None) -> Answer:
    """The engine contract, for grids made by blanking a transformed pattern grid (opt-in, ``--engine
    pattern``): the givens matched to a member of the family first, then ``sat`` for what the match
    does not prove. A member is a solution; when more follow from it than ``limit`` (``match``), that
    is the answer; otherwise ``sat`` counts on from it (``known``), and where no member fits,
    ``sat`` solves the grid alone. So counts are exact on any grid; only the family's grids gain
    (36x36 and 49x49 at any rate blank, the hard band included, in about a second where ``sat``
    alone can take minutes: docs/engines.md), and other grids pay ``may_fit``'s millisecond.
    ``budget`` covers both steps (the match in a forked child under a time cap, as ``sat``)."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    from sudoku.budget import within
    from sudoku.engines import sat

    found, spent = None, 0
    if may_fit(puzzle):  # ~1 ms, where a forked child costs more
        found, spent = within(budget, lambda inner: _member(puzzle, budget=inner))
    if found is None:
        answer: Answer = sat.solve(puzzle, limit=limit, budget=budget)
    else:
        count = _provable_count(puzzle, limit)
        if count >= limit:
            return Answer(count, found, Counters(guesses=spent, nodes=spent + 1))
        answer = sat.solve(puzzle, limit=limit, budget=budget, known=found)
    guesses, nodes = answer.counters
    return Answer(answer.count, answer.solution, Counters(guesses + spent, nodes + spent))
