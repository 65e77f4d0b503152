"""CaDiCaL through python-sat (`pip install python-sat`, in the `[bench]` extra): the yardstick for big grids.

The encoding is the plain one-hot one the issue measured: a variable per (cell, digit) still allowed
by the givens (a digit given in a peer is dropped before encoding, as every SAT Sudoku encoder
does), each cell at least one and at most one digit, each unit every digit at least once and at
most once. At-most-one is pairwise up to 49x49; above, pairwise would need ~64 million clauses at
81x81, so it is a sequential counter there (``CardEnc``, seqcounter), said in the results.

It runs as `sudoku solve` does, in a process of its own (``run``): interpreter start-up, imports,
encoding, loading the clauses and solving are all in its wall time, and the three last phases are
also timed inside it, so the bench can show CaDiCaL's solve alone beside the whole run.
"""

import time
from itertools import combinations

from sudoku.grid import Grid, geometry

SOLVER = "cadical195"
PAIRWISE_UP_TO_SIDE = 49


def encode(puzzle):
    """(clauses, top variable, var -> (cell, digit)) for ``puzzle``; None when a blank cell has no
    candidate left (no solution, no need to ask the solver)."""
    from pysat.card import CardEnc, EncType

    geo = geometry(puzzle.box)
    side = geo.side
    cells = puzzle.cells
    var = {}
    meaning = {}
    for cell, value in enumerate(cells):
        if value:
            allowed = [value]
        else:
            taken = {cells[p] for p in geo.peers[cell]}
            allowed = [d for d in range(1, side + 1) if d not in taken]
            if not allowed:
                return None
        for digit in allowed:
            var[cell, digit] = len(var) + 1
            meaning[len(var)] = (cell, digit)
    top = len(var)
    clauses = []

    def exactly_one(lits):
        nonlocal top
        clauses.append(lits)
        if side <= PAIRWISE_UP_TO_SIDE:
            clauses.extend(combinations([-lit for lit in lits], 2))  # as quick as the sat engine's
        elif len(lits) > 1:
            card = CardEnc.atmost(lits, 1, top_id=top, encoding=EncType.seqcounter)
            clauses.extend(card.clauses)
            top = max(top, card.nv)

    for cell in range(geo.ncells):
        exactly_one([var[cell, d] for d in range(1, side + 1) if (cell, d) in var])
    for unit in geo.units:
        for digit in range(1, side + 1):
            lits = [var[cell, digit] for cell in unit if (cell, digit) in var]
            if not lits:
                return None
            exactly_one(lits)
    return clauses, top, meaning


def run(puzzle, *, cap):
    """Run the yardstick as `sudoku solve` runs: a fresh process (``python bench/sat_cadical.py``, the
    puzzle on stdin) killed at ``cap`` seconds. Returns (status, wall seconds of the whole process,
    phases, solution Grid or None): status 'solved', 'none' (no solution) or 'timeout'; phases the
    seconds of 'encode', 'load' and 'solve' measured inside it (empty on a timeout)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from sudoku.formats import render

    repo = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(repo)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, __file__], input=render(puzzle, "grid").encode(),
                              capture_output=True, env=env, timeout=cap, check=True)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start, {}, None
    seconds = time.perf_counter() - start
    out = json.loads(done.stdout)
    cells = out.pop("cells")
    status = out.pop("status")
    return status, seconds, out, Grid(puzzle.box, cells) if cells else None


def _solve_here(puzzle):
    """Encode, load and solve in this process: a dict of status, the three phases' seconds and the
    solution's cells (None without one). The clauses are loaded as the ``sat`` engine loads its own
    (``sudoku.engines.sat.loader``), so the two differ in the encoding and propagation only."""
    from pysat.solvers import Solver

    from sudoku.engines.sat import loader

    times = {}
    start = time.perf_counter()
    encoded = encode(puzzle)
    times["encode"] = time.perf_counter() - start
    if encoded is None:
        return dict(times, status="none", load=0.0, solve=0.0, cells=None)
    clauses, _, meaning = encoded
    with Solver(name=SOLVER) as solver:
        start = time.perf_counter()
        loader(solver)(clauses)
        times["load"] = time.perf_counter() - start
        start = time.perf_counter()
        result = solver.solve()
        times["solve"] = time.perf_counter() - start
        if not result:
            return dict(times, status="none", cells=None)
        model = solver.get_model()
    cells = list(puzzle.cells)
    for literal in model:
        if literal > 0 and literal in meaning:
            cell, digit = meaning[literal]
            cells[cell] = digit
    return dict(times, status="solved", cells=cells)


def main():
    """The yardstick's process: a puzzle (grid format) on stdin, JSON of ``_solve_here`` on stdout."""
    import json
    import sys

    from sudoku.formats import parse

    puzzle = next(iter(parse(sys.stdin.read().splitlines(keepends=True))))
    print(json.dumps(_solve_here(puzzle)))


if __name__ == "__main__":
    main()
