"""The differential check across targets, and --reference: a trusted program as the oracle of answers."""

import csv
import json
import shlex
import sys
from collections import Counter

import pytest
from hypothesis import given, strategies as st

from fake_targets import fuzz, seed_where, spec
from fuzz.cases import make_case
from fuzz.oracles import differ, said_verdict
from fuzz.reference import FAILED, OVERRULED, expect
from fuzz.targets import Result
from sudoku import Grid, create, engines, render

ANSWER = st.sampled_from(["right", "other", "third", None])


def records_of(out):
    with open(out / "records.csv", newline="") as lines:
        return list(csv.DictReader(lines))


def notes_of(row):
    return set(filter(None, row["notes"].split(",")))


# --- oracles.differ --------------------------------------------------------------------------------

@given(st.lists(ANSWER, min_size=1, max_size=5))
def test_differ_names_exactly_the_targets_off_the_expected_answer_when_they_do_not_all_agree(answers):
    found = differ(answers, "right")
    given_ = [answer for answer in answers if answer is not None]
    unanimous = len(set(given_)) <= 1
    for answer, finding in zip(answers, found):
        if answer is None or answer == "right" or unanimous:
            assert finding is None or (finding[0] == "oracle_doubted" and answer == given_[0] != "right")
        else:
            others = [other for other in answers if other is not None]
            others.remove(answer)
            assert finding == ("differs", sum(other != answer for other in others), len(others))


@given(st.integers(2, 5), st.sampled_from(["right", "other"]))
def test_differ_doubts_the_oracle_only_when_every_target_gave_the_same_other_grid(count, answer):
    found = differ([answer] * count, "right")
    assert found == ([("oracle_doubted", 0, count - 1)] * count if answer != "right" else [None] * count)
    assert differ([answer] * (count - 1) + [None], "right") == [None] * count  # one target did not answer


def test_differ_needs_two_answers():
    assert differ(["other"], "right") == [None]
    assert differ(["other", None, None], "right") == [None, None, None]


# --- reference.expect ------------------------------------------------------------------------------

class Canned:
    """A reference that answers every call with one Result."""

    header = False

    def __init__(self, result):
        self.result = result

    def solve(self, text):
        return self.result

    check = solve


def answer(stdout=b"", exit_code=0, **kind):
    stdout = stdout.encode() if isinstance(stdout, str) else stdout
    return Result(exit_code, stdout, kind.pop("stderr", b""), 0.01, kind.pop("timed_out", False), False, 0.01)


@pytest.fixture(scope="module")
def unique():
    puzzle = create(3, seed=5, difficulty="easy")
    solution = engines.solve(puzzle, limit=1).solution
    return make_case(1, 1, n=100)._replace(family="unique_easy", command="solve", text=render(puzzle, "grid").encode(),
                                           puzzle=puzzle, count=1, solution=solution, side=9)


def test_a_reference_that_agrees_leaves_the_case_as_it_is(unique):
    expected = expect(unique, Canned(answer(render(unique.solution, "grid"))))
    assert expected.case == unique and expected.note is None


@pytest.mark.parametrize("result, why", [
    (answer(exit_code=-6), "signal 6"),
    (answer(timed_out=True), "timeout"),
    (answer(stderr=b"Traceback (most recent call last):\n  boom"), "traceback"),
    (answer(""), "exit 0, no grid"),
    (answer(exit_code=1, stdout="x"), None),  # a rejection, not a failure: see below
])
def test_a_reference_that_crashes_hangs_or_answers_nothing_has_failed(unique, result, why):
    expected = expect(unique, Canned(result))
    if why is None:
        assert expected.note == OVERRULED and expected.case.count == 0
    else:
        assert expected.case is None and expected.note == FAILED and why in expected.detail


def test_a_reference_whose_grid_breaks_a_rule_or_a_given_has_failed(unique):
    cells = list(unique.solution.cells)
    cells[1] = cells[0]
    clash = expect(unique, Canned(answer(render(Grid(3, cells), "grid"))))
    assert clash.case is None and "breaks a rule" in clash.detail
    swap = {1: 2, 2: 1}
    relabelled = Grid(3, [swap.get(v, v) for v in unique.solution.cells])
    changed = expect(unique, Canned(answer(render(relabelled, "grid"))))
    assert changed.case is None and "changes a given" in changed.detail


def test_a_reference_overrules_our_engine_and_says_so(unique):
    full = unique._replace(family="full", puzzle=unique.solution, text=render(unique.solution, "grid").encode())
    refused = expect(full, Canned(answer(exit_code=1)))
    assert refused.note == OVERRULED and refused.case.count == 0 and "rejects" in refused.detail
    none = unique._replace(family="no_solution", count=0, solution=None)
    solved = expect(none, Canned(answer(render(unique.solution, "grid"))))
    assert solved.note == OVERRULED and solved.case.count == 2  # any valid answer keeping the givens


def test_a_checking_reference_sets_the_verdict():
    grid = create(2, seed=3, difficulty="easy")
    case = make_case(1, 1, n=100)._replace(family="check_blanks", command="check", text=render(grid, "grid").encode(),
                                           puzzle=grid, count=None, solution=None, side=4, verdict="incomplete")
    assert expect(case, Canned(answer("INCOMPLETE\n"))).note is None
    overruled = expect(case, Canned(answer("invalid\n", exit_code=2)))
    assert overruled.case.verdict == "invalid" and overruled.note == OVERRULED
    assert expect(case, Canned(answer("fertig\n")), words=("fertig", "offen", "falsch")).case.verdict == "complete"
    assert said_verdict(b"fertig", ("fertig", "offen", "falsch")) == "complete"
    assert expect(case, Canned(answer("hmm\n"))).note == FAILED


# --- in one chunk: the differential check written into the records -------------------------------

def chunk_seed():
    """A seed whose cases 1..12 hold at least three puzzles with one solution and one with several."""
    for seed in range(1, 100):
        cases = [make_case(seed, index, n=300) for index in range(1, 13)]
        if sum(case.count == 1 for case in cases) >= 3 and any(case.count == 2 for case in cases):
            return seed
    raise AssertionError("no seed")


@pytest.mark.slow
def test_a_chunk_names_the_target_whose_answers_to_unique_puzzles_differ():
    from fuzz.tasks import run_chunk

    names = ["correct", "reversed_digits", "wrong_unique"]
    options = [{"spec": spec(name), "create_args": "create", "solve_args": "solve", "header": False,
                "timeout": 20.0, "max_output": 1 << 20, "check_args": "check"} for name in names]
    seed = chunk_seed()
    rows = run_chunk({"run_id": "t", "chunk": 0, "first": 1, "cases": 12, "start": 3, "count": 36, "stride": 3,
                      "n": 300, "size": "9", "seed": seed, "targets": list(enumerate(options)), "reference": None,
                      "strict": False, "check_engine": "py", "mode": "solve"})
    assert sorted(row["case"] for row in rows) == list(range(3, 39))  # i * 3 + target: one unbroken range
    named = {(row["case"] // 3, row["target"]) for row in rows if "differs" in (row["notes"] or "")}
    wrong = {(row["case"] // 3, row["target"]) for row in rows
             if row["target"] == spec("wrong_unique") and row["solutions"] == 1 and row["outcome"] == "failed"}
    assert named and named == wrong
    for row in rows:
        if "differs" in (row["notes"] or ""):
            assert "differs: its grid is not that of 2 of the 2 other targets, nor our engine's" in row["reason"]
        if row["target"] != spec("wrong_unique"):
            assert row["outcome"] == "ok", row["reason"]


# --- end to end ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_three_targets_one_of_them_wrong_on_unique_puzzles(tmp_path):
    names = ["correct", "reversed_digits", "wrong_unique"]
    seed = seed_where(60, lambda cases: sum(case.count == 2 for case in cases) >= 3)
    done = fuzz("run", "-n", 60, "--seed", seed, "--workers", 2, "--timeout", 20, "--no-shrink", "--out",
                tmp_path / "run", "--corpus", tmp_path / "corpus", *[arg for name in names for arg in
                                                                     ("--target", spec(name))], cwd=tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    rows = records_of(tmp_path / "run")
    differing = Counter(row["target"] for row in rows if "differs" in notes_of(row))
    assert set(differing) == {spec("wrong_unique")}
    assert all(row["solutions"] == "1" and row["outcome"] == "failed" for row in rows if "differs" in notes_of(row))
    assert {row["target"] for row in rows if row["outcome"] == "failed"} == {spec("wrong_unique")}
    # puzzles with several solutions: the two right targets may answer differently, and that is no finding
    several = {}
    for row in rows:
        if row["solutions"] == "2" and row["family"] == "multiple":
            several.setdefault(int(row["case"]) // 3, set()).add(row["solution"])
    assert any(len(answers) > 1 for answers in several.values())
    markdown = (tmp_path / "run" / "summary.md").read_text()  # the whole report; stdout has the short one
    matrix = {line.split("|")[1].strip(" `"): line.split("|") for line in markdown.splitlines()
              if line.startswith("| `")}
    header = next(line.split("|") for line in markdown.splitlines() if line.startswith("| target |"))
    column = [cell.strip() for cell in header].index("differs")
    assert matrix[spec("wrong_unique")][column].strip() == str(differing[spec("wrong_unique")])
    assert matrix[spec("correct")][column].strip() == matrix[spec("reversed_digits")][column].strip() == ""
    assert "## Differential check" in markdown and f"`{spec('wrong_unique')}` on " in markdown
    slowest = next(line for line in markdown.splitlines() if line.startswith("slowest cases ("))
    assert slowest.count(" on `") == 5  # which target was slow
    assert any(line.startswith("differential check: ") and f"{spec('wrong_unique')} on " in line
               for line in done.stdout.splitlines())
    found = json.loads((tmp_path / "run" / "manifest.json").read_text())["fuzz"]["differential"]
    assert found["differs"] == {spec("wrong_unique"): differing[spec("wrong_unique")]}
    assert found["oracle_doubted"] == 0 and found["compared"] >= found["differs_cases"] > 0


@pytest.mark.slow
def test_a_reference_stands_in_for_our_engine(tmp_path):
    seed = seed_where(40, lambda cases: any(case.family == "full" for case in cases))
    done = fuzz("run", "-n", 40, "--seed", seed, "--workers", 2, "--timeout", 20, "--no-shrink", "--out",
                tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", spec("correct"), "--target",
                spec("rejects_full"), "--reference", spec("rejects_full"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    rows = records_of(tmp_path / "run")
    failed = [row for row in rows if row["outcome"] == "failed"]
    assert failed and all(row["target"] == spec("correct") and row["family"] == "full"
                          and row["oracles_failed"] == "rejects_unsolvable" for row in failed)
    overruled = {int(row["case"]) // 2 for row in rows if "reference_overruled" in notes_of(row)}
    assert overruled == {int(row["case"]) // 2 for row in failed}
    assert f"it overruled our engine on {len(overruled)}" in done.stdout
    reference = json.loads((tmp_path / "run" / "manifest.json").read_text())["fuzz"]["differential"]["reference"]
    assert reference["overruled"] == len(overruled) and reference["failed"] == 0
    groups = json.loads((tmp_path / "run" / "manifest.json").read_text())["fuzz"]["groups"]
    assert groups and all(f"--reference {shlex.quote(spec('rejects_full'))}" in group["replay"] for group in groups)
    # without the reference our engine is the oracle, and the program to the other contract fails instead
    alone = fuzz("run", "-n", 40, "--seed", seed, "--workers", 2, "--timeout", 20, "--no-shrink", "--out",
                 tmp_path / "alone", "--corpus", tmp_path / "corpus", "--target", spec("rejects_full"), cwd=tmp_path)
    assert alone.returncode == 1 and {row["family"] for row in records_of(tmp_path / "alone")
                                      if row["outcome"] == "failed"} == {"full"}


@pytest.mark.slow
def test_a_flaky_reference_never_makes_a_target_look_wrong(tmp_path):
    done = fuzz("run", "-n", 60, "--seed", 3, "--workers", 2, "--timeout", 20, "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", spec("correct"), "--target", spec("reversed_digits"),
                "--reference", spec("flaky_reference"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    rows = records_of(tmp_path / "run")
    assert all(row["outcome"] == "ok" for row in rows)
    skipped = {int(row["case"]) // 2 for row in rows if "reference_failed" in notes_of(row)}
    assert skipped  # a third of its calls fail: some cases of 60 are not compared
    reference = json.loads((tmp_path / "run" / "manifest.json").read_text())["fuzz"]["differential"]["reference"]
    assert reference["failed"] == len(skipped) and f"it failed on {len(skipped)} (not compared" in done.stdout


@pytest.mark.slow
def test_a_flaky_reference_still_catches_a_wrong_target_where_it_answered(tmp_path):
    done = fuzz("run", "-n", 60, "--seed", 3, "--workers", 2, "--timeout", 20, "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", spec("correct"), "--target", spec("wrong_unique"),
                "--reference", spec("flaky_reference"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    rows = records_of(tmp_path / "run")
    assert {row["target"] for row in rows if row["outcome"] == "failed"} == {spec("wrong_unique")}
    for row in rows:
        if "reference_failed" in notes_of(row):
            assert row["outcome"] == "ok"  # not compared: the wrong target is not blamed there
    groups = json.loads((tmp_path / "run" / "manifest.json").read_text())["fuzz"]["groups"]
    assert groups and all(not group["flaky"] for group in groups)  # the reference is asked again in triage


def test_a_reference_that_cannot_start_is_one_line_and_exit_2(tmp_path):
    done = fuzz("run", "-n", 5, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", "engine",
                "--reference", f"{sys.executable} -S /nonexistent/ref.py", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "reference" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "run").exists()


def test_checking_a_reference_loads_no_compiled_engine_in_the_parent():
    """The parent's reference check counts its easy puzzle with py: loading band there took 0.25 s of
    the pre-flight, and the run's workers load it anyway."""
    import subprocess

    code = ("import sys; from fuzz.engine import check_reference; "
            f"check_reference({{'spec': {spec('correct')!r}}}, 9, mode='solve', words=None, exits=None); "
            "print(sorted(name for name in sys.modules if name.startswith('sudoku.engines.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "sudoku.engines.py" in done.stdout and "sudoku.engines.band" not in done.stdout, done.stdout


def test_replay_with_the_reference_judges_as_the_run_did(tmp_path):
    # a reproducer found under --reference rejects_full: a full grid, which that reference rejects; the
    # correct target solves it, which is wrong by the reference and right by our engine
    folder = tmp_path / "corpus" / "correct" / "rejects_unsolvable" / "abc"
    folder.mkdir(parents=True)
    full = render(engines.solve(create(3, seed=7), limit=1).solution, "grid").encode()
    (folder / "input.txt").write_bytes(full)
    (folder / "case.json").write_text(json.dumps({"family": "full", "command": "solve", "side": 9,
                                                  "signature": "rejects_unsolvable on full"}))
    judged = fuzz("replay", tmp_path / "corpus", "--target", spec("correct"), "--reference", spec("rejects_full"),
                  cwd=tmp_path)
    assert judged.returncode == 1 and "FAILS" in judged.stderr and "rejects_unsolvable" in judged.stderr
    alone = fuzz("replay", tmp_path / "corpus", "--target", spec("correct"), cwd=tmp_path)
    assert alone.returncode == 0 and f"{folder}: passes" in alone.stderr
    broken = fuzz("replay", tmp_path / "corpus", "--target", spec("correct"), "--reference",
                  f"{sys.executable} -S /nonexistent/ref.py", cwd=tmp_path)
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1 and "reference" in broken.stderr
