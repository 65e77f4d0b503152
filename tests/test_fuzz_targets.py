"""fuzz against real programs: containment of a subprocess, and planted bugs found, named, shrunk.

Each planted-bug test runs ``python -m fuzz run`` on a fake target (tests/fake_targets) with one
bug, on a seed whose cases include what triggers it, and checks the run's records and corpus.
"""

import csv
import json
import os
import sys
import time
from collections import namedtuple
from pathlib import Path

import pytest

from fake_targets import PLANTED, argv, fuzz, seed_where, spec
from fuzz.cases import from_text
from fuzz.targets import CommandTarget, EngineTarget, TargetError, make_target, run_contained

PY = [sys.executable, "-S", "-c"]


# --- containment ---------------------------------------------------------------------------------

def test_a_hanging_target_times_out():
    start = time.monotonic()
    done = run_contained(PY + ["import time; time.sleep(60)"], b"", timeout=1)
    assert done.timed_out and not done.flooded
    assert done.exit_code == -9
    assert 0.9 <= done.seconds < 2
    assert time.monotonic() - start < 4


def test_a_target_ignoring_sigterm_still_dies_on_timeout():
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    start = time.monotonic()
    assert run_contained(PY + [code], b"", timeout=0.5).timed_out
    assert time.monotonic() - start < 4


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_flooding_target_is_killed_quickly(stream):
    code = f"import sys\nwhile True: sys.{stream}.buffer.write(b'x' * 65536)"
    start = time.monotonic()
    done = run_contained(PY + [code], b"", timeout=20, max_output=1 << 16)
    assert done.flooded and not done.timed_out
    assert done.exit_code == -9
    assert len(getattr(done, stream)) == 1 << 16
    assert time.monotonic() - start < 5


def test_output_at_the_cap_is_not_a_flood():
    done = run_contained(PY + ["import sys; sys.stdout.write('x' * 1000)"], b"", max_output=1000)
    assert not done.flooded and done.exit_code == 0 and done.stdout == b"x" * 1000


def alive(pid):
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_dead(pid, seconds=3.0):
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("detach", [False, True], ids=["child-keeps-stdout", "child-closes-stdio"])
def test_a_forked_child_does_not_outlive_its_case(detach):
    code = (
        "import os, sys, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        + ("    os.close(0); os.close(1); os.close(2)\n" if detach else "")
        + "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(pid, flush=True)\n"
    )
    start = time.monotonic()
    done = run_contained(PY + [code], b"", timeout=10)
    assert done.exit_code == 0 and not done.timed_out
    assert time.monotonic() - start < 5
    child = int(done.stdout)
    assert wait_dead(child), f"child {child} still running"


def test_stdin_is_closed_after_the_input():
    data = b"1 2 3\n" * 200_000  # more than a pipe holds: fed while the target reads
    done = run_contained(PY + ["import sys; print(len(sys.stdin.buffer.read()))"], data, timeout=10)
    assert done.exit_code == 0 and not done.timed_out
    assert done.stdout == f"{len(data)}\n".encode()
    empty = run_contained(PY + ["import sys; print(len(sys.stdin.read()))"], b"", timeout=10)
    assert empty.stdout == b"0\n" and not empty.timed_out


def test_a_target_that_ignores_its_input_is_fine():
    done = run_contained(PY + ["print('hi')"], b"0 " * 1_000_000, timeout=10)
    assert done.exit_code == 0 and done.stdout == b"hi\n" and not done.timed_out


def test_a_target_runs_in_a_fresh_directory():
    done = run_contained(PY + ["import os; print(os.getcwd()); print(os.listdir('.'))"], b"")
    cwd, listing = done.stdout.decode().splitlines()
    assert "fuzz-case-" in cwd and listing == "[]"
    assert not Path(cwd).exists()


def test_a_missing_program_is_exit_127():
    done = run_contained(["/nonexistent/sudoku", "solve"], b"")
    assert done.exit_code == 127 and b"cannot run" in done.stderr


def test_make_target_spellings(tmp_path):
    assert isinstance(make_target("engine"), EngineTarget)
    assert make_target("engine:py").engines == ["py"]
    cli = make_target("cli", timeout=3)
    assert isinstance(cli, CommandTarget) and cli.name == "cli" and cli.timeout == 3
    fake = make_target(spec("correct"), create_args="create easy", solve_args="solve --quiet")
    assert fake.argv == [str(Path(sys.executable).resolve())] + argv("correct")[1:]  # the program's real path
    assert fake.create_args == ["create", "easy"] and fake.solve_args == ["solve", "--quiet"]
    script = tmp_path / "sudoku"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(TargetError, match="not executable"):
        make_target(str(script))
    script.chmod(0o755)
    assert make_target(str(script)).argv == [str(script.resolve())]
    for bad, message in [("engine:nope", "unknown engine"), ("", "empty"), ("./missing/sudoku", "does not exist"),
                         ("no-such-command-here", "not on PATH")]:
        with pytest.raises(TargetError, match=message):
            make_target(bad)


def test_fake_targets_are_right_apart_from_their_bug():
    # The fakes' shared contract code answers as our reference does; their bugs are planted apart.
    correct = CommandTarget(argv("correct"), timeout=10)
    puzzle = b"0 0 3 0 2 0 6 0 0\n9 0 0 3 0 5 0 0 1\n0 0 1 8 0 6 4 0 0\n0 0 8 1 0 2 9 0 0\n" \
             b"7 0 0 0 0 0 0 0 8\n0 0 6 7 0 8 2 0 0\n0 0 2 6 0 9 5 0 0\n8 0 0 2 0 3 0 0 9\n0 0 5 0 1 0 3 0 0\n"
    answer = correct.solve(puzzle)
    assert answer.exit_code == 0 and answer.stdout == render_solution(puzzle)
    refused = correct.solve(b"1 2 3\n")
    assert refused.exit_code == 1 and refused.stdout == b"" and refused.stderr.startswith(b"sudoku: ")
    created = correct.create()
    assert created.exit_code == 0 and from_text("t", "solve", created.stdout).count == 1
    usage = run_contained(argv("correct") + ["frobnicate"], b"")
    assert usage.exit_code == 2 and usage.stdout == b""


def render_solution(text):
    from sudoku import render

    return render(from_text("t", "solve", text).solution, "grid").encode()


# --- planted bugs, found by `fuzz run` -----------------------------------------------------------

Bug = namedtuple("Bug", "oracles also n trigger")
Bug.__doc__ = """What a planted bug should fail: ``oracles`` (all of them), maybe some of ``also`` (the
same bug seen by another oracle), in a run of ``n`` cases with a case for which ``trigger(case)``."""


def solvable_with_givens(case):
    return case.command == "solve" and bool(case.count) and case.puzzle.clues > 0


def no_final_newline(case):
    return case.command == "solve" and case.text and not case.text.endswith(b"\n")


BUGS = {
    "changes_given": Bug({"keeps_givens"}, {"valid_grid"}, 60, solvable_with_givens),
    "invalid_on_multiple": Bug({"valid_grid"}, set(), 60, lambda case: case.count == 2),
    "non_unique_create": Bug({"create_unique"}, set(), 60, lambda case: case.command == "create"),
    "few_blanks": Bug({"create_blanks"}, set(), 60, lambda case: case.command == "create"),
    "same_puzzle": Bug({"create_random"}, set(), 60, lambda case: case.command == "create"),
    "hangs_near_empty": Bug({"no_timeout"}, set(), 60, lambda case: case.family == "empty"),
    "errors_on_stdout": Bug({"rejects_malformed", "rejects_unsolvable"}, set(), 60,
                            lambda case: case.count == 0),
    "crash_no_final_newline": Bug({"no_crash"}, {"answers", "rejects_malformed"}, 100, no_final_newline),
}


def test_every_planted_bug_has_a_test():
    assert set(BUGS) == set(PLANTED)


def records_of(out):
    with open(out / "records.csv", newline="") as lines:
        return list(csv.DictReader(lines))


def reproducers(out):
    """oracle -> (case.json, input bytes) of the run's corpus."""
    found = {}
    for meta in sorted((out / "corpus").glob("*/*/case.json")):
        found[meta.parent.parent.name] = (json.loads(meta.read_text()), (meta.parent / "input.txt").read_bytes())
    return found


def first_trigger(bug):
    """A seed whose cases trigger ``bug`` early (and, for shrinking, whose first trigger is cheap)."""
    def wanted(cases):
        hits = [case for case in cases if bug.trigger(case)]
        if not hits:
            return False
        first = hits[0]
        return first.puzzle is None or first.puzzle.clues <= 30

    return seed_where(bug.n, wanted)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> (completed process, run directory, shared corpus, seed), each run made on first use."""
    made = {}

    def run(name, *extra):
        key = (name,) + extra
        if key not in made:
            bug = BUGS[name]
            seed = first_trigger(bug)
            root = tmp_path_factory.mktemp(name)
            out, shared = root / "run", root / "corpus"
            options = ["--timeout", "2", "--no-shrink"] if name == "hangs_near_empty" else ["--timeout", "10"]
            done = fuzz("run", "-n", bug.n, "--seed", seed, "--workers", 2, "--chunk-size", 30, "--out", out,
                        "--corpus", shared, "--target", spec(name), *options, *extra, cwd=root)
            made[key] = (done, out, shared, seed)
        return made[key]

    return run


@pytest.mark.parametrize("name", PLANTED)
def test_a_planted_bug_is_found_and_named(runs, name):
    bug = BUGS[name]
    done, out, shared, seed = runs(name)
    assert done.returncode == 1, done.stderr
    failed = {oracle for row in records_of(out) if row["oracles_failed"] for oracle in row["oracles_failed"].split(",")}
    assert bug.oracles <= failed <= bug.oracles | bug.also, failed
    for row in records_of(out):
        if row["outcome"] == "failed":
            assert set(row["oracles_failed"].split(",")) & (bug.oracles | bug.also)
    saved = reproducers(out)
    assert bug.oracles <= set(saved)
    assert {path.parent.name for path in shared.glob("*/*")} == set(saved)  # the shared corpus too
    for oracle in bug.oracles:
        assert f"| {oracle} |" in done.stdout
        meta, data = saved[oracle]
        assert meta["oracle"] == oracle and meta["target"] == spec(name) and meta["seed"] == seed
        assert meta["detail"] and not meta["detail"].startswith("failed when found")


def test_a_changed_given_shrinks_to_very_few_clues(runs):
    done, out, _, _ = runs("changes_given")
    meta, data = reproducers(out)["keeps_givens"]
    original = next(row for row in records_of(out) if row["case"] == str(meta["case"]))
    reproducer = from_text("t", "solve", data)
    assert reproducer.count and 1 <= reproducer.puzzle.clues <= 2 < int(original["clues"])
    assert "1 given(s) changed" in meta["detail"]


def test_an_invalid_answer_to_a_multiple_puzzle_shrinks_to_the_empty_grid(runs):
    _, out, _, _ = runs("invalid_on_multiple")
    meta, data = reproducers(out)["valid_grid"]
    reproducer = from_text("t", "solve", data)
    assert reproducer.count == 2 and reproducer.puzzle.clues <= 2
    assert "has two" in meta["detail"]


def test_errors_on_stdout_shrink(runs):
    _, out, _, _ = runs("errors_on_stdout")
    saved = reproducers(out)
    meta, data = saved["rejects_malformed"]
    assert len(data) <= 4 and from_text("t", "solve", data).count is None
    assert "exit 0" in meta["detail"] and "printed on stdout" in meta["detail"]
    meta, data = saved["rejects_unsolvable"]
    original = next(row for row in records_of(out) if row["case"] == str(meta["case"]))
    reproducer = from_text("t", "solve", data)
    assert reproducer.count == 0 and reproducer.puzzle.clues <= int(original["clues"])


def test_a_crash_without_final_newline_shrinks_to_a_short_text(runs):
    _, out, _, _ = runs("crash_no_final_newline")
    meta, data = reproducers(out)["no_crash"]
    assert 1 <= len(data) <= 2 and not data.endswith(b"\n")
    assert meta["detail"] == "killed by signal 11"
    assert meta["actual"]["exit_code"] == -11


@pytest.mark.parametrize("name", ["non_unique_create", "few_blanks", "same_puzzle"])
def test_a_create_bug_is_saved_as_a_create(runs, name):
    _, out, _, _ = runs(name)
    for oracle in BUGS[name].oracles:
        meta, data = reproducers(out)[oracle]
        assert meta["command"] == "create" and data == b"" and meta["run"].endswith("create")


def test_a_hang_costs_about_its_timeout(runs):
    done, out, _, _ = runs("hangs_near_empty")
    hung = [row for row in records_of(out) if row["oracles_failed"] == "no_timeout"]
    assert hung and all(row["family"] == "empty" for row in hung)
    assert all(2.0 <= float(row["target_s"]) < 4 for row in hung)
    meta, data = reproducers(out)["no_timeout"]
    assert meta["actual"]["timed_out"] is True
    assert from_text("t", "solve", data).puzzle.clues == 0


@pytest.mark.slow
def test_a_hang_shrinks(tmp_path):
    seed = first_trigger(BUGS["hangs_near_empty"])
    done = fuzz("run", "-n", 60, "--seed", seed, "--workers", 2, "--chunk-size", 30, "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", spec("hangs_near_empty"), "--timeout", "2", cwd=tmp_path)
    assert done.returncode == 1
    meta, data = reproducers(tmp_path / "run")["no_timeout"]
    reproducer = from_text("t", "solve", data)
    assert reproducer.puzzle.clues == 0 and len(data) <= 162
    assert meta["actual"]["timed_out"] is True and not meta["detail"].startswith("failed when found")


def test_replay_fails_while_the_bug_is_there(runs, tmp_path):
    _, out, shared, _ = runs("changes_given")
    done = fuzz("replay", shared, "--target", spec("changes_given"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "FAILS" in done.stderr and "still fail" in done.stderr
    fixed = fuzz("replay", shared, "--target", spec("correct"), cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert "passes" in fixed.stderr and "0 still fail" in fixed.stderr
    run_corpus = fuzz("replay", out / "corpus", "--target", spec("changes_given"), cwd=tmp_path)
    assert run_corpus.returncode == 1


def test_replay_of_a_malformed_reproducer(runs, tmp_path):
    _, _, shared, _ = runs("errors_on_stdout")
    assert fuzz("replay", shared, "--target", spec("errors_on_stdout"), cwd=tmp_path).returncode == 1
    assert fuzz("replay", shared, "--target", spec("correct"), cwd=tmp_path).returncode == 0


def test_a_later_run_replays_the_corpus_first(runs, tmp_path):
    _, _, shared, _ = runs("crash_no_final_newline")
    entries = len(list(shared.glob("*/*/case.json")))
    # a run too short to meet the bug again still fails on the saved reproducers
    done = fuzz("run", "-n", 3, "--seed", 1, "--workers", 1, "--out", tmp_path / "again", "--corpus", shared,
                "--target", spec("crash_no_final_newline"), cwd=tmp_path)
    assert f"replayed {entries} saved reproducers: {entries} still fail" in done.stdout
    assert done.returncode == 1
    assert reproducers(tmp_path / "again")  # copied into the run's own corpus
    fixed = fuzz("run", "-n", 3, "--seed", 1, "--workers", 1, "--out", tmp_path / "fixed", "--corpus", shared,
                 "--target", spec("correct"), cwd=tmp_path)
    assert fixed.returncode == 0 and f"replayed {entries} saved reproducers: 0 still fail" in fixed.stdout


def test_fake_targets_are_executable():
    from fake_targets import HERE

    for path in HERE.glob("[a-z]*.py"):
        assert os.access(path, os.X_OK), path


def test_cli_target_runs_this_sudoku_even_with_a_relative_pythonpath(monkeypatch):
    """Each call runs in a fresh temporary directory, where PYTHONPATH=. would find nothing."""
    from fuzz.targets import make_target

    monkeypatch.setenv("PYTHONPATH", ".")
    target = make_target("cli")
    result = target.solve(b"0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 1\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.decode().splitlines()[3].endswith("1")
