"""The fuzz run's summary: what a run found, rendered twice (whole, as Markdown for summary.md and
``--md``; short, as ``sudoku.display`` blocks for a terminal or a pipe), the manifest's record of
each bug and target, and the ``--json`` of ``fuzz run``, ``fuzz replay`` and ``fuzz probe``: one object,
``{"schema": "fuzz.run" | "fuzz.replay" | "fuzz.probe", "version": 4, ...}``, snake_case keys, as
``reports`` writes; ``JSON_VERSION`` goes up on any change of shape (docs/fuzz.md lists the keys).
Rendering only: the run itself is conducted by ``fuzz.engine``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sudoku.display import Table

    from fuzz.config import FuzzConfig
    from fuzz.outcome import Outcome, Still
    from fuzz.probe import Finding
    from fuzz.triage import Saved

SPACED_READER = ("refuses the classic text of a known-good puzzle but solves it with a space after every number: "
                 "every other puzzle case is spelled that way, so its solver is tested past its reader")
CONTRACT_APART = ("not counted as a bug: the run asked for a dialect with --create-args, --solve-args or --format; "
                  "exit 0 unless --fail-contract")


FINDINGS = {  # a saved group's status (``triage.STATUSES``) -> its section's heading, after the count
    "bug": "distinct bug",
    "slow": "slow answer",
    "unconfirmed": "unconfirmed failure",
}
APART = {  # what the sections apart from the bugs say of themselves
    "slow": "not bugs: over the CPU limit, but each answered given 4x the CPU; exit 0 unless --fail-slow",
    "unconfirmed": "not counted as bugs: each failed once in the run and never in its 3 replays; "
                   "exit 0 unless --fail-unconfirmed",
}


def by_status(saved: Sequence[Any]) -> dict[str, list[Any]]:
    """The saved groups (``Saved``, or manifest records) by status, bugs first, each list in order."""
    from fuzz.triage import status_of

    found: dict[str, list[Any]] = {status: [] for status in FINDINGS}
    for one in saved:
        found[one.status if hasattr(one, "status") else status_of(one)].append(one)
    return found


def target_rows(config: FuzzConfig, records: Any, saved: Sequence[Saved]) -> list[dict[str, Any]]:
    """One row per target for the summary's matrix: cases, failing cases per oracle, slips, bugs
    (slow answers and unconfirmed failures counted apart; a target with only those is 'ok'); a target
    run in a dialect whose contract's own spelling fails has it (``contract``) with the help for it
    (``contract_help``: feedback pages show both, and reports do not import fuzz)."""
    import pyarrow.compute as pc

    from fuzz.targets import make_target
    from fuzz.wording import CONTRACT_HELP

    rows: list[dict[str, Any]] = []
    for spec in config.targets:
        name = spec["spec"]
        why = config.cannot_start.get(name)
        if why:
            said = config.cannot_start_said.get(name)
            rows.append({"target": name, "status": "cannot start", "detail": why, **({"said": said} if said else {})})
            continue
        mine = records.filter(pc.equal(records.column("target"), make_target(**spec).name)).select(
            ["outcome", "oracles_failed", "format_slips", "notes"]).to_pylist()
        failing = Counter(o for r in mine if r["oracles_failed"] for o in r["oracles_failed"].split(","))
        found = by_status([one for one in saved if one.target == name])
        rows.append({"target": name, "status": "failed" if found["bug"] or failing and not saved else "ok",
                     "cases": len(mine),
                     "failed": sum(r["outcome"] == "failed" for r in mine), "oracles": dict(failing),
                     "slips": sum(1 for r in mine if r["format_slips"]),
                     "differs": sum(1 for r in mine if "differs" in (r["notes"] or "").split(",")),
                     "bugs": len(found["bug"]), "slow": len(found["slow"]), "unconfirmed": len(found["unconfirmed"]),
                     **({"contract": broken, "contract_help": CONTRACT_HELP}
                        if (broken := config.contract_breaks.get(name)) else {})})
    return rows


def differential(config: FuzzConfig, records: Any) -> dict[str, Any] | None:
    """What the differential check and the reference found, per case of the run (not per target row):
    puzzles with one solution compared across targets, the targets named as differing on each, the
    cases where all targets agreed against the expected answer, and the reference's failures and
    overrulings. None when the run had one target and no reference."""
    stride = config.stride
    if stride < 2 and not config.reference:
        return None
    rows = records.select(["case", "family", "solutions", "target", "notes"]).to_pylist()
    notes = [(row, set((row["notes"] or "").split(","))) for row in rows]

    def cases_with(note: str) -> int:
        return len({row["case"] // stride for row, have in notes if note in have})

    found: dict[str, Any] = {"targets": stride,
             "compared": len({row["case"] // stride for row in rows if row["solutions"] == 1
                              and row["family"] not in ("create", "roundtrip")}) if stride > 1 else 0,
             "differs": dict(Counter(row["target"] for row, have in notes if "differs" in have)),
             "differs_cases": cases_with("differs"), "oracle_doubted": cases_with("oracle_doubted")}
    if config.reference:
        found["reference"] = {"spec": config.reference["spec"],
                              "asked": len({row["case"] // stride for row in rows
                                            if row["family"] not in ("create", "roundtrip")}),
                              "failed": cases_with("reference_failed"), "overruled": cases_with("reference_overruled")}
    return found


def differential_lines(found: dict[str, Any] | None, code: Callable[[str], str] | None = None) -> list[str]:
    """The summary's lines for ``differential``'s findings: Markdown, or with ``code`` (how to show a
    command, e.g. sudoku.display.visible) the plain lines of the terminal summary."""
    if not found:
        return []
    from sudoku.display import md_code

    plain = code is not None
    code = code or md_code
    expected = "the reference" if "reference" in found else "our engine"
    out = [] if plain else ["## Differential check", ""]
    if found["targets"] > 1:
        named = ", ".join(f"{code(target)} on {count}" for target, count in sorted(found["differs"].items()))
        named = named or "none"
        out.append(f"{found['compared']} puzzles with one solution, each asked of {found['targets']} targets: "
                   f"a target's grid differed from another's and from {expected}'s on {found['differs_cases']} "
                   f"(named: {named}); all targets agreed against {expected} on {found['oracle_doubted']}"
                   + (" (the expected answer may be wrong there)" if found["oracle_doubted"] else ""))
    if "reference" in found:
        ref = found["reference"]
        out.append(f"reference {code(ref['spec'])}: asked {ref['asked']} cases; it failed on {ref['failed']} (not "
                   f"compared: only hangs, floods and crashes judged there); it overruled our engine on "
                   f"{ref['overruled']}")
    return out if plain else out + [""]


def group_record(one: Saved) -> dict[str, Any]:
    """A Saved group as JSON for the manifest (where ``reports`` finds it)."""
    return {"target": one.target, "signature": one.signature, "cases": one.cases, "case": one.case,
            "folder": str(one.folder),
            "detail": one.detail, "confirmed": one.confirmed, "flaky": one.flaky, "intermittent": one.intermittent,
            "replay": one.replay, "input": shown_input(one.text), "text": one.text.decode("utf-8", "backslashreplace"),
            "families": one.families, "also": one.also, "side": one.side, "expected": one.expected,
            "actual": one.actual, "mark": one.mark, "shrink_note": one.note,
            "samples": [str(folder) for folder in one.samples], "status": one.status,
            **words_record(one)}


def words_record(one: Saved) -> dict[str, str]:
    """The bug in words (``fuzz.wording``): title, cause and help, kept in its record, since ``reports``
    cannot compute them."""
    from fuzz.wording import words_of

    return words_of(one)._asdict()


def matrix(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The targets-by-oracles table: failing cases per oracle, format slips, distinct bugs, status."""
    from sudoku.display import md_code, md_text

    oracles = sorted({oracle for row in rows for oracle in row.get("oracles", {})})
    out = ["## Targets", "", "| target | status | cases | failed | " + "".join(f"{o} | " for o in oracles)
           + "differs | format slips | bugs |", "|---|---|---:|---:|" + "---:|" * len(oracles) + "---:|---:|---:|"]
    for row in rows:
        if row["status"] == "cannot start":
            out.append(f"| {md_code(row['target'])} | cannot start: {md_text(row['detail'])} |"
                       + " |" * (len(oracles) + 5))
            continue
        cells = "".join(f"{row['oracles'].get(o, 0) or ''} | " for o in oracles)
        out.append(f"| {md_code(row['target'])} | {row['status']} | {row['cases']} | {row['failed']} | {cells}"
                   f"{row.get('differs', 0) or ''} | {row['slips']} | {row['bugs']} |")
    return out + [""]


CLASS_WIDTH = 80  # columns a class's one line per target fits, whatever the terminal
NAME_WIDTH = 36  # a longer name is cut: the bugs keep the rest of the line


def class_lines(rows: Sequence[dict[str, Any]], saved: Sequence[Saved], width: int = CLASS_WIDTH) -> list[str]:
    """A run of several targets in a line each, for the end of the short summary: the target's short
    name (``sudoku.display.short_name``, as its feedback and corpus folders are named), ok, failed or
    cannot start, and its bugs in a few words (their own oracles), each line cut to ``width``: a
    class of thirty reads in a terminal of any width (the matrix, a column per oracle, is in
    summary.md and ``--md``)."""
    from fuzz.oracles import oracles_of
    from sudoku.display import counted, cut, marked, short_name, visible

    if not rows:
        return []
    taken: set[str] = set()
    names = [short_name(row["target"], taken) for row in rows]
    name_width = min(max(map(len, names), default=0), NAME_WIDTH)
    out = ["per target (a column per oracle: summary.md, or --md):"]
    for name, row in zip(names, rows):
        if row["status"] == "cannot start":
            what, style = f"cannot start: {visible(_why_short(row), newlines=False)}", "bad"
        else:
            own = Counter(oracles_of(one.signature)[0] for one in saved if one.target == row["target"])
            if own:
                found = f"{counted(sum(own.values()), 'bug')}: {', '.join(own)}"
            else:
                found = counted(row.get("failed", 0), "failed case") if row.get("failed") else "no bug found"
            if row.get("contract"):  # apart from its bugs, as in the summary: the contract's own spelling
                found += f"; contract's own {' and '.join(one['call'] for one in row['contract'])} fails"
            what, style = f"{row['status']:<6}  {found}", "bad" if row["status"] == "failed" else "good"
        out.append(marked(cut(f"  {cut(name, name_width):<{name_width}}  {what}", width), style))
    return out


def _why_short(row: dict[str, Any]) -> str:
    """Why a target cannot start, in its own words when it answered without a grid (the line of its
    output that says most: "SyntaxError: ...", "Usage: ..."), else the pre-flight's line (a missing
    program's)."""
    from fuzz.oracles import message_line

    for call in row.get("said") or []:
        if said := message_line(call["stderr"].encode(), call["stdout"].encode()):
            return said
    return str(row.get("detail", ""))


def shown_input(text: bytes, *, width: int = 400, rows: int = 12) -> str:
    """A reproducer's input for people: whole when short (with \\r, \\t and control bytes visible),
    else its start and its length."""
    from sudoku.display import visible

    shown = visible(text)
    if len(shown) <= width and shown.count("\n") <= rows:
        return shown
    return shown[:80] + f"... ({len(text)} bytes)"


def still_failing(count: int) -> str:
    return f"{count} still fail{'s' if count == 1 else ''}"


def still_line(one: Still) -> str:
    """A saved reproducer failing in a replay, for people: the bug back, or failing another way now."""
    if one.slow is not None:
        return f"slow (not a failure): {one.folder}: {one.signature}: {one.slow}"
    if one.saved_as is None or one.signature == one.saved_as:
        return f"still fails: {one.folder}: {one.signature}"
    return f"fails another way now: {one.folder}: {one.signature} (saved as {one.saved_as})"


def still_json(one: Still) -> dict[str, Any]:
    return {"reproducer": str(one.folder), "signature": one.signature, "saved_as": one.saved_as, "slow": one.slow}


MAX_STILL_SHOWN = 10  # reproducers still failing listed in the short summary (summary.md has every one)


def contract_lines(contract: dict[str, list[dict[str, Any]]], *, several: bool,
                   code: Callable[[str], str] | None = None) -> list[str]:
    """The summary's lines for the targets run in a dialect whose contract's own spelling fails
    (``FuzzConfig.contract_breaks``: target -> each call of it not understood): a heading that says it
    is not counted as a bug, then each call (``Break.line``, its words already escaped), by target
    when the run has several. Markdown, or with ``code`` (how to show a target's name, e.g.
    sudoku.display.visible) the plain lines of the terminal summary."""
    from fuzz.wording import CONTRACT_HELP
    from sudoku.display import marked, md_code, md_text

    if not contract:
        return []
    calls = [(name, one["line"]) for name, breaks in contract.items() for one in breaks]
    if code is not None:
        return [marked(f"the contract's own spelling fails ({CONTRACT_APART}):", "warn")] + [
            f"  {code(name) + ': ' if several else ''}{line}" for name, line in calls] + [f"  look at: {CONTRACT_HELP}"]
    return ["## The contract's own spelling fails", "", md_text(f"{CONTRACT_APART[0].upper()}{CONTRACT_APART[1:]}."),
            ""] + [f"- {md_code(name) + ': ' if several else ''}{md_text(line)}" for name, line in calls] + [
            "", f"look at: {md_text(CONTRACT_HELP)}", ""]


def render(outcome: Outcome) -> tuple[str, list[str | Table]]:
    """A run's summary twice (``outcome``: a ``fuzz.engine.Outcome``): whole, as Markdown (summary.md,
    ``--md``), and short, as ``sudoku.display`` blocks for stdout: counts, each bug with its input and
    replay line, failures per oracle, where the rest is. A target's text (details, inputs, names) is
    escaped for each medium."""
    from fuzz.cases import shown as families_shown
    from fuzz.show import bug_lines, state_of
    from fuzz.wording import words_of
    from sudoku.display import counted, marked, md_block, md_code, md_text, visible

    manifest, records, saved, replayed, still, run_dir, run_corpus, phases, skipped = outcome

    rows = records.select(["family", "outcome", "oracles_failed", "format_slips", "notes", "target_s", "case",
                           "target", "cpu_s"]).to_pylist()
    config = outcome.config
    totals = manifest["totals"]
    wall = manifest["wall_s"] + sum(phases.values())
    spent = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in phases.items() if seconds >= 0.05)
    several = len(config.targets) > 1
    head = f"fuzz run {manifest['run_id']}: {manifest['status'].replace('_', ' ')}"
    if manifest["status"] == "finished_early":  # as asked (--max-failures): say why, and how much ran
        head += (f" (stopped after {counted(totals['failed'], 'failed case')}, --max-failures "
                 f"{config.max_failures}: {totals['cases']} of {manifest.get('plan', {}).get('cases', '?')} "
                 "cases run)")
    contract = config.contract_breaks
    untriaged = manifest["status"] == "interrupted" and totals["failed"] and not saved
    findings = by_status(saved)
    bugs = ("not yet grouped into bugs (the resume shrinks and saves them)" if untriaged
            else counted(len(findings["bug"]), "distinct bug") + (" so far" if manifest["status"] == "interrupted" else "")
            + "".join(f", {counted(len(findings[status]), FINDINGS[status])}" for status in APART if findings[status])
            + (", the contract's own spelling broken" + (f" on {counted(len(contract), 'target')}" if several else "")
               if contract else ""))
    counts = (f"{counted(totals['cases'], 'case')}, {totals['failed']} failed, {bugs}; "
              f"{wall:.1f}s wall on {counted(config.workers, 'worker')}"
              + (f" (cases {manifest['wall_s']:.1f}s, {spent})" if spent else ""))
    failing = [one for one in still if one.slow is None]
    replays = (f"replayed {counted(replayed, 'saved reproducer')}: {still_failing(len(failing))}"
               + (f", {len(still) - len(failing)} slow (not failures)" if len(failing) < len(still) else "")
               + (f"; {counted(skipped, 'corpus entry', 'corpus entries')} skipped, unreadable (each named on "
                  "stderr)" if skipped else ""))
    spaced = [f"{name} {SPACED_READER}" for name in config.spaced_readers]
    seed = f", seed {config.seed}, " + (f"families: {families_shown(config.families, config.mode)}, "
                                        if config.families else "")
    out = [f"# {md_text(head)}", "",
           (f"{len(config.targets)} targets" if several else f"target {md_code(config.target['spec'])}")
           + md_text(seed) + counts, replays, *[md_text(line) for line in spaced], ""]
    failed = "bad" if findings["bug"] or untriaged else None
    short: list[str | Table] = [marked(head, failed), marked((f"{len(config.targets)} targets" if several
                                           else f"target {config.target['spec']}")
                                          + seed + counts, failed),
             marked(replays, "bad" if failing else None), *[visible(line, newlines=False) for line in spaced]]
    if still:  # which: each with what it does now (a bug that came back, or changed its way of failing)
        failing_lines = [still_line(one) for one in still]
        out[-1:-1] = [md_text(line) for line in failing_lines]
        short += [marked(visible(line, newlines=False), "bad" if one.slow is None else "warn")
                  for one, line in zip(still, failing_lines[:MAX_STILL_SHOWN])]
        if len(failing_lines) > MAX_STILL_SHOWN:
            short.append(f"... and {len(failing_lines) - MAX_STILL_SHOWN} more still failing (summary.md lists them all)")
    out += contract_lines(contract, several=several)  # before the bugs: what the run did not ask, then what it did
    short += contract_lines(contract, several=several, code=partial(visible, newlines=False))
    rows_by_target = (manifest.get("fuzz", {}).get("targets") or target_rows(config, records, saved)) if several else []
    out += matrix(rows_by_target) if several else []
    found = manifest.get("fuzz", {}).get("differential") or differential(config, records)
    out += differential_lines(found)
    short += [f"differential check: {line}" for line in differential_lines(found, code=visible)]
    for status, kind in FINDINGS.items():  # the bugs, then slow answers and unconfirmed failures apart
        if not findings[status]:
            continue
        heading = counted(len(findings[status]), kind) + (f" ({APART[status]})" if status in APART else "")
        out += [f"## {md_text(heading)}", ""]
        short.append(marked(f"{heading}:", "bad" if status == "bug" else "warn"))
        for number, one in enumerate(findings[status], 1):
            state = state_of(one)
            who = f"{one.target}: " if several else ""
            shown = counted(one.cases, "case")
            said = words_of(one)
            out.append(f"{number}. {md_code(who) if several else ''}**{md_text(said.title)}**: {shown}; "
                       f"{md_text(one.detail)} ({state})")
            out += [""] + ([f"   why: {md_text(said.cause)}", ""] if said.cause else []) + [
                f"   look at: {md_text(said.help)}", "",
                f"   id: {md_code(one.signature)}" + (f" (also met as: {'; '.join(md_code(other) for other in one.also)})"
                                                      if one.also else "")]
            if one.text:
                out += ["", "   input:", ""] + [f"   {line}" for line in md_block(shown_input(one.text)).split("\n")] \
                    + [""]
            out += [f"   replay: {md_code(one.replay)}", ""]
            short += bug_lines(one, number, several=several)
    out += ["| family | cases | failed |", "|---|---:|---:|"]
    cases, fails = Counter(r["family"] for r in rows), Counter(r["family"] for r in rows if r["outcome"] == "failed")
    out += [f"| {md_text(family)} | {count} | {fails[family]} |" for family, count in sorted(cases.items())]
    oracles = Counter(o for r in rows if r["oracles_failed"] for o in r["oracles_failed"].split(","))
    out += ["", "| oracle | failures |", "|---|---:|"]
    out += [f"| {md_text(oracle)} | {count} |" for oracle, count in oracles.most_common()] or ["| (none) | 0 |"]
    short.append("failures per oracle: " + (", ".join(f"{oracle} {count}" for oracle, count in oracles.most_common())
                                            or "none"))
    slips = Counter(s for r in rows if r["format_slips"] for s in r["format_slips"].split(","))
    if slips:
        line = "format slips (failures only with --strict): " + ", ".join(
            f"{slip} {count}" for slip, count in slips.most_common())
        out += ["", md_text(line)]
        short.append(line)
    notes = Counter(n for r in rows if r["notes"] for n in r["notes"].split(","))
    if notes:
        line = "notes (not failures): " + ", ".join(f"{note} {count}" for note, count in notes.most_common())
        out += ["", md_text(line)]
        short.append(line)
    slowest = sorted((r for r in rows if r["target_s"] is not None), key=lambda r: -r["target_s"])[:5]
    out += ["", "slowest cases (wall time, which a busy machine stretches; CPU time, which the limit is on): "
            + ", ".join(f"#{r['case']} {md_text(r['family'])}" + (f" on {md_code(r['target'])}" if several else "")
                        + f" {r['target_s'] * 1000:.1f} ms" + (f" ({r['cpu_s'] * 1000:.1f} ms CPU)"
                                                                 if r["cpu_s"] is not None else "") for r in slowest)]
    where = [f"records: {run_dir.path}/parts, {run_dir.csv_path}",
             f"summary: {run_dir.path}/summary.md (with plots: reports show {run_dir.path} --html report.html)",
             f"corpus: {run_corpus}{_corpus_note(run_corpus, config, untriaged=bool(untriaged))}"]
    return "\n".join(out + [""] + where), short + where + class_lines(rows_by_target, saved)


def _corpus_note(run_corpus: Path, config: FuzzConfig, *, untriaged: bool) -> str:
    """What the last line says of the run's corpus: where else its reproducers are kept, or why it is empty."""
    if run_corpus.exists():
        return f" (kept in {_near(config.corpus)} too: later runs replay it first)" if config.corpus else ""
    return " (empty: the failures are saved once the run is resumed)" if untriaged else " (empty: nothing failed)"


def _near(path: str) -> str:
    """``path`` from the working folder when it lies under it (the run's paths are shown so), else whole."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


JSON_VERSION = 4  # the shape of fuzz run/replay/probe --json; bump it on any change


def _json(schema: str, **fields: Any) -> str:
    import json

    return json.dumps({"schema": schema, "version": JSON_VERSION, **fields}, indent=2, default=str) + "\n"


def bug_json(one: Saved) -> dict[str, Any]:
    """One bug for ``--json``: what failed, where its reproducer is, and the line that replays it."""
    return {"target": one.target, "signature": one.signature, "cases": one.cases, "case": one.case,
            "detail": one.detail, "confirmed": one.confirmed, "flaky": bool(one.flaky),
            "intermittent": one.intermittent, "families": list(one.families or []), "also": list(one.also or []),
            "side": one.side, "reproducer": str(one.folder), "input": one.text.decode("utf-8", "backslashreplace"),
            "replay": one.replay, "status": one.status, **words_record(one)}


def run_json(outcome: Outcome, code: int) -> str:
    """``fuzz run --json``: the run's counts, its bugs, the saved reproducers that still fail, each
    target's row, where the records, summary and corpus are, and the exit code it ends with."""
    manifest, config, run_dir = outcome.manifest, outcome.config, outcome.run_dir
    interrupted = manifest["status"] == "interrupted"
    return _json("fuzz.run", run_id=manifest["run_id"], status=manifest["status"], exit_code=code,
                 seed=config.seed, mode=config.mode, size=config.size,
                 families=list(config.families) if config.families else None, max_failures=config.max_failures,
                 targets=[spec["spec"] for spec in config.targets],
                 cannot_start=dict(config.cannot_start),
                 spaced_readers=list(config.spaced_readers),
                 contract_breaks=dict(config.contract_breaks),
                 cases=manifest["totals"]["cases"], failed=manifest["totals"]["failed"],
                 distinct_bugs=len(by_status(outcome.saved)["bug"]),
                 bugs=[bug_json(one) for one in by_status(outcome.saved)["bug"]],
                 slow=[bug_json(one) for one in by_status(outcome.saved)["slow"]],
                 unconfirmed=[bug_json(one) for one in by_status(outcome.saved)["unconfirmed"]],
                 replayed=outcome.replayed, replay_skipped=outcome.skipped,
                 still_fail=[still_json(one) for one in outcome.still if one.slow is None],
                 still_slow=[still_json(one) for one in outcome.still if one.slow is not None],
                 per_target=manifest.get("fuzz", {}).get("targets"),
                 wall_s=manifest["wall_s"] + sum(outcome.phases.values()),
                 phases_s={name: round(seconds, 3) for name, seconds in outcome.phases.items()},
                 run_dir=str(run_dir.path), records=str(run_dir.csv_path), summary=str(run_dir.path / "summary.md"),
                 corpus=str(outcome.run_corpus), resume=f"fuzz run --resume {run_dir.path}" if interrupted else None)


def replay_json(target: str, count: int, still: Sequence[Still], code: int) -> str:
    """``fuzz replay --json``: how many reproducers ran and each that still fails, with its signature now."""
    failing = [one for one in still if one.slow is None]
    return _json("fuzz.replay", target=target, exit_code=code, replayed=count, passed=count - len(still),
                 still_fail=[still_json(one) for one in failing],
                 slow=[still_json(one) for one in still if one.slow is not None])


def probe_json(target: str, finding: Finding, found: str | None, code: int) -> str:
    """``fuzz probe --json``: whether the contract's own spelling works (``contract``: each call of it
    the program does not understand, as ``Break._asdict``), then the spellings found (None where none
    worked), the ``fuzz run`` line they make, and every spelling tried with what came of it."""
    import shlex

    works = finding.create_args is not None and finding.solve_args is not None
    return _json("fuzz.probe", target=target, exit_code=code, keeps_contract=not finding.breaks,
                 contract=[one._asdict() for one in finding.breaks], create_args=finding.create_args,
                 solve_args=finding.solve_args, format=finding.format,
                 command=(f"fuzz run --target {shlex.quote(target)}" + (f" {found}" if found else "")) if works
                 else None, tried=[{"what": what, "outcome": outcome} for what, outcome in finding.tried])


def write(path: Path, text: str) -> None:
    """Write a file of the run, whole or not at all and never through a link (``sudoku.files``); the OS
    refusing is one line and exit 3, as for the runner's files."""
    from sudoku.files import write_file
    from jobs.store import WriteError

    try:
        write_file(path, text)
    except OSError as error:
        raise WriteError(f"cannot write {path}: {error.strerror or error}") from None
