"""CaDiCaL through python-sat (`pip install python-sat`, in the `[bench]` extra): the yardstick for big grids.

The encoding is the plain one-hot one the issue measured: a variable per (cell, digit) still allowed
by the givens (a digit given in a peer is dropped before encoding, as every SAT Sudoku encoder
does), each cell at least one and at most one digit, each unit every digit at least once and at
most once. At-most-one is pairwise up to 49x49; above, pairwise would need ~64 million clauses at
81x81, so it is a sequential counter there (``CardEnc``, seqcounter), said in the results.
"""

import time

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
            for i, a in enumerate(lits):
                for b in lits[i + 1:]:
                    clauses.append([-a, -b])
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


def solve(puzzle, *, seconds):
    """Solve with CaDiCaL within ``seconds``: (status, encode_s, solve_s, solution Grid or None), where
    status is 'solved', 'none' (no solution) or 'timeout'.

    python-sat cannot interrupt CaDiCaL (``interrupt`` raises NotImplementedError), so the solve runs
    in a forked child that is killed at the cap; encoding and solving are timed inside the child.
    """
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(puzzle, send), daemon=True)
    start = time.perf_counter()
    child.start()
    send.close()
    if receive.poll(seconds + 30):  # encoding can take a while in Python: the cap is on the solve
        status, encode_s, solve_s, cells = receive.recv()
        child.join()
    else:
        status, encode_s, solve_s, cells = "timeout", 0.0, time.perf_counter() - start, None
    if child.is_alive():
        child.kill()
        child.join()
    if status == "timeout" or solve_s > seconds:
        return "timeout", encode_s, solve_s, None
    return status, encode_s, solve_s, Grid(puzzle.box, cells) if cells else None


def _child(puzzle, send):
    send.send(_solve_here(puzzle))
    send.close()


def _solve_here(puzzle):
    from pysat.solvers import Solver

    start = time.perf_counter()
    encoded = encode(puzzle)
    encode_s = time.perf_counter() - start
    if encoded is None:
        return "none", encode_s, 0.0, None
    clauses, _, meaning = encoded
    with Solver(name=SOLVER, bootstrap_with=clauses) as solver:
        start = time.perf_counter()
        result = solver.solve()
        solve_s = time.perf_counter() - start
        if not result:
            return "none", encode_s, solve_s, None
        model = solver.get_model()
    cells = list(puzzle.cells)
    for literal in model:
        if literal > 0 and literal in meaning:
            cell, digit = meaning[literal]
            cells[cell] = digit
    return "solved", encode_s, solve_s, cells
