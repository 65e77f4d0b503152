"""The fuzz run as phases, conducted here and only started by the command line (``fuzz.cli``), as
Hypothesis's engine runs reuse, generate and shrink behind its CLI:

1. **prepare**: every target pre-flighted (a program that cannot start is a row of its own, the
   others go on), the reference checked, the chunks sized by the pre-flight's timing;
2. **replay**: the target's saved reproducers in the shared corpus run first;
3. **generate**: the cases, through the ``jobs`` runner (``fuzz.tasks.FUZZ``);
4. **triage**: failures grouped into bugs, each shrunk and confirmed (``fuzz.triage``), within the
   time the cases took, resumable;
5. **save**: the manifest's record of the bugs, and summary.md (``fuzz.summary`` renders it).

Each phase's time is kept (``Outcome.phases``). Usage errors are ``Usage``; the command line turns
them into one line and exit 2.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from fuzz.outcome import Outcome, Still, real_failures
from sudoku.display import counted

if TYPE_CHECKING:
    from fuzz.config import FuzzConfig
    from fuzz.cases import Case
    from fuzz.corpus import Loaded
    from fuzz.targets import Result, Target
    from fuzz.triage import Saved

PROGRESS_S = 10.0  # seconds between the pre-flight's progress lines
REFERENCE_TRIES = 6  # a reference failing 1 call in 3 at random is refused once in 729 runs
CHUNK_SECONDS = 2.0  # work per chunk against programs: progress moves and an interrupt loses about this much


class Usage(Exception):
    """A run that cannot be made as asked: a bad option, a target or reference that cannot start."""


def target_of_spec(spec: dict[str, Any], where: str = "--target") -> Target:
    """The target a spec (``_target_spec``) names; a bad one is a usage error (``where`` names the
    option it came from)."""
    from fuzz.targets import CannotStart, TargetError, make_target

    try:
        return make_target(**spec, where=where)
    except CannotStart as error:  # its program is missing: whose ("reference ./model does not exist")
        raise Usage(f"{where.removeprefix('--')} {error}") from None
    except TargetError as error:
        raise Usage(str(error)) from None


def preflight(target: Target, side: int, mode: str = "solve", *, timing: list[float] | None = None,
              on_spaced: Callable[[], None] | None = None, answers: bool = True,
              said: list[dict[str, Any]] | None = None) -> str | None:
    """What stops ``target`` from starting at all, in a line, from one known-good solve and one
    create; None when it starts. The wall seconds of each call are added to ``timing`` (a list) when
    one is given: they size the run's chunks.

    A program cannot start when it is missing (its program, interpreter or script), or, with
    ``answers``, when it prints no grid of the size asked for on stdout to either call, whatever
    the exit code (a Python file with a syntax error, a stub that prints its usage and exits 2 on
    every call): every refusal case would then "pass" for a program that never ran. A call that
    hangs or floods is not counted so (a slow program starts; the run judges its hangs). What the
    program said to each call is added to ``said`` (``said_of``) when one is given, for its page.
    ``fuzz probe``, which tries other spellings next, asks for the missing program alone.

    ``on_spaced()`` is called for a target that does not solve the known-good puzzle in the classic
    text but does when a space follows every number: it reads only that spelling (a reader that
    takes a number only before a space), and the run tests its solver past it
    (``fuzz.tasks.case_of``). Check mode (``--mode check``) asks one check of the known-good grid,
    whose answer is a word, not a grid: only a missing program stops it."""
    from fuzz.cases import known_good
    from fuzz.read import find_grid
    from fuzz.targets import startup_failure

    if not hasattr(target, "argv"):
        return None
    text = known_good(header=target.header, side=side)
    calls: tuple[tuple[str, Callable[[], Result]], ...]
    calls = (("check", lambda: target.check(text)),) if mode == "check" else (
        ("solve", lambda: target.solve(text)), ("create", lambda: target.create(side=side)))
    results: list[tuple[str, Result]] = []
    spaced = False
    for name, call in calls:
        result = call()
        if timing is not None:
            timing.append(result.seconds)
        problem = startup_failure(result)
        if problem:
            return problem
        if name == "solve" and (on_spaced is not None or answers) and _reads_only_spaced(target, text, result, side):
            spaced = True
            if on_spaced is not None:
                on_spaced()
        results.append((name, result))
    if mode == "check" or not answers or spaced or any(
            result.timed_out or result.flooded or find_grid(result.stdout, side=side, header=target.header).grid
            for _, result in results):
        return None
    if said is not None:
        said.extend(said_of(name, result) for name, result in results)
    return never_answers(results, side)


def _reads_only_spaced(target: Target, text: bytes, result: Result, side: int) -> bool:
    """Whether ``target`` failed the known-good ``text`` (its ``result``) and solves it spelled with a
    space after every number."""
    from fuzz.cases import from_text, space_after_each
    from fuzz.oracles import judge_solve

    case = from_text("preflight", "solve", text, side=side, engine="py")
    if not judge_solve(case, result, side=side, header=target.header).failed:
        return False
    again = space_after_each(text)
    answer = target.solve(again)
    return not judge_solve(case._replace(text=again), answer, side=side, header=target.header).failed


MAX_SAID = 2000  # characters of a stream kept of a program that cannot start (its page shows them)


def said_of(call: str, result: Result) -> dict[str, Any]:
    """What a program said to one pre-flight call, as its page shows it: the call, the exit code,
    stdout and stderr (decoded, cut to MAX_SAID characters)."""
    def cut(data: bytes) -> str:
        text = data.decode("utf-8", "backslashreplace")
        return text if len(text) <= MAX_SAID else text[:MAX_SAID] + f"... ({len(text)} characters)"

    return {"call": call, "exit_code": result.exit_code, "stdout": cut(result.stdout), "stderr": cut(result.stderr)}


def never_answers(results: Sequence[tuple[str, Result]], side: int) -> str:
    """The line that says a program answered no pre-flight call: each call's exit and the line of
    its own output that says most (``oracles.message_line``), quoted as the program's words."""
    from fuzz.oracles import message_line
    from sudoku.display import visible

    calls = " nor from a ".join(f"{name} (exit {result.exit_code})" for name, result in results)
    line = next((found for _, result in results if (found := message_line(result.stderr, result.stdout))), "")
    words = f"; it said: {visible(line, newlines=False)!r}" if line else "; it printed nothing"
    return f"no {side}x{side} grid on stdout from a known-good {calls}{words}"


def cannot_start(specs: Sequence[dict[str, Any]], side: int, mode: str = "solve", *,
                 timing: list[float] | None = None, spaced: set[str] | None = None,
                 said: dict[str, list[dict[str, Any]]] | None = None,
                 contract: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, str]:
    """{target: why} for the targets that cannot start at all: a program that is missing, not
    executable or not on PATH, or one that fails ``preflight``. The targets that read only a space
    after every number join ``spaced`` (a set) by spec; what each that answered nothing said goes
    into ``said`` by spec (``said_of``). With ``contract`` (a dict), a program that starts in a
    dialect (``--create-args``, ``--solve-args`` or ``--format`` other than the contract's) is asked
    the contract's own spelling once too (``fuzz.probe.contract_breaks``): the calls of it that it
    does not understand go into ``contract`` by spec (``Break._asdict``). Of many targets, progress
    is shown every PROGRESS_S seconds, as the pre-flight of a long list takes minutes."""
    from fuzz.probe import CONTRACT, contract_breaks, dialect
    from fuzz.targets import CannotStart, TargetError, make_target

    found: dict[str, str] = {}
    shown = time.monotonic()
    for number, spec in enumerate(specs, 1):
        output: list[dict[str, Any]] = []
        try:
            problem = preflight(make_target(**spec), side, mode, timing=timing, said=output,
                                on_spaced=None if spaced is None else partial(spaced.add, spec["spec"]))
        except CannotStart as error:
            problem = str(error)
        except TargetError as error:
            raise Usage(str(error)) from None
        if problem:
            found[spec["spec"]] = problem
        elif contract is not None and mode == "solve" and dialect(spec):
            asked = make_target(**{**spec, **CONTRACT})
            breaks = contract_breaks(asked, side=9) if hasattr(asked, "argv") else []  # the classic contract: 9x9
            if breaks:
                contract[spec["spec"]] = [one._asdict() for one in breaks]
        if output and said is not None:
            said[spec["spec"]] = output
        if time.monotonic() - shown >= PROGRESS_S and number < len(specs):
            shown = time.monotonic()
            print(f"fuzz: pre-flight: {number} of {len(specs)} targets tried, {len(found)} cannot start",
                  file=sys.stderr, flush=True)
    return found


def check_reference(spec: dict[str, Any], side: int, *, mode: str, words: Sequence[str] | None,
                    exits: Sequence[int] | None) -> Target:
    """Refuse a --reference that cannot start, or that does not answer the pre-flight's known-good
    puzzle rightly: its answers would stand in for the expected ones and fail correct targets.

    A reference that crashes or prints a broken grid now and then is still of use (the cases it fails
    on are not compared), so it is asked up to REFERENCE_TRIES times and refused only when it never
    answers rightly, or at once when it hangs or gives a clean wrong answer."""
    from fuzz.cases import from_text, known_good
    from fuzz.oracles import VERDICTS
    from fuzz.reference import AGREES, OVERRULED, expect
    from sudoku.display import visible

    reference = target_of_spec(spec, "--reference")
    shown = visible(spec["spec"], newlines=False)
    if (problem := preflight(reference, side, mode, answers=False)) is not None:  # answers: judged next
        raise Usage(f"reference {shown} cannot start: {visible(problem, newlines=False)}")
    text = known_good(header=reference.header, side=side)
    # py counts the easy known-good puzzle at once, where the size's compiled counter would first be
    # loaded here (0.3 s of the pre-flight), while the run's workers load it anyway
    case = from_text("preflight", mode, text, side=side, engine="py")
    for _ in range(REFERENCE_TRIES):
        found = expect(case, reference, words=words or VERDICTS, exits=exits)
        if found.note is AGREES:
            return reference
        if found.note == OVERRULED or found.detail.endswith(("timeout", "hang computing", "hang blocked")):
            break
    raise Usage(f"reference {shown} does not answer the known-good {side}x{side} puzzle rightly: "
                f"{visible(found.detail, newlines=False)}")


def chunk_cases(n: int, targets: int, workers: int, chunk_size: int | None = None, *,
                seconds_per_case: float | None = None) -> int:
    """Cases per chunk (each asked of every target). Asked for: ``chunk_size``. Else about 100 target
    calls a chunk, and against programs (``seconds_per_case``: the pre-flight's calls, every target
    together) no more than CHUNK_SECONDS of work, so the progress bar moves case by case and Ctrl-C
    keeps all but the last seconds of each worker (a slow program at 100 calls a chunk held the bar
    at 0/400 for 73 s, and an interrupt lost all of it); in a number of chunks that is a multiple of
    the workers, so no worker waits alone on the last one (3 targets x 300 cases on 2 workers: 10
    chunks of 30 cases, not 9 and a stray)."""
    if chunk_size:
        return chunk_size
    most = max(1, 100 // max(targets, 1))
    if seconds_per_case:
        most = max(1, min(most, int(CHUNK_SECONDS / seconds_per_case)))
    rounds = -(-n // (workers * most))
    return max(1, -(-n // (workers * rounds)))


def saved_target(path: Path, entries: Sequence[tuple[Path, dict[str, Any], bytes]]) -> dict[str, Any]:
    """The spec of the target the reproducers were saved from, for a replay that names none: only one
    of ours (engine, engine:NAME, cli). Another program is never started on a corpus's word, as a
    corpus may come from anyone: the Usage error names it, with the replay line saved beside it."""
    from sudoku.display import visible

    names = sorted({str(meta.get("target", "")) for _, meta, _ in entries})
    keys = {meta.get("target_key") for _, meta, _ in entries}
    if len(names) == 1 and len(keys) == 1 and (names[0] in ("engine", "cli") or names[0].startswith("engine:")):
        return {"spec": names[0]}
    shown = visible(str(path), newlines=False)
    if len(keys) > 1:
        if len(names) < len(keys):  # two programs both typed ./sudoku: their folders tell them apart
            names = sorted({str(meta.get("target", "")) + f" ({meta.get('target_key')})" for _, meta, _ in entries})
        listed = ", ".join(visible(name or "(none recorded)", newlines=False) for name in names[:3])
        raise Usage(f"{shown} holds reproducers of {len(names)} targets ({listed}{', ...' * (len(names) > 3)}): "
                    "name the folder of one, and the program to replay it against with --target")
    whose = f"saved from {visible(names[0], newlines=False)}" if names[0] else "with no target recorded"
    saved = next((meta["replay"] for _, meta, _ in entries if isinstance(meta.get("replay"), str)), None)
    line = f"; the line saved with them: {visible(saved, newlines=False)}" if saved else ""
    raise Usage(f"{shown} holds reproducers {whose}: name the program to replay them against with --target "
                f"(a corpus may come from anyone, so the program it names is not started on its word){line}")


def replay_entries(entries: Iterable[tuple[Path, dict[str, Any], bytes]], target: Target, *, strict: bool,
                   into: Path | None = None, quiet: bool = False, words: Sequence[str] | None = None,
                   exits: Sequence[int] | None = None, reference: Target | None = None,
                   skipped: list[Path] | None = None) -> list[Still]:
    """Run saved reproducers; a Still for each that fails. With a ``reference``
    target its answers are the expected ones, as in the run; a case it fails on is judged only for
    hangs, floods and crashes. An entry that is no case (its size unknown) is said on stderr and
    added to ``skipped``."""
    from fuzz import corpus as store
    from fuzz.cases import CountUnknown, from_text
    from fuzz.oracles import judge_contained, oracles_of
    from fuzz.reference import answer, asks
    from fuzz.tasks import run_case, signature_of
    from fuzz.triage import hang_computing, status_of
    from sudoku.display import visible

    still: list[Still] = []
    for folder, meta, data in entries:
        try:
            case = from_text(meta.get("family", "replay"), meta.get("command", "solve"), data, side=meta.get("side", 9))
        except CountUnknown as error:
            print(f"{visible(str(folder))}: skipped: {error}", file=sys.stderr)
            if skipped is not None:
                skipped.append(folder)
            continue
        expected: Case | None = case
        if reference is not None and asks(case):
            expected = answer(case, reference, header=target.header, words=words, exits=exits)
        if expected is None:  # the reference failed on it: nothing to compare with
            result = target.check(case.text) if case.command == "check" else target.solve(case.text)
            verdict = judge_contained(result)
        else:
            case = expected
            verdict, result = run_case(case, target, strict=strict, words=words, exits=exits)
        now = signature_of(case, verdict, result)
        slow = _slow_now(case, target) if now and hang_computing(now) else None
        if now:
            saved = meta.get("signature")
            still.append(Still(folder, now, saved if isinstance(saved, str) else None, slow))
            if into is not None and slow is None:
                oracle = oracles_of(now)[0]
                store.save(into, case, signature=now, oracle=oracle, detail=verdict.failed[oracle].detail,
                           target=target, result=result, extra={"replayed_from": str(folder)})
        if not quiet:
            if now is None:
                state = "passes" + (" (the reference failed on it: judged only for hangs, floods and crashes)"
                                    if expected is None else "") + _flaky_when_saved(meta)
            elif slow is not None:
                state = f"slow (not a failure): {slow}"
            elif status_of(meta) == "slow":
                state = f"FAILS: {now} (saved as slow; no answer given more CPU now)"
            elif now == meta.get("signature"):
                state = f"FAILS the same way: {now}"
            else:
                state = f"FAILS: {now}"
            print(f"{visible(str(folder), newlines=False)}: {visible(state, newlines=False)}", file=sys.stderr)
    return still


def _slow_now(case: Case, target: Target) -> str | None:
    """How a hang computing answered given more CPU (``triage.look_longer``), or None when it did not: a
    slow call is replayed as slow, not as a failure."""
    from fuzz.triage import is_slow, limit_of, look_longer

    look = look_longer(case, target)
    if look is None or not is_slow(look, target):
        return None
    return f"answered after {look.cpu_seconds:.1f}s of CPU, over the {limit_of(target):g}s limit"


def _flaky_when_saved(meta: dict[str, Any]) -> str:
    """What a pass of a flaky reproducer is worth: it failed only now and then when it was saved."""
    if meta.get("flaky") is not True:
        return ""
    confirmed = meta.get("confirmed")
    how = f"it failed the same way in {confirmed}" if isinstance(confirmed, str) else "it did not fail every time"
    return f" (flaky when saved: {how}; one pass does not show the bug is gone)"


def replay_own(config: FuzzConfig, spec: dict[str, Any], target: Target,
               run_corpus: Path) -> tuple[int, int, list[Still]]:
    """Replay the shared corpus's reproducers of ``target``: (how many were replayed, how many entries
    were skipped, those still failing). A skipped entry is counted, for the summary to say: a run
    that replayed 4 of 5 saved reproducers must not read as if it replayed them all."""
    from fuzz import corpus as store

    own = Path(config.corpus) / store.target_key(target)
    found = store.load_own(config.corpus, target)
    entries = loaded(found)
    if config.families:  # --family: the bugs of those families alone, as pytest -k runs no other test
        kept = [entry for entry in entries if entry[1].get("family") in config.families]
        if len(kept) < len(entries):
            print(f"fuzz: {counted(len(entries) - len(kept), 'saved reproducer')} of other families not replayed "
                  "(--family)", file=sys.stderr)
        entries = kept
    _note_legacy(Path(config.corpus), spec, target, own)
    reference = target_of_spec(config.reference, "--reference") if config.reference else None
    unread: list[Path] = []
    still = replay_entries(entries, target, strict=config.strict, into=run_corpus, quiet=True,
                           words=config.verdict_words, exits=config.verdict_exit,
                           reference=reference, skipped=unread)
    return len(entries) - len(unread), len(found.skipped) + len(unread), still


def _note_legacy(corpus: Path, spec: dict[str, Any], target: Target, own: Path) -> None:
    """One line on stderr when ``corpus`` holds reproducers under ``target``'s old key (the command as
    typed, which programs run by the same command from different folders shared). They are not
    replayed as this program's, which they may not be; the line says how to check and adopt them."""
    import shlex

    from fuzz import corpus as store
    from fuzz.triage import replay_command
    from sudoku.display import visible

    old = store.legacy_key(target)
    if old is None or not (corpus / old).is_dir():
        return
    entries = store.load(corpus / old).entries
    if not entries:
        return
    legacy, mine = shlex.quote(str(corpus / old)), shlex.quote(str(own))
    made_by = next((meta["run"] for _, meta, _ in entries if isinstance(meta.get("run"), str)), None)
    print(visible(f"fuzz: {corpus / old} holds {counted(len(entries), 'reproducer')} saved under the command "
                  f"{target.name!r} before programs were told apart by their full path"
                  + (f" (one shown by hand as: {made_by})" if made_by else "")
                  + "; not replayed in this run, as they may be another program's. Check them with: "
                  f"{replay_command(corpus / old, spec)}; keep them with this program: mkdir -p {mine} && "
                  f"cp -Rn {legacy}/. {mine}/ && rm -r {legacy}", newlines=False), file=sys.stderr)


def loaded(found: Loaded) -> list[tuple[Path, dict[str, Any], bytes]]:
    """The entries of a corpus ``load``, after one line on stderr for each entry skipped (escaped:
    a folder's name is the corpus writer's)."""
    from sudoku.display import visible

    for folder, why in found.skipped:
        print(f"fuzz: skipped {visible(str(folder), newlines=False)}: {visible(why, newlines=False)}",
              file=sys.stderr)
    return cast("list[tuple[Path, dict[str, Any], bytes]]", found.entries)


def triage_phase(records: Any, config: FuzzConfig, target: Target, run_corpus: Path, *, shrink_them: bool,
                 show_progress: bool, seconds: float | None = None) -> list[Saved]:
    """Group the run's failures into bugs, shrink and confirm one reproducer each (triage.triage, in
    about ``seconds``), with a progress bar on a terminal and log lines otherwise."""
    import logging

    from fuzz.triage import groups, triage
    from fuzz.watch import busy_line

    total = len(groups(records))
    if not total:
        return []
    log = logging.getLogger("jobs.fuzz")
    log.warning("shrinking and confirming %s%s", counted(total, "distinct failure"),
                f" in about {seconds:.0f}s" if seconds is not None else "")
    bar = None
    if show_progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total, unit="bug", desc="shrinking", file=sys.stderr)

    started = time.monotonic()
    said = {"done": 0, "at": started}

    def progress(done: int, total: int, busy: list[dict[str, Any]]) -> None:
        """Each group finished, and what each group at work is doing (stage, tries, size, time left):
        on the bar's line, or a log line at most every PROGRESS_S seconds while none finishes."""
        if bar:
            bar.update(done - bar.n)
            bar.set_postfix_str("; ".join(busy_line(state) for state in busy)[:160], refresh=True)
        elif done > said["done"]:
            each = (time.monotonic() - started) / max(done, 1)
            log.warning("shrunk and confirmed %d of %s, %.1fs each, about %.0fs left", done,
                        counted(total, "distinct failure"), each, each * (total - done))
        elif time.monotonic() - said["at"] >= PROGRESS_S:
            for state in busy:
                log.warning("triage: %s", busy_line(state))
        else:
            return
        said.update(done=done, at=time.monotonic())

    try:
        return triage(records, config, target, [run_corpus, config.corpus], shrink_them=shrink_them,
                      progress=progress, seconds=seconds)
    finally:
        if bar:
            bar.close()


def prepare(config: FuzzConfig, *, chunk_size: int | None = None) -> tuple[FuzzConfig, str | None]:
    """The prepare phase of a new run, before its directory is made: (the config with what it found,
    the folder of the sanitized builds or None). It finds ``cannot_start`` (a lone target that cannot
    start ends the run now; of several, it is a row of its own and the others go on),
    ``spaced_readers`` (targets that read only a space after every number, said on stderr),
    ``contract_breaks`` (targets run in a dialect whose contract's own spelling fails: each call of
    it they do not understand, said on stderr), checks the reference, and sets ``chunk_size`` (asked
    for, or sized by the pre-flight's timing). With ``--sanitize`` the targets are built first and
    pre-flighted as built (``_build_phase``); the builds wait in the folder given back until the
    run's directory is made (``run(..., staging=)``)."""
    from fuzz.summary import CONTRACT_APART, SPACED_READER
    from sudoku.display import visible

    specs = list(config.targets)
    timing: list[float] = []
    spaced: set[str] = set()
    said: dict[str, list[dict[str, Any]]] = {}
    contract: dict[str, list[dict[str, Any]]] = {}
    started = time.monotonic()
    staging = None
    if config.sanitize:
        specs, staging, failed = _build_phase(config, specs, timing, spaced, said, contract)
        config = replace(config, targets=tuple(specs), target=specs[0])
    else:
        failed = cannot_start(specs, config.side, config.mode, timing=timing, spaced=spaced, said=said,
                              contract=contract)
    if len(failed) == len(specs):
        raise Usage("; ".join(f"target {name} cannot start: {why}" for name, why in failed.items()))
    for name in sorted(spaced):
        print(f"fuzz: {visible(name, newlines=False)} {SPACED_READER}", file=sys.stderr)
    for name, breaks in contract.items():
        for one in breaks:
            print(f"fuzz: {visible(name, newlines=False)} breaks the contract: {one['line']} ({CONTRACT_APART})",
                  file=sys.stderr)
    sized = chunk_cases(config.n, len(specs), config.workers, chunk_size,
                        seconds_per_case=sum(timing) / len(timing) * len(specs) if timing else None)
    if config.reference:
        try:
            check_reference(config.reference, config.side, mode=config.mode, words=config.verdict_words,
                            exits=config.verdict_exit)
        except Usage:  # no run: no builds kept for it
            if staging:
                shutil.rmtree(staging, ignore_errors=True)
            raise
    return replace(config, cannot_start=failed, cannot_start_said=said, contract_breaks=contract,
                   spaced_readers=tuple(sorted(spaced)), chunk_size=sized,
                   preflight_s=time.monotonic() - started), staging  # a phase of the run's wall time (``run``)


def workers(config: FuzzConfig | None) -> Any:
    """A context: the workers of a new run from ``config`` (not ``prepare``d yet) started now, each
    warming the engines the run's chunks use, so their start-up overlaps the prepare phase
    (``jobs.runner.start_workers``); it gives the pool for ``run(..., pool=)``, or None (a resume,
    one worker, Dask). Workers no run took are stopped on leaving it."""
    from contextlib import nullcontext

    from fuzz import tasks
    from jobs import runner

    if config is None:
        return nullcontext()
    numbered = list(enumerate(config.targets))
    first = tasks.plan(replace(config, chunk_size=config.n), numbered)[0]  # every chunk names the same engines
    return runner.start_workers(config, tasks.FUZZ, first)


def _build_phase(config: FuzzConfig, specs: list[dict[str, Any]], timing: list[float],
                 spaced: set[str], said: dict[str, list[dict[str, Any]]],
                 contract: dict[str, list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], str, dict[str, str]]:
    """Build every target with the sanitizers (``fuzz.build``) and pre-flight the builds: (the
    targets, named by their programs in the run's build folder; the folder the builds wait in until
    the run's directory is made; {target: why} of those that cannot start, a failed build among
    them). When none can start the builds are moved to the run's folder at once, for their build.log."""
    from fuzz.build import BuildError, settle, stage

    try:
        staging, final, staged, failed = stage(specs, Path(config.out), command=config.build)
    except BuildError as error:
        raise Usage(str(error)) from None
    built = [(one, staged_one) for one, staged_one in zip(final, staged) if one["spec"] not in failed]
    reads_spaced: set[str] = set()
    outputs: dict[str, list[dict[str, Any]]] = {}
    breaks: dict[str, list[dict[str, Any]]] = {}
    early = cannot_start([staged_one for _, staged_one in built], config.side, config.mode, timing=timing,
                         spaced=reads_spaced, said=outputs, contract=breaks)
    spaced.update(one["spec"] for one, staged_one in built if staged_one["spec"] in reads_spaced)
    said.update({one["spec"]: outputs[staged_one["spec"]] for one, staged_one in built if staged_one["spec"] in outputs})
    contract.update({one["spec"]: breaks[staged_one["spec"]] for one, staged_one in built if staged_one["spec"] in breaks})
    failed.update({one["spec"]: early[staged_one["spec"]] for one, staged_one in built if staged_one["spec"] in early})
    if len(failed) == len(final):
        out = Path(config.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            settle(staging, out)
        except OSError:
            pass  # an old run there: the logs stay in the staging folder
    return final, str(staging), failed


def run(config: FuzzConfig | None = None, *, resume: str | Path | None = None, force: bool = False,
        verbose: bool = False, shrink: bool = True, show_progress: bool = True, pool: Any = None,
        staging: str | None = None) -> Outcome:
    """Conduct a run: a new one from ``config`` (``prepare``d), or ``resume`` an interrupted one from its
    directory; the phases in turn; an Outcome. summary.md is written (the save phase). ``pool``: the
    run's workers, started during the prepare phase (``workers``); ``staging``: the folder of the
    sanitized builds (``prepare``), moved into the run's directory once it is made."""
    import pyarrow.compute as pc

    from fuzz import summary, tasks
    from jobs import runner

    try:
        run_dir, config = runner.open_run(tasks.FUZZ, resume=resume, config=config, force=force)
    except BaseException:
        if staging:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    if staging:
        from fuzz.build import settle

        settle(Path(staging), run_dir.path)
    run_corpus = run_dir.path / "corpus"
    with runner.stopping(run_dir, f"fuzz run --resume {run_dir.path}"):  # a stop while replaying: interrupted
        runner.setup_log(run_dir, verbose=verbose)
        started = time.monotonic()
        targets = [(number, spec, target_of_spec(spec)) for number, spec in enumerate(config.running)]
        still: list[Still]
        replayed, skipped, still = 0, 0, []
        for _, spec, target in targets:
            entries, unread, failing = replay_own(config, spec, target, run_corpus)
            replayed, skipped, still = replayed + entries, skipped + unread, still + failing
        phases = {} if resume else {"pre-flight": config.preflight_s}
        phases["replaying saved reproducers"] = time.monotonic() - started
        specs = tasks.plan(config, [(number, spec) for number, spec, _ in targets])
        _arrow_from_python()  # in here: a stop signal during it leaves the run interrupted, not running
    manifest = runner.run_with_progress(run_dir, config, tasks.FUZZ, specs, resume=bool(resume),
                                        show_progress=show_progress, pool=pool,
                                        resume_with=f"fuzz run --resume {run_dir.path}",
                                        max_failed=config.max_failures)
    records = run_dir.read_table()
    saved: list[Saved] = []
    if manifest["status"] in (runner.COMPLETE, runner.FINISHED_EARLY):  # the cases asked for are all in
        start = time.monotonic()
        # shrinking and confirming get at most as long as the cases took, shared among the targets by
        # their groups of failures
        from fuzz.triage import groups

        mine = {target.name: records.filter(pc.equal(records.column("target"), target.name))
                for _, _, target in targets}
        found = {name: len(groups(table)) for name, table in mine.items()}
        allowed = max(manifest["wall_s"], 10.0)
        if sum(found.values()):  # until triage ends, the run is not complete: killed outright (SIGKILL,
            # the OOM killer) here, it reads as stopped, with its resume line, not as complete with no bugs
            run_dir.write_manifest({**manifest, "status": "running", "reason": "shrinking and confirming"})
            # (a run finished early and stopped here is resumed to triage alone: ``runner.execute``)
        try:
            for number, spec, target in targets:
                share = allowed * found[target.name] / max(1, sum(found.values()))
                saved += triage_phase(mine[target.name], replace(config, target=spec), target,
                                      run_corpus, shrink_them=shrink, show_progress=show_progress, seconds=share)
        except KeyboardInterrupt:  # the groups finished are saved: a resume triages only the others
            manifest.update(status="interrupted", reason="interrupted while shrinking and confirming")
        except OSError as error:  # a reproducer that cannot be saved (disk full): the run failed, exit 3
            from jobs.store import WriteError

            manifest.update(status="failed", reason=f"cannot save a reproducer: {error.strerror or error}")
            run_dir.write_manifest(manifest)
            raise WriteError(f"cannot write {error.filename or run_corpus}: {error.strerror or error}") from None
        phases["shrinking and confirming"] = time.monotonic() - start
        manifest["fuzz"] = {"groups": [summary.group_record(one) for one in saved], "replayed": replayed,
                            "replay_skipped": skipped, "replayed_still_fail": len(real_failures(still)),
                            "replay_s": phases["replaying saved reproducers"],
                            "triage_s": phases["shrinking and confirming"],
                            "targets": summary.target_rows(config, records, saved),
                            "differential": summary.differential(config, records)}
        manifest["phases_s"] = {name: round(seconds, 3) for name, seconds in phases.items()}  # run_wall_s
        run_dir.write_manifest(manifest)
    outcome = Outcome(manifest, records, saved, replayed, still, run_dir, run_corpus, phases, skipped)
    whole, _ = summary.render(outcome)
    summary.write(run_dir.path / "summary.md", whole + "\n")
    return outcome


def fails(outcome: Outcome) -> bool:
    """Whether a finished run found what fails it: a bug (a slow answer or a failure not seen again
    only when its config asks, ``fail_slow``, ``fail_unconfirmed``; the contract's own spelling failing
    beside the dialect the run asked for, only with ``fail_contract``), a saved reproducer still
    failing, a target that cannot start, or failures not yet grouped."""
    from fuzz.triage import status_of

    config, manifest = outcome.config, outcome.manifest
    counted = {"bug"} | {status for status, asked in (("slow", config.fail_slow),
                                                      ("unconfirmed", config.fail_unconfirmed)) if asked}
    found = {status_of(record) for record in manifest.get("fuzz", {}).get("groups", [])}
    untriaged = manifest["totals"]["failed"] and "fuzz" not in manifest
    slow_still = config.fail_slow and len(real_failures(outcome.still)) < len(outcome.still)
    return bool(found & counted or untriaged or real_failures(outcome.still) or slow_still
                or config.cannot_start or config.fail_contract and config.contract_breaks)


def _arrow_from_python() -> None:
    """Have pyarrow load what it needs to turn Python values into Arrow. The first time it does (a
    scalar in the end phase's filter by target), it imports pandas to tell a pandas object from
    others: 0.12-0.15 s of CPU, at the end of every run, where nothing else overlaps it. Done before
    the cases start, it overlaps the workers' own start-up (their engines loading) instead.

    pandas is imported here first, in Python: pyarrow's own import of it runs inside a Cython function
    that prints and drops any exception, so a Ctrl-C or SIGTERM that came during it was lost and the
    run went on to the end, exit 0 (a QA try met it 1 time in 16 in a run's first second)."""
    import pandas  # noqa: F401
    import pyarrow as pa

    pa.scalar(0)


def replay(path: str | Path, target_spec: dict[str, Any] | None, *, strict: bool = False,
           reference: dict[str, Any] | None = None, words: Sequence[str] | None = None,
           exits: Sequence[int] | None = None) -> tuple[Target, int, list[Still]]:
    """Replay the reproducers at or under ``path`` against a target: (entries replayed, those that still
    fail). ``reference`` is a trusted program's spec, whose answers are the expected ones. With no
    target the reproducers' own is taken when it is ours (``saved_target``)."""
    from fuzz import corpus as store
    from sudoku.display import visible

    named = target_of_spec(target_spec) if target_spec is not None else None
    path = Path(path)
    if not path.exists():
        raise Usage(f"{visible(str(path), newlines=False)} does not exist")
    entries = loaded(store.load(path))
    if not entries:
        raise Usage(f"no reproducers under {visible(str(path), newlines=False)} (a reproducer is a folder with "
                    "case.json and input.txt)")
    target = named or target_of_spec(saved_target(path, entries))
    keys = sorted(cast("set[str]", {meta.get("target_key") for _, meta, _ in entries} - {None}))
    mine = store.target_keys(target)  # its folder's name now, and before names came in
    if len({key if key not in mine else mine[0] for key in keys}) > 1:
        if not set(mine) & set(keys):
            raise Usage(f"{path} holds reproducers of {len(keys)} targets ({', '.join(keys)}), none of them "
                        f"{target.name}; name the folder of the one to replay")
        kept = [entry for entry in entries if entry[1].get("target_key") in (*mine, None)]
        print(f"fuzz: {counted(len(entries) - len(kept), 'reproducer')} of other targets under "
              f"{visible(str(path), newlines=False)} not replayed", file=sys.stderr)
        entries = kept
    elif keys and keys[0] not in mine and named is not None:  # asked for: a program against another's bugs
        print(visible(f"fuzz: note: these reproducers were saved from another program ({keys[0]}, shown by hand "
                      f"as: {entries[0][1].get('run', '?')}); replayed against {target.name} as asked",
                      newlines=False), file=sys.stderr)
    checked = None
    if reference:
        first = entries[0][1]
        checked = check_reference(reference, first.get("side", 9), words=words, exits=exits,
                                  mode="check" if first["command"] == "check" else "solve")
    done = 0

    def counted_as_done() -> Iterator[tuple[Path, dict[str, Any], bytes]]:
        nonlocal done
        for entry in entries:
            yield entry
            done += 1  # asked for the next one: this one is replayed

    try:
        still = replay_entries(counted_as_done(), target, strict=strict, words=words, exits=exits, reference=checked)
    except KeyboardInterrupt:  # said, then the stop goes on: a replay saves nothing, so there is nothing to keep
        print(f"fuzz: replay interrupted: {done} of {counted(len(entries), 'reproducer')} replayed (each said above)",
              file=sys.stderr)
        raise
    return target, len(entries), still
