"""Helpers shared by the tests: the known-puzzles file, random puzzles, and running the CLI."""

import os
import random
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

from sudoku.engines import py
from sudoku.formats import parse_line
from sudoku.grid import Grid

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
KNOWN = TESTS / "data" / "known.txt"

Known = namedtuple("Known", "number puzzle count solution")
Known.__doc__ = """One case of a known-puzzles file: its line number, the puzzle, the count up to 2, and
the unique solution (None unless count is 1)."""


def read_known(path=KNOWN):
    """The cases of a known-puzzles file: ``puzzle:count:solution`` lines, ``#`` lines skipped."""
    cases = []
    with open(path, encoding="utf-8") as lines:
        for number, text in enumerate(lines, 1):
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            puzzle, count, solution = text.split(":")
            cases.append(
                Known(number, parse_line(puzzle, number), int(count), parse_line(solution, number) if solution else None)
            )
    return cases


def random_puzzle(box, seed, blank_ratio):
    """A random full grid of ``box`` (from ``seed``) with about ``blank_ratio`` of its cells blanked;
    returns (puzzle, the full grid it came from)."""
    rng = random.Random(seed)
    full = py.fill(box, rng)
    cells = [0 if rng.random() < blank_ratio else value for value in full.cells]
    return Grid(box, cells), full


def assert_agrees_with_py(engine, puzzle, limit):
    """``engine.solve`` counts as ``py`` does, its solution is one, and a unique one is py's."""
    from sudoku.grid import is_solution

    ours, reference = engine.solve(puzzle, limit=limit), py.solve(puzzle, limit=limit)
    assert ours.count == reference.count
    if ours.count:
        assert is_solution(puzzle, ours.solution)
    else:
        assert ours.solution is None
    if ours.count == 1 and limit > 1:
        assert ours.solution == reference.solution


def run_cli(*args, input=b"", timeout=60):
    """Run ``python -m sudoku ARGS`` with ``input`` (bytes or str) on stdin; the CompletedProcess,
    with stdout and stderr as text."""
    if isinstance(input, str):
        input = input.encode()
    paths = [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    env.pop("PYTHONSTARTUP", None)
    done = subprocess.run(
        [sys.executable, "-m", "sudoku", *map(str, args)],
        input=input,
        capture_output=True,
        cwd=REPO,
        env=env,
        timeout=timeout,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    )


def stderr_lines(done):
    return done.stderr.splitlines()


# The classic sample puzzle (the one on Wikipedia's Sudoku page) and its solution, in grid format.
PUZZLE = """\
5 3 0 0 7 0 0 0 0
6 0 0 1 9 5 0 0 0
0 9 8 0 0 0 0 6 0
8 0 0 0 6 0 0 0 3
4 0 0 8 0 3 0 0 1
7 0 0 0 2 0 0 0 6
0 6 0 0 0 0 2 8 0
0 0 0 4 1 9 0 0 5
0 0 0 0 8 0 0 7 9
"""
SOLUTION = """\
5 3 4 6 7 8 9 1 2
6 7 2 1 9 5 3 4 8
1 9 8 3 4 2 5 6 7
8 5 9 7 6 1 4 2 3
4 2 6 8 5 3 7 9 1
7 1 3 9 2 4 8 5 6
9 6 1 5 3 7 2 8 4
2 8 7 4 1 9 6 3 5
3 4 5 2 8 6 1 7 9
"""
