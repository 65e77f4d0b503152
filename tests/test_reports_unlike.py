"""Only like is compared with like: runs whose configurations differ on what shapes timing are 'not
comparable' (said at the top, exit 5, never 1), and a directory of runs merges one configuration only."""

import json
import xml.etree.ElementTree as ET

import pytest

from reports import ReportError, verdict
from reports.load import configuration, load_run
from reports.render.html import comparison_html
from reports.render.junit import comparison_junit
from reports.render.md import comparison_md
from test_reports_helpers import fuzz_records, records, run_reports, write_run

BATCH = {"kind": "batch", "size": 9, "engine": "nb", "check_engine": "band", "difficulty": None, "blanks": None,
         "input": None, "workers": 2, "out": "/tmp/a"}


def batch_run(path, *, noise_seed=0, failed=(), scale=None, **config):
    return write_run(path, records(noise_seed=noise_seed, failed=failed, scale=scale),
                     manifest_extra={"config": dict(BATCH, **config)})


def fuzz_run(path, *, spec="./sudoku", solve_args="solve", mode="solve"):
    target = {"spec": spec, "create_args": "create", "solve_args": solve_args, "header": False, "timeout": 5.0}
    config = {"kind": "fuzz", "size": "9", "mode": mode, "check_engine": "band", "target": target,
              "targets": [target]}
    return write_run(path, fuzz_records(), manifest_extra={"config": config})


def test_the_configuration_holds_what_shapes_timing_and_nothing_else():
    manifest = {"schema_version": 3, "config": dict(BATCH, input="top95.txt"), "plan": {"input_sha256": "ab12"}}
    found = configuration(manifest)
    assert found == {"kind": "batch", "engine": "nb", "check engine": "band", "size": "9", "difficulty": None,
                     "blanks": None, "data set": "ab12", "schema version": "3", "mode": None, "target": None}
    moved = dict(manifest, run_id="other", git_sha="f" * 40, config=dict(manifest["config"], workers=1, out="/x"))
    assert configuration(moved) == found  # where it ran and who ran it shape no timing
    assert configuration({"config": {"size": 9}})["schema version"] == "1"  # the first runner's manifests


@pytest.mark.parametrize("change, reason", [
    ({"engine": "py"}, "engine nb vs py"),
    ({"check_engine": "dlx"}, "check engine band vs dlx"),
    ({"difficulty": "hard"}, "difficulty unset vs hard"),
    ({"size": 16}, "size 9 vs 16"),
    ({"input": "kaggle.txt"}, "data set unset vs kaggle.txt"),
])
def test_runs_of_unlike_configurations_are_not_comparable_with_the_reason(tmp_path, change, reason):
    base = load_run(batch_run(tmp_path / "base"))
    head = load_run(batch_run(tmp_path / "head", noise_seed=1, scale={"solve_s": 3.0}, **change))
    c = verdict.compare(base, head)
    assert c.unlike == [reason] and not c.comparable and not c.regression
    assert {m.verdict for m in c.metrics} == {verdict.NOT_COMPARABLE}
    assert all(m.note == f"configurations differ: {reason}" and m.ratio is None for m in c.metrics)
    assert c.aa is None  # one round: no A/A check
    md = comparison_md(c)
    assert md.splitlines()[0] == f"## Benchmark comparison: not comparable: the runs' configurations differ ({reason})"
    assert "regression" not in md.split("### Timing")[1]
    html = comparison_html(c)
    assert f"not comparable: the runs&#x27; configurations differ ({reason})</h1>" in html
    suite = ET.fromstring(comparison_junit(c)).find("testsuite")
    assert suite.get("failures") == "0" and suite.get("skipped") == str(len(c.metrics))
    assert all(reason in case.find("skipped").get("message") for case in suite.iter("testcase")
               if case.get("classname") == "reports.timing")


def test_fuzz_runs_of_other_target_commands_or_modes_are_not_comparable(tmp_path):
    base = load_run(fuzz_run(tmp_path / "base"))
    assert verdict.compare(base, load_run(fuzz_run(tmp_path / "same"))).comparable
    other = verdict.compare(base, load_run(fuzz_run(tmp_path / "other", spec="python3 theirs.py")))
    assert other.unlike == ["target ./sudoku vs python3 theirs.py"]
    args = verdict.compare(base, load_run(fuzz_run(tmp_path / "args", solve_args="solve --fast")))
    assert args.unlike == ["target ./sudoku vs ./sudoku (solve_args='solve --fast')"]
    mode = verdict.compare(base, load_run(fuzz_run(tmp_path / "mode", mode="check")))
    assert mode.unlike == ["mode solve vs check"]
    kind = verdict.compare(base, load_run(batch_run(tmp_path / "batch")))
    assert kind.unlike[0] == "kind fuzz vs batch" and "target ./sudoku vs unset" in kind.unlike


def test_compare_of_unlike_runs_exits_5_not_1_and_a_failed_case_still_exits_1(tmp_path):
    base, head = batch_run(tmp_path / "base"), batch_run(tmp_path / "head", engine="py", scale={"solve_s": 3.0})
    short = run_reports("compare", base, head)  # the terminal summary says it first too
    assert short.returncode == 5 and short.stdout.splitlines()[0] == (
        "benchmark comparison: not comparable: the runs' configurations differ (engine nb vs py)")
    shape = json.loads(run_reports("compare", base, head, "--json").stdout)
    assert shape["comparable"] is False and shape["unlike"] == ["engine nb vs py"]
    assert {m["verdict"] for m in shape["metrics"]} == {"not comparable"}
    result = run_reports("compare", base, head, "--junit", tmp_path / "j.xml", "--md", "-")
    assert result.returncode == 5, result.stderr
    assert result.stdout.splitlines()[0] == ("## Benchmark comparison: not comparable: the runs' configurations "
                                             "differ (engine nb vs py)")
    assert "> **Warning:** not comparable: the runs' configurations differ (engine nb vs py" in result.stdout
    assert run_reports("compare", base, head, "--fail-on", "none").returncode == 0
    failing = batch_run(tmp_path / "failing", engine="py", failed=(4,))
    result = run_reports("compare", base, failing, "--md", "-")
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == ("## Benchmark comparison: regression: 1 failed case; timings not "
                                             "comparable (engine nb vs py)")
    assert "5 not comparable: (compare)" in " ".join(run_reports("compare", "--help").stdout.split())


def test_a_directory_of_unlike_runs_is_an_error_naming_the_odd_run_unless_asked_to_merge(tmp_path):
    batch_run(tmp_path / "set" / "a-nb")
    batch_run(tmp_path / "set" / "b-nb", noise_seed=1)
    batch_run(tmp_path / "set" / "c-py", noise_seed=2, engine="py")
    result = run_reports("show", tmp_path / "set")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (f"reports: {tmp_path / 'set' / 'c-py'}: its configuration differs from a-nb's "
                                     "(engine nb vs py); a directory of runs merges rounds of one configuration only "
                                     "(give --merge-unlike to merge anyway, or name one run)")
    with pytest.raises(ReportError, match="c-py"):
        load_run(tmp_path / "set")
    merged = run_reports("show", tmp_path / "set", "--merge-unlike", "--md", "-")
    assert merged.returncode == 0 and "3 runs merged" in merged.stdout
    assert "runs of unlike configurations merged on request" in merged.stdout
    base = batch_run(tmp_path / "base")
    result = run_reports("compare", base, tmp_path / "set", "--merge-unlike", "--md", "-")
    assert result.returncode == 5 and "the current merges runs of unlike configurations" in result.stdout
    assert run_reports("show", tmp_path / "set" / "c-py").returncode == 0


def test_runs_of_one_configuration_still_merge_and_compare(tmp_path):
    batch_run(tmp_path / "set" / "round01", out="/tmp/one")
    batch_run(tmp_path / "set" / "round02", noise_seed=1, out="/tmp/two", workers=1)
    run = load_run(tmp_path / "set")
    assert run.rounds == 2 and run.configuration["engine"] == "nb"
    c = verdict.compare(load_run(batch_run(tmp_path / "base", noise_seed=3)), run)
    assert c.comparable and {m.verdict for m in c.metrics} == {verdict.UNCHANGED}
