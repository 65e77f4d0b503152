"""``reports`` in process: reading runs of every schema version, statistics, verdicts, renderings."""

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pyarrow.parquet as pq
import pytest

from jobs.schema import SCHEMA_VERSION

from reports import stats, verdict
from reports.load import ReportError, load_run
from reports.render.html import comparison_html, summary_html
from reports.render.junit import comparison_junit
from reports.render.md import comparison_md, summary_md
from reports.summary import summarize
from reports.text import cell, fmt_time
from test_reports_helpers import PHASES, fuzz_records, records, write_run

PHASE_NAMES = list(PHASES)


def compare_rows(tmp_path, base_rows, head_rows, **options):
    base = load_run(write_run(tmp_path / "base", base_rows))
    head = load_run(write_run(tmp_path / "head", head_rows))
    return verdict.compare(base, head, **options)


def verdicts(comparison):
    return {m.phase: m.verdict for m in comparison.metrics}


# --- verdicts ---------------------------------------------------------------------------------

def test_identical_runs_are_unchanged_on_every_metric(tmp_path):
    c = compare_rows(tmp_path, records(), records())
    assert verdicts(c) == {phase: verdict.UNCHANGED for phase in PHASE_NAMES}
    assert not c.regression and not c.failures and not c.counter_changes
    assert all(m.ratio.point == 1.0 and m.ratio.low <= 1 <= m.ratio.high for m in c.metrics)


def test_a_2x_slowdown_of_one_phase_is_a_regression_of_that_metric_only(tmp_path):
    c = compare_rows(tmp_path, records(noise_seed=0), records(noise_seed=1, scale={"solve_s": 2.0}))
    assert verdicts(c) == {"create_s": "unchanged", "unique_s": "unchanged", "blanks_s": "unchanged",
                           "solve_s": "regression"}
    assert c.regression and not c.correctness_regression
    assert [m.name for m in c.timing_regressions] == ["solve_s[9x9,create]"]
    assert 1.7 < c.timing_regressions[0].ratio.point < 2.3


@pytest.mark.parametrize("shift", [0.95, 1.05])
def test_noise_of_5_percent_is_not_flagged(tmp_path, shift):
    head = records(noise_seed=7, scale={phase: shift for phase in PHASE_NAMES})
    c = compare_rows(tmp_path, records(noise_seed=3), head)
    assert set(verdicts(c).values()) == {verdict.UNCHANGED}


def test_a_2x_speedup_is_an_improvement_not_a_regression(tmp_path):
    c = compare_rows(tmp_path, records(noise_seed=0), records(noise_seed=1, scale={"unique_s": 0.5}))
    assert verdicts(c)["unique_s"] == verdict.IMPROVEMENT and not c.regression


def test_a_single_wrong_solution_fails_the_verdict(tmp_path):
    c = compare_rows(tmp_path, records(), records(failed=(17,)))
    assert c.correctness_regression and c.regression
    assert set(verdicts(c).values()) == {verdict.UNCHANGED}
    [failure] = c.failures
    assert failure.case == 17 and failure.status == "new failure"
    assert failure.reproducer == records()[17]["puzzle"]
    md = comparison_md(c)
    assert "regression: 1 failed case" in md and records()[17]["puzzle"] in md


def test_failures_already_in_the_baseline_still_fail_and_fixed_ones_are_counted(tmp_path):
    c = compare_rows(tmp_path, records(failed=(4, 9)), records(failed=(4,)))
    assert [(f.case, f.status) for f in c.failures] == [(4, "still failing")]
    assert c.fixed == 1 and c.regression


def test_too_few_samples_is_not_comparable(tmp_path):
    c = compare_rows(tmp_path, records(n=9), records(n=9, scale={"solve_s": 3.0}))
    assert set(verdicts(c).values()) == {verdict.NOT_COMPARABLE} and not c.regression
    assert "too few samples" in c.metrics[0].note


def test_a_metric_in_one_run_only_is_not_comparable(tmp_path):
    c = compare_rows(tmp_path, records(source="a.txt"), records(source="b.txt"))
    notes = {(m.case_set, m.note) for m in c.metrics}
    assert ("a.txt", "only in the baseline") in notes and ("b.txt", "only in the current run") in notes
    assert not c.regression


def test_metrics_are_per_phase_size_and_case_set(tmp_path):
    rows = records(n=40) + [dict(r, case=r["case"] + 40, size=4) for r in records(n=40, seed=2)]
    fuzz = fuzz_records()
    c = compare_rows(tmp_path, rows, rows)
    assert {(m.phase, m.size) for m in c.metrics} == {(p, s) for p in PHASE_NAMES for s in (4, 9)}
    c = compare_rows(tmp_path / "fuzz", fuzz, fuzz)
    assert {m.name for m in c.metrics} == {"target_s[9x9,clashing]", "target_s[9x9,unique_hard]"}


def test_changed_counters_are_reported_but_are_not_a_regression(tmp_path):
    c = compare_rows(tmp_path, records(), records(guesses_shift=5))
    assert not c.regression and c.counters_matched == 200
    [change] = c.counter_changes
    assert (change.counter, change.case, change.base, change.head) == ("guesses", 3, 3, 8)
    assert "counters changed" in comparison_md(c) and "`guesses` in 1 case" in comparison_md(c)


def test_different_hosts_give_a_warning_only(tmp_path):
    base = load_run(write_run(tmp_path / "base", records()))
    head = load_run(write_run(tmp_path / "head", records(), host={"cpu": "AMD EPYC", "cores": 8}))
    c = verdict.compare(base, head)
    assert not c.regression and any("different hosts" in w for w in c.warnings)
    assert "**Warning:** different hosts" in comparison_md(c)


def test_the_verdict_is_reproducible(tmp_path):
    rows_a, rows_b = records(noise_seed=1), records(noise_seed=2, scale={"solve_s": 1.12})
    first = comparison_md(compare_rows(tmp_path / "1", rows_a, rows_b))
    assert first == comparison_md(compare_rows(tmp_path / "2", rows_a, rows_b))


def test_the_threshold_moves_the_line(tmp_path):
    rows_a, rows_b = records(noise_seed=1), records(noise_seed=2, scale={"solve_s": 1.3})
    alone = {"single_run_threshold": 0}  # the threshold alone, without the larger one for single runs
    assert verdicts(compare_rows(tmp_path / "1", rows_a, rows_b, **alone))["solve_s"] == verdict.REGRESSION
    assert verdicts(compare_rows(tmp_path / "2", rows_a, rows_b, threshold=0.5, **alone))["solve_s"] == verdict.UNCHANGED


def test_a_single_run_per_side_needs_a_larger_change(tmp_path):
    rows_a, rows_b = records(noise_seed=1), records(noise_seed=2, scale={"solve_s": 1.3})
    c = compare_rows(tmp_path, rows_a, rows_b)
    [solve] = [m for m in c.metrics if m.phase == "solve_s"]
    assert solve.verdict == verdict.UNCHANGED and "load cannot be told from code" in solve.note
    assert any("one run on a side" in w for w in c.warnings) and c.aa is None


# --- statistics -------------------------------------------------------------------------------

def test_bootstrap_interval_holds_the_true_ratio_and_is_seeded():
    rng = np.random.default_rng(0)
    base, head = rng.lognormal(0, 0.3, 300), 1.5 * rng.lognormal(0, 0.3, 300)
    first = stats.ratio_of_medians(base, head, rng=stats.metric_rng(0, "m"))
    assert first.low < 1.5 < first.high and first.low < first.point < first.high
    assert first == stats.ratio_of_medians(base, head, rng=stats.metric_rng(0, "m"))
    assert first != stats.ratio_of_medians(base, head, rng=stats.metric_rng(1, "m"))


def test_ratio_handles_zero_times():
    assert list(stats.ratio([0.0, 1.0, 2.0], [0.0, 0.0, 1.0])) == [1.0, float("inf"), 2.0]
    r = stats.ratio_of_medians(np.zeros(20), np.zeros(20), rng=stats.metric_rng(0, "z"))
    assert (r.point, r.low, r.high) == (1.0, 1.0, 1.0)


def test_percentiles_and_time_format():
    assert stats.percentiles(np.arange(101.0)) == [50.0, 90.0, 99.0]
    assert all(np.isnan(stats.percentiles([])))
    assert [fmt_time(v) for v in (1.5, 0.0123, 4.2e-6, 5e-10, float("nan"))] == ["1.5 s", "12.3 ms", "4.2 us",
                                                                                  "0.5 ns", "-"]
    assert cell("a|b\nc") == "a\\|b c"


# --- reading runs -----------------------------------------------------------------------------

def test_schema_version_1_parts_are_read(tmp_path):
    run = load_run(write_run(tmp_path / "v1", records(), version=1))
    assert len(run.records) == 200 and run.records["target"].isna().all()
    assert set(run.records["schema_version"]) == {1}
    c = verdict.compare(run, load_run(write_run(tmp_path / "v2", records())))
    # the parts are read, but a schema version is part of a run's configuration: the timings do not compare
    assert set(verdicts(c).values()) == {verdict.NOT_COMPARABLE} and c.counters_matched == 200
    assert c.unlike == ["schema version 1 vs 2"]


def test_a_manifest_without_schema_version_is_read_as_version_1(tmp_path):
    path = write_run(tmp_path / "old", records(n=20), version=1)
    manifest = json.loads((path / "manifest.json").read_text())
    del manifest["schema_version"]
    (path / "manifest.json").write_text(json.dumps(manifest))
    assert len(load_run(path).records) == 20


@pytest.mark.parametrize("where", ["manifest", "part"])
def test_an_unknown_newer_version_is_refused(tmp_path, where):
    newer = SCHEMA_VERSION + 1
    path = write_run(tmp_path / "new", records(n=20), version=newer if where == "part" else 2,
                     manifest_extra={"schema_version": newer})
    if where == "part":  # the manifest says 2, a part says a version this reader does not know
        manifest = json.loads((path / "manifest.json").read_text())
        manifest["schema_version"] = 2
        (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ReportError, match=f"schema_version {newer} is unknown.*upgrade reports"):
        load_run(path)


def test_missing_corrupt_and_incomplete_runs_are_refused(tmp_path):
    with pytest.raises(ReportError, match="no such run directory"):
        load_run(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReportError, match="no manifest.json"):
        load_run(tmp_path / "empty")
    path = write_run(tmp_path / "run", records(n=120))
    (path / "parts" / "chunk-000001.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(ReportError, match="chunk-000001.parquet: unreadable part"):
        load_run(path)
    (path / "parts" / "chunk-000001.parquet").unlink()
    with pytest.raises(ReportError, match="1 part is missing: chunk-000001.parquet"):
        load_run(path)
    (path / "manifest.json").write_text("{not json")
    with pytest.raises(ReportError, match="manifest.json: not JSON"):
        load_run(path)


def test_hidden_temporaries_are_skipped_and_interrupted_runs_read_with_a_note(tmp_path):
    path = write_run(tmp_path / "run", records(n=100), manifest_extra={"status": "interrupted"})
    (path / "parts" / ".chunk-000002.parquet.123.tmp").write_bytes(b"half a part")
    (path / "parts" / "chunk-000001.parquet").unlink()
    run = load_run(path)
    assert len(run.records) == 50 and "interrupted" in run.notes[0]


def test_a_running_run_that_no_process_holds_is_read_as_stopped(tmp_path):
    """A run killed by SIGKILL leaves its manifest saying running: the lock says whether it is."""
    import fcntl

    path = write_run(tmp_path / "run", records(n=100), manifest_extra={"status": "running"})
    run = load_run(path)
    assert f"{path}: stopped (no process holds it: killed?), not complete" in run.notes[0]
    assert run.notes[0].endswith(f"finish it with `sudoku-jobs run --resume {path}`")
    assert not run.complete and run.unfinished == [f"{path} (stopped)"]
    with open(path / ".lock", "w") as lock:  # a runner holding it
        fcntl.flock(lock, fcntl.LOCK_EX)
        run = load_run(path)
    assert run.notes[0].endswith("still running, not complete: this report covers only the cases of its 2 "
                                 "finished parts")  # no resume line for a run going on
    assert run.unfinished == [f"{path} (still running)"]


def test_a_directory_of_runs_is_read_as_one_run(tmp_path):
    write_run(tmp_path / "set" / "round1", records(noise_seed=1))
    write_run(tmp_path / "set" / "round2", records(noise_seed=2))
    run = load_run(tmp_path / "set")
    assert len(run.records) == 400 and len(run.manifests) == 2
    c = verdict.compare(run, run)
    assert c.counters_matched == 200 and not c.counter_changes


def test_a_part_with_the_columns_of_the_current_schema_round_trips(tmp_path):
    path = write_run(tmp_path / "run", fuzz_records(failed={2: "unique"}), chunk_size=10)
    assert pq.read_table(path / "parts" / "chunk-000000.parquet").num_rows == 10
    run = load_run(path)
    assert list(run.records["case_set"].unique()) == ["unique_hard", "clashing"]


# --- summaries ---------------------------------------------------------------------------------

def test_summary_of_a_fuzz_run_counts_failures_per_oracle_and_family_and_names_the_corpus(tmp_path):
    path = write_run(tmp_path / "fuzz", fuzz_records(failed={3: "unique,givens_kept", 25: "unique", 30: "hang"}),
                     chunk_size=10)
    saved = path / "corpus" / "cli-0a1b2c3d" / "unique" / "0123456789ab"  # corpus/<target>/<oracle>/<bug>/
    saved.mkdir(parents=True)
    (saved / "input.txt").write_text("reproducer")
    (saved / "case.json").write_text(json.dumps({"oracle": "unique", "case": 3, "family": "unique_hard",
                                                 "signature": "unique on clashing (exit 1)"}))
    s = summarize(load_run(path))
    assert s.failed == 3 and s.counts == {"failed": 3, "ok": 37}
    assert s.by_oracle == [("unique", 2), ("givens_kept", 1), ("hang", 1)]
    assert ("clashing", 20, 2, 0) in s.by_case_set and ("unique_hard", 20, 1, 0) in s.by_case_set
    # case 3 is the case saved, case 25 has the bug's signature: both point at its reproducer; 30 has none
    assert [f.corpus for f in s.failures] == [str(saved), str(saved), str(path / "corpus")]
    assert s.failures[0].reproducer == json.dumps(fuzz_records()[3]["input_text"])
    assert s.format_slips == [("trailing_space", 3)]
    md = summary_md(s)
    assert "### Failures per oracle" in md and "unique/0123456789ab" in md and "target_s" in md


def test_summary_of_a_batch_run_has_percentiles_per_phase_and_slowest_cases(tmp_path):
    s = summarize(load_run(write_run(tmp_path / "run", records(n=60))))
    assert [t.phase for t in s.timings] == PHASE_NAMES and all(t.n == 60 for t in s.timings)
    assert len(s.slowest) == 10
    totals = [row["total_s"] for row in s.slowest]
    assert totals == sorted(totals, reverse=True)
    md = summary_md(s)
    assert "| solve_s | 9x9 | create | 60 |" in md and "no failed case" in md


# --- renderings ---------------------------------------------------------------------------------

class TagBalance(HTMLParser):
    """Checks that every opened element is closed in order (void elements aside)."""

    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.svgs = [], [], 0

    def handle_starttag(self, tag, attrs):
        self.svgs += tag == "svg"
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.svgs += tag == "svg"

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def check_html(text):
    balance = TagBalance()
    balance.feed(text)
    balance.close()
    assert not balance.errors and not balance.stack
    ET.fromstring(text.split("\n", 1)[1])  # well-formed as XML too, after the doctype
    assert "<script" not in text and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    return balance.svgs


def test_comparison_html_is_well_formed_and_holds_its_plots(tmp_path):
    c = compare_rows(tmp_path, records(noise_seed=0), records(noise_seed=1, scale={"solve_s": 2.0}, failed=(3,)))
    text = comparison_html(c)
    assert check_html(text) == 1 + len(c.metrics)  # the interval plot and one distribution per metric
    assert "ratio of medians, current / baseline" in text and "solve_s[9x9,create]: regression" in text


def test_summary_html_is_well_formed_and_holds_its_plots(tmp_path):
    path = write_run(tmp_path / "fuzz", fuzz_records(failed={3: "unique"}), chunk_size=10)
    text = summary_html(summarize(load_run(path)))
    assert check_html(text) == 1 and "target_s distribution" in text
    assert check_html(summary_html(summarize(load_run(write_run(tmp_path / "b", records(n=30)))))) == 4


def test_junit_has_one_testcase_per_metric_and_failures_for_regressions(tmp_path):
    c = compare_rows(tmp_path, records(noise_seed=0), records(noise_seed=1, scale={"solve_s": 2.0}, failed=(3,)))
    suite = ET.fromstring(comparison_junit(c)).find("testsuite")
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == ["correctness"] + [m.name for m in c.metrics]
    failed = [case.get("name") for case in cases if case.find("failure") is not None]
    assert failed == ["correctness", "solve_s[9x9,create]"]
    assert suite.get("tests") == str(len(cases)) and suite.get("failures") == "2"
    assert records()[3]["puzzle"] in cases[0].find("failure").text


def test_a_fuzz_runs_distinct_bugs_are_listed_with_input_and_replay_line(tmp_path):
    bug = {"signature": "no_crash:signal 11 on malformed_letter (signal 11)", "cases": 12, "case": 4,
           "detail": "no_crash: killed by signal 11", "confirmed": 3, "flaky": False, "intermittent": None,
           "replay": "fuzz replay run/corpus/t/no_crash/abc --target ./sudoku", "input": "x<script>\n"}
    path = write_run(tmp_path / "fuzz", fuzz_records(failed={4: "no_crash"}), chunk_size=10,
                     manifest_extra={"fuzz": {"groups": [bug]}})
    s = summarize(load_run(path))
    assert [b.record for b in s.bugs] == [bug]
    md = summary_md(s)
    assert "### Distinct bugs (1)" in md and "#### 1. no_crash:signal 11 on malformed_letter (signal 11)" in md
    assert "12 cases; no_crash: killed by signal 11" in md
    assert "`fuzz replay run/corpus/t/no_crash/abc --target ./sudoku`" in md
    html = summary_html(s)
    assert "Distinct bugs (1)" in html and "x&lt;script&gt;" in html and "<script>" not in html
