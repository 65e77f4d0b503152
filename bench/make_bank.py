"""Make or extend the bank of expert and extreme 9x9 puzzles (sudoku/data/bank.txt), from seeds.

    SUDOKU_DATA=../shared/data PYTHONPATH=. nice -n 10 python bench/make_bank.py --seed 2043 --start published
        --lineages 0:200 --steps 30 --per-lineage 1 --want 24 [--workers 2] [--tries 20000] [--tests 60]
        [--symmetries 4] [--min-guesses 30] [--out PATH] [--lineage-out PATH]
    PYTHONPATH=. nice -n 10 python bench/make_bank.py --seed 2027 --start sieve [--lineages 0:100000000]
        [--minutes 75] [--steps 60] [--per-lineage 6] [--workers 2] [--min-guesses 12] [--out PATH]

Four methods, each recorded on the entries it makes:

- ``climb`` (``--start published``, the bank's extreme entries): lineage K starts at a published
  hardest puzzle (hardest1106 for even K, hardest1905_11plus for odd, lines in an order shuffled by
  the seed) and climbs away from it through unique, minimal, extreme puzzles until it is 8 or more
  clue changes (under every symmetry) from its start: ``bench/bank_climb.py`` says how. The parent
  keeps an entry only if no puzzle of ``../shared/data`` is a variant of it and it is 8 or more
  clue changes from every extreme entry kept (``bank_climb.apart``), and writes each kept entry's
  moves to ``bench/bank_lineage.tsv``. The lineages are offered in order, so a run keeps the same
  entries whichever worker ends first, and stops once it has kept ``--want``.

- ``sieve`` (``--start sieve``, for extreme starts): lineage K's candidate is the nb engine's random
  minimal puzzle of seed ``derive_seed(SEED, "sieve", K)`` (``sieve_start``); it is an extreme
  start when it grades extreme. Most candidates are thrown out before any grade, by two cheap tests:
  the nb search (singles and locked candidates, counting to two) must make at least
  ``--min-guesses`` guesses on it (none: medium at most; 12 or more: 4 % of random minimal
  puzzles, and every benchmark puzzle graded extreme takes 66 or more), and ``stalls_without_nesting``
  must stall: singles, locked candidates, pairs and passes of forcing chains by singles, all rules
  of the grader, run to a fixed point (exact: when that closure solves the puzzle the grader never
  needs a nested chain; 3-5 ms a puzzle against 30 ms to 1 s for a grade). Only a stalled
  candidate is graded (``is_level``). Lineages are sieved in chunks of ``--chunk`` on ``--workers``
  processes, and every extreme start found is climbed (``search``).
- ``minimal`` (``--start expert|extreme``): ``create(3, seed=derive_seed(SEED, "start", K),
  difficulty=START, bank=False)``, a random minimal puzzle made and graded until it is at the level.
- ``search``: a climb from lineage K's start (``random.Random(derive_seed(SEED, "climb", K))``). Each
  step makes a neighbour with the same solution: blank one clue (none one step in four, two one in
  four), add clues of the solution at random blanks until it is unique again, then remove clues in
  random order while it stays unique, so the neighbour is minimal; grade it (sudoku.grade) and
  move to it when its (level, score) is at least the current one's, or with probability 1/8 when it
  is still expert or above (so the climb can cross plateaus).

How fast, measured on this shared 2-core machine (CPU seconds of the workers, load average 4-12):

- the climbs from published puzzles (the command above, 2026-12-07): 59 lineages, 1,065 CPU-s,
  24 extreme entries kept (20 minutes of wall time at load 4-7; docs/benchmarks.md).

- the sieve, ``--min-guesses 12``: about 1,700 candidates per CPU-second (nb makes a minimal
  puzzle in 0.25 ms; the closure runs on 4 %); with ``--min-guesses 1`` (every puzzle that needs a
  guess): 430-460 per CPU-second; grading every puzzle that needs a guess instead: about 70 per
  CPU-second; ``create(..., bank=False)`` as the ``minimal`` method does: 3-10 per CPU-second.
- what it met (``--seed 2027 --start sieve --lineages 0:100000000``, 2026-11-26, 60 minutes of
  wall time, 2,448 CPU-seconds): 4,630,000 candidates, 189,017 (4.1 %) with 12 guesses or more,
  none on which the closure stalls, so no extreme start (0 extreme per CPU-minute): unless the
  guess cut drops most of them, extreme is rarer than 1 in a million random minimal puzzles, and
  this machine cannot fill the bank.
- the climb from expert starts (``--start expert``, lineages 0-3, 2026-11-26): scores of
  32,000-34,000 without reaching extreme in 250 steps. Even the bank's highest expert puzzles are
  far from extreme: one pass of forcing chains by singles removes 62-75 candidates from them, where
  an extreme puzzle is one on which such passes (and the dynamic ones) stall. Climbs on cheap
  stand-ins for hardness (the nb search's guesses, up to 82 in 1,500 steps; the fewest candidates a
  forcing pass removes, stuck at 13-14) met no stalling puzzle either.

Extreme puzzles of our grader are rarer than Sudoku Explainer's 9.0: none of 250 drawn top1465
puzzles needs even a dynamic forcing chain (docs/benchmarks.md).

Every expert or extreme minimal puzzle met is a candidate; one is kept when its fingerprint
(sudoku.bank: unchanged by every symmetry) is new, up to ``--per-lineage`` of each level per
lineage so the bank is not one puzzle's neighbourhood. A lineage stops after ``--steps`` steps or
when it has given its share of extreme puzzles. Entries are appended as each lineage ends (a run
cut short keeps what it found); a lineage is deterministic from (seed, K), so `made` names how to
get each entry again: ``METHOD seed=S lineage=K step=I start=sieve|expert|extreme|SET:LINE sudoku=VERSION``.
The wall-time cap only decides how many lineages run.
"""

import argparse
import random
import sys
import time
from pathlib import Path

import sudoku
from bench import bank_climb
from bench.bank_climb import minimize
from sudoku.bank import Entry, fingerprint, format_entry, parse_entries
from sudoku.engines import nb
from sudoku.engines.py import candidates, strike
from sudoku.formats import parse_line, render
from sudoku.generate import create, derive_seed
from sudoku.grade import LEVELS, grade, is_level
from sudoku.grid import Grid
from sudoku.techniques import DYNAMIC, SINGLES, _false_candidates, _propagate, geometry
from sudoku.version import git_sha

BANK = Path(__file__).resolve().parents[1] / "sudoku" / "data" / "bank.txt"
LINEAGE = Path(__file__).resolve().parent / bank_climb.LINEAGE
RANK = {level: i for i, level in enumerate(LEVELS)}


def neighbour(puzzle, solution, rng):
    """A minimal puzzle near ``puzzle`` with the same unique solution: one clue blanked (none one
    step in four, two one in four), clues of the solution added at random blanks until it is unique again, then
    made minimal."""
    cells = list(puzzle.cells)
    clues = [i for i, v in enumerate(cells) if v]
    for cell in rng.sample(clues, rng.choice((0, 1, 1, 2))):
        cells[cell] = 0
    blanks = [i for i, v in enumerate(cells) if not v]
    rng.shuffle(blanks)
    for added, cell in enumerate(blanks):
        cells[cell] = solution.cells[cell]
        if added and nb.solve(Grid(3, cells), limit=2).count == 1:
            break
    return Grid(3, minimize(cells, solution, rng))


def made(method, seed, lineage, step, start, version):
    return f"{method} seed={seed} lineage={lineage} step={step} start={start} sudoku={version}"


def sieve_start(seed, lineage):
    """Lineage ``lineage``'s candidate start for the sieve: the nb engine's random minimal puzzle
    of seed ``derive_seed(seed, "sieve", lineage)``."""
    return Grid(3, nb.generate_batch([derive_seed(seed, "sieve", lineage)], minimal=True)[0].tolist())


def stalls_without_nesting(puzzle, solution):
    """Whether singles, locked candidates, pairs and passes of forcing chains (by singles, and
    dynamic ones when those find nothing), from the start, stall before the end: False proves the
    puzzle is not extreme. Every rule here is one of the grader's and monotone (more eliminations
    only help them), so the state where the grader first needs a nested chain or a guess has at
    least the eliminations this closure reaches; if the closure solves the puzzle, that state cannot
    exist. Cheaper than a grade, as it never runs the pattern and chain techniques; on the climbs
    from published puzzles every neighbour on which it stalled graded extreme."""
    geo = geometry(3)
    cands, queue = candidates(puzzle)
    safe = list(enumerate(solution.cells))
    while True:
        if not _propagate(cands, queue, geo, DYNAMIC):
            raise ValueError("a contradiction: the solution given is not the puzzle's")
        if all(not mask & (mask - 1) for mask in cands):
            return False
        found = (_false_candidates(cands, geo, SINGLES, every=True, safe=safe)
                 or _false_candidates(cands, geo, DYNAMIC, every=True, safe=safe))
        if not found:
            return True
        for cell, digit in found:
            strike(cands, cell, 1 << (digit - 1), queue)


def sieve(seed, first, last, min_guesses):
    """Lineages ``first..last-1``'s sieve starts that grade extreme, as ``(lineage, line)``, and
    counts ``{"tried", "guessing", "stalled", "cpu_s"}``. Cheap tests first: a puzzle on which the
    nb engine's search (singles and locked candidates, counting to two) makes fewer than
    ``min_guesses`` guesses is skipped (with none it is medium at most; with a few it is almost never
    extreme: benchmark puzzles graded extreme take 66 or more), and one ``stalls_without_nesting``
    clears is not extreme; only the rest is graded (``is_level``)."""
    cpu = time.process_time()
    seeds = [derive_seed(seed, "sieve", lineage) for lineage in range(first, last)]
    puzzles, solutions = nb.generate_batch(seeds, minimal=True, solutions=True)
    _, _, guesses, _ = nb.solve_batch(puzzles, limit=2)
    counts = {"tried": last - first, "guessing": 0, "stalled": 0}
    found = []
    for offset in range(last - first):
        if guesses[offset] < max(min_guesses, 1):
            continue
        counts["guessing"] += 1
        puzzle, solution = Grid(3, puzzles[offset].tolist()), Grid(3, solutions[offset].tolist())
        if not stalls_without_nesting(puzzle, solution):
            continue
        counts["stalled"] += 1
        if is_level(puzzle, "extreme", solution=solution):
            found.append((first + offset, render(puzzle, "line").strip()))
    counts["cpu_s"] = time.process_time() - cpu
    return found, counts


def climb(seed, lineage, start, start_method, args, version):
    """Run lineage ``lineage`` from ``start`` (its step 0, made by ``start_method``); returns the
    entries it found (expert or extreme, distinct within the lineage, at most ``--per-lineage`` of
    each level) in order, and its CPU seconds."""
    cpu = time.process_time()
    solution = nb.solve(start).solution
    rng = random.Random(derive_seed(seed, "climb", lineage))
    kept = {"expert": 0, "extreme": 0}
    seen = set()
    entries = []

    def offer(puzzle, result, method, step):
        if result.level not in kept or kept[result.level] >= args.per_lineage:
            return
        key = fingerprint(puzzle)
        if key in seen:
            return
        seen.add(key)
        kept[result.level] += 1
        line = render(puzzle, "line").strip()
        entries.append(Entry(result.level, result.score, line, made(method, seed, lineage, step, start_method, version)))

    current = grade(start, solution=solution)
    offer(start, current, "sieve" if start_method == "sieve" else "minimal", 0)
    puzzle = start
    for step in range(1, args.steps + 1):
        if kept["extreme"] >= args.per_lineage:
            break
        near = neighbour(puzzle, solution, rng)
        if near is None or near == puzzle:
            continue
        result = grade(near, solution=solution)
        offer(near, result, "search", step)
        here, there = (RANK[current.level], current.score), (RANK[result.level], result.score)
        if there >= here or (RANK[result.level] >= RANK["expert"] and rng.random() < 0.125):
            puzzle, current = near, result
    return lineage, entries, time.process_time() - cpu, [None] * len(entries)


def climb_level_start(seed, lineage, args, version):
    """A lineage whose start is ``create``'s random minimal puzzle at ``--start`` (the ``minimal`` method)."""
    start = create(3, seed=derive_seed(seed, "start", lineage), difficulty=args.start, attempts=20000,
                   bank=False)
    return climb(seed, lineage, start, args.start, args, version)


def climb_sieve_start(seed, lineage, line, args, version):
    return climb(seed, lineage, parse_line(line), "sieve", args, version)


def climb_published(seed, lineage, args, version):
    """A lineage that climbs from a published hardest puzzle (``bench/bank_climb.py``): its entries,
    each graded for its score, its CPU seconds, and each entry's row of the lineage file."""
    cpu = time.process_time()
    name, number, found = bank_climb.climb(seed, lineage, args, stalls_without_nesting)
    entries, rows = [], []
    for step, puzzle, solution, moves in found:
        line = render(puzzle, "line").strip()
        result = grade(puzzle, solution=solution)
        entries.append(Entry(result.level, result.score, line,
                             made("climb", seed, lineage, step, f"{name}:{number}", version)))
        rows.append(bank_climb.lineage_row(line, name, number, seed, lineage, step, moves))
    return lineage, entries, time.process_time() - cpu, rows


class Sieve:
    """What the sieve has done so far, summed over workers, for the progress lines."""

    def __init__(self):
        self.counts = {"tried": 0, "guessing": 0, "stalled": 0, "extreme": 0, "cpu_s": 0.0}

    def add(self, found, counts):
        for key, value in counts.items():
            self.counts[key] += value
        self.counts["extreme"] += len(found)

    def line(self):
        c = self.counts
        cpu = max(c["cpu_s"], 1e-9)
        return (f"sieve: {c['tried']} tried, {c['guessing']} need enough guesses, {c['stalled']} stall without nesting, "
                f"{c['extreme']} extreme; {c['tried'] / cpu:.0f} tried per CPU-second, "
                f"{c['extreme'] / cpu * 60:.2f} extreme per CPU-minute ({cpu:.0f} CPU-s)")


class Keeper:
    """What a run keeps of the entries its lineages offer, lineage by lineage: an entry whose
    fingerprint is new; one that climbed from a published puzzle also only when no published puzzle
    is a variant of it and it is ``bank_climb.APART`` or more (``apart``) from every extreme entry
    kept. Writes the bank lines and the lineage rows as it keeps them."""

    def __init__(self, old, out, lineage_out):
        self.seen = {fingerprint(parse_line(entry.line)) for entry in old}
        self.totals = {level: sum(entry.level == level for entry in old) for level in ("expert", "extreme")}
        self.extreme = [parse_line(entry.line) for entry in old if entry.level == "extreme"]
        self.made = {"expert": 0, "extreme": 0}
        self.out, self.lineage_out = out, lineage_out

    def offer(self, lineage, entries, cpu, rows):
        kept = {"expert": 0, "extreme": 0}
        for entry, row in zip(entries, rows):
            puzzle = parse_line(entry.line)
            key = fingerprint(puzzle)
            if key in self.seen:
                continue
            if row is not None:
                twin = bank_climb.published_twin(puzzle)
                near = min((bank_climb.apart(puzzle, other) for other in self.extreme), default=81)
                if twin or near < bank_climb.APART:
                    why = f"a variant of the published {twin}" if twin else f"{near} cells from a bank entry"
                    print(f"lineage {lineage}: not kept, {why}", file=sys.stderr, flush=True)
                    continue
                self.lineage_out.write(row)
            self.seen.add(key)
            if entry.level == "extreme":
                self.extreme.append(puzzle)
            kept[entry.level] += 1
            self.made[entry.level] += 1
            self.totals[entry.level] += 1
            self.out.write(format_entry(entry) + "\n")
        self.out.flush()
        self.lineage_out.flush()
        print(f"lineage {lineage}: kept {kept} in {cpu:.0f} CPU-s; bank {self.totals}", file=sys.stderr, flush=True)


def run(args, version, keeper):
    """Run the lineages on a pool of ``--workers`` processes. A climb's entries are offered to
    ``keeper`` in lineage order (so a run keeps the same entries whichever worker ends first), up to
    ``--want`` extreme entries; a sieve's extreme starts are climbed as they are found."""
    import multiprocessing
    import queue

    first, last = map(int, args.lineages.split(":"))
    started = time.monotonic()
    results = queue.Queue()
    sieve_totals = Sieve()

    def enough():
        return args.want is not None and keeper.made["extreme"] >= args.want

    with multiprocessing.get_context("fork").Pool(args.workers) as pool:

        def submit(function, *arguments):
            pool.apply_async(function, arguments, callback=results.put, error_callback=results.put)

        next_lineage, next_offer, pending, busy = first, first, {}, 0
        while True:
            while (busy < args.workers and next_lineage < last and not enough()
                   and time.monotonic() - started < args.minutes * 60):
                if args.start == "sieve":
                    upto = min(next_lineage + args.chunk, last)
                    submit(sieve, args.seed, next_lineage, upto, args.min_guesses)
                    next_lineage = upto
                else:
                    start = climb_published if args.start == "published" else climb_level_start
                    submit(start, args.seed, next_lineage, args, version)
                    next_lineage += 1
                busy += 1
            if not busy:
                break
            result = results.get()
            busy -= 1
            if isinstance(result, BaseException):
                raise result
            if isinstance(result[1], dict):  # a sieve chunk: (found, counts)
                found, counts = result
                sieve_totals.add(found, counts)
                print(sieve_totals.line(), file=sys.stderr, flush=True)
                for lineage, line in found:
                    print(f"lineage {lineage}: an extreme start", file=sys.stderr, flush=True)
                    submit(climb_sieve_start, args.seed, lineage, line, args, version)
                    busy += 1
                continue
            if args.start == "sieve":
                keeper.offer(*result)
                continue
            pending[result[0]] = result
            while next_offer in pending and not enough():
                keeper.offer(*pending.pop(next_offer))
                next_offer += 1
    if args.start == "sieve":
        print(sieve_totals.line(), file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--lineages", default="0:1000", help="K range FROM:TO (default 0:1000)")
    parser.add_argument("--minutes", type=float, default=24.0, help="stop starting lineages after this (default 24)")
    parser.add_argument("--steps", type=int, default=250, help="steps a lineage at most (default 250)")
    parser.add_argument("--per-lineage", type=int, default=4, help="entries of each level a lineage may give (default 4)")
    parser.add_argument("--start", choices=("expert", "extreme", "sieve", "published"), default="expert",
                        help="how each lineage's start is made: create's random minimal puzzle at that level, the "
                             "sieve's, or a published hardest puzzle (default expert)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--chunk", type=int, default=500, help="sieve lineages per task (default 500)")
    parser.add_argument("--min-guesses", type=int,
                        help="sieve and published: grade only puzzles the nb engine's search makes this many guesses "
                             "on (default 12 for the sieve, 30 for published)")
    parser.add_argument("--tries", type=int, default=20000,
                        help="published: random edits counted to two at each step (default 20000)")
    parser.add_argument("--tests", type=int, default=60,
                        help="published: the farthest unique edits tried for the level at each step (default 60)")
    parser.add_argument("--symmetries", type=int, default=4,
                        help="published: random symmetries under which an entry must grade extreme too (default 4)")
    parser.add_argument("--want", type=int, help="stop once this run has kept this many extreme entries")
    parser.add_argument("--out", type=Path, default=BANK)
    parser.add_argument("--lineage-out", type=Path, default=LINEAGE,
                        help=f"published: the climbs' lineage rows (default bench/{bank_climb.LINEAGE})")
    args = parser.parse_args()
    if args.min_guesses is None:
        args.min_guesses = 30 if args.start == "published" else 12
    sha = git_sha()
    version = sudoku.__version__ + (f"+{sha[:10]}" if sha else "")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    old = parse_entries(args.out.read_text().splitlines()) if args.out.exists() else []
    with args.out.open("a") as out, args.lineage_out.open("a") as lineage_out:
        if not old:
            out.write("# sudoku bank: LEVEL SCORE LINE MADE (bench/make_bank.py; see sudoku/bank.py)\n")
        if not lineage_out.tell():
            lineage_out.write(bank_climb.LINEAGE_HEADER)
        run(args, version, Keeper(old, out, lineage_out))


if __name__ == "__main__":
    main()
