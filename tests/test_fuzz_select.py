"""Asking a run for less, as pytest's -k and -x do: ``--family`` (only some families' cases, the same
ones for the same seed), ``--list-families``, and ``--max-failures`` (stop the cases after N failed)."""

import csv
import json
import shutil

import pytest

from fake_targets import fuzz, fuzz_process, spec
from fuzz.cases import CHECK_FAMILIES, FAMILIES, UnknownFamily, families, make_case, make_check_case, select


def records_of(out):
    with open(out / "records.csv", newline="") as lines:
        return list(csv.DictReader(lines))


# --- --family: the families chosen, the same cases for the same seed ------------------------------

def test_a_group_a_pattern_and_a_name_choose_families_in_the_runs_order():
    assert select(["malformed_letter", "unique_easy"]) == ("unique_easy", "malformed_letter")
    assert select(["malformed"]) == tuple(name for name in FAMILIES if name.startswith("malformed_"))
    assert select(["no_solution*"]) == ("no_solution", "no_solution_deep", "no_solution_middle", "no_solution_early")
    assert select(["full"]) == ("full",)  # a family's own name is that family alone, not full_*
    assert select(["check"], "check") == tuple(name for name in CHECK_FAMILIES if name.startswith("check_"))
    with pytest.raises(UnknownFamily):
        select(["create"], "check")  # a checker run makes no creates
    with pytest.raises(UnknownFamily):
        select(["malformd"])


def test_only_the_chosen_families_are_made_and_the_same_for_the_same_seed():
    only = select(["malformed_letter", "create"])
    cases = [make_case(7, index, n=100, only=only) for index in range(100)]
    assert {case.family for case in cases} == {"malformed_letter", "create"}
    assert [case.family == "create" for case in cases] == [index % 20 == 0 for index in range(100)]
    again = [make_case(7, index, n=100, only=tuple(reversed(only))) for index in range(100)]
    assert [case.text for case in cases] == [case.text for case in again]
    assert {make_case(7, index, n=10, only=("roundtrip",)).family for index in range(10)} == {"roundtrip"}
    assert {make_check_case(7, index, only=("check_box",)).family for index in range(20)} == {"check_box"}


def test_every_family_is_listed_with_what_it_asks():
    for mode, names in (("solve", FAMILIES), ("check", CHECK_FAMILIES)):
        listed = families(mode)
        assert list(listed) == list(names) and all(about and "\n" not in about for about in listed.values())


def test_list_families_prints_each_with_a_line_and_exits_0(tmp_path):
    done = fuzz("run", "--list-families", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == list(FAMILIES)
    assert lines[-1].startswith("groups (--family GROUP takes them all): unique (4), whitespace (8), malformed (10)")
    checks = fuzz("run", "--list-families", "--mode", "check", cwd=tmp_path)
    assert checks.returncode == 0 and "check_box_blanks" in checks.stdout and "create" not in checks.stdout
    assert not list(tmp_path.iterdir())  # nothing run, nothing written


@pytest.mark.parametrize("args, said", [
    (("--family", "malformd"), "--family 'malformd': no family of --mode solve; did you mean 'malformed'? "
                               "(fuzz run --list-families lists them)"),
    (("--family", "unique_easy", "--family", "nope"), "--family 'nope': no family of --mode solve (fuzz run "
                                                        "--list-families lists them)"),
    (("--mode", "check", "--family", "create"), "--family 'create': no family of --mode check (fuzz run "
                                                 "--list-families --mode check lists them)"),
])
def test_an_unknown_family_is_one_line_naming_the_nearest_and_the_list(tmp_path, args, said):
    done = fuzz("run", "-n", 5, *args, "--out", tmp_path / "run", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == f"fuzz: {said}\n"
    assert not (tmp_path / "run").exists()


def test_a_run_of_one_group_records_only_its_cases(tmp_path):
    done = fuzz("run", "-n", 30, "--seed", 4, "--family", "malformed", "--workers", 1, "--target", "engine",
                "--out", tmp_path / "run", "--corpus", tmp_path / "corpus", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = records_of(tmp_path / "run")
    assert len(rows) == 30 and {row["family"] for row in rows} <= set(select(["malformed"]))
    assert len({row["family"] for row in rows}) > 3
    config = json.loads((tmp_path / "run" / "manifest.json").read_text())["config"]
    assert config["families"] == list(select(["malformed"]))
    assert "families: malformed (10 of 36)" in done.stdout


# --- --max-failures: the cases stop once N failed; triage as ever; no resume past the stop ---------

def test_max_failures_stops_the_cases_triages_them_and_no_resume_goes_past_it(tmp_path):
    target = spec("changes_given")  # changes a given in most answers: failures in every chunk
    run, corpus = tmp_path / "run", tmp_path / "corpus"
    done = fuzz("run", "-n", 200, "--seed", 1, "--workers", 1, "--chunk-size", 10, "--max-failures", 3,
                "--target", target, "--out", run, "--corpus", corpus, "--no-progress", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    manifest = json.loads((run / "manifest.json").read_text())
    failed, cases = manifest["totals"]["failed"], manifest["totals"]["cases"]
    assert manifest["status"] == "finished_early" and 3 <= failed <= cases < 200
    assert manifest["reason"] == f"stopped early: {failed} failed cases, at the limit of 3"
    assert done.stdout.startswith(f"fuzz run run: finished early (stopped after {failed} failed cases, "
                                  f"--max-failures 3: {cases} of 200 cases run)\n")
    assert [group["signature"] for group in manifest["fuzz"]["groups"]] == ["keeps_givens:changed on solvable (exit 0)"]
    assert list(corpus.glob("*/keeps_givens/*/input.txt"))  # shrunk and saved as ever

    again = fuzz("run", "--resume", run, cwd=tmp_path)
    assert again.returncode == 2 and "finished early, as asked" in again.stderr and "nothing to resume" in again.stderr

    # stopped while shrinking (interrupted after the stop): the resume triages, and runs no chunk more
    copy = tmp_path / "copy"  # a copy: this process holds the run's lock for its life
    shutil.copytree(run, copy)
    manifest.update(status="interrupted", reason="interrupted while shrinking and confirming")
    del manifest["fuzz"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    resumed = fuzz_process("run", "--resume", copy, "--no-progress", cwd=tmp_path)
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    after = json.loads((copy / "manifest.json").read_text())
    assert after["status"] == "finished_early" and after["totals"] == manifest["totals"] and "fuzz" in after

    # the student fixed the given and asks for the malformed cases alone: that bug is not replayed
    other = fuzz("run", "-n", 20, "--seed", 1, "--workers", 1, "--family", "malformed", "--target", target,
                 "--out", tmp_path / "malformed", "--corpus", corpus, "--no-progress", "--max-failures", 50, "--json",
                 cwd=tmp_path)
    assert other.returncode == 0, other.stdout + other.stderr
    data = json.loads(other.stdout)  # what was chosen, for a script that reads the run
    assert data["families"] == list(select(["malformed"])) and data["max_failures"] == 50
    assert "fuzz: 1 saved reproducer of other families not replayed (--family)\n" in other.stderr


def test_max_failures_below_1_is_a_usage_error(tmp_path):
    done = fuzz("run", "-n", 5, "--max-failures", 0, "--out", tmp_path / "run", cwd=tmp_path)
    assert done.returncode == 2 and "--max-failures must be at least 1" in done.stderr
