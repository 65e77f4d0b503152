"""The fuzz task for the ``jobs`` runner: a chunk spec in, one record per case out."""

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timezone
from math import isqrt
from typing import Any

from sudoku import Grid, engines, render

from fuzz import corpus as store
from fuzz.cases import (SIZES, Case, case_class, in_unwritable_folder, make_case, make_check_case, pool_maker,
                        respaced, solve_after_create)
from fuzz.oracles import VERDICTS, Verdict, differ, judge_check, judge_contained, judge_create, judge_solve, signature
from fuzz.reference import Expected, asks, expect
from fuzz.targets import Result, Target, make_target
from jobs.schema import SCHEMA_VERSION
from fuzz.config import FuzzConfig
from jobs.task import Task
from jobs.tasks import worker_id

log = logging.getLogger("jobs.fuzz")
MAX_TEXT = 4096
_targets: dict[tuple[tuple[str, Any], ...], Target] = {}


def target_of(options: dict[str, Any]) -> Target:
    """The target a spec names, made once per worker (and reused by the triage phase's tasks)."""
    key = tuple(sorted(options.items()))
    if key not in _targets:
        _targets[key] = make_target(**options)
    return _targets[key]


def run_case(case: Case, target: Target, *, strict: bool = False, check_engine: str = "py",
             words: Sequence[str] | None = None, exits: Sequence[int] | None = None,
             shows: str | None = None) -> tuple[Verdict, Result]:
    """Ask the target, judge the answer: (verdict, result). A create case asks ``case.calls`` times;
    its result is the call the verdict's evidence names (the first that shows ``shows``, a failure
    "oracle:kind", when one does), with the wall and CPU time of every call."""
    header = target.header
    if case.command == "check":
        result = target.check(case.text)
        return judge_check(case, result, words=words or VERDICTS, exits=exits, strict=strict), result
    if case.command == "roundtrip":
        return round_trip(case, target, strict=strict, check_engine=check_engine)[:2]
    if case.command == "create":
        results = [target.create(side=case.side) for _ in range(case.calls)]
        verdict = judge_create(results, side=case.side, header=header, strict=strict, check_engine=check_engine)
        if shows and verdict.showing and shows in verdict.showing:
            verdict = _shown(verdict, shows, results, case, header, check_engine)
        return verdict, results[verdict.evidence]._replace(seconds=sum(r.seconds for r in results),
                                                           cpu_seconds=sum(r.cpu_seconds for r in results))
    result = target.solve(case.text, unwritable=True) if in_unwritable_folder(case) else target.solve(case.text)
    return judge_solve(case, result, side=case.side, header=header, strict=strict), result


def _shown(verdict: Verdict, shows: str, results: Sequence[Result], case: Case, header: bool,
           check_engine: str) -> Verdict:
    """A create verdict whose evidence is the first call that shows ``shows`` ("oracle:kind"), and
    whose failure of that oracle is told as that call's (a create with two bugs is saved, and
    described, by an output that shows the one asked about)."""
    calls = verdict.showing[shows]
    oracle = shows.split(":", 1)[0]
    alone = judge_create([results[calls[0]]], side=case.side, header=header, check_engine=check_engine).failed
    failed = dict(verdict.failed)
    if oracle in alone:  # not create_random, which takes two calls
        share = f"intermittent ({len(calls)} of {len(results)} creates): " if len(calls) < len(results) else ""
        failed[oracle] = alone[oracle]._replace(detail=share + alone[oracle].detail)
    return verdict._replace(evidence=calls[0], failed=failed)


def round_trip(case: Case, target: Target, *, strict: bool = False,
               check_engine: str = "py") -> tuple[Verdict, Result, Case | None]:
    """Create, then solve exactly what create printed (case 25, 75, 125, ... of a run; the way course
    scripts test ``create | solve``): the create half must answer with a grid; the
    solve half is judged as any solve of that puzzle. (verdict, result, the solve half's case or
    None): the result is the solve's (its stdin is the create's output) with the time of both calls."""
    made = target.create(side=case.side)
    first = judge_create([made], side=case.side, header=target.header, strict=False, check_engine=check_engine)
    half = solve_after_create(made.stdout, side=case.side, header=target.header)
    if half is None or "create_answers" in first.failed:
        failed = {name: first.failed[name] for name in first.failed if name in ("create_answers", "no_timeout",
                                                                                 "no_flood", "no_crash")}
        return first._replace(failed=failed, calls=1, calls_failed=int(bool(failed))), made, None
    answer = target.solve(made.stdout)
    verdict = judge_solve(half, answer, side=case.side, header=target.header, strict=strict)
    return verdict._replace(calls=2), answer._replace(seconds=made.seconds + answer.seconds,
                                                      cpu_seconds=made.cpu_seconds + answer.cpu_seconds), half


def case_of(spec: Mapping[str, Any], index: int, *, header: bool = False, spaced: bool = False) -> Case:
    """Case ``index`` of the run a chunk's spec belongs to (or ``FuzzConfig.cases()``, which spells a
    run's as a spec does). For a target that
    reads a number only when a space follows it (``spaced``: ``reads_spaced``), every other puzzle
    case is spelled that way (``fuzz.cases.respaced``): those test its solver past its reader, the
    rest keep the classic text, whose refusal stays a bug of its own."""
    if spec.get("mode") == "check":
        return make_check_case(spec["seed"], index, header=header, size=spec.get("size", 9),
                               only=spec.get("families"))
    case = make_case(spec["seed"], index, n=spec["n"], header=header, size=spec.get("size", 9),
                     only=spec.get("families"))
    return respaced(case) if spaced and index % 2 else case


def reads_spaced(readers: Collection[str], target: dict[str, Any]) -> bool:
    """Whether the pre-flight found that ``target`` (a spec) is one of the ``readers`` of only the
    spelling with a space after every number (``fuzz.engine.preflight``)."""
    return target["spec"] in readers


def signature_of(case: Case, verdict: Verdict, result: Result) -> str | None:
    return signature(case_class(case), verdict, result)


def _line(grid: Grid | None) -> str | None:
    return render(grid, "line").rstrip("\n") if grid is not None else None


def run_chunk(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """One chunk of a run: cases ``first`` .. ``first + cases - 1``, each asked of every target of the
    run in turn (target ``number`` of ``stride`` writes case ``i`` as record ``i * stride + number``,
    so a chunk's records are one unbroken range), the reference asked first when there is one, and
    the targets' answers to each puzzle with one solution compared (the differential check)."""
    targets = [(number, target_of(options)) for number, options in spec["targets"]]
    spaced = {number for number, options in spec["targets"] if reads_spaced(spec.get("spaced_readers", ()), options)}
    reference = target_of(spec["reference"]) if spec.get("reference") else None
    engines.warm(*engines_of(spec))
    records: list[dict[str, Any]] = []
    start = time.perf_counter()
    for index in range(spec["first"], spec["first"] + spec["cases"]):
        rows, cases = _one_case(spec, index, targets, reference, spaced)
        if len(rows) > 1:
            _differ(rows, cases, reference)
        records += rows
    failed = sum(r["outcome"] == "failed" for r in records)
    log.info("fuzz chunk %d: %d cases, %d failed, %.2fs on %s", spec["chunk"], len(records), failed,
             time.perf_counter() - start, worker_id())
    return records


def _one_case(spec: dict[str, Any], index: int, targets: Sequence[tuple[int, Target]],
              reference: Target | None, spaced: Collection[int] = ()) -> tuple[list[dict[str, Any]], list[Case]]:
    """Case ``index`` asked of every target: (their records, the case each was judged by). Targets in
    ``spaced`` (their numbers) read only a space after every number (``case_of``)."""
    made: dict[tuple[bool, bool], Case] = {}

    def case_for(header: bool, respace: bool = False) -> Case:  # every target gets the same puzzle, in its spelling
        if (header, respace) not in made:
            made[header, respace] = case_of(spec, index, header=header, spaced=respace)
        return made[header, respace]

    expected: Expected | None = None
    if reference is not None and asks(case_for(reference.header)):
        expected = expect(case_for(reference.header), reference, words=spec.get("verdict_words") or VERDICTS,
                          exits=spec.get("verdict_exit"))
    rows: list[dict[str, Any]] = []
    cases: list[Case] = []
    for number, target in targets:
        case = case_for(target.header, number in spaced)
        if expected is not None and expected.case is not None:
            case = expected.case._replace(text=case.text)  # the reference's answer, in this target's format
        row_index = index * spec["stride"] + number
        one = target.pick(row_index, case.side) if hasattr(target, "pick") else target
        if case.command == "roundtrip":
            verdict, result, half = round_trip(case, one, strict=spec["strict"], check_engine=spec["check_engine"])
            case = half or case  # the record shows the solve half: its input is the create's output
        elif expected is not None and expected.case is None:  # the reference failed: nothing to compare with
            result = one.check(case.text) if case.command == "check" else one.solve(case.text)
            verdict = judge_contained(result)
        else:
            verdict, result = run_case(case, one, strict=spec["strict"], check_engine=spec["check_engine"],
                                       words=spec.get("verdict_words"), exits=spec.get("verdict_exit"))
        row = _record(spec, row_index, case, verdict, result, target, one)
        if expected is not None and expected.note:
            row["notes"] = ",".join(filter(None, [row["notes"], expected.note]))
        rows.append(row)
        cases.append(case)
    return rows, cases


def _differ(rows: list[dict[str, Any]], cases: list[Case], reference: Target | None) -> None:
    """The differential check of one case across targets (``oracles.differ``), written into the rows."""
    case = cases[0]
    if case.command != "solve" or case.family == "roundtrip" or case.count != 1 or case.solution is None:
        return
    answers = [row["solution"] if row["exit_code"] == 0 else None for row in rows]
    source = "the reference's" if reference is not None else "our engine's"
    for row, found in zip(rows, differ(answers, _line(case.solution))):
        if found is None:
            continue
        note, apart, others = found
        row["notes"] = ",".join(filter(None, [row["notes"], note]))
        if note == "differs":
            why = f"differs: its grid is not that of {apart} of the {others} other targets, nor {source}"
            row["reason"] = "; ".join(filter(None, [row["reason"], why]))


def _record(spec: dict[str, Any], index: int, case: Case, verdict: Verdict, result: Result, target: Target,
            one: Target) -> dict[str, Any]:
    puzzle = case.puzzle if case.command == "solve" else verdict.grid
    text = case.text.decode("utf-8", "backslashreplace")
    return {
        "schema_version": SCHEMA_VERSION, "run_id": spec["run_id"], "chunk": spec["chunk"], "case": index,
        "seed": spec["seed"], "source": "fuzz", "family": case.family, "target": target.name,
        "size": case.side, "puzzle": _line(puzzle),
        "solution": _line(verdict.grid) if case.command == "solve" else None,
        "clues": puzzle.clues if puzzle is not None else None,
        "blanks": puzzle.blanks if puzzle is not None else None,
        "solutions": case.count, "unique": case.count == 1 if case.count is not None else None,
        "outcome": "failed" if verdict.failed else "ok",
        "reason": "; ".join(f"{k}: {v.detail}" for k, v in verdict.failed.items()) or None,
        "oracles_failed": ",".join(verdict.failed) or None, "format_slips": ",".join(verdict.slips) or None,
        "signature": signature_of(case, verdict, result), "notes": ",".join(verdict.notes) or None,
        "exit_code": result.exit_code, "target_s": result.seconds, "cpu_s": result.cpu_seconds,
        "calls": verdict.calls, "calls_failed": verdict.calls_failed,
        "input_text": text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"... ({len(text)} characters)",
        "engine": getattr(one, "engine", None), "check_engine": spec["check_engine"],
        "worker": worker_id(), "timestamp": datetime.now(timezone.utc),
    }


def plan(config: FuzzConfig, targets: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The run's chunks: each runs the same slice of cases against every target; target ``number``'s
    case ``i`` is record ``i * len(targets) + number`` (so each record of the run appears exactly once,
    and a chunk's records are one range, as the runner wants). A spec is the chunk's wire form (sent
    to workers, its digest pinned in the plan): plain JSON values, its keys as before the typed config."""
    n, size, stride = config.n, config.chunk, max(1, len(targets))
    return [{"run_id": config.run_id, "chunk": chunk, "first": first, "cases": min(size, n - first),
             "start": first * stride, "count": min(size, n - first) * stride, "stride": stride,
             **config.cases(), "targets": targets, "reference": config.reference, "strict": config.strict,
             "check_engine": config.check_engine,
             "verdict_words": list(config.verdict_words) if config.verdict_words else None,
             "verdict_exit": list(config.verdict_exit) if config.verdict_exit else None,
             "spaced_readers": list(config.spaced_readers)}
            for chunk, first in enumerate(range(0, n, size))]


def engines_of(spec: dict[str, Any]) -> list[str]:
    """The engines a fuzz run's workers use (the checking engine, those making the pools of its sizes,
    those of our own targets), from a chunk spec: each worker warms them once, before its first chunk
    (``jobs.task.Task.engines``)."""
    sides = SIZES if spec.get("size") == "mixed" else (int(spec.get("size", 9)),)
    names = [spec["check_engine"], *(pool_maker(isqrt(side)) for side in sides)]
    names += [name for _, options in spec["targets"] for name in getattr(target_of(options), "engines", ())]
    return list(dict.fromkeys(name for name in names if name))


FUZZ = Task("fuzz", run_chunk, plan, engines=engines_of, config=FuzzConfig,
            files=rf"summary\.md|corpus/(?:{store.OWNED_FILES})|build/.+",
            dirs=rf"corpus|corpus/(?:{store.OWNED_DIRS})|build|build/.+")
"""The fuzz task: cases asked of every target; what it writes beside the runner's files is the run's
own corpus of reproducers (``fuzz.corpus``'s layout), the summary, and with ``--sanitize`` the
targets' builds (``fuzz.build``: copies of their folders, so anything in them)."""
