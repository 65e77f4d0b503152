"""Tasks: create, check and solve puzzles, one record per case.

Each phase is timed on its own; verification happens outside the timed regions. Uniqueness is
counted by a ``check_engine`` other than the one that created the puzzle, so one engine's bug cannot
vouch for itself.
"""

import logging
import os
import socket
import time
from datetime import datetime, timezone

from sudoku import GenerationFailed, InvalidPuzzle, create, derive_seed, engines, find_clash, min_blanks
from sudoku.formats import parse_line, render

from jobs.schema import SCHEMA_VERSION

log = logging.getLogger("jobs.tasks")
_clock = time.perf_counter


_HOST = socket.gethostname()
_SOLVE_REPEATS = int(os.environ.get("JOBS_SOLVE_REPEATS") or 1)  # >1 plants a slowdown (bench/false_alarms.py)


def worker_id():
    """host:pid of this process (the pid is read each time: pool workers are forked after import)."""
    return f"{_HOST}:{os.getpid()}"


_warmed = set()


def warm(*names):
    """Load engines (and compile or load their kernels) once per worker, outside any timed region."""
    for name in names:
        if name not in _warmed:
            module = engines.load(name)
            if hasattr(module, "warm"):
                module.warm()
            _warmed.add(name)


def run_chunk(spec):
    """The task the runner calls: a chunk spec in, a list of record dicts out."""
    warm(spec["engine"], spec["check_engine"])
    start = _clock()
    if spec["mode"] == "create":
        records = [_created_case(spec, spec["start"] + i) for i in range(spec["count"])]
    else:
        records = [_input_case(spec, spec["start"] + i, *line) for i, line in enumerate(spec["lines"])]
    failed = sum(r["outcome"] != "ok" for r in records)
    log.info("chunk %d: %d cases, %d not ok, %.2fs on %s", spec["chunk"], len(records), failed, _clock() - start, worker_id())
    return records


def _base(spec, case):
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": spec["run_id"],
        "chunk": spec["chunk"],
        "case": case,
        "seed": spec["seed"],
        "engine": spec["engine"],
        "check_engine": spec["check_engine"],
        "difficulty": spec.get("difficulty"),
        "worker": worker_id(),
    }


def _created_case(spec, case):
    record = _base(spec, case)
    case_seed = derive_seed(spec["seed"], case)
    record.update(case_seed=case_seed, source="create", family="create", size=spec["box"] ** 2)
    t0 = _clock()
    try:
        puzzle = create(spec["box"], seed=case_seed, blanks=spec.get("blanks"), difficulty=spec.get("difficulty"),
                        engine=spec["engine"])
    except GenerationFailed as error:
        record.update(outcome="failed", reason=f"create: {error}", create_s=_clock() - t0)
        return _finish(record)
    record["create_s"] = _clock() - t0
    _check_and_solve(record, puzzle, spec, wanted_blanks=max(min_blanks(spec["box"]), spec.get("blanks") or 0))
    return _finish(record)


def _input_case(spec, case, number, text, rejected=None):
    """One line of --input; ``rejected`` is the reason when reading already rejected it (too long)."""
    record = _base(spec, case)
    record.update(source=spec["source"], family="input", line=number, puzzle=text)
    if rejected:
        record.update(outcome="rejected", reason=rejected)
        return _finish(record)
    try:
        puzzle = parse_line(text, number)
    except InvalidPuzzle as error:
        record.update(outcome="rejected", reason=str(error))
        return _finish(record)
    record["size"] = puzzle.side
    if not engines.supports(spec["engine"], puzzle.box) or not engines.supports(spec["check_engine"], puzzle.box):
        record.update(outcome="rejected", reason=f"line {number}: no engine chosen solves {puzzle.side}x{puzzle.side}")
        return _finish(record)
    _check_and_solve(record, puzzle, spec, wanted_blanks=None)
    return _finish(record)


def _check_and_solve(record, puzzle, spec, *, wanted_blanks):
    """Time the uniqueness count, the blank rule and the solve; then verify, untimed."""
    record.update(puzzle=render(puzzle, "line").rstrip("\n"), clues=puzzle.clues)
    t0 = _clock()
    counted = engines.solve(puzzle, limit=2, engine=spec["check_engine"])
    t1 = _clock()
    blanks = puzzle.blanks
    blanks_ok = blanks >= (wanted_blanks if wanted_blanks is not None else min_blanks(puzzle.box))
    t2 = _clock()
    for _ in range(_SOLVE_REPEATS):
        answer = engines.solve(puzzle, limit=1, engine=spec["engine"])
    t3 = _clock()
    record.update(unique_s=t1 - t0, blanks_s=t2 - t1, solve_s=t3 - t2, blanks=blanks, blanks_ok=blanks_ok,
                  solutions=counted.count, unique=counted.count == 1, unique_guesses=counted.counters.guesses,
                  guesses=answer.counters.guesses, nodes=answer.counters.nodes)
    solution = answer.solution
    if solution is not None:
        record["solution"] = render(solution, "line").rstrip("\n")
        givens_kept = all(not g or g == s for g, s in zip(puzzle.cells, solution.cells))
        solved_ok = counted.count > 0 and 0 not in solution.cells and find_clash(solution) is None
    else:
        givens_kept = True
        solved_ok = counted.count == 0  # rightly found none
    matches = (solution == counted.solution) if counted.count == 1 else None
    record.update(solved_ok=solved_ok, givens_kept=givens_kept, matches_unique=matches)
    problems = []
    if not solved_ok:
        problems.append("solve gave no valid solution" if counted.count else "solve found a solution to an impossible puzzle")
    if not givens_kept:
        problems.append("solve changed a given")
    if matches is False:
        problems.append("solve disagrees with the unique solution")
    if wanted_blanks is not None:  # created puzzles must also be unique and blank enough
        if not record["unique"]:
            problems.append(f"created puzzle has {counted.count} solutions (counting to 2)")
        if not blanks_ok:
            problems.append(f"created puzzle has {blanks} blanks, fewer than {wanted_blanks}")
    record.update(outcome="failed" if problems else "ok", reason="; ".join(problems) or None)


def _finish(record):
    record["timestamp"] = datetime.now(timezone.utc)
    return record
