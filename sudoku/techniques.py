"""Human solving techniques: each looks at a board of pencil marks and finds one step, or None.

Vocabulary (on top of the package's box, cell, digit, unit, peers, Grid):

- **board**: a puzzle being solved by hand: the digit of each cell (0 = blank) and the
  **candidates** of each blank cell, a bitset (bit d-1 set = digit d still possible); a placed cell
  has none. ``Board.of(puzzle)`` starts every blank with the digits its peers do not hold.
- **places** of a digit in a unit: the blank cells of the unit that still have it as a candidate.
  Two places make a **conjugate pair** (a strong link: one of them holds the digit).
- **step**: one move a person could make and explain: ``Step(technique, cells, digits, placement,
  eliminations, units)``. ``placement`` is a (cell, digit) or None; ``eliminations`` a tuple of
  (cell, digit); ``cells``, ``digits`` and ``units`` are the pattern that justifies it (the pair and
  its unit, the wing's pivot and pincers, a chain's nodes in order).
- **technique**: a function ``board -> Step | None``; ``TECHNIQUES`` lists (name, function),
  simplest first. ``next_step`` asks them in that order.
- **contradiction**: a blank with no candidate or a digit with no place in a unit that lacks it;
  ``Board.contradiction()`` names it as a value (never an exception).
- **trail**: what ``solve_logically`` returns: the steps taken, the grid they reach, and whether it
  got **stuck** (no technique applies to an unfinished grid: the puzzle needs guessing, and nothing
  is guessed here).

Techniques, in order (all work at any box size):
naked single, hidden single, pointing, claiming (locked candidates), naked pair, hidden pair,
naked triple, hidden triple, naked quad, hidden quad, x-wing, swordfish, jellyfish (fish of 2, 3
and 4 lines), xy-wing, xyz-wing, simple colouring (one digit's conjugate pairs in two colours),
x-chain (an alternating chain on one digit), aic (an alternating inference chain over digits and
cells: strong links from conjugate pairs and two-candidate cells), then three tiers of
**assumptions** (a **trial** places one candidate on a copy of the board and propagates; a
contradiction proves the candidate false), each trial applying every rule of the tier below:

- forcing chain: the trial propagates by singles;
- dynamic forcing chain: also locked candidates and naked and hidden pairs, as often as they apply;
- nested forcing chain: also forcing chains inside the trial (one level deep, from two-candidate
  cells: any such candidate that singles break is removed, and the rounds go on).

The dynamic and nested tiers apply up to 9x9 (``TIERS_UP_TO_BOX``); larger grids stop at forcing
chains.

``forcing_chains``, ``dynamic_forcing_chains`` and ``nested_forcing_chains`` find every candidate
their tier proves false in one pass, as one step: what grading uses (given the solution, they never
try its digits, and a candidate that another trial placed without a contradiction is not tried:
the rules are monotone, so it could not contradict either).

Every step is sound: it removes only candidates that no solution of the board can hold (the tests
check each against the known solution).
"""

from collections import namedtuple
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from sudoku.grid import Geometry, Grid, geometry

Candidate = tuple[int, int]  # (cell, digit)
TYPE_CHECKING = False  # typing costs ~2 ms at start-up (see sudoku.engines): only the type checker reads these
if TYPE_CHECKING:
    from typing import NamedTuple

    class Step(NamedTuple):
        technique: str
        cells: tuple[int, ...]
        digits: tuple[int, ...]
        placement: Candidate | None
        eliminations: tuple[Candidate, ...]
        units: tuple[int, ...]

    class Trail(NamedTuple):
        steps: tuple[Step, ...]
        grid: Grid
        stuck: bool
        contradiction: str | None
else:
    Step = namedtuple("Step", "technique cells digits placement eliminations units")
    Trail = namedtuple("Trail", "steps grid stuck contradiction")


def bits(mask: int) -> list[int]:
    """The digits (1-based) of a candidate bitset, smallest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length())
        mask ^= low
    return out


def popcount(mask: int) -> int:
    return bin(mask).count("1")


class Board:
    """Digits placed and candidates left, mutable; ``apply`` makes a step."""

    __slots__ = ("geo", "digits", "cands")

    def __init__(self, geo: Geometry, digits: list[int], cands: list[int]) -> None:
        self.geo = geo
        self.digits = digits
        self.cands = cands

    @classmethod
    def of(cls, grid: Grid) -> "Board":
        geo = geometry(grid.box)
        digits = list(grid.cells)
        cands = []
        for cell, value in enumerate(digits):
            if value:
                cands.append(0)
                continue
            seen = 0
            for peer in geo.peers[cell]:
                if digits[peer]:
                    seen |= 1 << (digits[peer] - 1)
            cands.append(geo.full & ~seen)
        return cls(geo, digits, cands)

    def copy(self) -> "Board":
        return Board(self.geo, list(self.digits), list(self.cands))

    def grid(self) -> Grid:
        return Grid(self.geo.box, self.digits)

    def place(self, cell: int, digit: int) -> None:
        bit = 1 << (digit - 1)
        self.digits[cell] = digit
        self.cands[cell] = 0
        for peer in self.geo.peers[cell]:
            self.cands[peer] &= ~bit

    def apply(self, step: Step) -> None:
        if step.placement:
            self.place(*step.placement)
        for cell, digit in step.eliminations:
            self.cands[cell] &= ~(1 << (digit - 1))

    def solved(self) -> bool:
        return 0 not in self.digits

    def places(self, unit: Iterable[int], bit: int) -> list[int]:
        return [cell for cell in unit if self.cands[cell] & bit]

    def contradiction(self) -> str | None:
        """A message naming the first contradiction, or None."""
        geo = self.geo
        for cell, mask in enumerate(self.cands):
            if not mask and not self.digits[cell]:
                return f"{cell_name(geo, cell)} has no candidate left"
        for u, unit in enumerate(geo.units):
            have = 0
            for cell in unit:
                have |= self.cands[cell] | (1 << (self.digits[cell] - 1) if self.digits[cell] else 0)
            if have != geo.full:
                digit = bits(geo.full & ~have)[0]
                return f"{digit} has no place left in {geo.unit_names[u]}"
        return None


Technique = Callable[["Board"], "Step | None"]


def cell_name(geo: Geometry, cell: int) -> str:
    row, col = divmod(cell, geo.side)
    return f"r{row + 1}c{col + 1}"


def _row(geo: Geometry, cell: int) -> int:
    return cell // geo.side


def _col(geo: Geometry, cell: int) -> int:
    return geo.side + cell % geo.side


def _box(geo: Geometry, cell: int) -> int:
    row, col = divmod(cell, geo.side)
    return 2 * geo.side + (row // geo.box) * geo.box + col // geo.box


def _units_boxes_first(geo: Geometry) -> list[int]:
    side = geo.side
    return list(range(2 * side, 3 * side)) + list(range(2 * side))


def _step(technique: str, cells: Iterable[int], digits: Iterable[int], *, placement: Candidate | None = None,
          eliminations: Iterable[Candidate] = (), units: Iterable[int] = ()) -> Step:
    return Step(technique, tuple(cells), tuple(digits), placement, tuple(sorted(set(eliminations))), tuple(units))


# --- singles ---------------------------------------------------------------------------------


def naked_single(board: Board) -> Step | None:
    """A blank with one candidate left gets it."""
    for cell, mask in enumerate(board.cands):
        if mask and not mask & (mask - 1):
            digit = mask.bit_length()
            return _step("naked single", [cell], [digit], placement=(cell, digit))
    return None


def hidden_single(board: Board) -> Step | None:
    """A digit with one place left in a unit goes there (boxes first, then rows, then columns)."""
    geo = board.geo
    cands = board.cands
    for u in _units_boxes_first(geo):
        unit = geo.units[u]
        once = twice = 0
        for cell in unit:
            mask = cands[cell]
            twice |= once & mask
            once |= mask
        lone = once & ~twice
        if not lone:
            continue
        bit = lone & -lone
        cell = next(c for c in unit if cands[c] & bit)
        digit = bit.bit_length()
        return _step("hidden single", [cell], [digit], placement=(cell, digit), units=[u])
    return None


# --- locked candidates -----------------------------------------------------------------------


def pointing(board: Board) -> Step | None:
    """A digit whose places in a box lie on one line leaves the rest of that line."""
    geo = board.geo
    for u in range(2 * geo.side, 3 * geo.side):
        for digit in range(1, geo.side + 1):
            bit = 1 << (digit - 1)
            places = board.places(geo.units[u], bit)
            if len(places) < 2:
                continue
            for line_of in (_row, _col):
                lines = {line_of(geo, cell) for cell in places}
                if len(lines) != 1:
                    continue
                line = lines.pop()
                gone = [(c, digit) for c in geo.units[line] if board.cands[c] & bit and c not in places]
                if gone:
                    return _step("pointing", places, [digit], eliminations=gone, units=[u, line])
    return None


def claiming(board: Board) -> Step | None:
    """A digit whose places in a line lie in one box leaves the rest of that box."""
    geo = board.geo
    for u in range(2 * geo.side):
        for digit in range(1, geo.side + 1):
            bit = 1 << (digit - 1)
            places = board.places(geo.units[u], bit)
            if len(places) < 2:
                continue
            boxes = {_box(geo, cell) for cell in places}
            if len(boxes) != 1:
                continue
            b = boxes.pop()
            gone = [(c, digit) for c in geo.units[b] if board.cands[c] & bit and c not in places]
            if gone:
                return _step("claiming", places, [digit], eliminations=gone, units=[u, b])
    return None


# --- subsets ---------------------------------------------------------------------------------


def _naked(size: int, name: str) -> Technique:
    def naked_subset(board: Board) -> Step | None:
        geo = board.geo
        cands = board.cands
        for u in _units_boxes_first(geo):
            unit = geo.units[u]
            blanks = [c for c in unit if cands[c]]
            if len(blanks) <= size:
                continue
            small = [c for c in blanks if popcount(cands[c]) <= size]
            for group in combinations(small, size):
                union = 0
                for c in group:
                    union |= cands[c]
                if popcount(union) != size:
                    continue
                gone = [(c, d) for c in blanks if c not in group for d in bits(cands[c] & union)]
                if gone:
                    return _step(name, group, bits(union), eliminations=gone, units=[u])
        return None

    naked_subset.__doc__ = f"{size} cells of a unit with {size} candidates between them: no other cell of the unit has those."
    return naked_subset


def _hidden(size: int, name: str) -> Technique:
    def hidden_subset(board: Board) -> Step | None:
        geo = board.geo
        cands = board.cands
        for u in _units_boxes_first(geo):
            unit = geo.units[u]
            where: dict[int, list[int]] = {}
            for digit in range(1, geo.side + 1):
                bit = 1 << (digit - 1)
                places = [c for c in unit if cands[c] & bit]
                if 2 <= len(places) <= size:
                    where[digit] = places
            for group in combinations(sorted(where), size):
                cells = sorted({c for d in group for c in where[d]})
                if len(cells) != size:
                    continue
                keep = 0
                for d in group:
                    keep |= 1 << (d - 1)
                gone = [(c, d) for c in cells for d in bits(cands[c] & ~keep)]
                if gone:
                    return _step(name, cells, group, eliminations=gone, units=[u])
        return None

    hidden_subset.__doc__ = f"{size} digits of a unit with {size} places between them: those cells hold nothing else."
    return hidden_subset


# --- fish --------------------------------------------------------------------------------------


def _fish(size: int, name: str) -> Technique:
    def fish(board: Board) -> Step | None:
        geo = board.geo
        side = geo.side
        cands = board.cands
        for digit in range(1, side + 1):
            bit = 1 << (digit - 1)
            for base_kind in (0, 1):  # 0: base rows, cover columns; 1: base columns, cover rows
                spots = {}
                for line in range(side):
                    unit = geo.units[base_kind * side + line]
                    mask = 0
                    for position, cell in enumerate(unit):
                        if cands[cell] & bit:
                            mask |= 1 << position
                    if 2 <= popcount(mask) <= size:
                        spots[line] = mask
                for base in combinations(sorted(spots), size):
                    cover = 0
                    for line in base:
                        cover |= spots[line]
                    if popcount(cover) != size:
                        continue
                    cover_units = [(1 - base_kind) * side + p - 1 for p in bits(cover)]  # bits() counts from 1
                    base_units = [base_kind * side + line for line in base]
                    base_cells = {c for u in base_units for c in geo.units[u]}
                    gone = [(c, digit) for u in cover_units for c in geo.units[u] if cands[c] & bit and c not in base_cells]
                    if gone:
                        cells = [c for u in base_units for c in geo.units[u] if cands[c] & bit]
                        return _step(name, cells, [digit], eliminations=gone, units=base_units + cover_units)
        return None

    fish.__doc__ = f"A digit confined to {size} columns within {size} rows (or the other way round) leaves the rest of those columns."
    return fish


# --- wings -------------------------------------------------------------------------------------


def _sees(geo: Geometry, a: int, b: int) -> bool:
    return a != b and (a // geo.side == b // geo.side or a % geo.side == b % geo.side or _box(geo, a) == _box(geo, b))


def xy_wing(board: Board) -> Step | None:
    """Pivot {x,y} sees pincers {x,z} and {y,z}: z leaves every cell seeing both pincers."""
    geo = board.geo
    cands = board.cands
    for pivot, mask in enumerate(cands):
        if popcount(mask) != 2:
            continue
        wings = [p for p in geo.peers[pivot] if popcount(cands[p]) == 2 and popcount(cands[p] & mask) == 1]
        for a, b in combinations(wings, 2):
            z = cands[a] & ~mask
            if z != cands[b] & ~mask or cands[a] & cands[b] & mask:
                continue
            gone = [(c, z.bit_length()) for c in geo.peers[a] if cands[c] & z and c != b and _sees(geo, c, b)]
            if gone:
                return _step("xy-wing", [pivot, a, b], bits(mask | z), eliminations=gone)
    return None


def xyz_wing(board: Board) -> Step | None:
    """Pivot {x,y,z} sees pincers {x,z} and {y,z}: z leaves every cell seeing all three."""
    geo = board.geo
    cands = board.cands
    for pivot, mask in enumerate(cands):
        if popcount(mask) != 3:
            continue
        wings = [p for p in geo.peers[pivot] if popcount(cands[p]) == 2 and cands[p] & ~mask == 0]
        for a, b in combinations(wings, 2):
            z = cands[a] & cands[b]
            if popcount(z) != 1 or cands[a] == cands[b]:
                continue
            gone = [(c, z.bit_length()) for c in geo.peers[pivot]
                    if cands[c] & z and c not in (a, b) and _sees(geo, c, a) and _sees(geo, c, b)]
            if gone:
                return _step("xyz-wing", [pivot, a, b], bits(mask), eliminations=gone)
    return None


# --- single-digit colouring --------------------------------------------------------------------


def _conjugates(board: Board, bit: int) -> dict[int, set[int]]:
    """For one digit: cell -> cells it forms a conjugate pair with (two places in some unit)."""
    links: dict[int, set[int]] = {}
    for unit in board.geo.units:
        places = [c for c in unit if board.cands[c] & bit]
        if len(places) == 2:
            a, b = places
            links.setdefault(a, set()).add(b)
            links.setdefault(b, set()).add(a)
    return links


def simple_colouring(board: Board) -> Step | None:
    """Colour one digit's conjugate-pair chain in two colours; one colour holds the digit.

    Two cells of one colour that see each other make that colour false (colour wrap); a cell that
    sees both colours cannot hold the digit (colour trap).
    """
    geo = board.geo
    for digit in range(1, geo.side + 1):
        bit = 1 << (digit - 1)
        links = _conjugates(board, bit)
        done = set()
        for start in sorted(links):
            if start in done:
                continue
            colour = {start: 0}
            order = [start]
            for cell in order:
                for other in sorted(links[cell]):
                    if other not in colour:
                        colour[other] = 1 - colour[cell]
                        order.append(other)
            done.update(order)
            if len(order) < 3:
                continue
            groups = ([c for c in order if colour[c] == 0], [c for c in order if colour[c] == 1])
            for group in groups:
                if any(_sees(geo, a, b) for a, b in combinations(group, 2)):
                    return _step("simple colouring", order, [digit], eliminations=[(c, digit) for c in group])
            gone = [(c, digit) for c, mask in enumerate(board.cands)
                    if mask & bit and c not in colour
                    and any(_sees(geo, c, x) for x in groups[0]) and any(_sees(geo, c, y) for y in groups[1])]
            if gone:
                return _step("simple colouring", order, [digit], eliminations=gone)
    return None


# --- chains --------------------------------------------------------------------------------------


class _Links:
    """Strong and weak links between candidates (cell, digit) of a board, built on demand."""

    def __init__(self, board: Board, *, one_digit: int | None = None) -> None:
        self.board = board
        self.one_digit = one_digit
        self.strong: dict[Candidate, set[Candidate]] = {}
        self._conj: dict[int, dict[int, set[int]]] = {}
        geo = board.geo
        digits = [one_digit] if one_digit else range(1, geo.side + 1)
        for digit in digits:
            bit = 1 << (digit - 1)
            for a, others in _conjugates(board, bit).items():
                self.strong.setdefault((a, digit), set()).update((b, digit) for b in others)
        if one_digit is None:
            for cell, mask in enumerate(board.cands):
                if popcount(mask) == 2:
                    x, y = bits(mask)
                    self.strong.setdefault((cell, x), set()).add((cell, y))
                    self.strong.setdefault((cell, y), set()).add((cell, x))

    def weak(self, node: Candidate) -> list[Candidate]:
        cell, digit = node
        board = self.board
        bit = 1 << (digit - 1)
        out = [(p, digit) for p in board.geo.peers[cell] if board.cands[p] & bit]
        if self.one_digit is None:
            out += [(cell, d) for d in bits(board.cands[cell]) if d != digit]
        return out


def _seen_by_both(board: Board, a: Candidate, b: Candidate) -> list[Candidate]:
    """Candidates other than a and b that a true a or a true b would remove."""
    geo = board.geo
    (ca, da), (cb, db) = a, b
    out: list[Candidate] = []
    if da == db:
        bit = 1 << (da - 1)
        out = [(c, da) for c in geo.peers[ca] if c != cb and board.cands[c] & bit and _sees(geo, c, cb)]
    elif ca == cb:
        out = [(ca, d) for d in bits(board.cands[ca]) if d not in (da, db)]
    elif _sees(geo, ca, cb):
        if board.cands[ca] & (1 << (db - 1)):
            out.append((ca, db))
        if board.cands[cb] & (1 << (da - 1)):
            out.append((cb, da))
    return out


def _chain_from(links: _Links, start: Candidate) -> tuple[list[Candidate], list[Candidate]] | None:
    """Breadth-first from ``start`` assumed false: the first node forced true that, with start,
    removes something. Returns (chain nodes, eliminations) or None."""
    parent: dict[tuple[Candidate, bool], tuple[Candidate, bool] | None] = {(start, False): None}
    frontier = [(start, False)]
    while frontier:
        nxt: list[tuple[Candidate, bool]] = []
        for state in frontier:
            node, on = state
            followers = links.weak(node) if on else links.strong.get(node, ())
            for other in followers:
                key = (other, not on)
                if key in parent or other == start:
                    continue
                parent[key] = state
                if not on:  # other is forced true: start or other holds
                    gone = _seen_by_both(links.board, start, other)
                    if gone:
                        return _trace(parent, key), gone
                nxt.append(key)
        frontier = nxt
    return None


def _trace(parent: dict[tuple[Candidate, bool], tuple[Candidate, bool] | None],
           key: tuple[Candidate, bool] | None) -> list[Candidate]:
    nodes: list[Candidate] = []
    while key is not None:
        nodes.append(key[0])
        key = parent[key]
    return nodes[::-1]


def _chain(board: Board, name: str, one_digit: int | None) -> Step | None:
    links = _Links(board, one_digit=one_digit)
    for start in sorted(links.strong):
        found = _chain_from(links, start)
        if found:
            nodes, gone = found
            return _step(name, [c for c, _ in nodes], [d for _, d in nodes], eliminations=gone)
    return None


def x_chain(board: Board) -> Step | None:
    """An alternating chain of one digit (conjugate pairs, then any two places in a unit): one of
    its two ends holds the digit, so cells seeing both ends do not."""
    for digit in range(1, board.geo.side + 1):
        step = _chain(board, "x-chain", digit)
        if step:
            return step
    return None


def aic(board: Board) -> Step | None:
    """An alternating inference chain over candidates: strong links (conjugate pairs, two-candidate
    cells) alternate with weak ones; one of its two ends is true, so what sees both ends goes."""
    return _chain(board, "aic", None)


def forcing_chain(board: Board) -> Step | None:
    """A candidate whose placement leads, by singles alone, to a contradiction is false (a
    contradiction forcing chain, or Nishio); two-candidate cells are tried first."""
    return _forcing(board, every=False)


def forcing_chains(board: Board, *, solution: Sequence[int] | None = None) -> Step | None:
    """Every candidate that ``forcing_chain`` would remove, found in one pass and made one step
    (each is false on its own): what grading uses, as a pass costs far more than what it finds.
    With the known ``solution`` (cells), its digits are not tried: a true digit never leads to a
    contradiction, so the step is the same, found in about half the time."""
    return _forcing(board, every=True, solution=solution)


def dynamic_forcing_chain(board: Board) -> Step | None:
    """A candidate whose placement leads to a contradiction by singles, locked candidates and naked
    and hidden pairs (applied inside the trial, as often as they apply) is false."""
    return _forcing(board, every=False, tier=DYNAMIC)


def dynamic_forcing_chains(board: Board, *, solution: Sequence[int] | None = None) -> Step | None:
    """Every candidate that ``dynamic_forcing_chain`` would remove, in one pass (as ``forcing_chains``)."""
    return _forcing(board, every=True, solution=solution, tier=DYNAMIC)


def nested_forcing_chain(board: Board) -> Step | None:
    """A candidate whose placement leads to a contradiction when the trial may also use forcing
    chains itself: inside it, any candidate of a two-candidate cell that singles alone break is
    removed (one level deep), between rounds of singles, locked candidates and pairs."""
    return _forcing(board, every=False, tier=NESTED)


def nested_forcing_chains(board: Board, *, solution: Sequence[int] | None = None) -> Step | None:
    """Every candidate that ``nested_forcing_chain`` would remove, in one pass (as ``forcing_chains``)."""
    return _forcing(board, every=True, solution=solution, tier=NESTED)


# The trial propagations, weakest first: a tier's trial applies every rule of the tiers below it.
SINGLES, DYNAMIC, NESTED = 0, 1, 2
# The dynamic and nested tiers stop at 9x9: from 16x16 up a pass costs seconds to minutes (a hint on
# an empty 16x16 grid took 13.5 s with them, 2.3 s without), and no benchmark set calibrates them.
TIERS_UP_TO_BOX = 3
_TIER_NAMES = ("forcing chain", "dynamic forcing chain", "nested forcing chain")


def _pairs(trial: list[int], queue: list[int], geo: Geometry) -> int:
    """Naked and hidden pairs on a trial's candidate list (placed cells hold one bit): -1 on a
    contradiction, else how many cells lost candidates; newly placed cells go on ``queue``."""
    from sudoku.engines.py import strike

    changed = 0
    for unit in geo.units:
        once = twice = thrice = 0
        twos: list[int] = []
        for cell in unit:
            mask = trial[cell]
            thrice |= twice & mask
            twice |= once & mask
            once |= mask
            rest = mask & (mask - 1)
            if rest and not rest & (rest - 1):
                twos.append(cell)
        if len(twos) >= 2:
            seen: dict[int, list[int]] = {}
            for cell in twos:
                seen.setdefault(trial[cell], []).append(cell)
            for mask, cells in seen.items():
                if len(cells) < 2:
                    continue
                if len(cells) > 2:
                    return -1
                for cell in unit:
                    if trial[cell] & mask and cell not in cells:
                        if not strike(trial, cell, mask, queue):
                            return -1
                        changed += 1
        two_places = twice & ~thrice
        if not two_places & (two_places - 1):
            continue  # fewer than two digits with two places
        where: dict[tuple[int, ...], list[int]] = {}
        while two_places:
            bit = two_places & -two_places
            two_places ^= bit
            places = tuple(cell for cell in unit if trial[cell] & bit)
            if len(places) == 2:
                where.setdefault(places, []).append(bit)
        for places, digit_bits in where.items():
            if len(digit_bits) < 2:
                continue
            if len(digit_bits) > 2:
                return -1
            keep = digit_bits[0] | digit_bits[1]
            for cell in places:
                if trial[cell] & ~keep:
                    trial[cell] &= keep
                    changed += 1
    return changed


def _propagate(trial: list[int], queue: list[int], geo: Geometry, tier: int) -> bool:
    """Apply the tier's rules to ``trial`` in place until none applies: False on a contradiction."""
    from sudoku.engines.py import _locked, settle

    while True:
        if not settle(trial, queue, geo):
            return False
        if tier == SINGLES:
            return True
        changed = _locked(trial, queue, geo)
        if changed < 0:
            return False
        if changed:
            continue
        changed = _pairs(trial, queue, geo)
        if changed < 0:
            return False
        if changed:
            continue
        if tier == DYNAMIC:
            return True
        removed = _refute(trial, queue, geo)
        if removed < 0:
            return False
        if not removed:
            return True


def _refute(trial: list[int], queue: list[int], geo: Geometry) -> int:
    """One round of forcing chains inside a nested trial: each candidate whose placement singles
    break is removed at once (later tries start from the stronger grid). Returns -1 on a
    contradiction, else how many it removed; a cell left with one candidate goes on ``queue`` and
    the round stops there."""
    from sudoku.engines.py import settle, strike

    order = [cell for cell, mask in enumerate(trial) if popcount(mask) == 2]
    safe: set[tuple[int, int]] = set()
    removed = 0
    for cell in order:
        for digit in bits(trial[cell]):
            bit = 1 << (digit - 1)
            if (cell, bit) in safe or not trial[cell] & bit:
                continue
            inner = list(trial)
            inner[cell] = bit
            if settle(inner, [cell], geo):
                if not removed:
                    safe.update((c, mask) for c, mask in enumerate(inner) if trial[c] & (trial[c] - 1) and not mask & (mask - 1))
                continue
            if not strike(trial, cell, bit, queue):
                return -1
            removed += 1
            if not trial[cell] & (trial[cell] - 1):
                return removed
    return removed


def _false_candidates(base: list[int], geo: Geometry, tier: int, *, every: bool,
                      safe: Iterable[Candidate] = ()) -> list[Candidate]:
    """The candidates (cell, digit) of ``base`` (a candidate list) whose trial under ``tier``
    contradicts: all of them, or with ``every`` False the first. ``safe`` candidates are not tried."""
    order = sorted((popcount(mask), cell) for cell, mask in enumerate(base) if mask & (mask - 1))
    safe = set(safe)
    found: list[Candidate] = []
    for _, cell in order:
        for digit in bits(base[cell]):
            if (cell, digit) in safe:
                continue
            trial = list(base)
            trial[cell] = 1 << (digit - 1)
            if _propagate(trial, [cell], geo, tier):
                # The rules are monotone: a placement this trial made, tried alone, starts from fewer
                # constraints, so it cannot reach a contradiction either. Skipping those is what
                # makes a pass affordable.
                safe.update((c, mask.bit_length()) for c, mask in enumerate(trial)
                            if base[c] & (base[c] - 1) and not mask & (mask - 1))
                continue
            found.append((cell, digit))
            if not every:
                return found
    return found


def _forcing(board: Board, *, every: bool, solution: Sequence[int] | None = None, tier: int = SINGLES) -> Step | None:
    if tier > SINGLES and board.geo.box > TIERS_UP_TO_BOX:
        return None
    base = [1 << (d - 1) if d else mask for d, mask in zip(board.digits, board.cands)]
    safe = enumerate(solution) if solution is not None else ()
    found = _false_candidates(base, board.geo, tier, every=every, safe=safe)
    if not found:
        return None
    return _step(_TIER_NAMES[tier], [c for c, _ in found], [d for _, d in found], eliminations=found)


TECHNIQUES: tuple[tuple[str, Technique], ...] = (
    ("naked single", naked_single),
    ("hidden single", hidden_single),
    ("pointing", pointing),
    ("claiming", claiming),
    ("naked pair", _naked(2, "naked pair")),
    ("hidden pair", _hidden(2, "hidden pair")),
    ("naked triple", _naked(3, "naked triple")),
    ("hidden triple", _hidden(3, "hidden triple")),
    ("naked quad", _naked(4, "naked quad")),
    ("hidden quad", _hidden(4, "hidden quad")),
    ("x-wing", _fish(2, "x-wing")),
    ("swordfish", _fish(3, "swordfish")),
    ("jellyfish", _fish(4, "jellyfish")),
    ("xy-wing", xy_wing),
    ("xyz-wing", xyz_wing),
    ("simple colouring", simple_colouring),
    ("x-chain", x_chain),
    ("aic", aic),
    ("forcing chain", forcing_chain),
    ("dynamic forcing chain", dynamic_forcing_chain),
    ("nested forcing chain", nested_forcing_chain),
)
NAMES = tuple(name for name, _ in TECHNIQUES)


def next_step(board: Board, techniques: Iterable[tuple[str, Technique]] = TECHNIQUES) -> Step | None:
    """The first step the simplest applicable technique finds, or None."""
    for _, technique in techniques:
        step = technique(board)
        if step is not None:
            return step
    return None


def why_no_solution(puzzle: Grid) -> str | None:
    """What makes ``puzzle`` have no solution, for people, or None when neither its givens nor the
    singles they force show it (a search may still prove it has none; this never searches).

    In order: two givens that clash ("the givens clash: row 1 has two 5s, columns 1 and 3"); a
    contradiction of the givens alone ("r3c5 has no candidate left", "4 has no place left in row
    9"); one reached by filling the cells the givens force (naked and hidden singles), which are
    named ("once r1c1=5 and r2c3=7 are filled, ...")."""
    from sudoku.grid import find_clash

    clash = find_clash(puzzle)
    if clash:
        return f"the givens clash: {clash}"
    board = Board.of(puzzle)
    placed: list[str] = []
    while True:
        broken = board.contradiction()
        if broken:
            if not placed:
                return broken
            many = len(placed) > 1
            shown = " and ".join(placed) if len(placed) <= 3 else f"{', '.join(placed[:3])} and {len(placed) - 3} more"
            return f"once the forced cell{'s' if many else ''} {shown} {'are' if many else 'is'} filled, {broken}"
        step = naked_single(board) or hidden_single(board)
        if step is None or step.placement is None:
            return None
        cell, digit = step.placement
        placed.append(f"{cell_name(board.geo, cell)}={digit}")
        board.apply(step)


def solve_logically(puzzle: Grid, *, techniques: Iterable[tuple[str, Technique]] = TECHNIQUES,
                    max_steps: int | None = None) -> Trail:
    """Steps from ``puzzle`` until it is solved, stuck, or contradicts itself; never guesses."""
    board = Board.of(puzzle)
    steps: list[Step] = []
    while not board.solved():
        broken = board.contradiction()
        if broken:
            return Trail(tuple(steps), board.grid(), False, broken)
        if max_steps is not None and len(steps) >= max_steps:
            break
        step = next_step(board, techniques)
        if step is None:
            return Trail(tuple(steps), board.grid(), True, None)
        board.apply(step)
        steps.append(step)
    return Trail(tuple(steps), board.grid(), False, None)
