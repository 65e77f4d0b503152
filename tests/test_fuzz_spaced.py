"""Readers that take a number only when a space follows it: found by the pre-flight, and tested past
the reader (every other puzzle case spelled with a space after every number), so a bug behind such a
reader is found, not hidden by the reader's refusal of the classic text."""

import json

from fake_targets import fuzz, seed_where, spec
from fuzz.cases import is_spaced, lenient, space_after_each
from fuzz.engine import cannot_start
from fuzz.oracles import can_fail
from fuzz.shrink import shrink
from fuzz.summary import SPACED_READER
from fuzz.tasks import case_of


def _spec(name):
    return {"spec": spec(name), "create_args": "create", "solve_args": "solve", "header": False, "timeout": 10,
            "max_output": 1 << 20, "check_args": "check"}


def test_the_preflight_finds_only_the_reader_that_needs_a_space_after_each_number():
    spaced = set()
    found = cannot_start([_spec(name) for name in ("needs_space_after", "correct", "strict_whitespace")], 9,
                         spaced=spaced)
    assert found == {} and spaced == {spec("needs_space_after")}


def test_every_other_puzzle_case_is_spelled_with_a_space_after_each_number():
    config = {"seed": 5, "n": 300, "size": 9}
    respelled = 0
    for index in range(300):
        plain, spaced = case_of(config, index), case_of(config, index, spaced=True)
        if index % 2 and plain.command == "solve" and not lenient(plain.family) and plain.text:
            assert spaced == plain._replace(text=space_after_each(plain.text)) and is_spaced(spaced.text)
            respelled += 1
        else:  # the classic text (its refusal stays a bug), and valid text whose point is its spelling
            assert spaced == plain
    assert respelled > 75  # of 300: a third of the cases are puzzle cases at odd indexes


def test_shrinking_keeps_the_spelling_the_target_reads():
    config = {"seed": 5, "n": 300, "size": 9}
    case = next(one for index in range(1, 300, 2) if (one := case_of(config, index, spaced=True)).family == "unique_easy")
    small = shrink(case, ["answers"], lambda candidate: is_spaced(candidate.text), max_calls=400).case
    assert is_spaced(small.text) and can_fail("answers", small)
    assert sum(map(bool, small.puzzle.cells)) < sum(map(bool, case.puzzle.cells))


def test_a_bug_behind_the_reader_is_found_with_the_readers_own_bug(tmp_path):
    seed = seed_where(40, lambda cases: any(case.family == "full" and index % 2 for index, case in enumerate(cases)))
    done = fuzz("run", "-n", 40, "--seed", seed, "--workers", 2, "--no-shrink", "--json", "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", spec("needs_space_after"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert SPACED_READER in done.stderr
    assert json.loads(done.stdout)["spaced_readers"] == [spec("needs_space_after")]
    assert SPACED_READER in (tmp_path / "run" / "summary.md").read_text()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["spaced_readers"] == [spec("needs_space_after")]
    groups = {group["signature"]: group for group in manifest["fuzz"]["groups"]}
    assert set(groups) == {"answers:exit on solvable (exit non-zero: 'sudoku invalid board row with # numbers')",
                           "answers:exit on solvable (exit non-zero: 'sudoku no solution')"}
    inputs = {path.read_bytes() for path in (tmp_path / "run" / "corpus").glob("*/answers/*/input.txt")}
    assert any(is_spaced(text) and b"0" not in text for text in inputs)  # the full grid, as the reader takes it


def test_probe_says_the_reader_needs_a_space_after_each_number(tmp_path):
    done = fuzz("probe", "--target", spec("needs_space_after"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == "understands the contract's own spelling: 'create' and 'solve'"
    assert done.stdout.splitlines()[1].startswith("fuzz run --target ")
    first = next(line for line in done.stderr.splitlines() if "--solve-args 'solve':" in line)
    assert "row with 8 numbers" in first and "with a space after every number: right" in first
