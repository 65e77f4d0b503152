"""The ``reports`` command: outputs, files written and exit codes, through ``reports.cli.main`` in this
process, and as a real subprocess in the smoke test and the CI scripts."""

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from test_reports_helpers import REPO, fuzz_records, records, run_reports, run_reports_process, write_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {
        "base": write_run(root / "base", records(noise_seed=0)),
        "same": write_run(root / "same", records(noise_seed=0)),
        "slow": write_run(root / "slow", records(noise_seed=1, scale={"solve_s": 2.0})),
        "wrong": write_run(root / "wrong", records(noise_seed=1, failed=(11,))),
        "v1": write_run(root / "v1", records(noise_seed=0), version=1),
        "fuzz": write_run(root / "fuzz", fuzz_records(failed={3: "unique,givens_kept"}), chunk_size=10),
    }


def one_error_line(result, code=2):
    assert result.returncode == code and result.stdout == ""
    assert re.match(r"reports( \w+)?: ", result.stderr) and result.stderr.count("\n") == 1  # `reports compare: `
    assert "Traceback" not in result.stderr
    return result.stderr


def test_compare_identical_runs_exits_0_and_writes_md_html_junit(runs, tmp_path):
    md, html, junit = tmp_path / "summary.md", tmp_path / "report.html", tmp_path / "junit.xml"
    result = run_reports_process("compare", runs["base"], runs["same"], "--md", md, "--html", html, "--junit", junit)
    assert result.returncode == 0, result.stderr  # smoke: a real process
    assert result.stdout.startswith("benchmark comparison: no regression")  # the short summary; Markdown in --md
    assert f"full report: Markdown {md}, HTML {html}, JUnit {junit}" in result.stdout
    assert md.read_text().startswith("## Benchmark comparison: no regression")
    assert "metrics: 4 unchanged" in md.read_text()
    assert html.read_text().count("<svg") == 5
    cases = ET.parse(junit).getroot().iter("testcase")
    assert len(list(cases)) == 5


def test_compare_a_2x_slowdown_exits_1_and_names_the_metric(runs):
    result = run_reports("compare", runs["base"], runs["slow"], "--md", "-")
    assert result.returncode == 1
    assert "| `solve_s[9x9,create]` |" in result.stdout and "**regression**" in result.stdout
    assert result.stdout.count("**regression**") == 1


def test_fail_on_correctness_shows_timing_but_exits_0(runs):
    result = run_reports("compare", runs["base"], runs["slow"], "--fail-on", "correctness", "--md", "-")
    assert result.returncode == 0 and "**regression**" in result.stdout
    result = run_reports("compare", runs["base"], runs["wrong"], "--fail-on", "correctness")
    assert result.returncode == 1


def test_compare_a_wrong_solution_exits_1_with_case_and_reproducer(runs):
    result = run_reports("compare", runs["base"], runs["wrong"], "--md", "-")
    assert result.returncode == 1
    assert "regression: 1 failed case" in result.stdout
    assert "| 11 | create | 9x9 |" in result.stdout and records()[11]["puzzle"] in result.stdout


def test_a_version_1_baseline_is_read_and_not_comparable(runs):
    result = run_reports("compare", runs["v1"], runs["same"])
    assert result.returncode == 5 and "not comparable: the runs' configurations differ (schema version 1 vs 2)" \
        in result.stdout.splitlines()[0], result.stderr


def test_show_a_fuzz_run_exits_1_and_writes_md_and_html(runs, tmp_path):
    md, html = tmp_path / "show.md", tmp_path / "show.html"
    result = run_reports("show", runs["fuzz"], "--md", md, "--html", html)
    assert result.returncode == 1
    assert "### Failures per oracle" in md.read_text() and "| unique_hard | 20 | 1 | 0 |" in md.read_text()
    assert "<svg" in html.read_text() and "###" not in result.stdout
    # the text says the slips too, apart from the bugs, as fuzz run does
    assert "format slips (failures only with --strict): trailing_space 1" in result.stdout.splitlines()
    assert not any(line.startswith("notes (not failures)") for line in result.stdout.splitlines())  # none here


def test_show_a_clean_batch_run_exits_0(runs):
    result = run_reports("show", runs["base"], "-q")
    assert result.returncode == 0 and result.stdout == ""


def test_a_run_not_complete_passes_nothing(tmp_path):
    """A QA note: `reports show` of a fuzz run interrupted at once said 'no failed case' and exited 0,
    so a CI gate that reads the report after `fuzz run ... || true` passed a run that barely began.
    The report is written all the same; the headline and exit 2 say it covers only what ran."""
    cut = write_run(tmp_path / "cut", records(n=100), manifest_extra={"status": "interrupted"})
    done = write_run(tmp_path / "done", records(n=100))
    shown = run_reports("show", cut, "--md", tmp_path / "cut.md")
    assert shown.returncode == 2
    assert shown.stdout.splitlines()[0].endswith(": no failed case so far (not complete)")
    assert shown.stderr == (f"reports: not complete: {cut} (interrupted); the report covers only the cases that "
                            "ran and passes nothing (exit 2): finish the run, then report again\n")
    assert (tmp_path / "cut.md").read_text().startswith("## Run synthetic: no failed case so far (not complete)")
    assert json.loads(run_reports("show", cut, "--json").stdout)["run"]["complete"] is False
    # a failure found is a failure, complete or not
    failing = write_run(tmp_path / "failing", records(n=100, failed=(3,)), manifest_extra={"status": "interrupted"})
    assert run_reports("show", failing, "-q").returncode == 1
    # a comparison with a run not complete, either side
    assert run_reports("compare", done, cut, "-q").returncode == 2
    compared = run_reports("compare", cut, done)
    assert compared.returncode == 2 and "(baseline run not complete)" in compared.stdout.splitlines()[0]
    assert run_reports("compare", done, cut, "-q", "--fail-on", "none").returncode == 0
    assert run_reports("show", done, "-q").returncode == 0


def test_markdown_is_appended_to_the_github_step_summary(runs, tmp_path):
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    result = run_reports("compare", runs["base"], runs["same"], "--md", "-", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 0
    assert summary.read_text() == "earlier step\n" + result.stdout + "\n"


def test_an_unknown_version_exits_2_with_one_line(tmp_path, runs):
    path = write_run(tmp_path / "new", records(n=20), manifest_extra={"schema_version": 99})
    assert "schema_version 99 is unknown" in one_error_line(run_reports("compare", runs["base"], path))
    assert "schema_version 99" in one_error_line(run_reports("show", path))


def test_missing_and_corrupt_runs_exit_2_with_one_line(tmp_path, runs):
    assert "no such run directory" in one_error_line(run_reports("show", tmp_path / "absent"))
    broken = tmp_path / "broken"
    shutil.copytree(runs["base"], broken)
    (broken / "parts" / "chunk-000002.parquet").write_bytes(b"\x00garbage")
    assert "unreadable part" in one_error_line(run_reports("compare", broken, runs["base"]))
    (broken / "parts" / "chunk-000002.parquet").unlink()
    assert "missing" in one_error_line(run_reports("compare", runs["base"], broken))
    (broken / "manifest.json").write_text("[1, 2")
    assert "not JSON" in one_error_line(run_reports("show", broken))


@pytest.mark.parametrize("args", [[], ["compare", "only-one"], ["show"], ["frobnicate", "x"],
                                  ["compare", "a", "b", "--threshold", "150%"], ["compare", "a", "b", "--resamples", "0"]])
def test_bad_usage_exits_2_with_one_line(args):
    one_error_line(run_reports(*args))


@pytest.mark.parametrize("option", ["--md", "--html"])
def test_an_unwritable_output_is_an_io_error_exit_3(runs, tmp_path, option):
    """Exit 3, as sudoku-jobs and fuzz give for a path that cannot be written."""
    where = tmp_path / "no" / "x.out"
    line = one_error_line(run_reports("show", runs["base"], "-q", option, where), code=3)
    assert line == f"reports: cannot write {where}: No such file or directory\n"  # as the other tools say it


@pytest.mark.parametrize("planted", ["folder", "fifo", "link"])
def test_an_unwritable_step_summary_is_exit_3_and_never_blocks_or_follows_a_link(runs, tmp_path, planted):
    summary, victim = tmp_path / "step-summary", tmp_path / "victim.md"
    victim.write_text("keep\n")
    {"folder": summary.mkdir, "fifo": lambda: os.mkfifo(summary), "link": lambda: summary.symlink_to(victim)}[planted]()
    done = run_reports("show", runs["base"], "-q", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert one_error_line(done, code=3).startswith(f"reports: cannot append the step summary to {summary}: ")
    assert victim.read_text() == "keep\n"


def test_help_documents_the_exit_codes():
    result = run_reports("--help")
    assert result.returncode == 0 and "exit codes:\n  0    success: no regression" in result.stdout


@pytest.mark.parametrize("command", [(), ("show",), ("compare",), ("history",), ("feedback",)])
def test_help_of_reports_and_each_subcommand_gives_examples(command):
    """Course staff and CI writers start from an example: each help has a few, each a real command line."""
    result = run_reports(*command, "--help")
    examples = result.stdout.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert result.returncode == 0 and len(examples) >= 2
    assert all(line.startswith(("  reports ", "  fuzz run ")) for line in examples), examples
    if command:
        assert any(line.startswith(f"  reports {command[0]} ") for line in examples)


@pytest.mark.slow
def test_compare_real_runs_of_the_runner(tmp_path):
    """Two real ``jobs run`` runs of the same code: no failure, every metric judged."""
    import os
    import sys

    env = dict(os.environ, PYTHONPATH=str(REPO))
    for name in ("a", "b"):
        subprocess.run([sys.executable, "-m", "jobs", "run", "-n", "60", "--seed", "1", "--workers", "2",
                        "--no-progress", "--out", str(tmp_path / name)], check=True, env=env, cwd=tmp_path,
                       capture_output=True)
    result = run_reports("compare", tmp_path / "a", tmp_path / "b", "--fail-on", "correctness", "--md", "-", "--junit",
                         tmp_path / "j.xml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 failed cases" in result.stdout and "Counters unchanged." in result.stdout
    assert len(list(ET.parse(tmp_path / "j.xml").getroot().iter("testcase"))) == 5
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    from jobs.schema import SCHEMA_VERSION

    assert manifest["schema_version"] == SCHEMA_VERSION


@pytest.mark.slow
def test_ci_regression_script_runs_against_the_previous_commit(tmp_path):
    """``.ci/regression`` in a throwaway clone: exit 0 and the comparison printed (or the no-base note)."""
    script = REPO / ".ci" / "regression"
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=600,
                            env={**__import__("os").environ, "RUNS_DIR": str(tmp_path / "ci"),
                                 "PYTHON": __import__("sys").executable})  # the interpreter with pyarrow
    assert result.returncode in (0, 1), result.stderr
    assert "Benchmark comparison" in result.stdout or "regression: " in result.stdout
    assert Path(script).stat().st_mode & 0o111


@pytest.mark.slow
def test_ci_regression_calls_a_planted_2x_slower_solve_a_regression(tmp_path):
    """``.ci/regression`` against HEAD (the same code), with the head's solve done twice
    (JOBS_SOLVE_REPEATS=2): the solve metric is a regression, and nothing else moves."""
    script = REPO / ".ci" / "regression"
    env = {**__import__("os").environ, "RUNS_DIR": str(tmp_path / "ci"), "BASE_REF": "HEAD",
           "PYTHON": __import__("sys").executable, "REGRESSION_HEAD_ENV": "JOBS_SOLVE_REPEATS=2",
           "REPORTS_STRICT": "1"}
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=600, env=env)
    rows = {line.split("`")[1]: line for line in result.stdout.splitlines() if line.startswith("| `")}
    assert "**regression**" in rows["solve_s[9x9,create]"], result.stdout + result.stderr
    assert "A/A check" in result.stdout and "ABBA" in result.stderr
    others = [row for name, row in rows.items() if not name.startswith("solve_s")]
    assert others and not any("**regression**" in row for row in others), result.stdout
    # strict: a reliable timing regression fails; an unreliable one (A/A moved) is shown but does not
    assert result.returncode == (0 if "timing verdicts **unreliable**" in result.stdout else 1), result.stdout


def test_show_says_a_fuzz_run_s_notes_apart_from_failures(tmp_path):
    """QA: `reports show` of a run whose summary.md had "notes (not failures): slow 8" said nothing of them."""
    rows = fuzz_records()
    for row in rows[:3]:
        row["notes"] = "slow"
    rows[3]["notes"] = "slow,left_processes"
    result = run_reports("show", write_run(tmp_path / "run", rows, chunk_size=10))
    assert "notes (not failures): slow 4, left_processes 1" in result.stdout.splitlines()


def test_wall_s_is_the_whole_run_in_every_tool(tmp_path):
    """Issue 42: `reports show --json` gave the cases' time as wall_s where `fuzz run` gave the whole
    run's (pre-flight, replay and triage too). One meaning now; the cases' alone is cases_wall_s."""
    from fake_targets import fuzz

    done = fuzz("run", "-n", 4, "--seed", 1, "--target", "engine:py", "--out", tmp_path / "run", "--corpus",
                tmp_path / "corpus", "--workers", 1, "--no-progress", "--json", cwd=tmp_path)
    ran = json.loads(done.stdout)
    shown = json.loads(run_reports("show", tmp_path / "run", "--json").stdout)["run"]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert shown["wall_s"] == pytest.approx(ran["wall_s"], abs=0.01)
    assert shown["cases_wall_s"] == manifest["wall_s"]
    assert shown["wall_s"] == pytest.approx(manifest["wall_s"] + sum(manifest["phases_s"].values()))
    assert set(manifest["phases_s"]) == {"pre-flight", "replaying saved reproducers", "shrinking and confirming"}


def test_run_wall_s_reads_a_manifest_of_any_shape():
    from jobs.manifest import run_wall_s

    assert run_wall_s({"wall_s": 2.0, "phases_s": {"a": 1.5, "b": 0.5}}) == 4.0
    assert run_wall_s({"wall_s": 2.0}) == 2.0  # a batch run, or a fuzz run made before phases were kept
    assert run_wall_s({"wall_s": "x", "phases_s": {"a": True, "b": [1]}}) == 0.0
    assert run_wall_s({"phases_s": [1, 2]}) == 0.0


def test_a_run_finished_early_as_asked_is_not_called_so_far(tmp_path):
    """A run stopped by --max-failures goes no further (nothing resumes it): its headline says why it
    stopped, not 'so far', and it still fails (its failures are failures)."""
    early = write_run(tmp_path / "early", records(n=100, failed=(3,)), manifest_extra={"status": "finished_early"})
    shown = run_reports("show", early)
    assert shown.returncode == 1, shown.stderr
    assert shown.stdout.splitlines()[0].endswith(": 1 failed case (finished early as asked: --max-failures)")
    assert "so far" not in shown.stdout
