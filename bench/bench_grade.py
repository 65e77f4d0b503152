"""Calibration of `sudoku grade` against hodoku-py: levels per set, rank correlation, speed.

    PYTHONPATH=. python bench/bench_grade.py [-n 250] [--seed 2026] [--hodoku-s 0] [--speed 12] [--fit]
    PYTHONPATH=. python bench/bench_grade.py --create 300

The draw: ``n`` puzzles from each of kaggle, top1465, hardest1106 and hardest1905_11plus
(random.Random(seed).sample per set, then shuffled together), 1,000 by default.

1. Ours: every puzzle graded (uniqueness counted by ``nb``, warmed up first); per set the median
   level and score, the level counts, and the share of puzzles whose hardest assumption tier is
   none, forcing chain, dynamic forcing chain, nested forcing chain or guess.
2. HoDoKu's scores come from a cache, ``bench/hodoku_scores.tsv`` (puzzle, score, level, seconds),
   and from ``--cache-extra PATH`` (same columns): hodoku-py takes 5-70 s per hard puzzle on this
   machine, so the 1,000 take hours. With ``--hodoku-s S`` the script rates puzzles missing from
   the cache, in draw order (a random order), for about S seconds, and appends them; faster, in the
   background: ``--write-missing FILE`` writes them in draw order, and ``bench/hodoku_rate.py`` rates
   them under PyPy into the cache. Spearman's rank correlation of our score with
   HoDoKu's is printed over every cached puzzle of the draw, and for the two halves (by a hash of
   the puzzle): the weights in sudoku/grade.py were fitted on the ``fit`` half; ``held out`` is the
   other half. ``--fit`` searches a small grid of the assumption tiers' weights on the fit half
   (scores recomputed from the same steps, no regrading) and prints the best with both halves.
4. ``--create N``: how often each level comes up among N puzzles made the way ``create
   --difficulty medium`` (and up) makes them at 9x9 (a random minimal puzzle), and seconds per try:
   what hitting a level costs.
5. ``--jobs N``: ``sudoku-jobs run -n N`` at 9x9 (1 worker) without and with ``--grade``,
   alternating A, B, A, B; the runner's wall time (its manifest's ``wall_s``) of each, fastest kept.
3. Speed: ``--speed K`` puzzles of the draw (K/4 per set) graded by both raters in the same rounds,
   alternating ours, hodoku, puzzle by puzzle; prints both totals, the ratio and the load average.
"""

import argparse
import os
import random
import statistics
import time
import zlib
from pathlib import Path

from bench.common import load_lines, machine
from sudoku.formats import parse_line
from sudoku.grade import LEVELS, grade

SETS = ("kaggle", "top1465", "hardest1106", "hardest1905_11plus")
CACHE = Path(__file__).resolve().parent / "hodoku_scores.tsv"
TIERS = ("forcing chain", "dynamic forcing chain", "nested forcing chain", "guess")


def ranks(values):
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return cov / (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5


def draw(n, seed):
    """[(set, line)]: n lines of each set, sampled with one seeded generator, then shuffled."""
    rng = random.Random(seed)
    out = [(name, line) for name in SETS for line in rng.sample(load_lines(name), n)]
    rng.shuffle(out)
    return out


def fit_half(line):
    """Whether ``line`` is in the half the weights were fitted on."""
    return zlib.crc32(line.encode()) % 2 == 0


def read_cache(path=CACHE):
    if not path.exists():
        return {}
    rows = (text.split("\t") for text in path.read_text().splitlines()[1:] if text)
    return {row[0]: (int(row[1]), float(row[3])) for row in rows if len(row) == 4}


def fit(puzzles, grades, cached):
    """Grid search of the assumption tiers' weights on the fit half; prints the best and its
    Spearman on both halves and on all (scores recomputed from the same steps)."""
    from itertools import product

    from sudoku import grade as g

    pairs = [(line, result.steps, cached[line][0]) for (_, line), result in zip(puzzles, grades) if line in cached]
    keep = dict(g.WEIGHTS), g.GUESS_WEIGHT, g.HARD_PART_WEIGHT, g.FORCING_ELIMINATION_WEIGHT

    def rho(rows):
        return spearman([g.score_of(steps) for _, steps, _ in rows], [theirs for _, _, theirs in rows])

    fitted = [row for row in pairs if fit_half(row[0])]
    held = [row for row in pairs if not fit_half(row[0])]
    best = None
    grid = product((500, 1000, 2000), (1000, 2000, 4000), (2000, 4000, 8000), (2000, 4000, 8000), (250, 500, 1000), (25, 50))
    for fc, dfc, nfc, guess, part, per in grid:
        g.WEIGHTS.update({"forcing chain": fc, "dynamic forcing chain": dfc, "nested forcing chain": nfc})
        g.GUESS_WEIGHT, g.HARD_PART_WEIGHT, g.FORCING_ELIMINATION_WEIGHT = guess, part, per
        score = rho(fitted)
        if best is None or score > best[0]:
            best = (score, (fc, dfc, nfc, guess, part, per), rho(held), rho(pairs))
    g.WEIGHTS.clear()
    g.WEIGHTS.update(keep[0])
    g.GUESS_WEIGHT, g.HARD_PART_WEIGHT, g.FORCING_ELIMINATION_WEIGHT = keep[1:]
    print(f"\nfit (forcing, dynamic, nested pass, guess, hard part, per elimination) = {best[1]}: "
          f"fit half {best[0]:.3f} on {len(fitted)}, held out {best[2]:.3f} on {len(held)}, all {best[3]:.3f}; "
          f"now: fit {rho(fitted):.3f}, held out {rho(held):.3f}, all {rho(pairs):.3f}")


def rate_missing(puzzles, cached, seconds, path=CACHE):
    """Rate with hodoku-py the puzzles not in ``cached``, in order, for about ``seconds``; append."""
    from hodoku import Solver

    solver = Solver()
    start = time.perf_counter()
    if not path.exists():
        path.write_text("puzzle\tscore\tlevel\tseconds\n")
    with path.open("a") as out:
        for _, line in puzzles:
            if line in cached:
                continue
            if time.perf_counter() - start > seconds:
                break
            t0 = time.perf_counter()
            rating = solver.rate(line)
            took = time.perf_counter() - t0
            cached[line] = (rating.score, took)
            out.write(f"{line}\t{rating.score}\t{rating.level.name.lower()}\t{took:.2f}\n")
            out.flush()


def hardest_tier(steps):
    """The strongest assumption tier among ``steps`` (TIERS index + 1), 0 for none."""
    used = {step.technique for step in steps}
    return max((i + 1 for i, name in enumerate(TIERS) if name in used), default=0)


def per_set(puzzles, grades, seconds):
    print("| set | n | median level | median score | levels e/m/h/x/X | hardest tier none/fc/dfc/nfc/guess | ms each |")
    print("|---|---:|---|---:|---|---|---:|")
    for name in SETS:
        mine = [g for (s, _), g in zip(puzzles, grades) if s == name]
        took = [t for (s, _), t in zip(puzzles, seconds) if s == name]
        levels = sorted(LEVELS.index(g.level) for g in mine)
        counts = "/".join(str(levels.count(i)) for i in range(len(LEVELS)))
        tiers = [hardest_tier(g.steps) for g in mine]
        shares = "/".join(f"{tiers.count(i) / len(tiers):.0%}" for i in range(len(TIERS) + 1))
        print(f"| {name} | {len(mine)} | {LEVELS[levels[(len(levels) - 1) // 2]]} | "
              f"{statistics.median(g.score for g in mine):.0f} | {counts} | {shares} | {statistics.mean(took) * 1000:.0f} |")


def correlation(puzzles, grades, seconds, cached):
    pairs = [(line, g.score, cached[line][0]) for (_, line), g in zip(puzzles, grades) if line in cached]
    if len(pairs) < 3:
        print("\nhodoku-py: fewer than 3 cached scores for this draw (run with --hodoku-s)")
        return
    print(f"\nSpearman of our score with hodoku-py's, {len(pairs)} of {len(puzzles)} puzzles rated by hodoku:")
    for label, keep in (("all", lambda line: True), ("fit half", fit_half), ("held out", lambda line: not fit_half(line))):
        chosen = [(ours, theirs) for line, ours, theirs in pairs if keep(line)]
        print(f"  {label}: {spearman(*zip(*chosen)):.3f} on {len(chosen)}")
    by_set = {}
    for (name, line), g in zip(puzzles, grades):
        if line in cached:
            by_set.setdefault(name, []).append(cached[line][0])
    print("  hodoku median score per set: " + ", ".join(f"{name} {statistics.median(by_set[name]):.0f} ({len(by_set[name])})"
                                                         for name in SETS if name in by_set))
    ours = sum(took for (_, line), took in zip(puzzles, seconds) if line in cached)
    theirs = sum(cached[line][1] for line, _, _ in pairs)
    print(f"  on these puzzles hodoku-py took {theirs:.0f} s when it rated them (the cache's seconds), ours "
          f"{ours:.1f} s in this run: {theirs / ours:.0f}x (not the same moments: see the speed rounds)")


def speed(puzzles, k):
    """Both raters on k puzzles (k/4 per set), alternating; seconds each."""
    from hodoku import Solver

    solver = Solver()
    chosen = []
    for name in SETS:
        chosen += [line for s, line in puzzles if s == name][: max(1, k // len(SETS))]
    ours = theirs = 0.0
    for line in chosen:
        t0 = time.perf_counter()
        grade(parse_line(line), engine="nb")
        t1 = time.perf_counter()
        solver.rate(line)
        t2 = time.perf_counter()
        ours += t1 - t0
        theirs += t2 - t1
    print(f"\nspeed on {len(chosen)} puzzles ({len(chosen) // len(SETS)} per set), alternating: ours {ours:.1f} s, "
          f"hodoku-py {theirs:.1f} s: ours {theirs / ours:.1f}x faster (load average {os.getloadavg()[0]:.1f})")


def create_rates(n, seed):
    """Levels of n minimal 9x9 puzzles made as ``create`` makes them for a level above easy."""
    from sudoku.engines import py
    from sudoku.generate import _remove

    rng = random.Random(seed)
    counts = dict.fromkeys(LEVELS, 0)
    start = time.perf_counter()
    for _ in range(n):
        solution = py.fill(3, rng)
        puzzle = _remove(solution, rng, py, py, None, None)
        counts[grade(puzzle, solution=solution).level] += 1
    took = time.perf_counter() - start
    print(f"\ncreate at 9x9, {n} random minimal puzzles ({took / n:.2f} s per try, made and graded, "
          f"load average {os.getloadavg()[0]:.1f}):")
    print("| level | share | tries per puzzle |\n|---|---:|---:|")
    for level, count in counts.items():
        print(f"| {level} | {count / n:.1%} | {n / count:.0f} |" if count else f"| {level} | 0 of {n} | > {n} |")


def jobs_cost(n, seed, rounds=2):
    """Wall seconds of `sudoku-jobs run -n n` without and with --grade, fastest of ``rounds``."""
    import json
    import subprocess
    import sys
    import tempfile

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    best = {False: float("inf"), True: float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(rounds):
            for graded in (False, True):
                out = Path(tmp) / f"run-{round_}-{graded}"
                subprocess.run([sys.executable, "-m", "jobs", "run", "-n", str(n), "--seed", str(seed), "--workers", "1",
                                "--out", str(out), "--no-progress", *(["--grade"] if graded else [])],
                               env=env, cwd=root, check=True, capture_output=True)
                wall = json.loads((out / "manifest.json").read_text())["wall_s"]
                best[graded] = min(best[graded], wall)
    print(f"\nsudoku-jobs run -n {n} at 9x9, 1 worker, fastest of {rounds}: {best[False]:.1f} s without --grade, "
          f"{best[True]:.1f} s with ({best[True] / best[False]:.1f}x; load average {os.getloadavg()[0]:.1f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=250, help="puzzles per set (default 250: 1,000 in all)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--hodoku-s", type=float, default=0, metavar="S", help="rate missing puzzles with hodoku-py for S s")
    ap.add_argument("--speed", type=int, default=12, metavar="K", help="puzzles in the speed rounds (0: none)")
    ap.add_argument("--create", type=int, default=0, metavar="N", help="level shares of N created minimal puzzles")
    ap.add_argument("--jobs", type=int, default=0, metavar="N", help="sudoku-jobs run -n N without and with --grade")
    ap.add_argument("--cache-extra", type=Path, metavar="PATH", help="more hodoku-py scores (same columns)")
    ap.add_argument("--write-missing", type=Path, metavar="FILE",
                    help="write the draw's puzzles hodoku-py has not rated, in draw order, and stop")
    ap.add_argument("--fit", action="store_true", help="grid-search the assumption tiers' weights on the fit half")
    args = ap.parse_args()
    print(machine())
    if args.jobs:
        jobs_cost(args.jobs, args.seed)
        return
    if args.create:
        create_rates(args.create, args.seed)
        return
    puzzles = draw(args.n, args.seed)
    if args.write_missing:
        cached = read_cache()
        missing = [line for _, line in puzzles if line not in cached]
        args.write_missing.write_text("".join(line + "\n" for line in missing))
        print(f"{len(missing)} of {len(puzzles)} puzzles not rated yet: {args.write_missing}")
        return
    grade(parse_line(puzzles[0][1]), engine="nb")  # loads numba and the nb kernels before timing
    grades, seconds = [], []
    for _, line in puzzles:
        start = time.perf_counter()
        grades.append(grade(parse_line(line), engine="nb"))
        seconds.append(time.perf_counter() - start)
    took = sum(seconds)
    print(f"graded {len(puzzles)} puzzles in {took:.1f} s ({took / len(puzzles) * 1000:.0f} ms each, "
          f"load average {os.getloadavg()[0]:.1f})\n")
    per_set(puzzles, grades, seconds)
    cached = read_cache()
    if args.hodoku_s:
        rate_missing(puzzles, cached, args.hodoku_s)
    if args.cache_extra:
        extra = read_cache(args.cache_extra)
        cached.update((line, value) for line, value in extra.items() if line not in cached)
    correlation(puzzles, grades, seconds, cached)
    if args.fit:
        fit(puzzles, grades, cached)
    if args.speed:
        speed(puzzles, args.speed)


if __name__ == "__main__":
    main()
