"""Triage in-process: one bug is one group, identical reproducers merge, an interrupted triage resumes."""

import itertools
import json

import pytest

from fake_targets import fuzz_config
from fuzz import triage as triage_module
from fuzz.cases import from_text
from fuzz.oracles import Failure, Verdict
from fuzz.targets import Result, make_target
from fuzz.triage import Group, _Book, bug_key, groups
from jobs.schema import table
from sudoku import Grid, create, render

PUZZLE = create(3, seed=11)


def row(case, signature, family, *, seconds=0.01, calls_failed=1):
    return {"case": case, "signature": signature, "family": family, "target_s": seconds, "cpu_s": seconds,
            "calls_failed": calls_failed, "size": 9, "input_text": "", "outcome": "failed"}


def test_one_behaviour_on_many_families_is_one_group_with_its_families():
    changed = "keeps_givens:changed on solvable (exit 0)"
    found = groups(table([row(3, changed, "unique_hard"), row(1, changed, "multiple"),
                          row(7, changed, "whitespace_tabs"), row(9, changed, "roundtrip")]))
    assert len(found) == 1
    group = found[0]
    assert group.cases == 4 and group.representative == 1  # the first case that can be shrunk
    assert group.families == ["multiple", "roundtrip", "unique_hard", "whitespace_tabs"]


def test_a_refusal_done_wrong_is_one_bug_whatever_was_to_be_refused():
    found = groups(table([row(2, "rejects_malformed:wrong_exit on malformed (exit 0)", "malformed_letter"),
                          row(4, "rejects_unsolvable:wrong_exit on unsolvable (exit 0)", "clashing"),
                          row(6, "rejects_malformed:wrong_exit on malformed (exit 0)", "malformed_negative")]))
    assert len(found) == 1 and found[0].cases == 3
    assert found[0].signature == "rejects_malformed:wrong_exit on malformed (exit 0)"  # the representative's
    assert found[0].others == ("rejects_unsolvable:wrong_exit on unsolvable (exit 0)",)  # shown as "also as"
    # each other kind of input it showed on keeps a sample: the other malformed slip, the unsolvable grid
    assert found[0].samples == (("clashing", 4), ("malformed_negative", 6))
    echoed = "rejects_{}:echoed on {} (exit 0)"
    assert bug_key(echoed.format("malformed", "malformed")) == bug_key(echoed.format("unsolvable", "unsolvable"))


def test_text_taken_as_a_puzzle_and_a_solver_failure_ignored_are_two_bugs():
    """Issue 44: a reader that takes malformed text as a puzzle and a solver whose failure is ignored
    were one group, with only the unsolvable grid saved: two fixes, two groups, two reproducers."""
    found = groups(table([row(2, "rejects_malformed:accepted on malformed (exit 0)", "malformed_letter"),
                          row(4, "rejects_unsolvable:echoed on unsolvable (exit 0)", "no_solution"),
                          row(5, "rejects_unsolvable:accepted on unsolvable (exit 0)", "clashing"),
                          row(6, "rejects_malformed:accepted on malformed (exit 0)", "malformed_more_rows")]))
    assert sorted((group.signature, group.representative) for group in found) == [
        ("rejects_malformed:accepted on malformed (exit 0)", 2),
        ("rejects_unsolvable:accepted on unsolvable (exit 0)", 5),
        ("rejects_unsolvable:echoed on unsolvable (exit 0)", 4)]
    reader = next(group for group in found if group.representative == 2)
    assert reader.samples == (("malformed_more_rows", 6),)  # a tenth row dropped: the reader's other slip
    assert bug_key("no_timeout:hang on unsolvable (timeout)") != bug_key("no_timeout:hang on solvable (timeout)")
    assert bug_key("no_crash:signal 11 on malformed (signal 11)") == bug_key("no_crash:signal 11 on solvable (signal 11)")
    assert bug_key("no_crash:signal 11 on malformed (signal 11)") != bug_key("no_crash:signal 6 on malformed (signal 6)")


def test_a_format_slip_is_one_bug_on_created_and_solved_grids_and_a_readable_input_stands_for_a_refusal():
    """QA notes: CRLF line ends under --strict were two bugs (on create, on solvable); a refusal done
    wrong seen on 13 families was shown by a lone NUL byte."""
    found = groups(table([row(0, "format:crlf on create (exit 0)", "create"),
                          row(1, "format:crlf on solvable (exit 0)", "unique_easy"),
                          row(2, "format:crlf on solvable (exit 0)", "multiple")]))
    assert len(found) == 1 and found[0].cases == 3 and found[0].representative == 1
    assert found[0].others == ("format:crlf on create (exit 0)",)
    assert bug_key("format:crlf+answers:exit on solvable (exit 1)") == "format:crlf+answers:exit on solvable (exit 1)"
    accepted = "rejects_malformed:accepted on malformed (exit 0)"
    found = groups(table([row(0, accepted, "malformed_binary"), row(3, accepted, "malformed_empty_input"),
                          row(5, accepted, "malformed_letter")]))
    assert found[0].representative == 5 and found[0].family == "malformed_letter"


def test_each_failed_create_oracle_is_a_bug_of_its_own():
    both = "create_unique:several_solutions+create_blanks:few_blanks on create (exit 0)"
    found = groups(table([row(0, both, "create"), row(20, "create_unique:several_solutions on create (exit 0)",
                                                      "create")]))
    assert sorted((g.signature, g.cases) for g in found) == [
        ("create_blanks:few_blanks on create (exit 0)", 1), ("create_unique:several_solutions on create (exit 0)", 2)]


def test_a_hang_blocked_is_one_bug_on_any_input_and_a_puzzle_stands_for_it():
    """A QA program slept now and then whatever it was asked: three 'bugs' (solvable, malformed,
    unsolvable), one of them shown by a text without its final newline. Blocked, it waits for
    nothing in its input; computing, it may spin on one kind of input only."""
    blocked = "no_timeout:hang on {} (hang blocked)"
    found = groups(table([row(1, blocked.format("solvable"), "whitespace_no_final_newline", seconds=9.0),
                          row(2, blocked.format("malformed"), "malformed_letter", seconds=9.5),
                          row(3, blocked.format("unsolvable"), "no_solution", seconds=5.2),
                          row(4, blocked.format("solvable"), "unique_easy", seconds=5.1)]))
    assert len(found) == 1 and found[0].cases == 4
    assert found[0].representative == 3 and found[0].signature == blocked.format("unsolvable")  # a puzzle
    assert set(found[0].others) == {blocked.format("solvable"), blocked.format("malformed")}
    computing = "no_timeout:hang on {} (hang computing)"
    assert bug_key(computing.format("solvable")) != bug_key(computing.format("unsolvable"))
    assert bug_key(blocked.format("solvable")) != bug_key(computing.format("solvable"))


def test_a_hang_group_stands_for_its_slowest_case():
    hang = "no_timeout:hang on solvable (timeout)"
    found = groups(table([row(1, hang, "empty", seconds=5.1), row(2, hang, "multiple", seconds=9.0)]))
    assert found[0].representative == 2


def _saved_by(book, case, signature, *, families=("unique_easy",)):
    group = Group(signature, 2, 5, families[0], 1, 9, None, list(families), 0.01)
    verdict = Verdict({signature.split(":")[0]: Failure("1 given(s) changed, first at row 1, column 3", "changed",
                                                         {"row": 1, "column": 3})}, [], [], None, 1, 1, 0)
    result = Result(0, b"1 2 3\n", b"", 0.02, False, False, 0.01, limit=5.0)
    book.save(len(book.numbers), group, case, 3, verdict, result, None)


def test_two_groups_with_the_same_reproducer_are_one_bug(tmp_path):
    target = make_target("engine:py")
    config = fuzz_config()
    book = _Book(config, target, [tmp_path / "run", tmp_path / "shared"], creates=0)
    case = from_text("unique_easy", "solve", render(PUZZLE, "grid").encode())
    _saved_by(book, case, "keeps_givens:changed on solvable (exit 0)")
    _saved_by(book, case, "valid_grid:clash on solvable (exit 0)", families=("multiple",))
    (one,) = book.bugs()
    assert one.cases == 4 and one.also == ["valid_grid:clash on solvable (exit 0)"]
    assert one.families == ["multiple", "unique_easy"] and one.mark == {"row": 1, "column": 3}
    for root in ("run", "shared"):
        (meta_path,) = (tmp_path / root).glob("*/*/*/case.json")
        meta = json.loads(meta_path.read_text())
        assert meta["also"] == ["valid_grid:clash on solvable (exit 0)"] and meta["cases"] == 4
        assert meta["actual"]["wall_s"] == 0.02 and meta["mark"] == {"row": 1, "column": 3}


def test_an_interrupted_triage_resumes_with_the_groups_done_kept(tmp_path, monkeypatch):
    """Groups are saved as they finish; a triage stopped after the first does only the others when
    run again (the run's own corpus says what is done)."""
    texts = [render(PUZZLE, "grid"), render(PUZZLE, "grid").replace("\n", "\r\n")]
    done = []

    def fake_triage_group(group, config, target, *, shrink_it=True, seconds=None, saved=None, report=None):
        done.append(group.signature)
        case = from_text(group.family, "solve", texts[group.representative].encode())
        verdict = Verdict({"answers": Failure("exit 1", "exit")}, [], [], None, 1, 1, 0)
        return case, 3, verdict, Result(1, b"", b"no\n", 0.01, False, False, 0.0, limit=5.0), None

    monkeypatch.setattr(triage_module, "triage_group", fake_triage_group)
    records = table([row(0, "answers:exit on solvable (exit non-zero: 'a')", "unique_easy"),
                     row(1, "answers:exit on solvable (exit non-zero: 'b')", "whitespace_crlf")])
    config = fuzz_config()
    target = make_target("engine:py")
    corpora = [tmp_path / "run", tmp_path / "shared"]

    def stop_after_one(finished, total, busy):
        if finished == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        triage_module.triage(records, config, target, corpora, progress=stop_after_one)
    assert len(done) == 1 and len(list((tmp_path / "run").glob("*/*/*/case.json"))) == 1
    saved = triage_module.triage(records, config, target, corpora)
    assert len(done) == 2 and len(saved) == 2  # the first group was not done again


def test_out_of_range_answers_are_a_bug_apart_from_crashes_on_other_out_of_range_cases():
    """A program that crashes on 123456789 and keeps a 10 in its answer: the crash does not hide the
    out-of-range answers, which are a group of their own."""
    kept = "rejects_malformed:accepted+valid_grid:out_of_range on malformed (exit 0)"
    crash = "no_crash:signal 11 on malformed (signal 11)"
    found = groups(table([row(1, crash, "malformed_out_of_range"), row(2, kept, "malformed_out_of_range"),
                          row(3, crash, "malformed_out_of_range"), row(4, kept, "malformed_negative")]))
    assert sorted((g.signature, g.cases) for g in found) == [(crash, 2), (kept, 2)]


def test_a_run_stopped_while_shrinking_is_interrupted_and_says_how_to_resume(tmp_path, monkeypatch, capsys):
    import json

    from fuzz import cli as fuzz_cli
    from fuzz import engine

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "triage_phase", stopped)
    out = tmp_path / "run"
    code = fuzz_cli.main(["run", "-n", "3", "--target", "engine:py", "--out", str(out), "--corpus",
                          str(tmp_path / "corpus"), "--workers", "1", "--no-progress"])
    assert code == 130
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["reason"] == "interrupted while shrinking and confirming"
    assert manifest["totals"]["cases"] == 3
    assert f"resume with: fuzz run --resume {out}" in capsys.readouterr().err
    # with failures not yet triaged, the summary does not say "0 distinct bugs ... nothing failed" (a QA note)
    from fake_targets import seed_where, spec

    again = tmp_path / "again"
    seed = seed_where(6, lambda cases: any(case.family.startswith("unique_") for case in cases))
    fuzz_cli.main(["run", "-n", "6", "--seed", str(seed), "--target", spec("changes_given"), "--out", str(again),
                   "--corpus", str(tmp_path / "corpus"), "--workers", "1", "--no-progress"])
    said = capsys.readouterr().out
    assert json.loads((again / "manifest.json").read_text())["totals"]["failed"] > 0
    assert "failed, not yet grouped into bugs (the resume shrinks and saves them);" in said
    assert said.rstrip().endswith("corpus: " + str(again / "corpus") + " (empty: the failures are saved once the "
                                  "run is resumed)")


def test_a_reproducer_the_replay_saved_is_not_taken_for_a_triaged_group(tmp_path, monkeypatch):
    """The replay phase saves what still fails into the run's corpus; triage still confirms and
    counts that group (the replayed entry was neither confirmed nor counted), offered the saved input
    to stand for it, and its reproducer takes the copy's place."""
    done = []
    triaged = render(create(3, seed=12), "grid").encode()

    def fake_triage_group(group, config, target, *, shrink_it=True, seconds=None, saved=None, report=None):
        done.append((group.signature, saved.text))
        case = from_text(group.family, "solve", triaged)
        verdict = Verdict({"answers": Failure("exit 1", "exit")}, [], [], None, 1, 1, 0)
        return case, 3, verdict, Result(1, b"", b"no\n", 0.01, False, False, 0.0, limit=5.0), None

    monkeypatch.setattr(triage_module, "triage_group", fake_triage_group)
    signature = "answers:exit on solvable (exit non-zero: 'a')"
    target = make_target("engine:py")
    case = from_text("unique_easy", "solve", render(PUZZLE, "grid").encode())
    from fuzz import corpus as store

    store.save(tmp_path / "run", case, signature=signature, oracle="answers", detail="exit 1", target=target,
               result=Result(1, b"", b"no\n", 0.01, False, False, 0.0, limit=5.0),
               extra={"replayed_from": "elsewhere"})
    config = fuzz_config()
    (saved,) = triage_module.triage(table([row(0, signature, "unique_easy"), row(1, signature, "multiple")]),
                                    config, target, [tmp_path / "run", tmp_path / "shared"])
    assert done == [(signature, case.text)] and saved.cases == 2 and saved.confirmed == 3
    assert saved.text == triaged == (saved.folder / "input.txt").read_bytes()
    assert "replayed_from" not in json.loads((saved.folder / "case.json").read_text())


def test_a_hang_computing_is_looked_at_once_more_with_four_times_the_limit(tmp_path):
    """A QA program's solver took more than the 5 s limit on puzzles with no solution: "hang". Given
    longer, a slow solver answers and an endless one does not; the detail says which."""
    import sys

    from fuzz.targets import CommandTarget
    from fuzz.triage import LONGER, _second_look

    burn = ("import sys, time\nwhile time.process_time() < {}: pass\nprint('1 2 3 4 5 6 7 8 9')\n")
    case = from_text("unique_easy", "solve", render(PUZZLE, "grid").encode())
    slow = CommandTarget([sys.executable, "-S", "-c", burn.format(1.2)], timeout=0.5)  # 1.2 s < 4 x 0.5
    assert _second_look(case, slow).startswith("; given 2s of CPU once more: answered after 1.")
    assert _second_look(case, slow).endswith("s (slow, not endless)") and LONGER == 4
    endless = CommandTarget([sys.executable, "-S", "-c", burn.format(1e9)], timeout=0.3)
    assert _second_look(case, endless) == "; given 1.2s of CPU once more: no answer either (endless, or slower than that)"
    assert _second_look(case, make_target("engine:py")) == ""  # our engines have no limit to stretch
    quick = CommandTarget([sys.executable, "-S", "-c", burn.format(0)], timeout=1)  # as a random search may be
    assert _second_look(case, quick).startswith("; given 4s of CPU once more: answered after 0.0s this time (its "
                                                "time on this input varies")


def test_a_lenient_reader_that_echoes_unsolvable_puzzles_shows_two_bugs_with_two_reproducers(tmp_path):
    """Issue 44: the reader (malformed text taken as a puzzle) and the solver (its failure ignored, the
    puzzle printed back) are two fixes: two groups, each with its own reproducer and replay line."""
    from fake_targets import fuzz, seed_where, spec

    seed = seed_where(60, lambda cases: {"malformed_letter", "no_solution"} <= {case.family for case in cases})
    done = fuzz("run", "-n", 60, "--seed", seed, "--workers", 1, "--out", tmp_path / "run", "--corpus",
                tmp_path / "corpus", "--target", spec("lenient_echo"), "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    bugs = {bug["signature"]: bug for bug in json.loads(done.stdout)["bugs"]}
    assert {"rejects_malformed:accepted on malformed (exit 0)",
            "rejects_unsolvable:echoed on unsolvable (exit 0)"} <= set(bugs)
    reader, solver = (bugs["rejects_malformed:accepted on malformed (exit 0)"],
                      bugs["rejects_unsolvable:echoed on unsolvable (exit 0)"])
    assert reader["reproducer"] != solver["reproducer"]
    assert from_text("t", "solve", (tmp_path / reader["reproducer"] / "input.txt").read_bytes()).count is None
    assert from_text("t", "solve", (tmp_path / solver["reproducer"] / "input.txt").read_bytes()).count == 0
    for bug in (reader, solver):
        meta = json.loads((tmp_path / bug["reproducer"] / "case.json").read_text())
        assert meta["flaky"] is False and meta["signature"] == bug["signature"]
        replayed = fuzz("replay", bug["reproducer"], "--target", spec("lenient_echo"), cwd=tmp_path)
        assert replayed.returncode == 1 and "FAILS the same way" in replayed.stderr


def test_a_create_group_saves_an_output_that_shows_its_own_bug_and_its_rate_is_over_run_and_replays(tmp_path):
    """A program with two create bugs: the group of each saves a create that shows that one, and a bug
    seen in most creates of the run is never flaky."""
    from fuzz.cases import create_case
    from fuzz.read import find_grid
    from sudoku import engines

    target = make_target("engine:py")
    config = fuzz_config()
    several = Grid(3, [v if i % 3 else 0 for i, v in enumerate(PUZZLE.cells)])  # many blanks, many solutions
    few = Grid(3, [v or 1 for v in engines.solve(PUZZLE, limit=1).solution.cells])  # full: 0 blanks
    answers = itertools.cycle([few, several])

    def made(side=9):
        return Result(0, render(next(answers), "grid").encode(), b"", 0.01, False, False, 0.01, limit=5.0)

    target.create = made
    for part, shows in (("create_unique:several_solutions", lambda grid: grid.blanks > 60),
                        ("create_blanks:few_blanks", lambda grid: grid.blanks < 40)):
        signature = f"{part} on create (exit 0)"
        hits, (verdict, result) = triage_module._confirm(signature, create_case(), target, config)
        assert hits == 3 and shows(find_grid(result.stdout).grid)
        assert verdict.calls == 60 and verdict.calls_failed == 30
        book = _Book(config, target, [tmp_path / part], 30)
        group = Group(signature, 1, 0, "create", 24, 9, None, ["create"], 0.01)
        book.save(0, group, create_case(), hits, verdict, result, None)
        (saved,) = book.bugs()
        assert saved.flaky is False and saved.intermittent == "54 of 90 creates"
        assert ("several solutions" if "unique" in part else "blanks") in saved.detail


def test_a_hang_group_stands_for_its_smallest_input():
    hang = "no_timeout:hang on malformed (hang computing)"
    rows = [dict(row(1, hang, "malformed_huge_line", seconds=9.0), input_text="1 " * 3000),
            dict(row(2, hang, "malformed_empty_input", seconds=5.1), input_text=""),
            dict(row(3, hang, "malformed_fewer_rows", seconds=5.0), input_text="1 2\n")]
    assert groups(table(rows))[0].representative == 2


def test_a_replay_that_crashes_by_another_signal_confirms_the_crash_and_the_detail_agrees(tmp_path, monkeypatch):
    """Issue 44: a group's signature said signal 7 and its detail signal 11, and it was FLAKY though it
    crashed every time."""
    case = from_text("unique_easy", "solve", render(PUZZLE, "grid").encode())
    crashed = Result(-11, b"", b"", 0.02, False, False, 0.01, limit=5.0)
    verdict = Verdict({"no_crash": Failure("killed by signal 11 (SIGSEGV)", "signal 11")}, [], [], None, 1, 1, 0)
    monkeypatch.setattr(triage_module, "run_case", lambda *args, **kwargs: (verdict, crashed))
    target = make_target("engine:py")
    config = fuzz_config()
    found = "no_crash:signal 7 on solvable (signal 7)"
    hits, shown = triage_module._confirm(found, case, target, config)
    assert hits == 3
    book = _Book(config, target, [tmp_path], 0)
    book.save(0, Group(found, 2, 5, "unique_easy", 1, 9, None, ["unique_easy"], 0.01), case, hits, *shown, None)
    (saved,) = book.bugs()
    assert saved.flaky is False and saved.signature == "no_crash:signal 11 on solvable (signal 11)"
    assert "signal 11" in saved.detail and found in saved.also
