"""The pure-Python engine: any box size 2..9, no imports beyond the standard library.

State is a list of candidate bitsets, one per cell (bit d-1 set = digit d still possible); a cell is
placed when one bit is left. Three verbs:

- ``settle``: place naked singles (eliminate a placed digit from its peers) and hidden singles (a digit
  with one place left in a unit) until neither applies; a contradiction (a cell or a digit with no
  place) makes it return False.
- ``search``: settle, then branch on a cell with the fewest candidates, depth first, with an explicit
  stack (an 81x81 grid can go deeper than Python's recursion limit).
- ``solve``: the engine contract on top.

It serves every single-puzzle CLI call (it starts in milliseconds) and is the cross-check for the
compiled engine.
"""

from __future__ import annotations

from sudoku.engines import Answer, Counters
from sudoku.grid import Grid, geometry

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs these
if TYPE_CHECKING:
    import random

    from sudoku.budget import Budget
    from sudoku.grid import Geometry

    Frame = tuple[list[int], int | None, list[int] | None]  # (state, branch cell, options left)


class _Stats:
    __slots__ = ("guesses", "nodes")

    def __init__(self) -> None:
        self.guesses = 0
        self.nodes = 0


LOCKED_FROM_BOX = 4
PASS_FROM_BOX = 4  # hidden singles: a whole pass over the units before propagating (see settle)


def settle(cands: list[int], queue: list[int], geo: Geometry, *, hidden: bool = True) -> bool:
    """Propagate in place; False on a contradiction. ``queue`` holds newly placed cells.

    With ``hidden``, also hidden singles, and on grids of box 4 and up locked candidates: on small
    grids that rule costs more than the guesses it saves, on big ones it stops runaway searches
    (a half-blank 25x25 puzzle went from minutes to a fraction of a second).

    Hidden singles: up to 9x9, those of a unit are propagated before the next unit is read (most
    of a search's nodes end in a contradiction, found sooner so); from 16x16 up, a whole pass over
    the units comes first (one 36x36 grid at 45 % blank settled in 14 ms, not 31; settling the 20
    random 36x36 and 49x49 grids of bench/bigset.py 0.81x the time). The fixed point is the same
    either way. bench/ab_trees.py, against the other order for every size: 9x9 search 1.16x and
    grading 1.10x slower with the pass, 16x16/25x25 search 0.71x.
    """
    locked = hidden and geo.box >= LOCKED_FROM_BOX
    unit_by_unit = geo.box < PASS_FROM_BOX  # a unit's hidden singles propagated before the next unit is read
    peers = geo.peers
    units = geo.units
    full = geo.full
    while True:
        while queue:
            cell = queue.pop()
            bit = cands[cell]
            for peer in peers[cell]:
                mask = cands[peer]
                if mask & bit:
                    mask ^= bit
                    if not mask:
                        return False
                    cands[peer] = mask
                    if not mask & (mask - 1):
                        queue.append(peer)
        if not hidden:
            return True
        for unit in units:
            once = twice = 0
            for cell in unit:
                mask = cands[cell]
                twice |= once & mask
                once |= mask
            if once != full:
                return False
            lone = once & ~twice
            if not lone:
                continue
            for cell in unit:
                mask = cands[cell]
                if mask & lone and mask & (mask - 1):
                    bit = mask & lone
                    if bit & (bit - 1):
                        return False
                    cands[cell] = bit
                    queue.append(cell)
            if queue and unit_by_unit:
                break
        if queue:
            continue
        if not locked:
            return True
        changed = _locked(cands, queue, geo)
        if changed < 0:
            return False
        if not changed:
            return True


def strike(cands: list[int], cell: int, drop: int, queue: list[int]) -> bool:
    """Remove the candidate bits ``drop`` from ``cell``: False when none is left (a contradiction);
    a cell left with one goes on ``queue``. The one way every rule here and in ``techniques``
    eliminates (an A/B on py's searches measured no cost for the call, bench/README.md)."""
    mask = cands[cell] & ~drop
    if not mask:
        return False
    cands[cell] = mask
    if not mask & (mask - 1):
        queue.append(cell)
    return True


def _locked(cands: list[int], queue: list[int], geo: Geometry) -> int:
    """Locked candidates: a digit that, within a line (or box), lies only where it crosses one box
    (or line) leaves the rest of that box (or line). Returns -1 on a contradiction, else how many
    cells lost candidates; newly placed cells go on ``queue``."""
    seg_cells = geo.segment_cells
    seg_or: list[int] = []
    for cells in seg_cells:
        mask = 0
        for cell in cells:
            mask |= cands[cell]
        seg_or.append(mask)
    changed = 0
    for seg, (line_rest, box_rest) in enumerate(geo.segment_links):
        here = seg_or[seg]
        elsewhere_in_line = elsewhere_in_box = 0
        for other in line_rest:
            elsewhere_in_line |= seg_or[other]
        for other in box_rest:
            elsewhere_in_box |= seg_or[other]
        for drop, rest in ((here & ~elsewhere_in_line & elsewhere_in_box, box_rest),
                           (here & ~elsewhere_in_box & elsewhere_in_line, line_rest)):
            if not drop:
                continue
            for other in rest:
                for cell in seg_cells[other]:
                    if cands[cell] & drop:
                        if not strike(cands, cell, drop, queue):
                            return -1
                        changed += 1
                seg_or[other] &= ~drop
    return changed


def candidates(puzzle: Grid) -> tuple[list[int], list[int]]:
    """Initial candidate bitsets and the queue of given cells, before any propagation."""
    geo = geometry(puzzle.box)
    full = geo.full
    cands = [full] * geo.ncells
    queue: list[int] = []
    for cell, value in enumerate(puzzle.cells):
        if value:
            cands[cell] = 1 << (value - 1)
            queue.append(cell)
    return cands, queue


def _branch_cell(cands: list[int]) -> int:
    """The unplaced cell with the fewest candidates, or -1 when every cell is placed."""
    best = -1
    fewest = 1 << 30
    for cell, mask in enumerate(cands):
        if mask & (mask - 1):
            count = mask.bit_count()
            if count < fewest:
                best, fewest = cell, count
                if count == 2:
                    break
    return best


def _random_branch_cell(cands: list[int], rng: random.Random) -> int:
    """Like ``_branch_cell``, but a random one among the cells with the fewest candidates: the
    randomised branching of a restart (a fixed order meets the same bad early choice every time)."""
    ties: list[int] = []
    fewest = 1 << 30
    for cell, mask in enumerate(cands):
        if mask & (mask - 1):
            count = mask.bit_count()
            if count < fewest:
                ties = [cell]
                fewest = count
            elif count == fewest:
                ties.append(cell)
    return rng.choice(ties) if ties else -1


def _bits(mask: int) -> list[int]:
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def search(cands: list[int], queue: list[int], geo: Geometry, limit: int, stats: _Stats, *,
           rng: random.Random | None = None, hidden: bool = True, max_nodes: int | None = None,
           budget: Budget | None = None,
           found: dict[tuple[int, ...], list[int]] | None = None) -> tuple[int, list[int] | None]:
    """Depth-first search from a state; returns (count up to limit, first solution's bitsets or None).

    With ``rng``, branching is randomised (cell among the fewest-candidate ties, digit order). With
    ``max_nodes``, gives up once ``stats.nodes`` passes it and returns (-1, None). ``budget`` (a
    sudoku.budget.Budget) is charged every node and raises BudgetExceeded past its caps. ``found``,
    a dict, collects each solution met (key: its cells) and the search stops once it holds
    ``limit``: so solutions found by runs that were cut off still count, once each.
    """
    stats.nodes += 1
    if budget is not None:
        budget.charge()
    if not settle(cands, queue, geo, hidden=hidden):
        return 0, None
    pick = _branch_cell if rng is None else (lambda state: _random_branch_cell(state, rng))
    count = 0
    first: list[int] | None = None
    stack: list[Frame] = [(cands, None, None)]
    while stack:
        state, cell, options = stack[-1]
        if options is None:
            cell = pick(state)
            if cell < 0:
                stack.pop()
                count += 1
                if first is None:
                    first = state
                if found is not None:
                    found.setdefault(tuple(state), state)
                    if len(found) >= limit:
                        break
                if count >= limit:
                    break
                continue
            options = _bits(state[cell])
            if rng is not None:
                rng.shuffle(options)
            else:
                options.reverse()  # pop() then tries the smallest digit first
            stack[-1] = (state, cell, options)
        if not options:
            stack.pop()
            continue
        bit = options.pop()
        stats.guesses += 1
        stats.nodes += 1
        if max_nodes is not None and stats.nodes > max_nodes:
            return -1, None
        if budget is not None:
            budget.charge()
        child = state[:]
        child[cell] = bit  # type: ignore[index]  # options set: cell set
        if settle(child, [cell], geo, hidden=hidden):  # type: ignore[list-item]
            stack.append((child, None, None))
    return count, first


def _to_grid(box: int, cands: list[int]) -> Grid:
    return Grid(box, [mask.bit_length() for mask in cands])


def solve(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None) -> Answer:
    """The engine contract: count solutions up to ``limit``, return the first, with counters.

    ``budget`` (a sudoku.budget.Budget, or None) bounds the work: BudgetExceeded past it. From
    16x16 up the search restarts (see ``_restarting``); counts stay exact either way.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    geo = geometry(puzzle.box)
    stats = _Stats()
    cands, queue = candidates(puzzle)
    if puzzle.box >= RESTART_FROM_BOX:
        count, first = _restarting(cands, queue, geo, limit, stats, budget, puzzle)
    else:
        count, first = search(cands, queue, geo, limit, stats, budget=budget)
    solution = _to_grid(puzzle.box, first) if first is not None else None
    return Answer(count, solution, Counters(stats.guesses, stats.nodes))


RESTART_FROM_BOX = 4
FIRST_RUN_NODES = 64  # per side: 1,024 nodes at 16x16, 2,304 at 36x36


def _restarting(cands: list[int], queue: list[int], geo: Geometry, limit: int, stats: _Stats, budget: Budget | None,
                puzzle: Grid) -> tuple[int, list[int] | None]:
    """Depth-first search that restarts when a run stalls: run 1 is the plain search; each later
    run branches at random (fewest-candidate ties, digit order) with twice the node budget.

    Why: on big grids a fixed order can sink into a subtree with no solution after one bad early
    choice (the heavy tail of quasigroup completion), while another order finds one at once.
    Counts stay exact: solutions met by cut-off runs are kept (once each, by their cells), so the
    answer is either ``limit`` distinct solutions or the count of a run that ran to its end, which
    saw every solution. The random order is seeded from the puzzle, so a call is repeatable.
    """
    import random  # here, not at the top: 9x9 solves never restart

    found: dict[tuple[int, ...], list[int]] = {}
    rng: random.Random | None = None
    run_nodes = FIRST_RUN_NODES * geo.side
    while True:
        start = stats.nodes
        count, first = search(cands[:], queue[:], geo, limit, stats, rng=rng, budget=budget, found=found,
                              max_nodes=start + run_nodes)
        if len(found) >= limit:
            return limit, next(iter(found.values()))
        if count >= 0:
            return count, first
        run_nodes *= 2
        if rng is None:
            rng = random.Random(hash(puzzle.cells))


def fill(box: int, rng: random.Random, budget: Budget | None = None) -> Grid:
    """A random complete grid: search the empty grid trying digits in random order.

    Randomized search on big empty grids has a heavy tail (a few orders thrash for minutes), so a
    try that passes a node budget is abandoned for a fresh random order, with the budget doubled.
    ``budget`` (a sudoku.budget.Budget) bounds the whole: BudgetExceeded past it.
    """
    geo = geometry(box)
    run_nodes = 4 * geo.ncells
    while True:
        stats = _Stats()
        cands = [geo.full] * geo.ncells
        count, first = search(cands, [], geo, 1, stats, rng=rng, max_nodes=run_nodes, budget=budget)
        if count > 0:
            return _to_grid(box, first)  # type: ignore[arg-type]  # a count: a first solution
        run_nodes *= 2


def has_other(puzzle: Grid, solution: Grid, cell: int, budget: Budget | None = None) -> bool:
    """Whether ``puzzle`` with ``cell`` blanked has a solution other than ``solution``.

    Any other solution must differ at ``cell`` (with the given back the solution is unique), so it is
    enough to forbid the known digit there and ask for one solution: cheaper than counting to two.
    """
    geo = geometry(puzzle.box)
    cands, queue = candidates(puzzle)
    cands[cell] = geo.full & ~(1 << (solution.cells[cell] - 1))
    queue = [c for c in queue if c != cell]
    if not cands[cell] & (cands[cell] - 1):
        queue.append(cell)
    count, _ = search(cands, queue, geo, 1, _Stats(), budget=budget)
    return count > 0


def rate(puzzle: Grid, budget: Budget | None = None) -> str:
    """How much a puzzle needs: 'naked' (naked singles alone solve it), 'hidden' (singles alone),
    or 'guess' (singles stall; search needed). Only meaningful for a puzzle with a solution.
    ``budget`` is charged a node per propagation."""
    geo = geometry(puzzle.box)
    for level, hidden in (("naked", False), ("hidden", True)):
        if budget is not None:
            budget.charge()
        cands, queue = candidates(puzzle)
        if settle(cands, queue, geo, hidden=hidden) and all(not m & (m - 1) for m in cands):
            return level
    return "guess"
