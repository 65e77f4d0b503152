"""Make or extend the bank of expert and extreme 9x9 puzzles (sudoku/data/bank.txt), from seeds.

    PYTHONPATH=. python bench/make_bank.py --seed 2027 [--start extreme] [--lineages 0:40] [--minutes 24] [--out PATH]

Two methods, both recorded on each entry's line:

- ``minimal``: ``create(3, seed=derive_seed(SEED, "start", K), difficulty=START)``, a random minimal
  puzzle graded at the ``--start`` level, expert (about 1 in 23 minimal puzzles is) or extreme
  (under 1 in 300): the start of lineage K.
- ``search``: a climb from that start (``random.Random(derive_seed(SEED, "climb", K))``). Each step
  makes a neighbour with the same solution: blank one clue (none one step in four, two one in four), add clues of the
  solution at random blanks until it is unique again, then remove clues in random order while it
  stays unique, so the neighbour is minimal; grade it (sudoku.grade) and move to it when its
  (level, score) is at least the current one's, or with probability 1/8 when it is still expert or
  above (so the climb can cross plateaus). Extreme is reached in a few dozen steps from many
  starts, where random minimal puzzles give under 1 in 300.

  As run for the shipped bank (2026-11-26, one worker): ``--start expert`` (lineages 0-3) climbed to
  scores of 32,000-34,000 without reaching extreme in 250 steps; so the extreme entries come from
  ``--start extreme``, whose neighbours are mostly extreme again. That run (``--seed 2027 --start
  extreme --lineages 100:200``) spent about 3 CPU minutes (10 minutes of wall time at a load
  average of 13 on 2 cores) on lineage 100's random minimal start without meeting an extreme
  puzzle, so the shipped bank has none yet: finding starts wants many cores for an hour or so
  (``sudoku-jobs run --grade`` on minimal puzzles does the same search in parallel; rare as they
  are, a few dozen extreme starts is a run of tens of thousands of puzzles).

Every expert or extreme minimal puzzle met is a candidate; one is kept when its fingerprint
(sudoku.bank: unchanged by every symmetry) is new, up to ``--per-lineage`` of each level per
lineage so the bank is not one puzzle's neighbourhood. A lineage stops after ``--steps`` steps or
when it has given its share of extreme puzzles. Entries are appended as they are found (a run cut
short keeps what it found); a lineage is deterministic from (seed, K), so `made` names how to get
each entry again: ``search seed=S lineage=K step=I sudoku=VERSION``. The wall-time cap only decides
how many lineages run.
"""

import argparse
import random
import sys
import time
from pathlib import Path

import sudoku
from sudoku.bank import Entry, fingerprint, format_entry, parse_entries
from sudoku.engines import py
from sudoku.formats import parse_line, render
from sudoku.generate import create, derive_seed
from sudoku.grade import LEVELS, grade
from sudoku.grid import Grid
from sudoku.version import git_sha

BANK = Path(__file__).resolve().parents[1] / "sudoku" / "data" / "bank.txt"
RANK = {level: i for i, level in enumerate(LEVELS)}


def minimize(cells, solution, rng):
    """Remove clues of ``cells`` (a list, changed in place) in random order while the solution stays unique."""
    clues = [i for i, v in enumerate(cells) if v]
    rng.shuffle(clues)
    for cell in clues:
        cells[cell] = 0
        if py.has_other(Grid(3, cells), solution, cell):
            cells[cell] = solution.cells[cell]
    return cells


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
        if added and py.solve(Grid(3, cells), limit=2).count == 1:
            break
    return Grid(3, minimize(cells, solution, rng))


def made(method, seed, lineage, step, start, version):
    return f"{method} seed={seed} lineage={lineage} step={step} start={start} sudoku={version}"


def climb(seed, lineage, args, seen, out, version):
    """Run lineage ``lineage``; append new entries to ``out``; returns how many of each level it kept."""
    start = create(3, seed=derive_seed(seed, "start", lineage), difficulty=args.start, attempts=20000,
                   bank=False)
    solution = py.solve(start).solution
    rng = random.Random(derive_seed(seed, "climb", lineage))
    kept = {"expert": 0, "extreme": 0}

    def offer(puzzle, result, method, step):
        if result.level not in kept or kept[result.level] >= args.per_lineage:
            return
        key = fingerprint(puzzle)
        if key in seen:
            return
        seen.add(key)
        kept[result.level] += 1
        entry = Entry(result.level, result.score, render(puzzle, "line").strip(), made(method, seed, lineage, step, args.start, version))
        out.write(format_entry(entry) + "\n")
        out.flush()
        print(f"  lineage {lineage} step {step}: {result.level} {result.score}", file=sys.stderr, flush=True)

    current = grade(start, solution=solution)
    offer(start, current, "minimal", 0)
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
    print(f"lineage {lineage}: reached {current.level} {current.score}", file=sys.stderr, flush=True)
    return kept


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--lineages", default="0:1000", help="K range FROM:TO (default 0:1000)")
    parser.add_argument("--minutes", type=float, default=24.0, help="stop starting lineages after this (default 24)")
    parser.add_argument("--steps", type=int, default=250, help="steps a lineage at most (default 250)")
    parser.add_argument("--per-lineage", type=int, default=4, help="entries of each level a lineage may give (default 4)")
    parser.add_argument("--start", choices=("expert", "extreme"), default="expert",
                        help="level of each lineage's random minimal start (default expert)")
    parser.add_argument("--out", type=Path, default=BANK)
    args = parser.parse_args()
    first, last = map(int, args.lineages.split(":"))
    sha = git_sha()
    version = sudoku.__version__ + (f"+{sha[:10]}" if sha else "")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    old = parse_entries(args.out.read_text().splitlines()) if args.out.exists() else []
    seen = {fingerprint(parse_line(entry.line)) for entry in old}
    started = time.monotonic()
    totals = {"expert": sum(e.level == "expert" for e in old), "extreme": sum(e.level == "extreme" for e in old)}
    with args.out.open("a") as out:
        if not old:
            out.write("# sudoku bank: LEVEL SCORE LINE MADE (bench/make_bank.py; see sudoku/bank.py)\n")
        for lineage in range(first, last):
            if time.monotonic() - started > args.minutes * 60:
                break
            t0 = time.monotonic()
            kept = climb(args.seed, lineage, args, seen, out, version)
            for level, n in kept.items():
                totals[level] += n
            print(f"lineage {lineage}: {kept} in {time.monotonic() - t0:.0f} s; bank {totals}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
