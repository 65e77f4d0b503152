"""The batch path of a chunk: arrays end to end, one Arrow table out.

For a created chunk: seeds -> the engine's ``generate_batch`` -> the check engine's ``solve_batch``
counting to 2 -> the engine's ``solve_batch`` -> verification in numpy (``jobs.verify``) -> columns
built with numpy and pyarrow, never a dict per row. For an ``--input`` chunk the puzzles come from
the lines instead (``input_table``). The per-case path in ``jobs.tasks`` stays for everything this
path does not serve (``serves`` says which).

Same puzzles as the per-case path: case ``i``'s seed is ``derive_seed(seed, i)``, and
``generate_batch([case_seed], blanks=wanted, minimal=True)`` is exactly what ``sudoku.create(box,
seed=case_seed, engine=...)`` calls for an engine with ``generate``, so a row rebuilds alone from
its ``case_seed`` either way, and a run's puzzles do not depend on the path, workers or chunks.

Per-case timings (the schema's column docs say the same):

- ``create_s``: one ``generate_batch`` call per seed, timed from Python (per-seed calls ran at
  0.99x the rate of one call for a whole chunk of 2,000, so the batch costs nothing in speed here);
- ``unique_s``: the check engine's own time for the puzzle inside its batch (``timed=True``, the
  ``timed`` capability), else one call per puzzle timed from Python;
- ``blanks_s``: the chunk's vectorised blank rule, its time shared evenly among the chunk's cases;
- ``solve_s``: one ``solve_batch`` call per puzzle, timed from Python, so it includes the call's
  overhead (~5 us at 9x9) as the per-case path's ``solve_s`` does; a batch time shared evenly would
  give every case of a chunk the same value, and percentiles and bootstrap intervals over cases
  would mean little.
"""

import os
import re
import time
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from sudoku import derive_seed, engines, min_blanks
from sudoku.generate import generator_reach
from sudoku.grid import Grid
from jobs import BATCH_CHUNK_SIZE, verify
from jobs.schema import SCHEMA, SCHEMA_VERSION

_clock = time.perf_counter
# JOBS_SOLVE_REPEATS=k does every timed solve k times, on both paths: a planted slowdown that the
# regression check must call a regression (bench/false_alarms.py --plant, a slow test).
SOLVE_REPEATS = int(os.environ.get("JOBS_SOLVE_REPEATS") or 1)
CHUNK_SIZE = BATCH_CHUNK_SIZE
# line format: blank '.', then 1-9 and letters from 10 up; a value no grid can hold shows as '?'
_ALPHABET = np.frombuffer(b".123456789ABCDEFGHIJKLMNOP".ljust(256, b"?"), dtype=np.uint8)


Spec = dict[str, Any]
Array = npt.NDArray[Any]


def _batch_engines(spec: Spec, box: int) -> bool:
    """Whether both engines of ``spec`` have batch entry points for grids of ``box``."""
    return all(engines.supports(name, box) and "batch" in engines.info(name).capabilities
               for name in (spec["engine"], spec["check_engine"]))


def serves(spec: Spec) -> bool:
    """Whether the batch path runs this chunk: created puzzles of any difficulty (none asked for)
    from an engine with ``generate_batch``, or input lines, with batch engines for the size."""
    if spec["mode"] == "input":
        return _batch_engines(spec, 3)  # 9x9 lines; other lines of the chunk go case by case
    box = spec["box"]
    if spec.get("difficulty") is not None or not _batch_engines(spec, box):
        return False
    if "generate" not in engines.info(spec["engine"]).capabilities:
        return False
    if spec.get("blanks"):  # more blanks than the generator reaches: the per-case path records why
        return bool(spec["blanks"] <= generator_reach(spec["engine"], box))
    return True


def created_table(spec: Spec, *, worker: str) -> Any:
    """The records of a created chunk, as an Arrow table in the schema."""
    box, k = spec["box"], spec["count"]
    cases = np.arange(spec["start"], spec["start"] + k, dtype=np.int64)
    seeds = np.array([derive_seed(spec["seed"], int(case)) for case in cases], dtype=np.uint64)
    wanted = max(min_blanks(box), spec.get("blanks") or 0)
    generate = engines.load(spec["engine"]).generate_batch
    puzzles = np.empty((k, box**4), np.uint8)
    create_s = np.empty(k)
    for i in range(k):
        t0 = _clock()
        made = generate(seeds[i : i + 1], blanks=wanted, minimal=True)
        create_s[i] = _clock() - t0
        puzzles[i] = made[0]
    columns = _check_and_solve(spec, box, puzzles, wanted_blanks=wanted)
    columns.update(case=cases, case_seed=seeds.astype(np.int64), create_s=create_s, source="create", family="create")
    return _table(spec, columns, k, worker=worker)


_NINE_BY_NINE = re.compile(r"[0-9.]{81}")


def input_table(spec: Spec, *, worker: str) -> tuple[Any, list[tuple[int, int, str, str | None]]]:
    """The records of the chunk's 9x9 lines (digits and '.', 81 of them), as an Arrow table, and the
    (case, number, text, rejected) of the other lines (``rejected``: the reason reading already gave,
    e.g. too long), which the per-case path parses, rejects or solves."""
    picked: list[tuple[int, int, str, str | None]] = []
    others: list[tuple[int, int, str, str | None]] = []
    for offset, (number, text, *rejected) in enumerate(spec["lines"]):
        rejected = rejected[0] if rejected else None
        plain = rejected is None and _NINE_BY_NINE.fullmatch(text)
        (picked if plain else others).append((spec["start"] + offset, number, text, rejected))
    if not picked:
        return None, others
    k = len(picked)
    raw = np.frombuffer("".join(text for _, _, text, _ in picked).replace(".", "0").encode("ascii"), np.uint8)
    puzzles = (raw - ord("0")).reshape(k, 81)
    columns = _check_and_solve(spec, 3, puzzles, wanted_blanks=None)
    columns.update(case=np.array([case for case, _, _, _ in picked], np.int64),
                   line=np.array([number for _, number, _, _ in picked], np.int64), source=spec["source"],
                   family="input")
    return _table(spec, columns, k, worker=worker), others


def _check_and_solve(spec: Spec, box: int, puzzles: Array, *, wanted_blanks: int | None) -> dict[str, Any]:
    """Time the count, the blank rule and the solve of a batch per case; then verify, untimed.

    Returns the columns (numpy arrays, Arrow arrays or one value for every row) of the schema
    that these phases fill.
    """
    k = len(puzzles)
    counts, unique, unique_guesses, unique_s = _count(spec["check_engine"], puzzles)
    t0 = _clock()
    blanks = (puzzles == 0).sum(axis=1)
    blanks_ok = blanks >= (wanted_blanks if wanted_blanks is not None else min_blanks(box))
    blanks_s = np.full(k, (_clock() - t0) / k)
    answer_counts, answers, guesses, nodes, solve_s = _solve_each(engines.load(spec["engine"]), puzzles, limit=1)

    answered = answer_counts > 0
    solved_ok, kept, matches = verify.solved(puzzles, counts, answered, answers, unique, box)
    one = counts == 1
    suspect = ~solved_ok | ~kept | (one & ~matches)
    if wanted_blanks is not None:
        suspect |= ~one | ~blanks_ok
    reasons: list[str | None] = [None] * k
    for i in np.flatnonzero(suspect):
        found = verify.problems(solved_ok=bool(solved_ok[i]), givens_kept=bool(kept[i]),
                                matches_unique=bool(matches[i]) if one[i] else None, solutions=int(counts[i]),
                                created=wanted_blanks is not None, blanks=int(blanks[i]), wanted_blanks=wanted_blanks)
        reasons[i] = "; ".join(found) or None
    failed = np.array([reason is not None for reason in reasons], dtype=bool)
    graded = _grade_each(box, puzzles, unique, one) if spec.get("grade") else {}
    if spec.get("canonical"):
        graded["canonical"] = pa.array([canonical_line(Grid(box, row.tolist())) for row in puzzles], pa.string())
    return {**graded,
        "size": box * box, "puzzle": lines(puzzles), "solution": lines(answers, present=answered),
        "clues": puzzles.shape[1] - blanks, "blanks": blanks, "solutions": counts, "unique": one,
        "blanks_ok": blanks_ok, "solved_ok": solved_ok, "givens_kept": kept,
        "matches_unique": pa.array(matches, pa.bool_(), mask=~one),
        "outcome": pa.array(np.where(failed, "failed", "ok"), pa.string()), "reason": pa.array(reasons, pa.string()),
        "unique_s": unique_s, "blanks_s": blanks_s, "solve_s": solve_s,
        "guesses": guesses, "nodes": nodes, "unique_guesses": unique_guesses,
    }


def graded(puzzle: Grid, solution: Grid | None) -> dict[str, Any]:
    """The level and score columns of one puzzle whose unique ``solution`` (a Grid) is known."""
    from sudoku.grade import grade  # here: only runs with --grade load the techniques

    result = grade(puzzle, solution=solution)
    return {"level": result.level, "score": result.score}


def canonical_line(puzzle: Grid) -> str | None:
    """The canonical column of one puzzle: its canonical form in the line format; None above 9x9."""
    from sudoku.canonical import BOXES, canonical
    from sudoku.formats import render

    return render(canonical(puzzle), "line").rstrip("\n") if puzzle.box in BOXES else None


def _grade_each(box: int, puzzles: Array, solutions: Array, unique: Array) -> dict[str, Any]:
    """The level and score columns of a batch: null where the puzzle has not exactly one solution."""
    from sudoku.grid import Grid

    levels: list[str | None] = [None] * len(puzzles)
    scores: list[int | None] = [None] * len(puzzles)
    for i in np.flatnonzero(unique):
        found = graded(Grid(box, puzzles[i].tolist()), Grid(box, solutions[i].tolist()))
        levels[i], scores[i] = found["level"], found["score"]
    return {"level": pa.array(levels, pa.string()), "score": pa.array(scores, pa.int32())}


def _count(name: str, puzzles: Array) -> tuple[Array, Array, Array, Array]:
    """(counts, first solutions, guesses, seconds per puzzle) of the check engine counting to 2."""
    if "timed" in engines.info(name).capabilities:
        counts, solutions, guesses, _, elapsed_ns = engines.load(name).solve_batch(puzzles, limit=2, timed=True)
        return counts, solutions, guesses, elapsed_ns / 1e9
    counts, solutions, guesses, _, seconds = _solve_each(engines.load(name), puzzles, limit=2)
    return counts, solutions, guesses, seconds


def _solve_each(engine: ModuleType, puzzles: Array, *, limit: int) -> tuple[Array, Array, Array, Array, Array]:
    """``engine.solve_batch`` on one puzzle at a time, each call timed: (counts, solutions, guesses,
    nodes, seconds), arrays as one batch call would give, plus seconds per puzzle."""
    k = len(puzzles)
    counts, solutions = np.empty(k, np.int32), np.empty_like(puzzles)
    guesses, nodes, seconds = np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k)
    for i in range(k):
        t0 = _clock()
        for _ in range(SOLVE_REPEATS):
            answer = engine.solve_batch(puzzles[i : i + 1], limit=limit)
        seconds[i] = _clock() - t0
        counts[i], solutions[i], guesses[i], nodes[i] = answer[0][0], answer[1][0], answer[2][0], answer[3][0]
    return counts, solutions, guesses, nodes, seconds


def lines(grids: Array, *, present: Array | None = None) -> Any:
    """A string array of ``grids`` (uint8[k, cells]) in the line format, built from one buffer;
    null where ``present`` (bool[k]) is false."""
    k, cells = grids.shape
    offsets = np.arange(0, (k + 1) * cells, cells, dtype=np.int32)
    text = pa.StringArray.from_buffers(k, pa.py_buffer(offsets), pa.py_buffer(_ALPHABET[grids].tobytes()))
    return text if present is None else pc.if_else(pa.array(present), text, pa.scalar(None, pa.string()))


def _table(spec: Spec, columns: dict[str, Any], k: int, *, worker: str) -> Any:
    """The schema's table from ``columns``: arrays as they are, a plain value repeated on every row,
    null for a column not given; then the columns every row of a chunk shares."""
    columns.update(schema_version=SCHEMA_VERSION, run_id=spec["run_id"], chunk=spec["chunk"], seed=spec["seed"],
                   engine=spec["engine"], check_engine=spec["check_engine"], difficulty=spec.get("difficulty"),
                   worker=worker, timestamp=datetime.now(timezone.utc))
    arrays = []
    for field in SCHEMA:
        value = columns.get(field.name)
        if value is None:
            arrays.append(pa.nulls(k, field.type))
        elif isinstance(value, (np.ndarray, pa.Array)):
            arrays.append(pa.array(value, field.type) if isinstance(value, np.ndarray) else value.cast(field.type))
        else:
            arrays.append(pa.repeat(pa.scalar(value, field.type), k))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)
