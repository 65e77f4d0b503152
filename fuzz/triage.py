"""Triage: failing cases grouped into distinct bugs, each with a minimal, confirmed reproducer.

Cases with one signature (``oracles.signature``) are one bug, as a crash triager's unique crashes.
For each group one case stands for it (the first; for a hang, the slowest), is shrunk keeping its
signature, and is then replayed ``CONFIRMATIONS`` times: a reproducer that does not fail the same
way every time is saved as ``flaky`` with its counts (after trying the unshrunk case, which may be
steadier). Create groups replay by asking ``REPLAY_CREATES`` creates each time, and say how often
the bug showed in the run: "intermittent (3 of 40 creates)".
"""

import shlex
from collections import namedtuple

import pyarrow.compute as pc

from fuzz import corpus as store
from fuzz.cases import create_case, from_text
from fuzz.oracles import oracles_of
from fuzz.reference import answer, asks
from fuzz.shrink import shrink
from fuzz.tasks import case_of, run_case, signature_of, target_of
from jobs import backends

CONFIRMATIONS = 3

Group = namedtuple("Group", "signature cases representative family calls_failed side text")
Saved = namedtuple("Saved", "signature cases case folder detail confirmed flaky intermittent replay text target")
Saved.__doc__ = """One bug: its signature, how many cases showed it, the case that stands for it, the
reproducer's folder, the failure's detail, replays that failed the same way (of CONFIRMATIONS),
whether it is flaky, 'k of m creates' for a create bug that shows only sometimes, the command that
replays it, and the reproducer's input (bytes)."""


def groups(records):
    """The failing cases of a run's records (an Arrow table) grouped by signature, largest first."""
    failed = records.filter(pc.equal(records.column("outcome"), "failed"))
    rows = failed.select(["case", "signature", "family", "target_s", "calls_failed", "size", "input_text"]
                         ).to_pylist()
    by_signature = {}
    for row in rows:
        by_signature.setdefault(row["signature"] or "unknown", []).append(row)
    out = []
    for signature, members in by_signature.items():
        if "no_timeout" in oracles_of(signature):
            chosen = max(members, key=lambda row: (row["target_s"] or 0.0, -row["case"]))
        else:
            chosen = min(members, key=lambda row: row["case"])
        out.append(Group(signature, len(members), chosen["case"], chosen["family"],
                         sum(row["calls_failed"] or 0 for row in members), chosen["size"] or 9,
                         chosen["input_text"] if chosen["family"] == "roundtrip" else None))
    return sorted(out, key=lambda group: (-group.cases, group.signature))


def create_calls_in(records):
    """Creates asked in the run."""
    creates = records.filter(pc.equal(records.column("family"), "create"))
    return sum(value or 0 for value in creates.column("calls").to_pylist())


def replay_command(folder, target_options, reference=None):
    """The exact ``fuzz replay`` line for a reproducer, with the options that make the same target (and
    the run's reference, whose answers were the expected ones)."""
    spec = target_options
    words = ["fuzz", "replay", str(folder), "--target", spec["spec"]]
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
    return shlex.join(words)


def _same(signature, case, target, config):
    """Whether ``case`` fails on ``target`` as ``signature`` says: the same signature for a solve; for
    a create (whose answers are random), every oracle and kind of the signature seen again."""
    if config.get("reference") and asks(case):  # the reference says what is right, as in the run
        expected = _expected(case, config)
        if expected is None:  # the reference failed on it: nothing to compare with
            return False, *run_case(case, target, strict=config["strict"], check_engine=config.get(
                "check_engine", "py"), words=config.get("verdict_words"), exits=config.get("verdict_exit"))
        case = expected
    verdict, result = run_case(case, target, strict=config["strict"], check_engine=config.get("check_engine", "py"),
                               words=config.get("verdict_words"), exits=config.get("verdict_exit"))
    got = signature_of(case, verdict, result)
    if got is None:
        return False, verdict, result
    if case.command == "create":
        wanted = set(signature.split(" on ", 1)[0].split("+"))
        return wanted <= set(got.split(" on ", 1)[0].split("+")), verdict, result
    return got == signature, verdict, result


def _expected(case, config):
    """``case`` as the run's reference says it should be answered, or None when the reference fails on it."""
    return answer(case, target_of(config["reference"]), header=config["target"].get("header", False),
                  words=config.get("verdict_words"), exits=config.get("verdict_exit"), tries=CONFIRMATIONS)


def _confirm(signature, case, target, config):
    """(replays that failed the same way, verdict and result of the last that did, or of the last)."""
    hits, shown = 0, None
    hang = "no_timeout" in oracles_of(signature)
    for attempt in range(CONFIRMATIONS):
        # A hang is confirmed once on the longer second try, then at the plain limit: 7 limits, not 15.
        one = target.without_retry() if hang and attempt and hasattr(target, "without_retry") else target
        same, verdict, result = _same(signature, case, one, config)
        if same:
            hits += 1
            shown = shown or (verdict, result)  # the first: for a hang, the one with the longer second try
        elif shown is None and attempt == CONFIRMATIONS - 1:
            shown = (verdict, result)
    return hits, shown


def triage_group(group, config, target, *, shrink_it=True):
    """(case to save, replays confirmed, verdict, result) for one group."""
    if hasattr(target, "pick"):
        target = target.pick(group.representative, group.side)  # the engine that met the case
    if group.family == "create" or (group.family == "roundtrip" and not group.text):
        case = create_case(side=group.side)
    elif group.family == "roundtrip":  # the solve half: the create output it was given, as recorded
        case = from_text("roundtrip", "solve", group.text.encode(), side=group.side)
    else:
        case = case_of(config, group.representative // config.get("stride", 1), header=target.header)
    small = case
    if shrink_it and case.command == "solve" and case.family != "roundtrip":  # a round trip's input is the
        # target's own output, verbatim: a smaller text would show another bug
        quick = target.without_retry() if hasattr(target, "without_retry") else target
        small = shrink(case, oracles_of(group.signature),
                       lambda candidate: _same(group.signature, candidate, quick, config)[0], header=target.header)
    hits, shown = _confirm(group.signature, small, target, config)
    if hits < CONFIRMATIONS and small is not case:
        steady, steady_shown = _confirm(group.signature, case, target, config)
        if steady > hits:
            small, hits, shown = case, steady, steady_shown
    verdict, result = shown
    return small, hits, verdict, result


def triage_task(spec):
    """The runner task of the triage phase: one group in, (case, replays confirmed, verdict, result) out.
    Groups are independent, so they shrink in parallel on the run's own backend."""
    return triage_group(Group(**spec["group"]), spec["config"], target_of(spec["config"]["target"]),
                        shrink_it=spec["shrink"])


def triage(records, config, target, corpora, *, shrink_them=True, progress=None):
    """Group, shrink, confirm and save every distinct bug of a run; a list of Saved, largest group first.

    ``corpora`` are the folders to save into (the run's own first); ``progress(done, total)`` is
    called as groups finish. Saving happens here, in one process, in a stable order.
    """
    found = groups(records)
    if not found:
        return []
    specs = [{"chunk": number, "group": group._asdict(), "config": config, "shrink": shrink_them}
             for number, group in enumerate(found)]
    options = {"workers": max(1, min(config["workers"], len(specs)))}
    if config["backend"] == "dask":
        options["scheduler"] = config.get("scheduler")
    triaged = {}
    for spec, outcome in backends.BACKENDS[config["backend"]](triage_task, specs, **options):
        triaged[spec["chunk"]] = outcome
        if progress:
            progress(len(triaged), len(specs))
    creates = create_calls_in(records)
    saved = []
    for number, group in enumerate(found):
        case, hits, verdict, result = triaged[number]
        oracle = oracles_of(group.signature)[0]
        detail = "; ".join(f"{name}: {verdict.failed[name].detail}" for name in oracles_of(group.signature)
                           if name in verdict.failed) or "failed when found; not again in the replays"
        intermittent = (f"{group.calls_failed} of {creates} creates"
                        if group.family == "create" and group.calls_failed < creates else None)
        extra = {"cases": group.cases, "seed": config["seed"], "case": group.representative,
                 "confirmed": f"{hits} of {CONFIRMATIONS} replays", "flaky": hits < CONFIRMATIONS,
                 "intermittent": intermittent}
        folders = []
        for root in corpora:
            folder = store.folder_for(root, target, oracle, group.signature)
            extra["replay"] = replay_command(folder, config["target"], config.get("reference"))
            folders.append(store.save(root, case, signature=group.signature, oracle=oracle, detail=detail,
                                      target=target, result=result, extra=extra))
        saved.append(Saved(group.signature, group.cases, group.representative, folders[0], detail, hits,
                           hits < CONFIRMATIONS, intermittent, replay_command(folders[0], config["target"], config.get("reference")),
                           case.text, config["target"]["spec"]))
    return saved
