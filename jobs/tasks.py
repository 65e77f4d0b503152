"""Tasks: create, check and solve puzzles, one record per case.

Each phase is timed on its own; verification happens outside the timed regions. Uniqueness is
counted by a ``check_engine`` other than the one that created the puzzle, so one engine's bug cannot
vouch for itself.

Two paths give the same records: the batch path (``jobs.columnar``: arrays end to end, an Arrow
table out) for chunks whose engines have batch entry points, and the per-case path here (a dict per
case) for the rest: other sizes, ``--difficulty``, the pure-Python engines, malformed input lines.
"""

import logging
import os
import socket
import time
from pathlib import Path
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from sudoku import GenerationFailed, InvalidPuzzle, create, derive_seed, engines, find_clash, min_blanks
from sudoku.formats import parse_line, render
from sudoku.grid import Grid

from jobs import CASE_CHUNK_SIZE, columnar
from jobs.config import BatchConfig
from jobs.schema import SCHEMA_VERSION, table
from jobs.task import Task
from jobs.verify import problems

log = logging.getLogger("jobs.tasks")
CHUNK_SIZE = CASE_CHUNK_SIZE
_clock = time.perf_counter


_HOST = socket.gethostname()


def worker_id() -> str:
    """host:pid of this process (the pid is read each time: pool workers are forked after import)."""
    return f"{_HOST}:{os.getpid()}"


def default_engines(box: int, engine: str | None = None) -> tuple[str, str]:
    """(engine, check engine) a run uses at this size when none is named: nb where it solves the size,
    else the size's default; the checker is another engine, so no engine vouches for its own answers
    (``engine`` given: its checker)."""
    if engine is None:
        engine = "nb" if engines.supports("nb", box) else engines.default_for(box)
    return engine, {"nb": "band", "py": "dlx"}.get(engine, "py")


def plan(config: BatchConfig, lines: list[tuple[int, str, str | None]] | None = None) -> list[dict[str, Any]]:
    """Chunk specs for a config: ``n`` created cases, or one case per (number, text) in ``lines``. A
    spec is the chunk's wire form (sent to workers, its digest pinned in the plan), so its keys stay
    as they were when runs made before the typed config were planned."""
    size = config.chunk
    common = {"run_id": config.run_id, "seed": config.seed, "engine": config.engine,
              "check_engine": config.check_engine, "difficulty": config.difficulty, "blanks": config.blanks,
              "grade": config.grade, "canonical": config.canonical, "engines_by_size": config.engines_by_size}
    specs = []
    if lines is None:
        for chunk, start in enumerate(range(0, config.n, size)):
            specs.append({**common, "mode": "create", "chunk": chunk, "start": start,
                          "count": min(size, config.n - start), "box": config.box})
    else:
        assert config.input is not None, "a run of input lines has an input"
        source = Path(config.input).name
        for chunk, start in enumerate(range(0, len(lines), size)):
            part = lines[start : start + size]
            specs.append({**common, "mode": "input", "chunk": chunk, "start": start, "count": len(part),
                          "lines": part, "source": source})
    return specs


def run_chunk(spec: dict[str, Any]) -> Any:
    """The task the runner calls: a chunk spec in, its records out: an Arrow table in the schema from
    the batch path, a list of record dicts from the per-case path (``jobs.schema.table`` takes both)."""
    engines.warm(spec["engine"], spec["check_engine"])
    start = _clock()
    if columnar.serves(spec):
        records = _batch(spec)
        failed = len(records) - pc.sum(pc.equal(records.column("outcome"), "ok")).as_py()
    else:
        records = _per_case(spec)
        failed = sum(r["outcome"] != "ok" for r in records)
    log.info("chunk %d: %d cases, %d not ok, %.2fs on %s", spec["chunk"], len(records), failed, _clock() - start, worker_id())
    return records


def _per_case(spec: dict[str, Any]) -> list[dict[str, Any]]:
    if spec["mode"] == "create":
        return [_created_case(spec, spec["start"] + i) for i in range(spec["count"])]
    return [_input_case(spec, spec["start"] + i, *line) for i, line in enumerate(spec["lines"])]


def _batch(spec: dict[str, Any]) -> Any:
    """The batch path; in an input chunk, lines that are not plain 9x9 puzzles go case by case and
    their rows join the table in case order."""
    if spec["mode"] == "create":
        return columnar.created_table(spec, worker=worker_id())
    batch, others = columnar.input_table(spec, worker=worker_id())
    rows = [_input_case(spec, case, number, text, rejected) for case, number, text, rejected in others]
    if batch is None:
        return table(rows)
    return pa.concat_tables([batch, table(rows)]).sort_by("case") if rows else batch


def _base(spec: dict[str, Any], case: int) -> dict[str, Any]:
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


def _created_case(spec: dict[str, Any], case: int) -> dict[str, Any]:
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


def _input_case(spec: dict[str, Any], case: int, number: int, text: str, rejected: str | None = None) -> dict[str, Any]:
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
    if spec.get("engines_by_size") and not all(engines.supports(spec[name], puzzle.box)
                                              for name in ("engine", "check_engine")):
        engine, check_engine = default_engines(puzzle.box)
        spec = {**spec, "engine": engine, "check_engine": check_engine}
        record.update(engine=engine, check_engine=check_engine)
    if not engines.supports(spec["engine"], puzzle.box) or not engines.supports(spec["check_engine"], puzzle.box):
        record.update(outcome="rejected", reason=f"line {number}: the engines named ({spec['engine']}, "
                      f"{spec['check_engine']}) do not both solve {puzzle.side}x{puzzle.side}; without "
                      "--engine and --check-engine each size has its own")
        return _finish(record)
    _check_and_solve(record, puzzle, spec, wanted_blanks=None)
    return _finish(record)


def _check_and_solve(record: dict[str, Any], puzzle: Grid, spec: dict[str, Any], *, wanted_blanks: int | None) -> None:
    """Time the uniqueness count, the blank rule and the solve; then verify, untimed."""
    record.update(puzzle=render(puzzle, "line").rstrip("\n"), clues=puzzle.clues)
    t0 = _clock()
    counted = engines.solve(puzzle, limit=2, engine=spec["check_engine"])
    t1 = _clock()
    blanks = puzzle.blanks
    blanks_ok = blanks >= (wanted_blanks if wanted_blanks is not None else min_blanks(puzzle.box))
    t2 = _clock()
    for _ in range(columnar.SOLVE_REPEATS):
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
    if spec.get("grade") and counted.count == 1:
        record.update(columnar.graded(puzzle, counted.solution))
    if spec.get("canonical"):
        record["canonical"] = columnar.canonical_line(puzzle)
    found = problems(solved_ok=solved_ok, givens_kept=givens_kept, matches_unique=matches, solutions=counted.count,
                     created=wanted_blanks is not None, blanks=blanks, wanted_blanks=wanted_blanks)
    record.update(outcome="failed" if found else "ok", reason="; ".join(found) or None)


def _finish(record: dict[str, Any]) -> dict[str, Any]:
    record["timestamp"] = datetime.now(timezone.utc)
    return record


def engines_of(spec: dict[str, Any]) -> list[str]:
    """The engines a chunk's worker uses: each worker warms them before its first chunk."""
    return [spec["engine"], spec["check_engine"]]


BATCH = Task("batch", run_chunk, plan, engines=engines_of, config=BatchConfig)
"""The batch task of ``sudoku-jobs run``: create or read puzzles, check and solve them back."""
