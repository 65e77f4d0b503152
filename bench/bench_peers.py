"""Our engines side by side with the Sudoku solvers and generators on PyPI (and qqwing), in one run.

    PYTHONPATH=. python3 bench/bench_peers.py [--quick] [--rounds N] [--cap SECONDS] [--data DIR]
                                              [--peer-path DIR] [--readme PATH | --no-readme]

The peers are an optional extra (``pip install -e '.[bench]'``: hodoku-py, lib-sudoku, py-sudoku,
dlxsudoku) and never a runtime dependency; qqwing is Debian's ``qqwing`` command, driven as a
subprocess. A peer that is missing or fails to import is listed as skipped.

py-sudoku installs a top-level package called ``sudoku``, the same name as ours, so it is loaded from
its file under another name (it may live in its own directory: ``pip install --target DIR py-sudoku``
and ``--peer-path DIR``, or ``BENCH_PEER_PATH``), and this repository is put first on ``sys.path``.

Method. Every engine gets the same puzzles of ../shared/data (hardest1106, top1465, kaggle: solve,
limit 1; serg_benchmark: count to 2, for engines that can count), in one fixed random order, in the
input form its API takes, prepared before the clock starts. An engine too slow for a whole set gets
the first n puzzles of that order, n chosen so that a round takes about cap / (rounds + 2) seconds
(the table says n), and its ratio is against nb timed on the same n puzzles. One untimed call is the
warm-up; every answer of it and of the last timed round is checked afterwards, untimed: counts equal
nb's (serg_benchmark) and every solution a complete valid grid keeping the givens. An engine with a
wrong answer is reported as WRONG, not timed. Times are medians over the rounds. Generation: unique
puzzles per second; every puzzle made is checked for clashes and counted to 2 by our py engine
(untimed), and the blanks are reported. A full run writes the tables and the machine line to the
"## Peers" section of bench/README.md (``--quick`` only prints, unless ``--readme`` is given).
"""

import argparse
import gzip
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # our `sudoku` before any other package of that name (py-sudoku's)

import numpy as np  # noqa: E402

from bench.common import cpu_model  # noqa: E402
from sudoku.engines import dlx, nb, py  # noqa: E402
from sudoku.generate import create  # noqa: E402
from sudoku.grid import Grid, find_clash  # noqa: E402

SECTION = "## Peers (bench/bench_peers.py)"
# set -> limit (1 = solve, 2 = count to 2)
SETS = {"hardest1106": 1, "top1465": 1, "kaggle": 1, "serg_benchmark": 2}
GEN_MAX = (3000, 400)  # most puzzles a generator makes per round (full, quick): py verifies them all
ORDER_SEED = 20240601


class Unsupported(Exception):
    """The engine cannot do this task (e.g. count solutions)."""


class TooSlow(Exception):
    pass


@contextmanager
def deadline(seconds):
    """Raise TooSlow in Python code running longer than ``seconds`` (checked between bytecodes, so a
    C call finishes first)."""

    def handler(signum, frame):
        raise TooSlow()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextmanager
def quiet_stdout():
    """Silence fd 1 (lib-sudoku's generator prints from Rust)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


# ---------------------------------------------------------------- conversions and checks

def to_array(strings):
    """uint8[k, 81] from 81-character digit strings ('0' or '.' blank); a None row stays zeros."""
    out = np.zeros((len(strings), 81), np.uint8)
    for i, s in enumerate(strings):
        if s is not None:
            out[i] = np.frombuffer(s.replace(".", "0").encode("ascii"), np.uint8) - 48
    return out


def valid_solutions(puzzles, solutions):
    """Per row: a complete valid grid that keeps the givens."""
    keeps = ((puzzles == 0) | (puzzles == solutions)).all(axis=1)
    grids = solutions.reshape(-1, 9, 9).astype(np.int64)
    boxes = grids.reshape(-1, 3, 3, 3, 3).transpose(0, 1, 3, 2, 4).reshape(-1, 9, 9)
    ok = keeps & (solutions > 0).all(axis=1) & (solutions <= 9).all(axis=1)
    for units in (grids, grids.transpose(0, 2, 1), boxes):
        ok &= (np.bitwise_or.reduce(1 << units, axis=2) == 0b1111111110).all(axis=1)
    return ok


def check_answers(puzzles, limit, counts, solutions, ref_counts):
    """Number of wrong answers: a count that differs from nb's (capped at the limit), or a solution
    given that is not a valid completion. With limit 2 a peer may give no solution for count 2."""
    counts = np.minimum(np.asarray(counts), limit)
    wrong = counts != np.minimum(ref_counts, limit)
    given = solutions.any(axis=1)
    must_have = counts == 1 if limit > 1 else counts >= 1
    wrong |= must_have & ~given
    wrong |= given & ~valid_solutions(puzzles, solutions)
    return int(wrong.sum())


# ---------------------------------------------------------------- engines: solve and count
# Each maker takes (lines, puzzles uint8[k, 81], limit), prepares the engine's input (untimed) and
# returns (run, decode): run() is the timed call, decode(raw) -> (counts, solutions uint8[k, 81]).

def make_nb(lines, puzzles, limit):
    arr = np.ascontiguousarray(puzzles)
    return (lambda: nb.solve_batch(arr, limit=limit)), (lambda raw: (raw[0], raw[1]))


def grid_engine(module):
    def make(lines, puzzles, limit):
        grids = [Grid(3, row.tolist()) for row in puzzles]

        def decode(answers):
            counts = np.array([a.count for a in answers])
            sols = np.zeros((len(answers), 81), np.uint8)
            for i, a in enumerate(answers):
                if a.solution is not None:
                    sols[i] = a.solution.cells
            return counts, sols

        return (lambda: [module.solve(g, limit=limit) for g in grids]), decode

    return make


def make_hodoku_bt(lines, puzzles, limit):
    from hodoku.generator.generator import SudokuGenerator

    gen = SudokuGenerator()

    def run():
        out = []
        for line in lines:
            gen.solve_string(line)
            count = gen.get_solution_count()
            out.append((count, gen.get_solution() if count else None))
        return out

    def decode(raw):
        sols = np.zeros((len(raw), 81), np.uint8)
        for i, (count, sol) in enumerate(raw):
            if sol is not None:
                sols[i] = sol
        return np.array([c for c, _ in raw]), sols

    return run, decode


def make_hodoku_logic(lines, puzzles, limit):
    if limit > 1:
        raise Unsupported("no solution count in its logic solver")
    from hodoku import Solver

    solver = Solver()

    def run():
        out = []
        for line in lines:
            result = solver.solve(line)
            out.append(result.solution if result.solved else None)
        return out

    return run, lambda raw: (np.array([s is not None for s in raw], int), to_array(raw))


def make_lib_sudoku(lines, puzzles, limit):
    if limit > 1:
        raise Unsupported("cannot count solutions")
    import lib_sudoku

    inputs = [bytearray(row.tobytes()) for row in puzzles]

    def run():
        out = []
        for b in inputs:
            try:
                out.append(lib_sudoku.solve(b))
            except ValueError:  # "The puzzle is illegal!"
                out.append(None)
        return out

    def decode(raw):
        sols = np.zeros((len(raw), 81), np.uint8)
        for i, s in enumerate(raw):
            if s is not None:
                sols[i] = np.frombuffer(bytes(s), np.uint8)
        return np.array([s is not None for s in raw], int), sols

    return run, decode


def make_py_sudoku(lines, puzzles, limit):
    module = load_py_sudoku()
    boards = [[[v or None for v in row[r * 9:r * 9 + 9].tolist()] for r in range(9)] for row in puzzles]

    def run():
        out = []
        for board in boards:
            s = module.Sudoku(3, board=board)
            solved = s.solve()
            ok = solved.get_difficulty() != -2  # its mark for "no solution"
            count = int(ok)
            if ok and limit > 1 and s.has_multiple_solutions():
                count = 2
            out.append((count, solved.board if ok else None))
        return out

    def decode(raw):
        sols = np.zeros((len(raw), 81), np.uint8)
        for i, (count, board) in enumerate(raw):
            if board is not None:
                sols[i] = [v or 0 for row in board for v in row]
        return np.array([c for c, _ in raw]), sols

    return run, decode


def make_dlxsudoku(lines, puzzles, limit):
    from dlxsudoku import Sudoku
    from dlxsudoku.exceptions import SudokuHasMultipleSolutionsError, SudokuHasNoSolutionError

    def run():
        out = []
        for line in lines:
            try:
                s = Sudoku(line)
                s.solve()
                out.append((1, s.to_oneliner()))
            except SudokuHasMultipleSolutionsError:
                out.append((2, None))
            except SudokuHasNoSolutionError:
                out.append((0, None))
        return out

    return run, lambda raw: (np.array([c for c, _ in raw]), to_array([s for _, s in raw]))


QQWING_COUNT = re.compile(r"There are (\d+) solutions|The solution to the puzzle is unique")


def make_qqwing(lines, puzzles, limit):
    exe = shutil.which("qqwing")
    handle = tempfile.TemporaryFile()
    handle.write(("\n".join(lines) + "\n").encode("ascii"))
    args = [exe, "--solve", "--one-line"] + (["--count-solutions"] if limit > 1 else [])

    def run():
        handle.seek(0)
        return subprocess.run(args, stdin=handle, stdout=subprocess.PIPE, check=True).stdout.decode()

    def decode(text):
        counts, sols, pending = [], [], None
        for line in text.splitlines():
            line = line.strip()
            if line == "Puzzle is not possible.":
                counts.append(0)
                sols.append(None)
            elif len(line) == 81 and line.isdigit():
                if limit > 1:
                    pending = line
                else:
                    counts.append(1)
                    sols.append(line)
            elif (m := QQWING_COUNT.match(line)) and limit > 1:
                counts.append(int(m.group(1) or 1))
                sols.append(pending)
                pending = None
        if len(counts) != len(lines):
            raise RuntimeError(f"qqwing answered {len(counts)} of {len(lines)} puzzles")
        return np.array(counts), to_array(sols)

    return run, decode


# ---------------------------------------------------------------- engines: generation
# Each maker takes (n, seed) and returns run() -> list of 81-character puzzle strings (or arrays),
# and optionally the puzzles the engine itself flags as not unique.

def gen_nb(blanks, minimal):
    def make(n, seed):
        seeds = nb.seeds_from(seed, n)
        return lambda: nb.generate_batch(seeds, blanks=blanks, minimal=minimal)

    return make


def gen_py(n, seed):
    return lambda: [create(3, seed=seed + i) for i in range(n)]


def gen_hodoku(n, seed):
    from hodoku.generator.generator import SudokuGenerator

    def run():
        gen = SudokuGenerator(rng=random.Random(seed))
        return [gen.generate_sudoku(symmetric=True) for _ in range(n)]

    return run


def gen_py_sudoku(n, seed):
    module = load_py_sudoku()

    def run():
        out = []
        for i in range(n):
            p = module.Sudoku(3, seed=seed + i).difficulty(0.5)  # 40 blanks
            out.append(([[v or 0 for v in row] for row in p.board], p.get_difficulty() == -3))
        return out

    return run


def gen_lib_sudoku(n, seed):
    import lib_sudoku

    def run():
        with quiet_stdout():
            return [bytes(lib_sudoku.gen_unsolved(40)) for _ in range(n)]  # 40 hints = 41 blanks

    return run


def gen_qqwing(n, seed):
    exe = shutil.which("qqwing")

    def run():
        return subprocess.run([exe, "--generate", str(n), "--one-line"], stdout=subprocess.PIPE,
                              check=True).stdout.decode().split()

    return run


def gen_to_array(raw):
    """(uint8[k, 81], flagged-not-unique bool[k]) from any generator's output."""
    if isinstance(raw, np.ndarray):
        return raw, np.zeros(len(raw), bool)
    rows, flagged = [], []
    for item in raw:
        flag = False
        if isinstance(item, tuple):
            item, flag = item
        if isinstance(item, Grid):
            item = item.cells
        if isinstance(item, str):
            item = to_array([item])[0]
        elif isinstance(item, (bytes, bytearray)):
            item = np.frombuffer(bytes(item), np.uint8)
        else:
            item = np.array(item, np.uint8).reshape(-1)
        rows.append(item)
        flagged.append(flag)
    return np.array(rows, np.uint8).reshape(-1, 81), np.array(flagged, bool)


# ---------------------------------------------------------------- the registry

def load_py_sudoku():
    """py-sudoku's module, loaded from its file as ``_peer_py_sudoku`` (its package is named
    ``sudoku``, like ours)."""
    if "_peer_py_sudoku" in sys.modules:
        return sys.modules["_peer_py_sudoku"]
    for dist in importlib.metadata.distributions(path=PEER_PATHS + sys.path):
        if (dist.metadata["Name"] or "").lower() == "py-sudoku":
            for f in dist.files or ():
                if str(f).replace("\\", "/") == "sudoku/sudoku.py":
                    spec = importlib.util.spec_from_file_location("_peer_py_sudoku", dist.locate_file(f))
                    module = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(module)
                    sys.modules["_peer_py_sudoku"] = module
                    module.__version__ = dist.version
                    return module
    raise ImportError("py-sudoku is not installed (pip install py-sudoku, or --peer-path DIR)")


PEER_PATHS = [p for p in os.environ.get("BENCH_PEER_PATH", "").split(os.pathsep) if p]


def version_of(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        for d in importlib.metadata.distributions(path=PEER_PATHS):
            if (d.metadata["Name"] or "").lower() == dist:
                return d.version
        return "?"


def qqwing_version():
    exe = shutil.which("qqwing")
    if not exe:
        raise ImportError("qqwing is not on PATH (apt-get install qqwing)")
    out = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, text=True, check=True).stdout
    return out.strip().split()[-1]


def probe(name):
    """(version, None) or (None, reason) for a peer."""
    try:
        if name == "qqwing":
            return qqwing_version(), None
        if name == "py-sudoku":
            return load_py_sudoku().__version__, None
        module = {"hodoku-py": "hodoku", "lib-sudoku": "lib_sudoku", "dlxsudoku": "dlxsudoku"}[name]
        importlib.import_module(module)
        if name == "hodoku-py":
            from hodoku.generator import generator

            if getattr(generator, "_gen_accel", None) is None:
                return version_of(name) + " (no C accelerator)", None
        return version_of(name), None
    except Exception as e:  # missing, or fails to import: skipped, not a crash
        return None, f"{type(e).__name__}: {e}"


# (label, package (None = ours), solve maker, note)
SOLVERS = [
    ("nb (batch)", None, make_nb, "reference; one solve_batch call per round"),
    ("nb (per call)", None, grid_engine(nb), "nb.solve once per puzzle"),
    ("py", None, grid_engine(py), ""),
    ("dlx", None, grid_engine(dlx), ""),
    ("hodoku-py backtracking", "hodoku-py", make_hodoku_bt, {1: "SudokuGenerator.solve_string (C); also counts to 2",
                                                              2: "SudokuGenerator.solve_string (C)"}),
    ("hodoku-py logic", "hodoku-py", make_hodoku_logic, "Solver.solve: human-style steps, rates the puzzle"),
    ("lib-sudoku", "lib-sudoku", make_lib_sudoku, "Rust extension"),
    ("py-sudoku", "py-sudoku", make_py_sudoku, {1: "Sudoku(board).solve()",
                                                2: "solve() + has_multiple_solutions() (two more searches)"}),
    ("dlxsudoku", "dlxsudoku", make_dlxsudoku, {1: "Sudoku(line).solve(); also proves uniqueness",
                                                2: "Sudoku(line).solve(): raises on several solutions"}),
    ("qqwing", "qqwing", make_qqwing, {1: "CLI, one process per round (start-up included)",
                                        2: "CLI, one process per round; --count-solutions counts every solution"}),
]
GENERATORS = [
    ("nb (40 blanks)", None, gen_nb(40, False), "reference: generate_batch(blanks=40)"),
    ("nb (minimal)", None, gen_nb(40, True), "generate_batch(minimal=True)"),
    ("py", None, gen_py, "sudoku.create(3, seed): minimal"),
    ("hodoku-py", "hodoku-py", gen_hodoku, "SudokuGenerator.generate_sudoku(symmetric=True), no rating"),
    ("py-sudoku", "py-sudoku", gen_py_sudoku, "Sudoku(3, seed).difficulty(0.5): 40 blanks; flags non-unique"),
    ("lib-sudoku", "lib-sudoku", gen_lib_sudoku, "gen_unsolved(40 hints)"),
    ("qqwing", "qqwing", gen_qqwing, "qqwing --generate N --one-line (CLI)"),
]


# ---------------------------------------------------------------- measuring

def median_time(run, rounds):
    times, raw = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        raw = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), raw


def calibrate(time_for, total, budget):
    """How many items (<= total) take about ``budget`` seconds: time the first 1, 4, 16, ... items
    (each call under a deadline) and extrapolate. Raises TooSlow when the first item overruns."""
    k, last = 1, None
    while True:
        k = min(k, total)
        try:
            with deadline(max(budget * 1.5, 1.0)):
                elapsed = time_for(k)
        except TooSlow:
            if last is None:
                raise
            k, elapsed = last  # the bigger call overran: extrapolate from the one before
            return max(1, min(total, int(budget * k / max(elapsed, 1e-9))))
        if k == total or elapsed > budget / 8:
            return max(1, min(total, int(budget * k / max(elapsed, 1e-9))))
        last = (k, elapsed)
        k *= 4 if elapsed > budget / 64 else 16


class Bench:
    def __init__(self, args):
        self.args = args
        self.rounds = args.rounds or (3 if args.quick else 5)
        self.cap = args.cap or (2.0 if args.quick else 15.0)
        self.budget = self.cap / (self.rounds + 2)  # calibration + warm-up + rounds
        self.nb_cache = {}

    def nb_rate(self, name, puzzles, limit):
        key = (name, len(puzzles))
        if key not in self.nb_cache:
            run, _ = make_nb(None, puzzles, limit)
            run()
            t, _ = median_time(run, max(self.rounds, 5))
            self.nb_cache[key] = len(puzzles) / t
        return self.nb_cache[key]

    def solve_row(self, set_name, lines, puzzles, limit, ref_counts, label, maker, note):
        if isinstance(note, dict):
            note = note[limit]
        row = {"set": set_name, "engine": label, "note": note, "N": len(lines)}

        def time_for(k):
            run, _ = maker(lines[:k], puzzles[:k], limit)
            start = time.perf_counter()
            run()
            return time.perf_counter() - start

        try:
            n = len(lines) if label == "nb (batch)" else calibrate(time_for, len(lines), self.budget)
            run, decode = maker(lines[:n], puzzles[:n], limit)
            with deadline(self.budget * 3 + 5):
                warm = run()  # warm-up, and its answers are checked too
            wrong = check_answers(puzzles[:n], limit, *decode(warm), ref_counts[:n])
            if wrong:
                return {**row, "n": n, "status": f"WRONG: {wrong} of {n} answers"}
            with deadline(self.budget * (self.rounds + 1) * 3 + 5):
                t, last = median_time(run, self.rounds)
            wrong = check_answers(puzzles[:n], limit, *decode(last), ref_counts[:n])
            if wrong:
                return {**row, "n": n, "status": f"WRONG: {wrong} of {n} answers"}
        except Unsupported as e:
            return {**row, "n": 0, "status": f"n/a: {e}"}
        except TooSlow:
            return {**row, "n": 0, "status": f"too slow: over {max(self.budget * 1.5, 1.0):.1f} s for its first puzzle"}
        except Exception as e:
            return {**row, "n": 0, "status": f"failed: {type(e).__name__}: {e}"[:160]}
        rate = n / t
        if label == "nb (batch)":
            self.nb_cache[(set_name, n)] = rate
        return {**row, "n": n, "rate": rate, "ratio": rate / self.nb_rate(set_name, puzzles[:n], limit),
                "status": "ok"}

    def gen_row(self, label, maker, note, ref_rate):
        row = {"engine": label, "note": note}
        seed = 1000
        most = GEN_MAX[1] if self.args.quick else GEN_MAX[0]

        def time_for(k):
            run = maker(k, seed)
            start = time.perf_counter()
            run()
            return time.perf_counter() - start

        try:
            n = calibrate(time_for, most, self.budget)
            run = maker(n, seed)
            with deadline(self.budget * 3 + 5):
                run()
            with deadline(self.budget * (self.rounds + 1) * 3 + 5):
                t, raw = median_time(run, self.rounds)
            puzzles, flagged = gen_to_array(raw)
        except TooSlow:
            return {**row, "n": 0, "status": f"too slow: over {max(self.budget * 1.5, 1.0):.1f} s for its first puzzle"}
        except Exception as e:
            return {**row, "n": 0, "status": f"failed: {type(e).__name__}: {e}"[:160]}
        # untimed: clashes, and uniqueness counted to 2 by our py engine
        unique = np.zeros(len(puzzles), bool)
        clashes = 0
        for i, cells in enumerate(puzzles):
            grid = Grid(3, cells.tolist())
            if find_clash(grid) is not None:
                clashes += 1
            elif not flagged[i]:
                unique[i] = py.solve(grid, limit=2).count == 1
        blanks = (puzzles == 0).sum(axis=1)
        claimed = ~flagged
        status = "ok"
        if clashes:
            status = f"WRONG: {clashes} of {len(puzzles)} have clashing givens"
        elif label != "lib-sudoku" and (claimed & ~unique).any():  # a generator that promises uniqueness
            status = f"WRONG: {(claimed & ~unique).sum()} of {len(puzzles)} not unique"
        rate = unique.sum() / t
        return {**row, "n": len(puzzles), "rate": rate, "ratio": rate / ref_rate if ref_rate else float("nan"),
                "unique": unique.mean(), "blanks": (blanks.mean(), blanks.min(), blanks.max()), "status": status}


# ---------------------------------------------------------------- output

def fmt_rate(r):
    return f"{r:,.0f}" if r >= 100 else f"{r:,.1f}" if r >= 1 else f"{r:.3f}"


def fmt_ratio(x):
    return f"{x:.2f}" if x >= 0.01 else f"{x:.4f}" if x >= 0.0001 else f"{x:.1e}"


def solve_table(rows):
    out = ["| set (task) | engine | n | puzzles/s | vs nb (same n) | notes |", "|---|---|---:|---:|---:|---|"]
    for r in rows:
        task = "count to 2" if SETS[r["set"]] > 1 else "solve"
        n = f"{r['n']:,}" + ("" if r["n"] == r["N"] or not r["n"] else f" of {r['N']:,}")
        if r["status"] == "ok":
            out.append(f"| {r['set']} ({task}) | {r['engine']} | {n} | {fmt_rate(r['rate'])} | "
                       f"{fmt_ratio(r['ratio'])} | {r['note']} |")
        else:
            out.append(f"| {r['set']} ({task}) | {r['engine']} | {n if r['n'] else '-'} | - | - | "
                       f"**{r['status']}** |")
    return out


def gen_table(rows):
    out = ["| engine | n | unique puzzles/s | vs nb (40 blanks) | unique | blanks mean (min-max) | notes |",
           "|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        if "rate" in r:
            b = r["blanks"]
            status = "" if r["status"] == "ok" else f"**{r['status']}**; "
            out.append(f"| {r['engine']} | {r['n']:,} | {fmt_rate(r['rate'])} | {fmt_ratio(r['ratio'])} | "
                       f"{100 * r['unique']:.1f} % | {b[0]:.1f} ({b[1]}-{b[2]}) | {status}{r['note']} |")
        else:
            out.append(f"| {r['engine']} | - | - | - | - | - | **{r['status']}** |")
    return out


def load_text():
    try:
        return "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "load average unknown"


def write_readme(path, text):
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    start = old.find(SECTION)
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        following = re.search(r"^## ", old[start + len(SECTION):], re.M)
        end = start + len(SECTION) + following.start() if following else len(old)
        new = old[:start] + text + ("\n" + old[end:] if following else "")
    path.write_text(new)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds, a 2 s cap per engine and set, print only")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds (default 5, quick 3)")
    parser.add_argument("--cap", type=float, default=None,
                        help="seconds per engine and set, all rounds included (default 15, quick 2)")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data",
                        help="directory of the *.txt.gz sets (default: ../shared/data from the repo)")
    parser.add_argument("--peer-path", action="append", default=[],
                        help="extra directory where a peer is installed (pip install --target DIR); repeatable")
    parser.add_argument("--readme", type=Path, default=None, help="file to write the section to "
                        "(default bench/README.md for a full run; --quick writes only when given)")
    parser.add_argument("--no-readme", action="store_true", help="print only")
    args = parser.parse_args(argv)
    PEER_PATHS[:0] = args.peer_path
    bench = Bench(args)

    peers, skipped = {}, []
    for name in ("hodoku-py", "lib-sudoku", "py-sudoku", "dlxsudoku", "qqwing"):
        version, reason = probe(name)
        if version:
            peers[name] = version
        else:
            skipped.append(f"{name} ({reason})")
    import numba

    versions = (f"sudoku-toolkit {_our_version()} (nb, py, dlx), "
                f"numba {numba.__version__}, numpy {np.__version__}; "
                + ", ".join(f"{k} {v}" for k, v in peers.items()))
    command = "PYTHONPATH=. python3 bench/bench_peers.py" + "".join(f" {a}" for a in (argv or sys.argv[1:]))
    header = [
        f"Machine: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; {load_text()} at start.",
        f"Versions: {versions}.",
        f"Command: `{command}` ({bench.rounds} timed rounds, median; cap {bench.cap:g} s per engine and set).",
    ]
    print("\n".join(header), flush=True)
    nb.warm()

    rows = []
    for set_name, limit in SETS.items():
        path = args.data / f"{set_name}.txt.gz"
        if not path.exists():
            print(f"# skipped {set_name}: not in {args.data}", file=sys.stderr)
            continue
        with gzip.open(path, "rt") as handle:
            lines = [line.strip() for line in handle if line.strip()]
        random.Random(ORDER_SEED).shuffle(lines)  # one fixed order: a capped engine gets a fair sample
        puzzles = nb.from_lines(lines)
        lines = nb.to_lines(puzzles)  # '.' for blanks
        ref_counts, _, _, _ = nb.solve_batch(puzzles, limit=limit)
        for label, package, maker, note in SOLVERS:
            if package and package not in peers:
                continue
            row = bench.solve_row(set_name, lines, puzzles, limit, ref_counts, label, maker, note)
            rows.append(row)
            print(f"# {set_name} {label}: {row['status']} n={row['n']}"
                  + (f" {row['rate']:,.1f}/s" if "rate" in row else ""), file=sys.stderr, flush=True)

    gen_rows, ref_rate = [], None
    for label, package, maker, note in GENERATORS:
        if package and package not in peers:
            continue
        row = bench.gen_row(label, maker, note, ref_rate)
        if ref_rate is None and "rate" in row:
            ref_rate = row["rate"]
            row["ratio"] = 1.0
        gen_rows.append(row)
        print(f"# generate {label}: {row['status']} n={row['n']}", file=sys.stderr, flush=True)

    end_load = load_text()
    body = [
        SECTION, "",
        "Our engines next to the Sudoku packages on PyPI that install here (the optional extra "
        "`pip install -e '.[bench]'`) and Debian's `qqwing`, on the same puzzles in one run. Every answer "
        "is checked outside the timed region; times are medians; \"vs nb\" is the rate over nb's batch "
        "rate on the same puzzles in the same run (nb = 1.00). A peer too slow for a whole set gets the "
        "first n puzzles of one fixed random order (shown as \"n of N\"). The machine is shared and noisy: "
        "absolute rates move by tens of percent between runs, the ratios are what matter.", "",
        *header[:2],
        f"Command: `{command}` ({bench.rounds} timed rounds, median; cap {bench.cap:g} s per engine and "
        f"set); {end_load} at the end.",
        "Skipped: " + ("; ".join(skipped) if skipped else "none") + ".", "",
        "### Solving and counting", "", *solve_table(rows), "",
        "### Generating", "",
        "Unique puzzles per second: puzzles made per second times the share that our py engine finds "
        "unique (counted to 2, untimed); nb's are made with 40 blanks, the others as noted.", "",
        *gen_table(gen_rows), "",
    ]
    text = "\n".join(body)
    print()
    print(text)
    readme = args.readme or (None if args.quick else REPO / "bench" / "README.md")
    if readme and skipped and not args.readme:
        print(f"# not writing {readme}: peers were skipped (give --readme to write anyway)", file=sys.stderr)
    elif readme and not args.no_readme:
        write_readme(readme, text)
        print(f"# wrote the section to {readme}", file=sys.stderr)


def _our_version():
    import sudoku

    return getattr(sudoku, "__version__", "?")


if __name__ == "__main__":
    main()
