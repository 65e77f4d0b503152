"""The ``fuzz`` command end to end: right targets pass, --strict, exit codes, reproducible runs."""

import csv
import sys
from collections import Counter
import json
import re
import shlex

import pytest

from fake_targets import fuzz, fuzz_process, seed_where, spec
from fuzz.summary import CONTRACT_APART, class_lines
from fuzz.wording import CONTRACT_HELP
from fuzz.cases import from_text
from sudoku import create, render

COMMON = ("--workers", 2, "--chunk-size", 30, "--timeout", 10)


def records_of(out):
    with open(out / "records.csv", newline="") as lines:
        return list(csv.DictReader(lines))


def test_a_correct_target_yields_no_failure(tmp_path):
    # smoke: `python -m fuzz` as a real process (the other tests call fuzz.cli.main in-process)
    done = fuzz_process("run", "-n", 150, "--seed", 3, *COMMON, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus",
                "--target", spec("correct"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = records_of(tmp_path / "run")
    assert len(rows) == 150 and {row["outcome"] for row in rows} == {"ok"}
    assert {row["format_slips"] for row in rows} == {""}
    assert len({row["family"] for row in rows}) > 15  # most families met
    assert "150 cases, 0 failed" in done.stdout and "failures per oracle: none" in done.stdout
    assert "|" not in done.stdout and "#" not in done.stdout  # the short summary; the Markdown is in summary.md
    assert "| (none) | 0 |" in (tmp_path / "run" / "summary.md").read_text()
    assert not (tmp_path / "corpus").exists() and not (tmp_path / "run" / "corpus").exists()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["config"]["seed"] == 3


@pytest.fixture(scope="module")
def chatty(tmp_path_factory):
    root = tmp_path_factory.mktemp("chatty")
    done = fuzz("run", "-n", 60, "--seed", 3, *COMMON, "--out", root / "run", "--corpus", root / "corpus",
                "--target", spec("chatty"), cwd=root)
    return done, root / "run"


def test_a_chatty_but_correct_target_yields_no_failure(chatty):
    done, out = chatty
    assert done.returncode == 0, done.stdout + done.stderr
    rows = records_of(out)
    assert {row["outcome"] for row in rows} == {"ok"}
    answered = [row for row in rows if row["format_slips"]]
    assert answered and all(set(row["format_slips"].split(",")) == {"extra_text", "separators"} for row in answered)
    assert "format slips (failures only with --strict): " in done.stdout


@pytest.mark.slow  # 20-60 s: a 60-case run, shrinking and replays through subprocesses (quick suite near 10 min)
def test_strict_turns_slips_into_format_failures(chatty, tmp_path):
    _, loose = chatty
    done = fuzz("run", "-n", 60, "--seed", 3, *COMMON, "--strict", "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", spec("chatty"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    rows = records_of(tmp_path / "run")
    assert {row["oracles_failed"] for row in rows} == {"", "format"}
    slipped = {row["case"] for row in records_of(loose) if row["format_slips"]}
    assert {row["case"] for row in rows if row["oracles_failed"] == "format"} == slipped
    meta = json.loads(next((tmp_path / "run" / "corpus").glob("*/format/*/case.json")).read_text())
    assert meta["detail"] == "format: separators, extra_text ('Solution:')"
    assert meta["signature"] == "format:separators,extra_text on solvable (exit 0)"
    assert f"--target {shlex.quote(spec('chatty'))} --strict" in meta["replay"]  # judged as the run was
    data = next((tmp_path / "run" / "corpus").glob("*/format/*/input.txt")).read_bytes()
    # not shrunk: any puzzle shows the slips (shrinking one took 17 s of a QA run, for nothing); the
    # reproducer is the run's own puzzle, and says so
    assert from_text("t", "solve", data).count == 1
    assert meta["shrink_note"] == "not shrunk: a format slip shows on any input"
    # replay honours --strict too
    corpus = tmp_path / "corpus"
    assert fuzz("replay", corpus, "--target", spec("chatty"), cwd=tmp_path).returncode == 0
    assert fuzz("replay", corpus, "--target", spec("chatty"), "--strict", cwd=tmp_path).returncode == 1


def test_the_same_seed_gives_the_same_run(tmp_path):
    args = ("-n", 80, "--seed", 9, "--workers", 2, "--chunk-size", 30, "--target", "engine",
            "--corpus", tmp_path / "corpus")
    first = fuzz("run", *args, "--out", tmp_path / "a", cwd=tmp_path)
    second = fuzz("run", *args, "--out", tmp_path / "b", cwd=tmp_path)
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    keep = ("case", "family", "input_text", "puzzle", "solution", "solutions", "outcome", "engine")

    def same_part(row):  # a create's or round trip's puzzle is the target's, random by contract
        own = ("puzzle", "input_text", "solution", "solutions")
        return {k: row[k] for k in keep if not (row["family"] in ("create", "roundtrip") and k in own)}

    a = [same_part(row) for row in records_of(tmp_path / "a")]
    b = [same_part(row) for row in records_of(tmp_path / "b")]
    assert a == b
    assert [row["case"] for row in a] == [str(i) for i in range(80)]


@pytest.mark.parametrize("args, message", [
    (("run", "-n", 5, "--target", "./no/such/sudoku"), "does not exist"),
    (("run", "-n", 5, "--target", "engine:nope"), "unknown engine"),
    (("run", "-n", 5, "--target", "no-such-command-here"), "not on PATH"),
    (("run", "-n", 0), "at least 1"),
    (("run", "--backend", "carrier-pigeon"), "unknown backend"),
    (("run", "--frobnicate"), "unrecognized arguments"),
    (("replay", "missing-corpus"), "does not exist"),
    ((), "a command is needed"),
])
def test_bad_usage_is_exit_2(tmp_path, args, message):
    done = fuzz(*args, "--out", tmp_path / "run", cwd=tmp_path) if args[:1] == ("run",) else fuzz(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()  # nothing made for a bad command


def test_a_missing_program_is_named_once_with_whose_it_is(tmp_path):
    """'target ./x cannot start: target ./x does not exist' said the target twice, and a missing
    --reference was called a target."""
    done = fuzz("run", "-n", 5, "--target", "./no/such/sudoku", "--out", tmp_path / "run", cwd=tmp_path)
    assert done.stderr == "fuzz: target ./no/such/sudoku cannot start: ./no/such/sudoku does not exist\n"
    done = fuzz("run", "-n", 5, "--reference", "./no/model", "--out", tmp_path / "run", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == "fuzz: reference ./no/model does not exist\n"
    done = fuzz("probe", "--target", "no-such-command-here", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == "fuzz: target command 'no-such-command-here' is not on PATH\n"


def test_replay_with_a_missing_target_is_exit_2(tmp_path):
    (tmp_path / "corpus").mkdir()
    done = fuzz("replay", tmp_path / "corpus", "--target", "./no/such/sudoku", cwd=tmp_path)
    assert done.returncode == 2 and "does not exist" in done.stderr


@pytest.mark.slow  # 15 s; test_jobs_input checks the same refusal quickly
def test_an_existing_out_needs_force(tmp_path):
    # real processes: a run holds its directory's lock for its process's life, so a second run over it
    # in the same process would find it in use
    args = ("run", "-n", 5, "--seed", 1, "--workers", 1, "--target", "engine", "--corpus", tmp_path / "corpus",
            "--out", tmp_path / "run")
    assert fuzz_process(*args, cwd=tmp_path).returncode == 0
    again = fuzz_process(*args, cwd=tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr and "Traceback" not in again.stderr
    assert fuzz_process(*args, "--force", cwd=tmp_path).returncode == 0


@pytest.mark.slow  # 27 s; test_jobs_trust checks --force quickly
def test_force_replaces_a_run_with_its_reproducers_but_never_what_no_run_wrote(tmp_path):
    """The runner learns from the fuzz task what a fuzz run writes (its corpus, its summary), so
    --force replaces a run that saved reproducers; a file no run writes still stops it."""
    args = ("run", "-n", 40, "--seed", 2, *COMMON, "--no-shrink", "--target", spec("changes_given"),
            "--corpus", tmp_path / "corpus", "--out", tmp_path / "run")
    assert fuzz_process(*args, cwd=tmp_path).returncode == 1
    assert list((tmp_path / "run" / "corpus").glob("*/*/*/case.json"))
    again = fuzz_process(*args, "--force", cwd=tmp_path)
    assert again.returncode == 1 and "Traceback" not in again.stderr, again.stderr
    (tmp_path / "run" / "corpus" / "notes.txt").write_text("mine")
    refused = fuzz_process(*args, "--force", cwd=tmp_path)
    assert refused.returncode == 2 and "holds what no run writes (corpus/notes.txt)" in refused.stderr
    assert (tmp_path / "run" / "corpus" / "notes.txt").read_text() == "mine"


def test_replay_without_a_target_takes_the_reproducers_own_when_it_is_ours(tmp_path):
    from fuzz import corpus
    from fuzz.cases import from_text
    from fuzz.targets import Result, make_target

    case = from_text("unique_easy", "solve", b"1 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n", side=4)
    for name in ("engine:py", "cli"):
        corpus.save(tmp_path / name, case, signature="answers:wrong on unique (exit 0)", oracle="answers",
                    detail="d", target=make_target(name), result=Result(0, b"", b"", 0.1, False, False))
        done = fuzz("replay", tmp_path / name, cwd=tmp_path)
        assert done.returncode == 0 and f"replayed 1 reproducer against {name}: 0 still fail" in done.stderr
    both = fuzz("replay", tmp_path, cwd=tmp_path)
    assert both.returncode == 2 and "holds reproducers of 2 targets (cli, engine:py)" in both.stderr


def test_replaying_an_empty_corpus_is_exit_2(tmp_path):
    (tmp_path / "corpus").mkdir()
    done = fuzz("replay", tmp_path / "corpus", "--target", spec("changes_given"), cwd=tmp_path)
    assert done.returncode == 2 and "no reproducers under" in done.stderr


# --- sizes ---------------------------------------------------------------------------------------

def sizes_of(out):
    return {int(row["size"]) for row in records_of(out)}


@pytest.mark.parametrize("size, sizes", [("4", {4}), pytest.param("mixed", {4, 9, 16, 25}, marks=pytest.mark.slow)])
def test_a_size_generic_program_passes_at_every_size(tmp_path, size, sizes):
    done = fuzz("run", "-n", 80, "--seed", 5, *COMMON, "--size", size, "--create-args", "create {size}",
                "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", spec("sized"), cwd=tmp_path,
                timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert sizes_of(tmp_path / "run") == sizes
    creates = [row for row in records_of(tmp_path / "run") if row["family"] == "create"]
    assert creates and all(row["outcome"] == "ok" for row in creates)
    # a dialect ('create {size}') of a program that understands the contract's own spelling too: nothing more said
    assert "the contract" not in done.stdout + done.stderr and "spelling" not in done.stdout + done.stderr
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["config"]["contract_breaks"] == {}


@pytest.mark.slow  # about a minute: 16x16 shrinking and confirming, through subprocesses
def test_a_bug_only_at_16x16_is_found_there_and_only_there(tmp_path):
    done = fuzz("run", "-n", 80, "--seed", 5, *COMMON, "--size", "mixed", "--create-args", "create {size}",
                "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", spec("wrong_at_16"),
                cwd=tmp_path, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    failed = [row for row in records_of(tmp_path / "run") if row["outcome"] == "failed"]
    assert failed and {row["size"] for row in failed} == {"16"}
    assert all("keeps_givens" in row["oracles_failed"] for row in failed)
    folder = next(path.parent for path in (tmp_path / "run" / "corpus").glob("*/keeps_givens/*/case.json")
                  if json.loads(path.read_text())["family"] != "roundtrip")  # round trips are not shrunk
    meta = json.loads((folder / "case.json").read_text())
    assert meta["side"] == 16
    data = (folder / "input.txt").read_bytes()
    reproducer = from_text(meta["family"], "solve", data, side=16)
    original = next(row for row in records_of(tmp_path / "run") if row["case"] == str(meta["case"]))
    assert reproducer.puzzle.side == 16 and reproducer.puzzle.clues < int(original["clues"])  # shrunk, still 16x16
    replay = fuzz("replay", tmp_path / "run" / "corpus", "--target", spec("wrong_at_16"), cwd=tmp_path)
    assert replay.returncode == 1 and "FAILS the same way" in replay.stderr


@pytest.mark.slow
@pytest.mark.parametrize("size", ["16", "25"])
def test_our_own_command_passes_at_big_sizes(tmp_path, size):
    done = fuzz("run", "-n", 300, "--seed", 2, "--size", size, "--workers", 2, "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", "cli", "--timeout", "30", cwd=tmp_path, timeout=3000)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert sizes_of(tmp_path / "run") == {int(size)}


# --- many targets --------------------------------------------------------------------------------

def test_three_targets_in_one_run_give_a_matrix_naming_the_broken_one(tmp_path):
    listed = tmp_path / "targets.txt"
    listed.write_text(f"# the class's submissions\n{spec('changes_given')}\n\n{sys.executable} -S /nonexistent/x.py\n")
    done = fuzz("run", "-n", 60, "--seed", 4, *COMMON, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus",
                "--target", spec("correct"), "--targets", listed, "--md", "-", cwd=tmp_path, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    rows = records_of(tmp_path / "run")
    by_target = Counter(row["target"] for row in rows)
    assert by_target == {spec("correct"): 60, spec("changes_given"): 60}  # the same 60 cases each
    assert sorted(int(row["case"]) for row in rows) == list(range(120))
    inputs = {}
    for row in rows:
        if row["family"] not in ("create", "roundtrip"):  # those inputs are each target's own creates
            inputs.setdefault(int(row["case"]) // 2, set()).add(row["input_text"])  # record i * 2 + target
    assert all(len(texts) == 1 for texts in inputs.values())  # case i is the same text for every target
    assert {row["target"] for row in rows if row["outcome"] == "failed"} == {spec("changes_given")}
    assert "## Targets" in done.stdout and "3 targets" in done.stdout
    matrix = {line.split("|")[1].strip(" `"): line for line in done.stdout.splitlines() if line.startswith("| `")}
    assert "| ok | 60 | 0 |" in matrix[spec("correct")]
    assert "| failed | 60 |" in matrix[spec("changes_given")]
    assert "cannot start" in matrix[f"{sys.executable} -S /nonexistent/x.py"]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    statuses = {row["target"]: row["status"] for row in manifest["fuzz"]["targets"]}
    assert statuses == {spec("correct"): "ok", spec("changes_given"): "failed",
                        f"{sys.executable} -S /nonexistent/x.py": "cannot start"}
    saved = [json.loads(path.read_text()) for path in (tmp_path / "run" / "corpus").glob("*/*/*/case.json")]
    assert saved and {meta["target"] for meta in saved} == {spec("changes_given")}  # one target's folder
    assert all(bug["target"] == spec("changes_given") for bug in manifest["fuzz"]["groups"])


def test_a_lone_target_that_cannot_start_is_exit_2(tmp_path):
    done = fuzz("run", "-n", 20, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus",
                "--target", f"{sys.executable} -S /nonexistent/x.py", cwd=tmp_path)
    assert done.returncode == 2 and "cannot start" in done.stderr and not (tmp_path / "run").exists()


def test_the_workers_start_during_the_pre_flight_and_a_refused_target_leaves_none(tmp_path, monkeypatch):
    """The run's workers are started before its targets are pre-flighted, so their start-up overlaps
    it (issue 28); a pre-flight that refuses the lone target still ends in its one line, exit 2, and
    no process left."""
    from fuzz import engine
    from fuzz.targets import _children

    before = set(_children())
    during = []
    preflight = engine.cannot_start

    def watched(*args, **kwargs):
        during.append(set(_children()) - before)
        return preflight(*args, **kwargs)

    monkeypatch.setattr(engine, "cannot_start", watched)
    done = fuzz("run", "-n", 20, "--workers", 2, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus",
                "--target", f"{sys.executable} -S /nonexistent/x.py", cwd=tmp_path)
    assert done.returncode == 2 and not (tmp_path / "run").exists()
    assert done.stderr.count("\n") == 1 and "cannot start" in done.stderr, done.stderr
    assert [len(workers) for workers in during] == [2]
    assert not set(_children()) - before


# --- probe ---------------------------------------------------------------------------------------

def test_probe_says_a_program_understands_the_contract_and_that_the_defaults_work(tmp_path):
    done = fuzz("probe", "--target", spec("correct"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["understands the contract's own spelling: 'create' and 'solve'",
                                        f"fuzz run --target {shlex.quote(spec('correct'))}   # the defaults work"]
    assert "--format grid --solve-args 'solve': " in done.stderr and "--create-args 'create': " in done.stderr


def test_probe_says_the_contract_is_broken_first_and_only_then_offers_the_spelling_that_works(tmp_path):
    """The issue's case: `create` without a difficulty prints its usage and exits 4, `create easy`
    works (with 10 blanks). Probe used to propose `create easy` alone, and the contract's failure
    showed only among the tries on stderr."""
    done = fuzz("probe", "--target", spec("needs_difficulty"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "breaks the contract: 'create' exits 4 with no grid on stdout; it said: 'Usage: ./sudoku create difficulty'",
        "the spelling that works: --create-args 'create easy'",
        f"fuzz run --target {shlex.quote(spec('needs_difficulty'))} --create-args 'create easy'"]
    assert "--create-args 'create easy': understood; its answer has bugs for fuzz run to show (create_blanks: " \
           "10 blanks" in done.stderr
    header = fuzz("probe", "--target", spec("header_easy"), cwd=tmp_path)
    assert header.returncode == 1 and header.stdout.splitlines()[1:] == [
        "the spelling that works: --create-args 'create easy' --format header",
        f"fuzz run --target {shlex.quote(spec('header_easy'))} --create-args 'create easy' --format header"]


def test_probe_shows_the_programs_words_escaped_in_one_line(tmp_path):
    program = tmp_path / "usage_with_escapes.py"
    program.write_text("import sys\nif sys.argv[1:] == ['create']:\n"
                       "    sys.stderr.write('\\x1b[31mUsage:\\tcreate LEVEL\\r\\n'); sys.exit(4)\n"
                       "sys.exit(1)\n")
    done = fuzz("probe", "--target", f"{sys.executable} -S {program}", cwd=tmp_path)
    first = done.stdout.splitlines()[0]
    assert done.returncode == 1 and "\x1b" not in done.stdout and "\t" not in first
    assert first.startswith("breaks the contract: 'create' exits 4 with no grid on stdout; it said: ")
    assert "Usage:" in first and "\\x1b" in first


def test_probe_takes_a_spelling_that_is_understood_even_when_the_answer_has_a_bug(tmp_path):
    """A create that prints a readable puzzle with too few blanks is the right spelling: the bug is
    for the run to show; and a program that wants `solve easy` gets it, after the finding that its
    `solve` breaks the contract."""
    done = fuzz("probe", "--target", spec("few_blanks_solve_easy"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "breaks the contract: 'solve' of a known-good puzzle in the classic text exits 2 with no grid on stdout; "
        "it said: 'usage: sudoku solve easy|hard'",
        "the spelling that works: --solve-args 'solve easy'",
        f"fuzz run --target {shlex.quote(spec('few_blanks_solve_easy'))} --solve-args 'solve easy'"]
    assert "--create-args 'create': understood; its answer has bugs for fuzz run to show (create_blanks" in done.stderr


def test_probe_says_when_nothing_works(tmp_path):
    done = fuzz("probe", "--target", "/bin/true", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout.splitlines() == [
        "breaks the contract: 'create' exits 0 with no grid on stdout; it printed nothing",
        "breaks the contract: 'solve' of a known-good puzzle in the classic text exits 0 with no grid on stdout; "
        "it printed nothing",
        "no way found to create and solve with /bin/true (tried the spellings above)"]
    missing = fuzz("probe", "--target", f"{sys.executable} -S /nonexistent/x.py", cwd=tmp_path)
    assert missing.returncode == 2 and "cannot start" in missing.stderr


# --- the contract's own spelling beside a dialect -------------------------------------------------

HEADER_EASY_CREATE = ("'create' exits 2 with no grid on stdout; it said: 'usage: sudoku create easy|hard'")


def test_a_run_in_a_dialect_reports_the_contracts_own_spelling_failing_once_apart_from_the_bugs(tmp_path):
    """A right program whose plain `create` is a usage error, run as it asks (`create easy`, header
    text): the contract's `create` is asked once and reported once, in every output, as a finding of
    its own that is no bug and does not fail the run."""
    done = fuzz("run", "-n", 12, "--seed", 3, *COMMON, "--create-args", "create easy", "--format", "header",
                "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", spec("header_easy"),
                "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines.count(f"  {HEADER_EASY_CREATE}") == 1 and done.stdout.count("exits 2") == 1
    heading = lines.index(f"  {HEADER_EASY_CREATE}") - 1
    assert lines[heading] == f"the contract's own spelling fails ({CONTRACT_APART}):"
    assert lines[heading + 2] == f"  look at: {CONTRACT_HELP}"
    assert "0 distinct bugs, the contract's own spelling broken;" in done.stdout
    assert done.stderr.count(f"breaks the contract: {HEADER_EASY_CREATE}") == 1  # said as the pre-flight finds it
    assert not (tmp_path / "run" / "corpus").exists()  # no reproducer: no bug group
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "## The contract's own spelling fails" in summary and summary.count("usage: sudoku create easy") == 1
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    breaks = manifest["config"]["contract_breaks"]
    assert breaks == {spec("header_easy"): [{"call": "create", "exit_code": 2, "said": "usage: sudoku create easy|hard",
                                             "line": HEADER_EASY_CREATE}]}
    assert manifest["fuzz"]["groups"] == [] and manifest["fuzz"]["targets"][0]["contract"] == breaks[spec("header_easy")]


def test_fail_contract_fails_a_run_whose_contract_spelling_fails_and_json_gives_it(tmp_path):
    done = fuzz("run", "-n", 6, "--seed", 3, *COMMON, "--create-args", "create easy", "--format", "header",
                "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", spec("header_easy"),
                "--no-progress", "--fail-contract", "--json", cwd=tmp_path)
    data = json.loads(done.stdout)
    assert done.returncode == 1 and data["exit_code"] == 1 and data["distinct_bugs"] == 0 and data["bugs"] == []
    assert [one["line"] for one in data["contract_breaks"][spec("header_easy")]] == [HEADER_EASY_CREATE]


def test_the_issues_program_in_its_dialect_has_its_dialects_bug_and_the_contracts_create_apart(tmp_path):
    """The issue's case: `create` exits 4 with its usage, `create easy` gives 10 blanks. The run in the
    dialect finds the 10 blanks as its one bug, and the contract's `create` once, apart."""
    seed = seed_where(12, lambda cases: any(case.family == "create" for case in cases))
    done = fuzz("run", "-n", 12, "--seed", seed, *COMMON, "--create-args", "create easy", "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", spec("needs_difficulty"), "--no-progress", "--json",
                cwd=tmp_path)
    data = json.loads(done.stdout)
    assert done.returncode == 1 and data["distinct_bugs"] == 1, done.stderr[-2000:]
    assert data["bugs"][0]["signature"].startswith("create_blanks:few_blanks on create")
    assert data["contract_breaks"] == {spec("needs_difficulty"): [{
        "call": "create", "exit_code": 4, "said": "Usage: ./sudoku create difficulty",
        "line": "'create' exits 4 with no grid on stdout; it said: 'Usage: ./sudoku create difficulty'"}]}


def test_a_class_line_names_the_contract_spelling_that_fails(tmp_path):
    rows = [{"target": "alice/sudoku", "status": "ok", "failed": 0,
             "contract": [{"call": "create", "exit_code": 4, "said": "Usage", "line": "..."}]},
            {"target": "bob/sudoku", "status": "ok", "failed": 0}]
    alice, bob = class_lines(rows, [])[1:]
    assert alice.endswith("no bug found; contract's own create fails") and bob.endswith("no bug found")


def test_the_contract_spelling_is_asked_only_of_a_program_run_in_a_dialect(tmp_path, monkeypatch):
    """One create and one solve of the contract's spelling, and only when the run asks another."""
    from fuzz import engine, probe

    asked = []
    monkeypatch.setattr(probe, "contract_breaks", lambda target, side: asked.append(target.create_args) or [])
    base = {"spec": spec("correct"), "create_args": "create", "solve_args": "solve", "header": False, "timeout": 10,
            "max_output": 1 << 20, "check_args": "check", "base": str(tmp_path)}
    for options in ({}, {"create_args": "create"}, {"create_args": "create {size}"}, {"header": True},
                    {"solve_args": "solve easy"}):
        engine.cannot_start([{**base, **options}], 9, contract={})
    engine.cannot_start([{**base, "header": True}], 9, "check", contract={})
    assert asked == [["create"]] * 3


# --- round trip ----------------------------------------------------------------------------------

def test_a_program_that_cannot_solve_its_own_puzzles_is_caught_by_the_round_trip(tmp_path):
    done = fuzz("run", "-n", 100, "--seed", 4, *COMMON, "--out", tmp_path / "run", "--corpus", tmp_path / "corpus",
                "--target", spec("unreadable_create"), cwd=tmp_path, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    rows = records_of(tmp_path / "run")
    trips = [row for row in rows if row["family"] == "roundtrip"]
    assert len(trips) == 2 and all(row["outcome"] == "failed" for row in trips)  # cases 25 and 75
    assert {row["family"] for row in rows if row["outcome"] == "failed"} == {"roundtrip"}
    assert all(row["input_text"].startswith("+-------+") for row in trips)  # the create's own output, as given
    meta = json.loads(next((tmp_path / "run" / "corpus").glob("*/answers/*/case.json")).read_text())
    # the solve half is a solve like any other: its class is that of the puzzle create printed
    assert meta["signature"].startswith("answers:exit on solvable (exit non-zero: ") and meta["confirmed"] == "3 of 3 replays"
    data = next((tmp_path / "run" / "corpus").glob("*/answers/*/input.txt")).read_bytes()
    assert data.startswith(b"+-------+")
    # a correct program passes its round trips
    fine = fuzz("run", "-n", 60, "--seed", 4, *COMMON, "--out", tmp_path / "fine", "--corpus", tmp_path / "c2",
                "--target", spec("boxed"), cwd=tmp_path, timeout=600)
    assert fine.returncode == 0, fine.stdout[-2000:]


# --- the checker contract ------------------------------------------------------------------------

def test_a_correct_checker_passes_and_our_own_command_too(tmp_path):
    for target in (spec("checker"), "cli"):
        done = fuzz("run", "--mode", "check", "-n", 60, "--seed", 3, "--size", "mixed", *COMMON, "--out",
                    tmp_path / target[-10:].replace("/", "_"), "--corpus", tmp_path / "corpus", "--target", target,
                    cwd=tmp_path, timeout=600)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    rows = records_of(tmp_path / "cli")
    assert {row["family"] for row in rows} >= {"check_complete", "check_blanks", "check_row", "check_column",
                                               "check_box"}


def test_a_checker_that_forgets_the_box_rule_is_caught_on_box_clashes_only(tmp_path):
    done = fuzz("run", "--mode", "check", "-n", 80, "--seed", 3, *COMMON, "--out", tmp_path / "run",
                "--corpus", tmp_path / "corpus", "--target", spec("checker_no_box"), cwd=tmp_path, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    failed = [row for row in records_of(tmp_path / "run") if row["outcome"] == "failed"]
    assert failed and {row["family"] for row in failed} <= {"check_box", "check_box_blanks"}
    assert {row["oracles_failed"] for row in failed} == {"check_verdict"}
    assert "check_verdict:missed_invalid on check (exit 0)" in done.stdout
    assert "1 distinct bug" in done.stdout  # said complete, or incomplete where there are blanks: one bug
    # piped, the shrinking says how far it is, its pace and the time left
    assert re.search(r"shrunk and confirmed 1 of \d+ distinct failures?, [\d.]+s each, about \d+s left", done.stderr)


def test_chunks_against_slow_programs_hold_a_few_seconds_of_work():
    """About 100 target calls a chunk against our engines; against a program, no more than
    CHUNK_SECONDS of work by the pre-flight's timing, so progress and interrupts go case by case."""
    from fuzz.engine import CHUNK_SECONDS, chunk_cases

    assert chunk_cases(10_000, 1, 2) == 100 and chunk_cases(300, 3, 2) == 30  # engines: by calls alone
    slow = chunk_cases(400, 1, 2, seconds_per_case=1.5)
    assert slow == 1
    assert chunk_cases(300, 1, 2, seconds_per_case=0.1) * 0.1 <= CHUNK_SECONDS
    assert chunk_cases(300, 1, 2, 7, seconds_per_case=5.0) == 7  # asked for


# --- --json --------------------------------------------------------------------------------------

def test_run_and_replay_json_name_each_bug_its_reproducer_and_replay_line(tmp_path):
    done = fuzz("run", "-n", 40, "--seed", 3, *COMMON, "--no-progress", "--out", tmp_path / "run", "--corpus",
                tmp_path / "corpus", "--target", spec("few_blanks"), "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    data = json.loads(done.stdout)  # the whole of stdout is one object
    assert data["schema"] == "fuzz.run" and data["version"] == 4 and data["exit_code"] == 1
    assert data["status"] == "complete" and data["cases"] == 40 and 0 < data["failed"] <= 40
    assert data["targets"] == [spec("few_blanks")] and data["seed"] == 3
    assert data["families"] is None and data["max_failures"] is None  # all families, no early stop
    assert data["distinct_bugs"] == len(data["bugs"]) >= 1
    bug = data["bugs"][0]
    assert bug["signature"].startswith("create_blanks") and bug["replay"].startswith("fuzz replay ")
    assert (tmp_path / bug["reproducer"] / "case.json").exists()  # relative paths are the run's cwd's
    assert (tmp_path / data["summary"]).exists() and (tmp_path / data["run_dir"]).is_dir()
    assert "distinct bugs:" not in done.stdout + done.stderr  # no short summary beside the JSON
    again = fuzz("replay", bug["reproducer"], "--target", spec("few_blanks"), "--json", cwd=tmp_path)
    replayed = json.loads(again.stdout)
    assert again.returncode == 1 and replayed["schema"] == "fuzz.replay" and replayed["version"] == 4
    assert replayed["replayed"] == 1 and replayed["passed"] == 0 and replayed["exit_code"] == 1
    assert [row["signature"] for row in replayed["still_fail"]] == [bug["signature"]]
    assert "still fail" in again.stderr  # the human line stays on stderr
    unnamed = fuzz("replay", bug["reproducer"], cwd=tmp_path)  # never our engine in its place, never its word
    assert unnamed.returncode == 2 and "Traceback" not in unnamed.stderr
    assert f"saved from {spec('few_blanks')}: name the program to replay them against with --target" \
        in unnamed.stderr and f"the line saved with them: {bug['replay']}" in unnamed.stderr
    fixed = fuzz("replay", bug["reproducer"], "--target", spec("correct"), "--json", cwd=tmp_path)
    assert fixed.returncode == 0 and json.loads(fixed.stdout)["still_fail"] == []
    both = fuzz("run", "-n", 5, "--json", "--md", "-", cwd=tmp_path)
    assert both.returncode == 2 and "--json and --md - both want stdout" in both.stderr


def test_probe_json_gives_the_contract_first_then_the_spellings_found_and_every_try(tmp_path):
    done = fuzz("probe", "--target", spec("header_easy"), "--json", cwd=tmp_path)
    data = json.loads(done.stdout)
    assert done.returncode == 1 and data["schema"] == "fuzz.probe" and data["version"] == 4
    assert data["exit_code"] == 1 and data["keeps_contract"] is False
    assert list(data)[:5] == ["schema", "version", "target", "exit_code", "keeps_contract"]
    assert data["contract"] == [{"call": "create", "exit_code": 2, "said": "usage: sudoku create easy|hard",
                                 "line": "'create' exits 2 with no grid on stdout; it said: "
                                         "'usage: sudoku create easy|hard'"}]
    assert (data["create_args"], data["solve_args"], data["format"]) == ("create easy", "solve", "header")
    assert data["command"].endswith("--create-args 'create easy' --format header")
    assert data["tried"] and all(set(row) == {"what", "outcome"} for row in data["tried"])
    kept = json.loads(fuzz("probe", "--target", spec("correct"), "--json", cwd=tmp_path).stdout)
    assert kept["exit_code"] == 0 and kept["keeps_contract"] is True and kept["contract"] == []
    none = fuzz("probe", "--target", "/bin/true", "--json", cwd=tmp_path)
    assert none.returncode == 1 and json.loads(none.stdout)["command"] is None
    assert [one["call"] for one in json.loads(none.stdout)["contract"]] == ["create", "solve"]


def test_a_replay_says_what_a_pass_of_a_flaky_reproducer_is_worth_and_a_bug_failing_another_way(tmp_path, capsys):
    """QA: a random hang's reproducer (failed 0 of 3 replays when saved) replayed as a plain 'passes',
    and a reproducer saved as a hang that now failed otherwise was listed as 'still fails'."""
    from fuzz import engine, summary
    from fuzz.targets import make_target

    text = b"0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n"
    flaky = {"command": "solve", "side": 4, "family": "empty", "signature": "no_timeout:hang on solvable "
             "(hang blocked)", "flaky": True, "confirmed": "0 of 3 replays"}
    assert engine.replay_entries([(tmp_path / "a", flaky, text)], make_target("engine:py"), strict=False) == []
    assert capsys.readouterr().err.strip().endswith(
        "passes (flaky when saved: it failed the same way in 0 of 3 replays; one pass does not show the bug is gone)")
    puzzle = render(create(3, seed=1), "grid").encode()
    saved = {"command": "solve", "side": 9, "family": "unique_easy", "signature": "no_timeout:hang on solvable "
             "(hang computing)"}
    [one] = engine.replay_entries([(tmp_path / "b", saved, puzzle)], make_target(spec("changes_given")), strict=False)
    assert one.saved_as == saved["signature"] and one.signature.startswith("keeps_givens:")
    assert summary.still_line(one) == f"fails another way now: {tmp_path / 'b'}: {one.signature} (saved as " \
        f"{saved['signature']})"
    assert summary.still_json(one)["saved_as"] == saved["signature"]
    assert summary.still_line(one._replace(saved_as=one.signature)).startswith("still fails: ")


def test_replay_tells_two_programs_typed_alike_apart_and_says_what_it_leaves_out(tmp_path):
    """QA: a folder holding the reproducers of two programs both run as ./sudoku was shown as one;
    with --target one of them, the other's were left out without a word; and a reproducer of one
    replayed against the other (a replay line pasted in the wrong folder) passed with no remark."""
    from fuzz import corpus
    from fuzz.cases import from_text
    from fuzz.targets import Result, make_target
    from fake_targets import argv

    case = from_text("unique_easy", "solve", render(create(3, seed=1), "grid").encode())
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        program = tmp_path / name / "sudoku"
        program.write_text(f"#!/bin/sh\nexec {shlex.join(argv('correct'))} \"$@\"\n")
        program.chmod(0o755)
        corpus.save(tmp_path / "shared", case, signature="answers:exit on solvable (exit 0)", oracle="answers",
                    detail="d", target=make_target("./sudoku", base=str(tmp_path / name)),
                    result=Result(1, b"", b"", 0.1, False, False))
    both = fuzz("replay", tmp_path / "shared", cwd=tmp_path / "a")
    assert both.returncode == 2 and "holds reproducers of 2 targets (./sudoku (a-sudoku-" in both.stderr
    assert "./sudoku (b-sudoku-" in both.stderr  # each folder named for the program's folder and file
    mine = fuzz("replay", tmp_path / "shared", "--target", "./sudoku", cwd=tmp_path / "a")
    assert mine.returncode == 0 and "1 reproducer of other targets under" in mine.stderr
    theirs = next(folder for folder in (tmp_path / "shared").iterdir()
                  if folder.name != corpus.target_key(make_target("./sudoku", base=str(tmp_path / "a"))))
    other = fuzz("replay", theirs, "--target", "./sudoku", cwd=tmp_path / "a")
    assert other.returncode == 0 and "saved from another program" in other.stderr
    assert str(tmp_path / "b" / "sudoku") in other.stderr and "replayed against ./sudoku as asked" in other.stderr
