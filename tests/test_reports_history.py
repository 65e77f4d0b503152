"""`reports history`: each metric over commits in time order, and the commit of a step change named
by the verdict rule (which a flat series moved by machine load alone does not trip)."""

import json
import re

import numpy as np
import pytest

from reports.history import history_of, load_history
from reports.render.history import history_html, history_md
from test_reports_helpers import records, run_reports, write_run
from test_reports_unlike import BATCH


def write_history(root, loads, *, rounds=1, start=0, **config):
    """One run per commit (``rounds`` runs each), solve_s scaled by each commit's factor in ``loads``;
    named so that name order is the reverse of time order (the history must order by time)."""
    for index, load in enumerate(loads):
        sha = f"{start + index:02x}" * 20
        for r in range(rounds):
            rows = records(60, noise_seed=1000 * (start + index) + r, scale={"solve_s": load})
            write_run(root / f"z{99 - start - index:02d}-{r}", rows, manifest_extra={
                "git_sha": sha, "started": f"2026-11-{10 + start + index:02d}T10:00:{r:02d}",
                "config": dict(BATCH, **config)})
    return root


def solve_series(history):
    return next(s for s in history.series if s.phase == "solve_s")


def test_a_real_step_is_named_at_its_commit(tmp_path):
    history = history_of(load_history([write_history(tmp_path, [1.0, 1.05, 0.97, 1.02, 2.0, 2.04, 1.95, 2.02])]))
    assert [c.sha[:2] for c in history.commits] == [f"{i:02x}" for i in range(8)]  # time order, not name order
    solve = solve_series(history)
    assert [(step.commit.sha[:2], step.verdict) for step in solve.steps] == [("04", "regression")]
    assert 1.8 < solve.steps[0].ratio.point < 2.2
    assert all(not s.steps for s in history.series if s.phase != "solve_s")
    faster = history_of(load_history([write_history(tmp_path / "f", [1.0, 1.0, 1.0, 0.5, 0.5, 0.5])]))
    assert [(step.commit.sha[:2], step.verdict) for step in solve_series(faster).steps] == [("03", "improvement")]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_flat_series_moved_by_load_alone_has_no_step(tmp_path, seed):
    # whole commits moved by load as on the shared VM: most within a few per cent, some 1.3-1.4x slower
    loads = np.random.default_rng(seed).choice([0.95, 1.0, 1.0, 1.03, 1.05, 1.3, 1.4], size=8)
    history = history_of(load_history([write_history(tmp_path, list(loads))]))
    assert [s.name for s in history.series if s.steps] == []


def test_runs_of_one_commit_are_its_rounds_and_unlike_configurations_are_separate_series(tmp_path):
    write_history(tmp_path / "nb", [1.0, 1.0, 2.0], rounds=2)
    write_history(tmp_path / "py", [1.0, 1.0], start=3, engine="py")
    commits = load_history([tmp_path / "nb", tmp_path / "py"])
    assert [c.run.rounds for c in commits] == [2, 2, 2, 1, 1]
    history = history_of(commits)
    tags = sorted({s.tag for s in history.series})
    assert tags == ["{engine nb}", "{engine py}"] and len(history.series) == 8
    assert [len(s.commits) for s in history.series if s.phase == "solve_s"] == [3, 2]


def test_history_markdown_and_html_name_the_step_commit(tmp_path):
    history = history_of(load_history([write_history(tmp_path, [1.0, 1.0, 1.0, 3.0, 3.0, 3.0])]))
    md = history_md(history)
    assert md.splitlines()[0] == "## History: 6 commits, 4 metrics, 1 with a step change (1 slower)"
    row = next(line for line in md.splitlines() if line.startswith("| `solve_s"))
    assert row.count("|") == 6 + 3 and re.search(rf"\| {'03' * 5}: [23]\.?\d*x slower \|$", row), row
    html = history_html(history)
    assert html.count("<svg") == 4 and html.count("<polyline") == 4 and "stroke-dasharray=\"4,3\"" in html
    assert f"{'03' * 3}0: " in html  # the step's label on the plot: its short sha


def test_history_command_writes_md_and_html_and_refuses_what_it_cannot_read(tmp_path):
    write_history(tmp_path / "runs", [1.0, 1.0, 1.0, 2.5, 2.5, 2.5])
    html = tmp_path / "history.html"
    result = run_reports("history", tmp_path / "runs", "--html", html, "--md", tmp_path / "history.md")
    assert result.returncode == 0, result.stderr
    md = run_reports("history", tmp_path / "runs", "--md", "-").stdout
    assert "## History: 6 commits" in md and re.search(r"\| 0303030303: 2\.\d+x slower \|", md)
    assert html.read_text().count("<svg") == 4 and (tmp_path / "history.md").read_text() == md
    missing = run_reports("history", tmp_path / "nowhere")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "nowhere: no such run directory" in \
        missing.stderr
    bad = run_reports("history", tmp_path / "runs", "--threshold", "2")
    assert bad.returncode == 2 and "must lie between 0 and 1" in bad.stderr


def test_a_run_set_that_mixes_configurations_gives_a_series_each_instead_of_an_error(tmp_path):
    # one commit's run set holding an nb round and a py round: `show` refuses it without --merge-unlike,
    # history reads each run on its own and keeps the configurations apart
    for name, engine in (("round01", "nb"), ("round02", "py")):
        write_run(tmp_path / "runs" / "c0" / name, records(40, noise_seed=len(name + engine)),
                  manifest_extra={"started": f"2026-11-10T10:00:0{name[-1]}", "config": dict(BATCH, engine=engine)})
    assert run_reports("show", tmp_path / "runs" / "c0").returncode == 2
    commits = load_history([tmp_path / "runs"])
    assert sorted((c.sha[:2], c.configuration["engine"], c.run.rounds) for c in commits) == [("00", "nb", 1),
                                                                                            ("00", "py", 1)]
    result = run_reports("history", tmp_path / "runs")
    assert result.returncode == 0, result.stderr
    assert "history: 1 commit in 2 configurations" in result.stdout  # one sha, run in two configurations
    assert "{engine nb}" in result.stdout and "{engine py}" in result.stdout


def test_history_counts_commits_not_configurations(tmp_path):
    write_history(tmp_path / "nb", [1.0, 1.0], engine="nb")
    write_history(tmp_path / "py", [1.0, 1.0], engine="py")  # the same two shas, another engine
    history = history_of(load_history([tmp_path / "nb", tmp_path / "py"]))
    assert len(history.commits) == 4 and history.commit_count == 2 and history.configuration_count == 2
    assert history_md(history).startswith("## History: 2 commits in 2 configurations, 8 metrics")
    one = history_of(load_history([write_history(tmp_path / "one", [1.0], rounds=3)]))
    assert one.commit_count == 1 and "3 rounds" in history_md(one) and "1 commit," in history_md(one)


def test_history_prints_a_table_on_stdout_and_markdown_only_with_md(tmp_path):
    write_history(tmp_path / "runs", [1.0, 1.0, 1.0, 2.5, 2.5, 2.5])
    table = run_reports("history", tmp_path / "runs")
    assert table.returncode == 0, table.stderr
    assert table.stdout.startswith("history: 6 commits, 4 metrics, 1 with a step change (1 slower)\n")
    row = next(line for line in table.stdout.splitlines() if line.strip().startswith("solve_s[9x9,create]"))
    assert re.search(r"0303030303: 2\.\d+x slower$", row)
    assert "|" not in table.stdout and "\\" not in table.stdout and not re.search(r"^#", table.stdout, re.M)
    md = run_reports("history", tmp_path / "runs", "--md", "-")
    assert md.stdout.startswith("## History: 6 commits") and "| `solve_s[9x9,create]` |" in md.stdout  # a code span: no escapes


def test_history_json_is_versioned_like_the_other_reports(tmp_path):
    write_history(tmp_path / "runs", [1.0, 1.0, 1.0, 2.5, 2.5, 2.5])
    result = run_reports("history", tmp_path / "runs", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["schema"], data["version"], data["commits"], data["configurations"]) == ("reports.history", 2, 6, 1)
    solve = next(s for s in data["series"] if s["phase"] == "solve_s")
    assert len(solve["medians"]) == 6 and all(m["median_s"] > 0 for m in solve["medians"])
    assert [(step["label"], step["verdict"]) for step in solve["steps"]] == [("0303030303", "regression")]
    assert 2 < solve["steps"][0]["ratio"] < 3 and solve["steps"][0]["low"] <= solve["steps"][0]["ratio"]
    assert run_reports("history", tmp_path / "runs", "--json", "--md", "-").returncode == 2


def test_the_trends_of_a_history_share_one_scale(tmp_path):
    # solve_s steps x2.5; the other metrics are flat: every plot spans the factor the widest one needs
    history = history_of(load_history([write_history(tmp_path, [1.0, 1.0, 1.0, 2.5, 2.5, 2.5])]))
    factors = [float(f) for f in re.findall(r"y axis: x([\d.]+) bottom to top", history_html(history))]
    assert len(factors) == 4 and len(set(factors)) == 1 and factors[0] > 2.5
    ticks = re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*text-anchor="end">([\d.]+ [mu]?s)</text>', svg_of(
        history_html(history), "solve_s"))
    assert ticks  # the step's plot has its time ticks


def svg_of(html, name):
    start = html.index(f"<title>{name}")
    return html[html.rindex("<svg", 0, start):html.index("</svg>", start)]
