"""Where `sudoku solve` spends its time on big grids with the ``sat`` engine: per phase, per instance.

Phases, each timed in a fresh process (``python bench/profile_sat.py --child NAME``) so that imports
are cold as in the CLI: interpreter start-up (``python -c pass``, timed from outside), importing
the CLI's modules, importing python-sat's C module, py's propagation (``candidates`` + ``settle``), building the
CNF (``sat.encode``), loading it into CaDiCaL, solving, decoding the model. With ``--no-settle``
the propagation is skipped (the encoding then holds every candidate the givens leave).

    PYTHONPATH=. python bench/profile_sat.py --rounds 2 36x36-45pct-0 36x36-70pct-0
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PHASES = ("start", "import", "pysat", "settle", "encode", "load", "solve", "decode")


def child(name, settle):
    """Run the phases on instance ``name`` in this (fresh) process; print them as JSON."""
    times = {}
    t = time.perf_counter()
    import sudoku.cli.command  # noqa: F401  the CLI's own imports
    from sudoku.engines import py, sat
    from sudoku.grid import geometry

    times["import"] = time.perf_counter() - t
    sys.path.insert(0, str(REPO / "bench"))
    import bigset

    puzzle = next(i.puzzle for i in bigset.instances(seeds=2, boxes=(_box(name),)) if i.name == name)
    t = time.perf_counter()
    import pysolvers  # noqa: F401  what the engine imports (python-sat's C module)

    times["pysat"] = time.perf_counter() - t
    geo = geometry(puzzle.box)
    t = time.perf_counter()
    cands, queue = py.candidates(puzzle)
    if settle:
        assert py.settle(cands, queue, geo)
    else:
        _eliminate_givens(cands, queue, geo)
    times["settle"] = time.perf_counter() - t
    t = time.perf_counter()
    encoded = sat.encode(cands, geo)
    times["encode"] = time.perf_counter() - t
    clauses, _, meaning = encoded
    t = time.perf_counter()
    solver = sat._Cadical()
    sat.loader(solver)(clauses)  # the engine streams them in as it encodes (``sink``): a little less
    times["load"] = time.perf_counter() - t
    t = time.perf_counter()
    assert solver.solve()
    times["solve"] = time.perf_counter() - t
    t = time.perf_counter()
    solution = cands[:]
    for literal in solver.get_model():
        if 0 < literal < len(meaning):
            cell, bit = meaning[literal]
            solution[cell] = bit
    times["decode"] = time.perf_counter() - t
    assert all(m and not m & (m - 1) for m in solution)
    open_cells = sum(1 for m in cands if m & (m - 1))
    print(json.dumps({"times": times, "open": open_cells, "vars": encoded[1], "clauses": len(encoded[0])}))


def _eliminate_givens(cands, queue, geo):
    """Only the givens' own eliminations (no singles): the yardstick's starting point."""
    given = set(queue)
    for cell in queue:
        for p in geo.peers[cell]:
            if p not in given:
                cands[p] &= ~cands[cell]


def _box(name):
    return round(int(name.split("x")[0]) ** 0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=["36x36-45pct-0", "36x36-60pct-0", "36x36-70pct-0",
                                                     "49x49-60pct-0", "49x49-70pct-0"])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-settle", action="store_true", help="skip py's propagation (givens' eliminations only)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, not args.no_settle)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start")
    print("| instance | round | " + " | ".join(PHASES) + " | total | open cells | vars | clauses |")
    print("|---|---:|" + "---:|" * (len(PHASES) + 4))
    for round_ in range(args.rounds):
        for name in args.names:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            start = time.perf_counter() - t
            cmd = [sys.executable, __file__, "--child", name] + (["--no-settle"] if args.no_settle else [])
            out = json.loads(subprocess.run(cmd, check=True, capture_output=True, env=env, text=True).stdout)
            times = dict(out["times"], start=start)
            cells = " | ".join(f"{times[p]:.2f}" for p in PHASES)
            print(f"| {name} | {round_} | {cells} | {sum(times.values()):.2f} | {out['open']} | {out['vars']} | {out['clauses']} |", flush=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at end")


if __name__ == "__main__":
    main()
