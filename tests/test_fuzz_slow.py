"""Slow is its own finding, never a hang; a failure never seen again is unconfirmed, not a bug; and
triage says how each group goes. The decisions are tested on Group values and Results in-process;
two runs end to end (marked slow) show them on fake programs that spend real CPU."""

import json
import time
from collections import namedtuple

import pytest

from fake_targets import fuzz, fuzz_config, seed_where, spec
from fuzz import engine, triage as triage_module
from fuzz.cases import from_text
from fuzz.config import FuzzConfig
from fuzz.outcome import Outcome, Still
from fuzz.targets import Result
from fuzz.triage import Group, _status, groups, status_of
from fuzz.watch import Watch, busy_line, watched
from jobs.schema import table
from reports.bugs import bug_of, by_status
from reports.grades import Line, score
from sudoku import create, render
from test_reports_helpers import run_reports

HANG = "no_timeout:hang on solvable (hang computing)"
PUZZLE = render(create(3, seed=11), "grid").encode()


def row(case, family, *, seconds=2.0, signature=HANG):
    return {"case": case, "signature": signature, "family": family, "target_s": seconds, "cpu_s": seconds,
            "calls_failed": 1, "size": 9, "input_text": "", "outcome": "failed"}


def group(**fields):
    base = dict(signature=HANG, cases=3, representative=0, family="multiple", calls_failed=3, side=9, text=None,
                families=["multiple"], seconds=2.0, others=())
    return Group(**{**base, **fields})


def test_a_hang_group_keeps_other_members_to_look_at_one_of_each_family_first():
    found = groups(table([row(0, "multiple", seconds=3.0), row(1, "multiple", seconds=2.9),
                          row(2, "multiple", seconds=2.8), row(3, "empty", seconds=2.1)]))
    (one,) = found
    assert one.representative == 0 and one.hangs == (3, 1)  # the empty grid before a second sparse one
    crash = "no_crash:signal on any input (signal 11)"
    assert groups(table([row(0, "multiple", signature=crash), row(1, "empty", signature=crash)]))[0].hangs == ()


def test_a_failure_seen_once_and_in_no_replay_is_unconfirmed():
    assert _status(group(cases=1), 0) == "unconfirmed"
    assert _status(group(cases=1), 1) == "bug"  # seen again once: a flaky bug
    assert _status(group(cases=4), 0) == "bug"  # seen four times in the run: a flaky bug all the same
    assert _status(group(cases=1, family="create", calls_failed=5), 0) == "bug"  # 5 creates failed in its case
    assert status_of({}) == "bug" and status_of({"status": "slow"}) == "slow" and status_of({"status": 3}) == "bug"


class Limited:
    """A target with a CPU limit whose answers given more time are told by the case's input."""

    timeout = 2.0
    header = False


def looks(monkeypatch, answers):
    """``triage.look_longer`` answering from ``answers`` {input bytes: CPU seconds, or None: endless}."""
    def look(case, target):
        cpu = answers[case.text]
        return Result(124 if cpu is None else 0, b"", b"", cpu or 8.0, cpu is None, False, cpu or 8.0, limit=8.0)

    monkeypatch.setattr(triage_module, "look_longer", look)


def test_a_hang_is_saved_by_a_member_that_never_ends_and_a_slow_group_by_its_slowest(monkeypatch):
    empty = b"0 0 0 0 0 0 0 0 0\n" * 9
    cases = {3: from_text("empty", "solve", empty), 1: from_text("multiple", "solve", PUZZLE)}
    monkeypatch.setattr(triage_module, "case_of", lambda config, index, **_: cases[index])
    config = fuzz_config(target={"spec": "fake"})
    sparse = from_text("multiple", "solve", PUZZLE.replace(b"1", b"0"))
    looks(monkeypatch, {sparse.text: 6.1, PUZZLE: 5.0, empty: None})
    chosen, look, slow = triage_module._pick_endless(group(hangs=(3, 1)), sparse, config, Limited(), None)
    assert chosen.text == empty and look.timed_out  # the real hang, though the first one looked at was slow
    assert [(case, look.cpu_seconds) for case, look in slow] == [(sparse, 6.1)]  # reported as slow, apart
    looks(monkeypatch, {sparse.text: 0.1, PUZZLE: 5.0, empty: 7.0})
    chosen, look, slow = triage_module._pick_endless(group(hangs=(3, 1)), sparse, config, Limited(), None)
    assert chosen.text == empty and triage_module.is_slow(look, Limited()) and slow == []  # none endless: slow
    looks(monkeypatch, {sparse.text: 6.1, empty: None, PUZZLE: None})
    chosen, _, _ = triage_module._pick_endless(group(hangs=(1,)), sparse, config, Limited(), until=0.0)
    assert chosen is sparse  # no time left for a second look at the same family: judged by the first
    chosen, _, _ = triage_module._pick_endless(group(hangs=(3, 1)), sparse, config, Limited(), until=0.0)
    assert chosen.text == empty  # another family is looked at all the same


def test_only_bugs_fail_a_run_unless_slow_or_unconfirmed_are_asked_for():
    def run(*statuses, still=(), **asked):
        groups = [{"signature": HANG, **({"status": status} if status else {})} for status in statuses]
        config = FuzzConfig(run_id="t", n=1, seed=1, workers=1, chunk_size=1, backend="local", scheduler=None,
                            out="t", target={"spec": "x"}, strict=False, check_engine="band", corpus="c", **asked)
        manifest = {"config": config.to_manifest(), "totals": {"failed": len(groups)}, "fuzz": {"groups": groups}}
        return engine.fails(Outcome(manifest, still=list(still)))

    assert not run("slow", "unconfirmed") and not run()
    assert run("slow", fail_slow=True) and run("unconfirmed", fail_unconfirmed=True)
    assert not run("slow", fail_unconfirmed=True)
    assert run(None)  # a group record of an older run, with no status: a bug
    slow = Still("f", HANG, HANG, "answered after 6.1s of CPU, over the 2s limit")
    assert not run(still=[slow]) and run(still=[slow], fail_slow=True)
    assert run(still=[Still("f", HANG, HANG)])


def test_reports_count_a_slow_answer_only_on_a_grading_line_that_asks_for_it():
    bugs = [bug_of({"signature": HANG, "status": "slow", "detail": "answered after 6.1s"}),
            bug_of({"signature": HANG, "detail": "endless"}),  # an older run's record: a bug
            bug_of({"signature": "answers:exit on solvable (exit 1)", "status": "unconfirmed"})]
    assert [len(found) for found in by_status(bugs).values()] == [1, 1, 1]
    plain = Line("No hang", 10, ["no_timeout"], per_bug=5)
    asking = Line("No hang, nor slow", 10, ["no_timeout"], per_bug=5, slow=True)
    assert score([plain], bugs, {})[0].score == 5  # the hang alone
    assert score([asking], bugs, {})[0].score == 0  # the hang and the slow answer
    assert score([Line("Any", 10, ["*"], unconfirmed=True)], bugs, {})[0].score == 0


def test_a_group_at_work_is_shown_with_its_stage_tries_size_and_time_left(tmp_path):
    told = []
    watch = Watch(tmp_path / "4.json", HANG, None, told.append)
    watch("shrinking", 14, 163)
    watch("shrinking", 15, 150)  # within the second: not written again
    assert [state["tries"] for state in told] == [14]
    (state,) = watched(tmp_path, done=[1, 2])
    assert busy_line(state) == f"{HANG}: shrinking, 14 tries, 163 bytes"
    assert watched(tmp_path, done=[4]) == []  # finished: no longer shown
    assert busy_line({**state, "until": time.time() + 30.4}).endswith("163 bytes, 30s left")


@pytest.mark.slow  # 60-120 s: a 30-case run whose sparse puzzles take 6 s of CPU, and a replay
def test_a_correct_program_slow_on_sparse_puzzles_has_slow_answers_and_no_bug(tmp_path):
    seed = seed_where(30, lambda cases: sum(case.family == "multiple" for case in cases) >= 2)
    done = fuzz("run", "-n", 30, "--seed", seed, "--timeout", 2, "--workers", 2, "--no-progress", "--json",
                "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", spec("slow_sparse"),
                cwd=tmp_path, timeout=600)
    data = json.loads(done.stdout)
    assert done.returncode == 0 and data["exit_code"] == 0, done.stderr[-3000:]
    assert data["distinct_bugs"] == 0 and data["bugs"] == [] and data["slow"], data
    assert all(one["status"] == "slow" and "(slow, not endless)" in one["detail"] for one in data["slow"])
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "0 distinct bugs" in summary and "slow answer" in summary and "FLAKY" not in summary
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert {one["status"] for one in manifest["fuzz"]["groups"]} == {"slow"}
    shown = run_reports("show", str(tmp_path / "run"), "--json")
    report = json.loads(shown.stdout)  # the slow cases are no regression of the run
    assert shown.returncode == 0 and report["failed"] == 0 and {bug["status"] for bug in report["bugs"]} == {"slow"}
    assert run_reports("feedback", str(tmp_path / "run"), "--out", str(tmp_path / "feedback")).returncode == 0
    (page,) = (tmp_path / "feedback").glob("*/feedback.md")
    assert "No bug found" in page.read_text() and "## Slow answers (not bugs)" in page.read_text()
    assert json.loads(page.with_name("results.json").read_text())["score"] == 100
    again = fuzz("replay", data["slow"][0]["reproducer"], "--target", spec("slow_sparse"), "--timeout", 2,
                 cwd=tmp_path, timeout=300)
    assert again.returncode == 0 and "slow (not a failure): answered after 6." in again.stderr, again.stderr
    assert "FAILS" not in again.stderr


@pytest.mark.slow  # 60-120 s: a 40-case run with an endless grid and slow sparse ones in one group
def test_a_hang_group_mixing_a_real_hang_with_slow_cases_saves_the_real_hang(tmp_path):
    def mixed(cases):
        return any(case.family == "empty" for case in cases) and any(case.family == "multiple" for case in cases)

    seed = seed_where(40, mixed)
    done = fuzz("run", "-n", 40, "--seed", seed, "--timeout", 2, "--workers", 2, "--no-progress", "--json",
                "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target",
                spec("hangs_empty_slow_sparse"), cwd=tmp_path, timeout=600)
    data = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr[-3000:]
    (hang,) = [one for one in data["bugs"] if one["signature"] == HANG]
    assert set(hang["input"].split()) == {"0"}, hang  # the empty grid, never a slow sparse one
    assert "no answer either (endless" in hang["detail"]
    assert all("empty" not in one["families"] and "(slow, not endless)" in one["detail"] for one in data["slow"])


def test_a_hangs_members_that_were_only_slow_are_saved_apart_as_one_slow_finding(tmp_path):
    from fuzz.corpus import saved_groups
    from fuzz.oracles import Failure, Verdict
    from fuzz.targets import make_target
    from fuzz.triage import _Book

    target = make_target(spec("hangs_empty_slow_sparse"), timeout=2.0)
    config = fuzz_config(target={"spec": spec("hangs_empty_slow_sparse"), "timeout": 2.0})
    book = _Book(config, target, [tmp_path / "run"], creates=0)
    empty = from_text("empty", "solve", b"0 0 0 0 0 0 0 0 0\n" * 9)
    sparse = from_text("multiple", "solve", PUZZLE)
    hang = Failure("no answer after 2s of CPU; given 8s of CPU once more: no answer either", "hang computing")
    endless = Result(-9, b"", b"", 3.0, True, False, 2.0, limit=2.0, hang="cpu")
    answered = Result(0, b"1 2 3\n", b"", 7.0, False, False, 6.1, limit=8.0)
    book.save(0, group(cases=3, families=["empty", "multiple"]), empty, 3,
              Verdict({"no_timeout": hang}, [], [], None, 1, 1, 0), endless, None, [], "bug", [(sparse, answered)])
    bug, slow = sorted(book.bugs(), key=lambda one: one.status)
    assert (bug.status, bug.cases, bug.text) == ("bug", 2, empty.text)
    assert (slow.status, slow.cases, slow.text, slow.families) == ("slow", 1, PUZZLE, ["multiple"])
    assert slow.detail == ("no_timeout: no answer after 2s of CPU; given 8s of CPU once more: answered after 6.1s "
                           "(slow, not endless)") and slow.folder != bug.folder and "--timeout 2" in slow.replay
    assert [folder for folder, _, _ in saved_groups(tmp_path / "run", target).values()] == [bug.folder]
