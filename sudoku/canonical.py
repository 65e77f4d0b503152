"""The canonical form of a puzzle: the least of its variants under the grid's symmetries.

The symmetries are ``sudoku.bank``'s: digits relabelled, rows permuted within their band, bands
permuted, columns within their stack, stacks permuted, and a transposition. Two puzzles are
**variants** (one is the other under a symmetry) exactly when their canonical forms are equal, so a
batch counts its distinct puzzles by this form, and ``fuzz`` sees a ``create`` that only shuffles
one puzzle. (``bank.fingerprint`` is cheaper, but equal fingerprints do not prove two puzzles
variants.)

**Least** is in reading order, blanks (0) first, after the digits are relabelled in order of first
appearance (the first digit read becomes 1, the next new one 2, ...): a variant is compared as its
row-major cells, so the least one starts with the most blanks.

How, exactly and without trying the 2 * 6^8 arrangements one by one: the first row of the least
variant has blanks where the most blanks can be put first, which only some column arrangements
achieve (for each row: stacks ordered by blanks, blanks first within a stack); only those are
tried. For each, rows are placed one at a time (within the band begun, or the first row of a new
band): the least row under the digits labelled so far is kept, ties are followed, and any branch
whose rows so far exceed the best found is dropped. Boxes 2 and 3 only (4x4, 9x9): at box 4 a
grid has 24^5 arrangements of its columns to choose among, which this search cannot afford.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import groupby, permutations, product
from operator import itemgetter

from sudoku.grid import Grid

BOXES = (2, 3)  # the box sizes canonical() takes


def canonical(grid: Grid) -> Grid:
    """The least variant of ``grid`` (see the module docstring); ValueError above box 3."""
    b = grid.box
    if b not in BOXES:
        raise ValueError(f"canonical forms are for 4x4 and 9x9 grids, not {grid.side}x{grid.side}")
    n = b * b
    cells = grid.cells
    flipped = tuple(cells[n * c + r] for r in range(n) for c in range(n))
    grids = (cells, flipped)
    leads = [_first_digit_rows(g, b) for g in grids]
    most = max(blank for blank, _ in leads)
    keys = {(t, r): _blank_key(grids[t][n * r:n * r + n], b) for t, (blank, rows) in enumerate(leads)
            if blank == most for r in rows}
    top = max(keys.values(), default=None)
    best: list[tuple[int, ...] | None] = [None] * n
    for t, g in enumerate(grids):
        orders: set[tuple[int, ...]] = {tuple(range(n))} if top is None else set()
        for (u, r), key in keys.items():
            if u == t and key == top:
                orders.update(_column_orders(g[n * r:n * r + n], b))
        source = [g[n * r:n * r + n] for r in range(n)]
        for order in sorted(orders):
            arrange = itemgetter(*order)
            _place([arrange(row) for row in source], b, 0, [], tuple(range(b)), [0] * (n + 1), 1, best)
    return Grid(b, [v for row in best if row is not None for v in row])


def are_variants(one: Grid, other: Grid) -> bool:
    """Whether one grid is the other under a symmetry of the grid (equal canonical forms)."""
    return one.box == other.box and canonical(one) == canonical(other)


def _first_digit_rows(cells: tuple[int, ...], b: int) -> tuple[int, list[int]]:
    """(k, rows): the most blank rows a variant can begin with (whole blank bands, then the blank
    rows of one more band), and the rows that can come next, the first with a digit: the rows with
    digits of the bands that have the most blank rows among those not wholly blank."""
    n = b * b
    blank = [not any(cells[n * r:n * r + n]) for r in range(n)]
    per_band = [sum(blank[band * b:band * b + b]) for band in range(b)]
    open_bands = [band for band in range(b) if per_band[band] < b]
    if not open_bands:
        return n, []
    most = max(per_band[band] for band in open_bands)
    whole = b * (len(per_band) - len(open_bands))
    return whole + most, [r for band in open_bands if per_band[band] == most
                          for r in range(band * b, band * b + b) if not blank[r]]


def _blank_key(row: tuple[int, ...], b: int) -> tuple[int, ...]:
    """The blanks of each stack of ``row``, most first: the larger the key, the more blanks the row
    can lead with."""
    return tuple(sorted(_stack_blanks(row, b), reverse=True))


def _stack_blanks(row: tuple[int, ...], b: int) -> list[int]:
    """How many blanks ``row`` has in each stack."""
    return [row[s * b:s * b + b].count(0) for s in range(b)]


def _column_orders(row: tuple[int, ...], b: int) -> list[tuple[int, ...]]:
    """Every column arrangement that puts ``row``'s blanks as early as they can go: stacks by their
    blanks, most first (any order among equals), and within each stack its blanks first (any order
    among them, and among its digits)."""
    blanks = _stack_blanks(row, b)
    stacks = sorted(range(b), key=lambda s: -blanks[s])
    groups = [list(group) for _, group in groupby(stacks, key=lambda s: blanks[s])]
    within = {}
    for s in range(b):
        columns = range(s * b, s * b + b)
        zeros = [c for c in columns if row[c] == 0]
        digits = [c for c in columns if row[c] != 0]
        within[s] = [z + d for z in permutations(zeros) for d in permutations(digits)]
    found = []
    for stack_order in product(*(permutations(group) for group in groups)):
        order = [s for group in stack_order for s in group]
        for inner in product(*(within[s] for s in order)):
            found.append(tuple(c for part in inner for c in part))
    return found


@lru_cache(maxsize=None)
def _band_starts(b: int, bands_left: tuple[int, ...]) -> list[tuple[int, list[int], tuple[int, ...]]]:
    """The rows that can begin a new band: (row, its band's rows, the bands left after it)."""
    return [(r, [band * b + k for k in range(b)], tuple(x for x in bands_left if x != band))
            for band in bands_left for r in range(band * b, band * b + b)]


def _place(rows: list[tuple[int, ...]], b: int, level: int, band_left: list[int], bands_left: tuple[int, ...],
           labels: list[int], next_label: int, best: list[tuple[int, ...] | None]) -> None:
    """Place row ``level`` and the rest, keeping in ``best`` the least rows found: the candidates are
    the rows left in the band begun (``band_left``) or, when it is done, any row of a band not yet
    used; the least under the labels so far is kept, ties followed. Invariant: the rows placed so far
    equal ``best[:level]``."""
    if level == len(rows):
        return
    candidates = [(r, band_left, bands_left) for r in band_left] if band_left else _band_starts(b, bands_left)
    bound = best[level]
    tried: list[tuple[tuple[int, ...], int, list[int], tuple[int, ...], list[int], int]] = []
    for r, band, others in candidates:
        mapping = labels[:]
        label = next_label
        out = []
        below = bound is None
        for i, v in enumerate(rows[r]):
            if v:
                if not mapping[v]:
                    mapping[v] = label
                    label += 1
                v = mapping[v]
            out.append(v)
            if not below and bound is not None:
                if v > bound[i]:
                    break
                below = v < bound[i]
        else:
            found = tuple(out)
            if bound is None or found < bound:
                bound = found
            tried.append((found, r, band, others, mapping, label))
    if not tried:  # every row here is worse than the best found
        return
    if bound != best[level]:  # better than the best found: the rows below it are to be found again
        best[level] = bound
        best[level + 1:] = [None] * (len(rows) - level - 1)
    for found, r, band, others, mapping, label in tried:
        if found == bound:
            _place(rows, b, level + 1, [x for x in band if x != r], others, mapping, label, best)
