"""Triage: failing cases grouped into distinct bugs, each with a minimal, confirmed reproducer.

Cases with one signature (``oracles.signature``: the behaviour, not the family) are one bug, as a
crash triager's unique crashes; a create case's failed oracles each count apart, and a refusal done
wrong is one bug whether the input was malformed or had no solution (``bug_key``). For each group one
case stands for it (the first that is not a round trip; for a hang, the slowest), is shrunk keeping
its signature and its class (``cases.keeps_class``), and is then replayed ``CONFIRMATIONS`` times: a
reproducer that does not fail the same way every time is saved as ``flaky`` with its counts (after
trying the unshrunk case, which may be steadier). Create groups replay by asking ``REPLAY_CREATES``
creates each time, and say how often the bug showed in the run: "intermittent (3 of 40 creates)".

Time: triage gets at most as long as the cases took (``seconds``), shared among the groups left, and
never less than ``MIN_GROUP_S`` a group; a group's shrink stops when its share, less what confirming
will cost, is spent. Confirming itself is never cut (a verdict is what the run is for): a hang's
replays and its look with more time wait for its limit each, so many hang groups of a short run can
take longer than its cases did. Each group is saved to the corpus as soon as it is done, so an interrupted
triage keeps the groups finished, and a resumed one does only the others. Two groups whose shrunk
reproducers are the same bytes are one bug: the second is merged into the first's folder.

A hang computing (CPU spent to the limit) is looked at once more with ``LONGER`` times the limit
before it is shrunk (``_pick_endless``): a member that answers then is **slow**, a finding of its own
and never a hang (``STATUSES``); a hang's reproducer is a member that did not answer (endless), tried
among up to ``MAX_LOOKS`` members of the group, one of each family first (past the group's time
if need be), then as time allows; a shrunk
hang that answers given more time gives way to the input as found. A group with no endless member
is saved as slow, unshrunk and not replayed (the look with more time is its proof). A failure seen
once and never again in its replays is **unconfirmed**, not a bug. The looks count in the group's
time; the members of a hang's group that were only slow are saved apart, as one slow finding. Each
group tells how it goes (``report``: stage, tries, size, seconds left) for the progress line of the
run (``fuzz.watch``).
"""

import copy
import shlex
import tempfile
import time
from collections import namedtuple
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import pyarrow.compute as pc

from fuzz import corpus as store
from fuzz.config import FuzzConfig
from fuzz.cases import Case, CountUnknown, about_text, create_case, from_text, malformed_place
from fuzz.oracles import Verdict, oracles_of, parts_of
from fuzz.reference import answer, asks
from fuzz.sanitize import bug_of
from fuzz.shrink import shrink
from fuzz.targets import Result, Target
from fuzz.tasks import case_of, reads_spaced, run_case, signature_of, target_of
from fuzz.watch import WATCH_S, Watch, watched
from jobs import backends

CONFIRMATIONS = 3
MIN_GROUP_S = 2.0
LONGER = 4  # a hang computing's reproducer is run once more with this many times the CPU limit
MAX_LOOKS = 3  # members of a hang computing's group looked at with more time, for one that never ends
STATUSES = ("bug", "slow", "unconfirmed")  # what a saved group is; an old record without one is a bug

Group = namedtuple("Group", "signature cases representative family calls_failed side text families seconds others "
                           "samples hangs", defaults=((), (), ()))
Group.__doc__ = """Failing cases of one signature: how many, the one that stands for them (its case
index, family and recorded text for a round trip), the failed create calls among them, its grid side,
the families the bug showed on, the representative's call time in seconds, the other signatures of
the bug, and ``samples``: (family, case) of the first case of each other kind of malformed text
accepted alike (``MAX_SAMPLES``), each saved beside the reproducer, and ``hangs``: for a hang
computing, the case indices of other members to look at with more time (``_pick_endless``)."""
Saved = namedtuple("Saved", "signature cases case folder detail confirmed flaky intermittent replay text target "
                            "families also side expected actual mark note samples status", defaults=((), "bug"))
Saved.__doc__ = """One bug: its signature, how many cases showed it, the case that stands for it, the
reproducer's folder, the failure's detail, replays that failed the same way (of CONFIRMATIONS),
whether it is flaky, 'k of m creates' for a create bug that shows only sometimes, the command that
replays it, the reproducer's input (bytes), the target's spec, the families it showed on, the
signatures merged into it (same reproducer), the grid side, what a right answer is, what the
target did ({exit_code, stdout, stderr, wall_s, cpu_s}), the cell or line the failure is about
({"row", "column"} or {"line"}, 1-based; None), a note on its shrinking (None when shrunk
in full), the folders of its samples (other kinds of malformed text it accepts alike), and its
``status`` (``STATUSES``: a bug, a slow answer, or a failure not seen again)."""


def groups(records: Any) -> list[Group]:
    """The failing cases of a run's records (an Arrow table) grouped by signature, largest first."""
    failed = records.filter(pc.equal(records.column("outcome"), "failed"))
    rows = failed.select(["case", "signature", "family", "target_s", "calls_failed", "size", "input_text"]
                         ).to_pylist()
    by_bug: dict[str, list[Any]] = {}  # signature -> [(signature, row)], then [row]
    for row in rows:
        signature = row["signature"] or "unknown"
        for one in (parts_of(signature) if " on create (" in signature else [signature]):
            by_bug.setdefault(bug_key(one), []).append((one, row))
    out: list[Group] = []
    for key, members in by_bug.items():
        plain = [m for m in members if m[1]["family"] != "roundtrip"] or members  # a round trip is not shrunk
        if key.endswith("(hang blocked)") or key.startswith("format:"):  # met on any input: a puzzle
            plain = [m for m in plain if not about_text(m[1]["family"]) and m[1]["family"] != "create"] or plain
        if key.startswith("rejects"):  # a refusal done wrong on many kinds of text: not a lone NUL byte
            plain = [m for m in plain if m[1]["family"] not in HARD_TO_READ] or plain
        if key.startswith("no_crash:memory error at "):  # ASan's report says more than UBSan's of one place
            plain = [m for m in plain if m[0].startswith("no_crash:asan ")] or plain
        if "no_timeout" in oracles_of(members[0][0]):  # shown by its smallest input (then its slowest)
            signature, chosen = min(plain, key=lambda m: (len(m[1]["input_text"] or ""), -(m[1]["target_s"] or 0.0),
                                                          m[1]["case"]))
        else:
            signature, chosen = min(plain, key=lambda m: m[1]["case"])
        others = tuple(sorted({one for one, _ in members} - {signature}))  # one bug, met as these too
        samples = _samples(signature, chosen, members)
        hangs = _hangs(signature, chosen, plain)
        members = [row for _, row in members]
        out.append(Group(signature, len(members), chosen["case"], chosen["family"],
                         sum(row["calls_failed"] or 0 for row in members), chosen["size"] or 9,
                         chosen["input_text"] if chosen["family"] == "roundtrip" else None,
                         sorted({row["family"] for row in members}), chosen["target_s"] or 0.0, others, samples,
                         hangs))
    return sorted(out, key=lambda group: (-group.cases, group.signature))


_REJECTS = ("rejects_malformed", "rejects_unsolvable")
_ONE_BEHAVIOUR = ("wrong_exit", "echoed", "answered")  # refusals done wrong alike on any input to refuse


def _samples(signature: str, chosen: dict[str, Any], members: list[tuple[str, dict[str, Any]]]) -> tuple[Any, ...]:
    """The first case of each other kind of input (``_input_kind``) the bug showed on, (family,
    case): a reader that reads a letter as a blank and one that drops a tenth row fail alike but are
    two slips, and a reproducer of one alone passed its replay once that one was fixed (a QA try);
    a refusal that exits 0 on malformed text and on puzzles with no solution is mended only when
    both are. Saved beside the reproducer, they keep the bug open. Creates and round trips have no
    input of their own to save."""
    mine = _input_kind(signature, chosen["family"])
    first: dict[str, tuple[str, int]] = {}
    for one, row in members:
        kind = _input_kind(one, row["family"])
        if kind != mine and row["family"] not in ("create", "roundtrip") and (
                kind not in first or row["case"] < first[kind][1]):
            first[kind] = (row["family"], row["case"])
    return tuple(sorted(first.values(), key=lambda item: item[1])[:MAX_SAMPLES])


def _input_kind(signature: str, family: str) -> str:
    """A kind of input, as a sample stands for it: each malformed family (each a slip of its own),
    else the case's class (``cases.case_class``, in the signature)."""
    return family if family.startswith("malformed_") else signature.split(" on ", 1)[1].split(" (", 1)[0]


MAX_SAMPLES = 6  # other kinds of input saved beside a reproducer


def _hangs(signature: str, chosen: dict[str, Any], members: list[tuple[str, dict[str, Any]]]) -> tuple[int, ...]:
    """For a hang computing on solve cases, other members to look at with more time when ``chosen``
    answers then (slow): one of each other family first (a solver lost on one kind of puzzle and
    slow on another fails alike at the limit), then the slowest; at most MAX_LOOKS - 1."""
    if not hang_computing(signature) or chosen["family"] in ("create", "roundtrip"):
        return ()
    rest = sorted((row for one, row in members if one == signature and row["case"] != chosen["case"]
                   and row["family"] not in ("create", "roundtrip")),
                  key=lambda row: (-(row["target_s"] or 0.0), row["case"]))
    seen, first = {chosen["family"]}, []
    for row in rest:
        if row["family"] not in seen:
            seen.add(row["family"])
            first.append(row)
    ordered = first + [row for row in rest if row not in first]
    return tuple(row["case"] for row in ordered[:MAX_LOOKS - 1])


def hang_computing(signature: str) -> bool:
    """Whether a signature is a hang computing (CPU spent to the limit): one to look at with more time."""
    return signature.endswith("(hang computing)")
HARD_TO_READ = ("malformed_binary", "malformed_empty_input", "malformed_huge_line")  # stand for a bug last


def bug_key(signature: str) -> str:
    """What makes two signatures one bug, one fix: the signature, except that a refusal done wrong
    is one behaviour whatever was to be refused (a program whose every refusal exits 0 does so on
    malformed text and on puzzles with no solution alike, as real programs do; one that prints its
    input back as the answer does so for a clash and for a ``10`` alike), while input *taken as a
    puzzle* (``accepted``: a grid of its own printed) is a bug of its class, the reader's for
    malformed text and the solver's for a puzzle with no solution; and a crash by one
    signal is one bug whatever the input's class (a reader that dies on a missing final newline
    dies on puzzles and on malformed text alike; the crashes seen in the wild are in readers), and
    so is a hang blocked, using no CPU: the input was all given and closed, so what the program waits
    for is not in it (a program that slept now and then, whatever it was asked, showed as three bugs:
    on solvable, unsolvable and malformed input). A hang computing stays apart by the input's class:
    a solver that spins on puzzles with no solution and one lost on sparse ones are two bugs. A format
    slip alone (``--strict``) is one bug whatever was printed: one writer prints the grids that create
    and solve print (CRLF line ends showed as two bugs). A sanitizer's finding is one bug per place in
    the program (``sanitize.bug_of``), whatever the tool, the input or the end: one ``found[v]``
    reached by a -1, a 10 and a 456789 showed as three (an underflow, an overflow, a SEGV)."""
    failures, rest = signature.split(" on ", 1)
    oracle, _, kind = failures.partition(":")
    klass, _, ended = rest.partition(" (")
    if oracle == "no_crash" and (place := bug_of(kind)):
        return f"no_crash:{place} on any input (however it ended)"
    if oracle in _REJECTS and klass in ("malformed", "unsolvable") and kind in _ONE_BEHAVIOUR:
        return f"rejects:{kind} on input to refuse ({ended}"
    if oracle == "no_crash" and klass != "create":
        return f"{failures} on any input ({ended}"
    if oracle == "no_timeout" and ended == "hang blocked)" and klass != "create":
        return f"{failures} on any input ({ended}"
    if _format_alone(signature):  # one writer prints created and solved grids alike
        return f"{failures} on any output ({ended}"
    return signature


def _format_alone(signature: str) -> bool:
    """Whether a signature is a format slip alone (``--strict``), no other oracle failed with it."""
    failures = signature.split(" on ", 1)[0]
    return failures.startswith("format:") and "+" not in failures


def create_calls_in(records: Any) -> int:
    """Creates asked in the run."""
    creates = records.filter(pc.equal(records.column("family"), "create"))
    return sum(value or 0 for value in creates.column("calls").to_pylist())


def replay_command(folder: str | Path, target_options: dict[str, Any], reference: dict[str, Any] | None = None,
                   *, strict: bool = False) -> str:
    """The exact ``fuzz replay`` line for a reproducer, with the options that make the same target and
    judge as the run did (the run's reference, whose answers were the expected ones; --strict, without
    which a format bug's reproducer passes)."""
    spec = target_options
    words = ["fuzz", "replay", str(folder), "--target", spec["spec"]]
    if strict:
        words.append("--strict")
    if reference:
        words += ["--reference", reference["spec"]]
    if spec.get("create_args", "create") != "create":
        words += ["--create-args", spec["create_args"]]
    if spec.get("solve_args", "solve") != "solve":
        words += ["--solve-args", spec["solve_args"]]
    if spec.get("header"):
        words += ["--format", "header"]
    if spec.get("timeout") not in (None, 5.0):
        words += ["--timeout", f"{spec['timeout']:g}"]
    if spec.get("leaks"):  # a leak is no failure without it
        words.append("--leaks")
    return shlex.join(words)


def _same(signature: str, case: Case, target: Target, config: FuzzConfig, *,
          alike: bool = False) -> tuple[bool, Verdict, Result]:
    """Whether ``case`` fails on ``target`` as ``signature`` says: the same signature for a solve (or,
    ``alike``, the same bug: ``_alike``); for a create (whose answers are random), every oracle and
    kind of the signature seen again on some create, whose output is the result."""
    if config.reference and asks(case):  # the reference says what is right, as in the run
        expected = _expected(case, config)
        if expected is None:  # the reference failed on it: nothing to compare with
            return False, *run_case(case, target, strict=config.strict, check_engine=config.check_engine,
                                    words=config.verdict_words, exits=config.verdict_exit)
        case = expected
    failures = signature.split(" on ", 1)[0].split("+")
    verdict, result = run_case(case, target, strict=config.strict, check_engine=config.check_engine,
                               words=config.verdict_words, exits=config.verdict_exit,
                               shows=failures[0] if case.command == "create" else None)
    got = signature_of(case, verdict, result)
    if got is None:
        return False, verdict, result
    if case.command == "create":
        return all(one in (verdict.showing or {}) for one in failures), verdict, result
    return got == signature or (alike and _alike(got, signature)), verdict, result


def _alike(one: str, other: str) -> bool:
    """Whether two signatures are one bug (``bug_key``), or crashes by two signals (a replay of one
    input that dies of SIGBUS once and of SIGSEGV the next is one crash: where memory lies varies)."""
    def crash(signature: str) -> bool:
        return signature.startswith("no_crash:signal ")

    return bug_key(one) == bug_key(other) or crash(one) and crash(other)


def _showing(signature: str, verdict: Verdict) -> int:
    """How many of a create replay's calls show the failure ``signature`` names."""
    return len((verdict.showing or {}).get(signature.split(" on ", 1)[0], ()))


def _expected(case: Case, config: FuzzConfig) -> Case | None:
    """``case`` as the run's reference says it should be answered, or None when the reference fails on it."""
    assert config.reference is not None, "asked only of a run with a reference"
    return answer(case, target_of(config.reference), header=config.target.get("header", False),
                  words=config.verdict_words, exits=config.verdict_exit, tries=CONFIRMATIONS)


def _confirm(signature: str, case: Case, target: Target,
             config: FuzzConfig) -> tuple[int, tuple[Verdict, Result] | None]:
    """(replays that failed as the same bug, verdict and result of the first that failed exactly so,
    else of the first alike, else of the last). For a create, the verdict's calls and calls_failed
    are the creates of every replay and those that showed the bug."""
    hits, shown, near, asked, showed = 0, None, None, 0, 0
    for attempt in range(CONFIRMATIONS):
        same, verdict, result = _same(signature, case, target, config, alike=True)
        asked, showed = asked + verdict.calls, showed + _showing(signature, verdict)
        if same:
            hits += 1
            exact = case.command == "create" or signature_of(case, verdict, result) == signature
            shown = shown or ((verdict, result) if exact else None)
            near = near or (verdict, result)
        elif near is None and attempt == CONFIRMATIONS - 1:
            near = (verdict, result)
    shown = shown or near
    if case.command == "create" and shown is not None:
        shown = (shown[0]._replace(calls=asked, calls_failed=showed), shown[1])
    return hits, shown


Report = Callable[[str, int, int], None]
"""How a group's triage tells its progress: ``report(stage, tries, size in bytes)``."""


def triage_group(group: Group, config: FuzzConfig, target: Target, *, shrink_it: bool = True,
                 seconds: float | None = None, saved: Case | None = None,
                 report: Report | None = None) -> tuple[Any, ...]:
    """(case to save, replays confirmed, verdict, result, a note on shrinking or None, the samples that
    fail alike: ``_sampled``, its status: one of ``STATUSES``, and for a hang the members that were only
    slow: [(case, its look with more time)]) for one group,
    in about ``seconds`` (None: the shrinker's own bounds). ``saved``: the reproducer of this bug that
    the replay phase found still failing; when it fails the same way every time it stands for the bug
    (it was shrunk when saved), so the run shows the input its corpus holds, not a second one.
    ``report`` is told each stage, try and size."""
    tell = report or (lambda stage, tries, size: None)
    until = None if seconds is None else time.monotonic() + seconds
    if hasattr(target, "pick"):
        target = target.pick(group.representative, group.side)  # the engine that met the case
    computing = hang_computing(group.signature) and hasattr(target, "timeout")
    if saved is not None:
        tell("confirming", 0, len(saved.text))
        hits, shown = _confirm(group.signature, saved, target, config)
        again = look_longer(saved, target) if computing and hits == CONFIRMATIONS else None
        if hits == CONFIRMATIONS and (again is None or again.timed_out):
            return (*_confirmed(group, saved, hits, shown, target, None, again), _sampled(group, config, target),
                    "bug", [])
    if group.family == "create" or (group.family == "roundtrip" and not group.text):
        case = create_case(side=group.side)
    elif group.family == "roundtrip":  # the solve half: the create output it was given, as recorded
        case = from_text("roundtrip", "solve", group.text.encode(), side=group.side)
    else:
        case = _case(config, group.representative, target)
    look, slow = None, cast("list[tuple[Case, Result]]", [])  # members of a hang's group that were only slow
    if computing:
        tell("looking again with more CPU", 0, len(case.text))
        case, look, slow = _pick_endless(group, case, config, target, until)
        if is_slow(look, target):  # no member endless, one slow
            tell("confirming", 0, len(case.text))
            _, verdict, result = _same(group.signature, case, target, config)
            words = _second_look_words(look, target)
            failed = dict(verdict.failed)
            hang = failed.get("no_timeout")
            if hang is not None:
                failed["no_timeout"] = hang._replace(detail=hang.detail + words)
            return (case, 0, verdict._replace(failed=failed), look, "not shrunk: slow, not a hang", [], "slow", [])
    small, note = case, None
    if _format_alone(group.signature):
        note = "not shrunk: a format slip shows on any input"  # shrinking one took 17 s and meant nothing
    elif shrink_it and case.command == "solve" and case.family != "roundtrip":  # a round trip's input is the
        # target's own output, verbatim: a smaller text would show another bug
        cost = CONFIRMATIONS * max(group.seconds, 0.01) + (LONGER * limit_of(target) if computing else 0.0)
        left = None if until is None else 0.8 * (until - time.monotonic()) - cost
        if left is not None and left <= 0:
            note = f"not shrunk: confirming alone takes its share of the time ({seconds:.0f}s)"
        else:
            options = {} if left is None else {"max_seconds": left}
            tries = [0]

            def same(candidate: Case) -> bool:
                tries[0] += 1
                tell("shrinking", tries[0], len(candidate.text))
                return _same(group.signature, candidate, target, config)[0]

            small, stopped = shrink(case, oracles_of(group.signature), same, header=target.header, **options)
            if stopped == "time" and left is not None:  # the reproducer says so
                note = f"shrinking stopped at its share of the run's time ({left:.0f}s): a smaller input may fail too"
            elif stopped:
                note = f"shrinking stopped at its {stopped} limit: a smaller input may fail too"
            if computing and small is not case and look is not None and look.timed_out:
                tell("looking again with more CPU", tries[0], len(small.text))
                again = look_longer(small, target)
                if again is not None and not again.timed_out:  # the smaller input is slow, not endless
                    small, note = case, "not shrunk: a smaller input answered given more CPU (slow, not this hang)"
                else:
                    look = again
    tell("confirming", 0, len(small.text))
    hits, shown = _confirm(group.signature, small, target, config)
    if hits < CONFIRMATIONS and small is not case:
        steady, steady_shown = _confirm(group.signature, case, target, config)
        if steady > hits:
            small, hits, shown = case, steady, steady_shown
    return (*_confirmed(group, small, hits, shown, target, note, look), _sampled(group, config, target),
            _status(group, hits), slow)


def _status(group: Group, hits: int) -> str:
    """'unconfirmed' for a failure seen once in the run and never in its replays, else 'bug'."""
    once = group.cases == 1 and (group.family != "create" or group.calls_failed <= 1)
    return "unconfirmed" if hits == 0 and once else "bug"


def _pick_endless(group: Group, case: Case, config: FuzzConfig, target: Target,
                  until: float | None) -> tuple[Case, Result, list[tuple[Case, Result]]]:
    """(the member to stand for a hang computing, its look with LONGER times the limit, the members
    looked at that were only slow when one is endless): the first of ``case`` and the group's
    ``hangs`` that does not answer then (endless); when none does, the first that answered over the
    limit (slow), else ``case``. Another member is looked at while the group's time (``until``) allows
    a look, and past it for a family not looked at yet: a slow sparse puzzle must not hide an endless
    empty grid (the cost is bounded: MAX_LOOKS looks)."""
    looked = [(case, cast("Result", look_longer(case, target)))]
    for index in group.hangs:
        other = _case(config, index, target)
        late = until is not None and time.monotonic() + LONGER * limit_of(target) > until
        if looked[-1][1].timed_out or late and other.family in {one.family for one, _ in looked}:
            break
        looked.append((other, cast("Result", look_longer(other, target))))
    slow = [one for one in looked if is_slow(one[1], target)]
    if looked[-1][1].timed_out:
        return (*looked[-1], slow)
    return (*(slow or looked)[0], [])


def _case(config: FuzzConfig, index: int, target: Target) -> Case:
    """The run's case behind record ``index`` (of ``config.stride`` records a case), spelled for ``target``."""
    return case_of(config.cases(), index // config.stride, header=target.header,
                   spaced=reads_spaced(config.spaced_readers, config.target))


def is_slow(look: Result, target: Target) -> bool:
    """Whether a look with more time answered, after more than the limit: a slow call, not a hang."""
    return not look.timed_out and look.cpu_seconds > limit_of(target)


def limit_of(target: Target) -> float:
    """A target's CPU limit in seconds (0 for our engines, which have none to stretch)."""
    return float(getattr(target, "timeout", 0.0) or 0.0)


def _sampled(group: Group, config: FuzzConfig, target: Target) -> list[tuple[str, Case, Result, str, str]]:
    """(family, case, result, its signature, its detail) of each of the group's samples that fails
    as the same bug again (``_alike``: a sample of another class has a signature of its own)."""
    found = []
    for family, index in group.samples:
        case = _case(config, index, target)
        same, verdict, result = _same(group.signature, case, target, config, alike=True)
        now = signature_of(case, verdict, result)
        if same and now:
            found.append((family, case, result, now, _detail(now, verdict)))
    return found


def _detail(signature: str, verdict: Verdict) -> str:
    """The failure's detail for people, from the verdict that has ``signature`` (so the two agree)."""
    return "; ".join(f"{name}: {verdict.failed[name].detail}" for name in oracles_of(signature)
                     if name in verdict.failed)


def _confirmed(group: Group, case: Case, hits: int, shown: tuple[Verdict, Result] | None, target: Target,
               note: str | None, look: Result | None = None) -> tuple[Case, int, Verdict, Result, str | None]:
    """``triage_group``'s answer for the reproducer ``case`` once confirmed: a hang computing's detail
    says what its ``look`` with more time found."""
    verdict, result = cast("tuple[Verdict, Result]", shown)  # the last replay's when none failed
    hang = verdict.failed.get("no_timeout")
    if hang is not None and look is not None:
        verdict.failed["no_timeout"] = hang._replace(detail=hang.detail + _second_look_words(look, target))
    return case, hits, verdict, result, note


def look_longer(case: Case, target: Target) -> Result | None:
    """What ``case`` does given LONGER times the target's CPU limit, once (None: a target with no
    limit to stretch, as our engines)."""
    if not hasattr(target, "timeout"):
        return None
    longer = copy.copy(target)
    longer.timeout = target.timeout * LONGER
    if case.command == "create":
        return longer.create(case.side)
    return longer.check(case.text) if case.command == "check" else longer.solve(case.text)


def _second_look_words(look: Result, target: Target) -> str:
    """The detail's words for a ``look``: a solver that is slow (it answers) or one that never ends.
    Both fail the limit; the fix is not the same."""
    given = f"; given {limit_of(target) * LONGER:g}s of CPU once more:"
    if look.timed_out:
        return f"{given} no answer either (endless, or slower than that)"
    if is_slow(look, target):
        return f"{given} answered after {look.cpu_seconds:.1f}s (slow, not endless)"
    return f"{given} answered after {look.cpu_seconds:.1f}s this time (its time on this input varies: a random search?)"


def _second_look(case: Case, target: Target) -> str:
    """The detail's words for a look at ``case`` with more time ('' for a target with no limit)."""
    look = look_longer(case, target)
    return "" if look is None else _second_look_words(look, target)


def triage_task(spec: dict[str, Any]) -> tuple[Any, ...]:
    """The runner task of the triage phase: one group in, ``triage_group``'s answer out. Groups are
    independent, so they shrink in parallel on the run's own backend."""
    saved = None
    if spec.get("saved"):
        try:
            saved = from_text(**spec["saved"])
        except CountUnknown:  # our engine cannot count it in time: shrink the run's own case instead
            pass
    group = Group(**spec["group"])
    watch = None
    if spec.get("watch"):
        seconds = spec.get("seconds")
        watch = Watch(Path(spec["watch"]) / f"{spec['chunk']}.json", group.signature,
                       None if seconds is None else time.time() + seconds, spec.get("tell"))
    return triage_group(group, spec["config"], target_of(spec["config"].target),
                        shrink_it=spec["shrink"], seconds=spec.get("seconds"), saved=saved, report=watch)


def triage(records: Any, config: FuzzConfig, target: Target, corpora: Sequence[str | Path], *,
           shrink_them: bool = True, progress: Callable[[int, int, list[dict[str, Any]]], None] | None = None,
           seconds: float | None = None) -> list[Saved]:
    """Group, shrink, confirm and save every distinct bug of a run; a list of Saved, largest group first.

    ``corpora`` are the folders to save into (the run's own first: groups already saved there by an
    interrupted triage are not done again); ``progress(done, total, busy)`` is called as groups
    finish and every ``WATCH_S`` seconds between, ``busy`` the progress of each group at work
    (``fuzz.watch.busy_line`` says one); ``seconds`` bounds the time (see the module docstring). Saving happens
    here, in one process.
    """
    found = groups(records)
    if not found:
        return []
    earlier = store.saved_groups(corpora[0], target)
    book = _Book(config, target, corpora, create_calls_in(records))
    for number, group in enumerate(found):
        # a reproducer this triage saved before it was stopped; not one the replay phase saved (that
        # one failed once, in replay: it was neither confirmed nor counted)
        if group.signature in earlier and "replayed_from" not in earlier[group.signature][1]:
            book.load(number, *earlier[group.signature])
    todo = [(number, group) for number, group in enumerate(found) if number not in book.numbers]
    replayed = {signature: _replayed_case(meta, data) for signature, (_, meta, data) in earlier.items()
                if "replayed_from" in meta}
    if progress and book.numbers:
        progress(len(book.numbers), len(found), [])
    if todo:
        workers = max(1, min(config.workers, len(todo)))
        rounds = -(-len(todo) // workers)  # groups run ``workers`` at a time: each round gets its share
        each = None if seconds is None else max(MIN_GROUP_S, seconds / rounds)
        with tempfile.TemporaryDirectory(prefix="fuzz-triage-") as watch:
            def tell(state: dict[str, Any]) -> None:  # one worker: the group runs here, unpolled
                if progress:
                    progress(len(book.numbers), len(found), [state])

            specs = [{"chunk": number, "group": group._asdict(), "config": config, "shrink": shrink_them,
                      "seconds": each, "saved": replayed.get(group.signature), "watch": watch,
                      **({"tell": tell} if workers == 1 and config.backend == "local" else {})} for number, group in todo]
            options: dict[str, Any] = {"workers": workers, "heartbeat": WATCH_S}
            if config.backend == "dask":
                options["scheduler"] = config.scheduler
            for spec, outcome in backends.BACKENDS[config.backend](triage_task, specs, **options):
                if spec is None:  # the heartbeat: groups still at work
                    if progress:
                        progress(len(book.numbers), len(found), watched(Path(watch), book.numbers))
                    continue
                book.save(spec["chunk"], found[spec["chunk"]], *outcome)
                if progress:
                    progress(len(book.numbers), len(found), watched(Path(watch), book.numbers))
    return book.bugs()


SLOW_APART = " (its slow members)"  # what a hang's slow members' folder is named by, after the signature


def _replayed_case(meta: dict[str, Any], data: bytes) -> dict[str, Any] | None:
    """``from_text``'s arguments for a reproducer the replay phase saved (None for a create's, which
    has no input to replay: a create bug is asked again)."""
    command = meta.get("command", "solve")
    if command == "create":
        return None
    return {"family": meta.get("family", "replay"), "command": command, "text": data, "side": meta.get("side", 9)}


class _Book:
    """The saved bugs of one target's triage, kept as groups finish: each saved to every corpus at
    once, a reproducer that is the same bytes as one saved before merged into it."""

    def __init__(self, config: FuzzConfig, target: Target, corpora: Sequence[str | Path], creates: int) -> None:
        self.config, self.target, self.corpora, self.creates = config, target, corpora, creates
        self.numbers: dict[int, Path] = {}  # group number -> folder (in the run's corpus)
        self.by_folder: dict[Path, Saved] = {}  # folder -> Saved
        self.by_input: dict[tuple[str | None, bytes], Path] = {}  # (command, input bytes) -> folder

    def _replay(self, folder: str | Path) -> str:
        """The line that replays the reproducer in ``folder`` against this triage's target."""
        return replay_command(folder, self.config.target, self.config.reference, strict=self.config.strict)

    def load(self, number: int, folder: Path, meta: dict[str, Any], text: bytes) -> None:
        """A group an earlier, interrupted triage saved (``store.saved_groups``)."""
        self.numbers[number] = folder
        if folder not in self.by_folder:
            self.by_folder[folder] = _saved_from(folder, meta, text, self.config.target["spec"])
            self.by_input[(meta.get("command"), text)] = folder

    def save(self, number: int, group: Group, case: Case, hits: int, verdict: Verdict, result: Result,
             note: str | None, samples: Sequence[tuple[str, Case, Result, str, str]] = (), status: str = "bug",
             slow: Sequence[tuple[Case, Result]] = ()) -> None:
        if slow:  # a hang's members that answered given more time: a slow finding apart, not this bug's cases
            self._slow_apart(group, slow)
            group = group._replace(cases=max(1, group.cases - len(slow)))
        key = (case.command, case.text)
        if case.command == "solve" and key in self.by_input and self.by_folder[self.by_input[key]].status == status:
            # the same reproducer: the same bug
            folder = self.by_input[key]
            one = self.by_folder[folder]
            merged = one._replace(cases=one.cases + group.cases, also=one.also + [group.signature, *group.others],
                                  families=sorted(set(one.families) | set(group.families)))
            for root in self.corpora:
                for signature in (group.signature, *group.others):
                    store.merge(store.folder_for(root, self.target, oracles_of(one.signature)[0], one.signature),
                                signature=signature, cases=merged.cases, families=merged.families)
            self.by_folder[folder], self.numbers[number] = merged, folder
            return
        signature, others = group.signature, list(group.others)
        now = signature_of(case, verdict, result) if hits and case.command != "create" else None
        if now and now != signature and _alike(now, signature):  # the replays' own signal, as their detail says
            signature, others = now, sorted({*others, group.signature})
        oracle = oracles_of(signature)[0]
        # only a replay that failed so tells what happened: another failure's detail would disagree
        detail = (_detail(signature, verdict) if hits or status == "slow" else "") or \
            "failed when found; not again in the replays"
        intermittent, flaky = self._rate(group, hits, verdict)
        mark = _mark(case, verdict, oracle)
        flaky = flaky and status == "bug"  # a slow answer or an unconfirmed failure is no flaky bug
        extra = {"cases": group.cases, "seed": self.config.seed, "case": group.representative, "status": status,
                 "confirmed": f"{hits} of {CONFIRMATIONS} replays", "hits": hits, "flaky": flaky,
                 "intermittent": intermittent, "families": group.families, "also": others, "mark": mark,
                 "shrink_note": note}
        folders: list[Path] = []
        beside: list[Path] = []
        for root in self.corpora:
            folder = store.folder_for(root, self.target, oracle, signature)
            extra["replay"] = self._replay(folder)
            folders.append(store.save(root, case, signature=signature, oracle=oracle, detail=detail,
                                      target=self.target, result=result, extra=extra))
            for family, sample, its_result, its_signature, its_detail in samples:  # other kinds of input, beside it
                place = folders[-1] / f"also-{family}"
                options = {"replay": self._replay(place),
                           "sample_of": folders[-1].name, "seed": self.config.seed}
                saved_at = store.save(root, sample, signature=its_signature, oracle=oracles_of(its_signature)[0],
                                      detail=its_detail, target=self.target, result=its_result, extra=options,
                                      folder=place)
                if root == self.corpora[0]:
                    beside.append(saved_at)
        folder = folders[0]
        self.numbers[number] = folder
        self.by_input[key] = folder
        self.by_folder[folder] = Saved(
            signature, group.cases, group.representative, folder, detail, hits, flaky,
            intermittent, self._replay(folder), case.text,
            self.config.target["spec"], group.families, others, case.side, store.expected_of(case),
            store.actual_of(result), mark, note, tuple(beside), status)

    def _slow_apart(self, group: Group, slow: Sequence[tuple[Case, Result]]) -> None:
        """The members of a hang's group that answered given more time, saved as one slow finding of
        their own (the first its reproducer), in a folder beside the hang's (``SLOW_APART``)."""
        case, look = slow[0]
        oracle, signature = oracles_of(group.signature)[0], group.signature
        detail = f"no_timeout: no answer after {limit_of(self.target):g}s of CPU{_second_look_words(look, self.target)}"
        families = sorted({one.family for one, _ in slow})
        note = "not shrunk: slow, not a hang"
        extra = {"cases": len(slow), "seed": self.config.seed, "status": "slow", "slow_of": signature,
                 "confirmed": f"0 of {CONFIRMATIONS} replays", "hits": 0, "flaky": False, "families": families,
                 "shrink_note": note}
        folders = []
        for root in self.corpora:
            folder = store.folder_for(root, self.target, oracle, signature + SLOW_APART)
            extra["replay"] = self._replay(folder)
            folders.append(store.save(root, case, signature=signature, oracle=oracle, detail=detail,
                                      target=self.target, result=look, extra=extra, folder=folder))
        self.by_folder[folders[0]] = Saved(
            signature, len(slow), None, folders[0], detail, 0, False, None,
            self._replay(folders[0]), case.text, self.config.target["spec"],
            families, [], case.side, store.expected_of(case), store.actual_of(look), None, note, (), "slow")

    def _rate(self, group: Group, hits: int, verdict: Verdict) -> tuple[str | None, bool]:
        """('k of m creates' or None, flaky). A create bug's rate is judged over the run's creates and
        the replays' together (``_confirm``: the verdict's calls): one seen in 24 of 30 creates and
        missed by a replay of 20 is intermittent, not flaky; it is flaky when no replay showed it."""
        if group.family != "create":
            return None, hits < CONFIRMATIONS
        failed, asked = group.calls_failed + verdict.calls_failed, self.creates + verdict.calls
        return (f"{failed} of {asked} creates" if failed < asked else None), verdict.calls_failed == 0

    def bugs(self) -> list[Saved]:
        """The Saved bugs, largest group first, each once."""
        return sorted(self.by_folder.values(), key=lambda one: (-one.cases, one.signature))


def _mark(case: Case, verdict: Verdict, oracle: str) -> dict[str, int] | None:
    """Where in the input the failure is: the cell its oracle names, or for text that must be
    rejected, the line where it breaks the format (None when neither)."""
    for name in (oracle, "valid_grid"):
        failure = verdict.failed.get(name)
        if failure is not None and failure.where:
            return cast("dict[str, int]", failure.where)
    if case.command == "solve" and case.count is None:
        return malformed_place(case.text, case.side)
    return None


def _saved_from(folder: Path, meta: dict[str, Any], text: bytes, spec: str) -> Saved:
    """A Saved rebuilt from a reproducer's case.json (a resumed triage's groups done before)."""
    def field(name: str, kind: type, default: Any) -> Any:  # the corpus is checked by store.load; these fields only by type
        value = meta.get(name, default)
        return value if isinstance(value, kind) and not isinstance(value, bool) or kind is bool else default

    def strings(name: str) -> list[str]:
        return [one for one in field(name, list, []) if isinstance(one, str)]

    return Saved(meta["signature"], field("cases", int, 1), field("case", int, None), folder, field("detail", str, ""),
                 field("hits", int, CONFIRMATIONS), bool(meta.get("flaky")), field("intermittent", str, None),
                 field("replay", str, ""), text, spec, strings("families") or [meta["family"]], strings("also"),
                 meta["side"], field("expected", str, ""), field("actual", dict, {}), field("mark", dict, None),
                 field("shrink_note", str, None), (), status_of(meta))


def status_of(record: dict[str, Any]) -> str:
    """A saved group's status (``STATUSES``) from its case.json or manifest record; one written before
    there were statuses, or a value not known, is a bug."""
    status = record.get("status")
    return status if status in STATUSES else "bug"
