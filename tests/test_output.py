"""What people and machines read: untrusted text escaped in every output (sudoku.display), the short
summaries on stdout (plain text in a pipe), ``--md -``, and the versioned ``--json`` of ``reports show``,
``reports compare`` and ``sudoku-jobs show``."""

import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, strategies as st

from _jobs_support import small_batch
from fake_targets import fuzz, spec
from sudoku.display import Table, markdown, md_block, md_code, md_text, plain, visible, xml_text
from test_reports_helpers import fuzz_records, records, run_reports, write_run

HOSTILE = "\x00\x1b[31m<script>alert(1)</script>|<img src=x onerror=alert(2)>\ufffd\u200b`` |\x07\nnext line"
# --- the escaping module -------------------------------------------------------------------------------------

@given(st.text())
def test_visible_text_holds_only_printable_characters_and_line_breaks(text):
    shown = visible(text)
    assert all(ch.isprintable() or ch == "\n" for ch in shown)
    assert "\n" not in visible(text, newlines=False)
    if text.isprintable():
        assert shown == text  # printable text of any script passes unchanged


@given(st.text())
def test_xml_text_always_parses_as_element_and_attribute(text):
    element = ET.Element("case", message=xml_text(text))
    element.text = xml_text(text)
    again = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert again.text == xml_text(text) or (again.text is None and xml_text(text) == "")


def rendered_tags(text):
    """The HTML tags a CommonMark renderer (markdown-it, with tables and raw HTML on) makes of ``text``."""
    from markdown_it import MarkdownIt

    return re.findall(r"<(/?[a-z]+)", MarkdownIt("commonmark").enable("table").render(text))


@given(st.text())
def test_markdown_cells_hold_no_html_and_no_row_breaks(text):
    for cell in (md_text(text), md_code(text)):
        tags = rendered_tags(f"| a | b |\n|---|---|\n| {cell} | end |\n")
        assert set(tags) <= {"table", "thead", "tbody", "tr", "th", "td", "code", "/table", "/thead", "/tbody",
                             "/tr", "/th", "/td", "/code"}
        assert tags.count("td") == 2  # the row holds its two cells: no pipe or line break split it


def test_bytes_that_are_not_utf8_and_controls_are_shown_as_escapes():
    assert visible(b"a\xff\x00\x1bb") == "a\\xff\\x00\\x1bb"
    assert visible("tab\there\r\n") == "tab\\there\\r\n"
    assert md_text("<b>x</b> | y\nz") == "&lt;b&gt;x&lt;/b&gt; \\| y z"
    assert md_code("a`b") == "``a`b``" and md_code("`x") == "`` `x ``"
    assert md_block("```\nx").startswith("````\n")


def test_a_table_renders_aligned_plain_text_and_escaped_markdown():
    table = Table(["name", "n:"], title="Things")
    table.add("a<b>|\x1b", 5)
    table.add("long name", 12)
    text = plain([table])
    assert text.splitlines() == ["Things", "  name        n", "  a<b>|\\x1b   5", "  long name  12"]
    assert "| a&lt;b&gt;\\|\\\\x1b | 5 |" in markdown([table]) and "|---|---:|" in markdown([table])


# --- reports: untrusted text through every renderer ------------------------------------------------------------

@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    rows = fuzz_records(failed={3: "answers", 25: "answers"})
    for row in rows:
        if row["outcome"] == "failed":
            row.update(reason=f"answers: exit 1 ({HOSTILE})", input_text=HOSTILE, signature=f"answers:{HOSTILE}")
    groups = [{"target": "cli", "signature": f"answers:{HOSTILE}", "cases": 2, "case": 3, "detail": HOSTILE,
               "replay": f"fuzz replay x --target {HOSTILE}", "input": HOSTILE, "flaky": False}]
    return {"base": write_run(root / "base", fuzz_records(), chunk_size=10),
            "head": write_run(root / "head", rows, chunk_size=10, manifest_extra={"fuzz": {"groups": groups}})}


def test_junit_markdown_and_terminal_show_hostile_text_escaped(hostile_runs, tmp_path):
    junit, md, html = tmp_path / "j.xml", tmp_path / "r.md", tmp_path / "r.html"
    result = run_reports("compare", hostile_runs["base"], hostile_runs["head"], "--junit", junit, "--md", md,
                         "--html", html)
    assert result.returncode == 1, result.stderr
    root = ET.parse(junit).getroot()  # parses, whatever the target printed
    failure = next(root.iter("failure"))
    assert "\\x1b[31m<script>" in failure.text  # shown, as an escape, not dropped
    markdown_text = md.read_text()
    assert not {"script", "img"} & set(rendered_tags(markdown_text)) and "\x1b" not in markdown_text
    assert "\x1b" not in result.stdout and "\x00" not in result.stdout and "\\x1b[31m" in result.stdout
    assert "<script" not in html.read_text()
    shown = run_reports("show", hostile_runs["head"], "--md", "-")
    assert not {"script", "img"} & set(rendered_tags(shown.stdout))
    assert "\x1b" not in shown.stdout and "\x00" not in shown.stdout


@pytest.mark.slow
def test_a_real_fuzz_run_of_a_hostile_target_gives_parseable_junit_and_clean_terminal(tmp_path):
    """The hostile fake through a real ``fuzz run``, then ``reports compare``: every output escaped."""
    done = fuzz("run", "-n", 30, "--seed", 5, "--workers", 2, "--no-shrink", "--no-progress", "--out",
                tmp_path / "run", "--corpus", tmp_path / "corpus", "--target", spec("hostile_output"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "\x1b" not in done.stdout and "\x00" not in done.stdout and "\\x1b[31m" in done.stdout
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert not {"script", "img"} & set(rendered_tags(summary)) and "\x1b" not in summary
    junit = tmp_path / "j.xml"
    result = run_reports("compare", tmp_path / "run", tmp_path / "run", "--junit", junit)
    assert result.returncode == 1 and "\x1b" not in result.stdout and "\x00" not in result.stdout
    text = "".join(ET.parse(junit).getroot().itertext())
    assert "\\x1b[31m<script>alert(1)</script>" in text


# --- short summaries, --md -, --json -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {"base": write_run(root / "base", records(noise_seed=0)),
            "slow": write_run(root / "slow", records(noise_seed=1, scale={"solve_s": 2.0}, failed=(11,)))}


def test_reports_stdout_is_short_plain_text_in_a_pipe_and_markdown_with_md_dash(runs):
    short = run_reports("compare", runs["base"], runs["slow"])
    assert short.returncode == 1 and "\x1b[" not in short.stdout and "|" not in short.stdout
    lines = short.stdout.splitlines()
    assert lines[0] == "benchmark comparison: regression: failed cases and slower timings"
    assert any(line.split()[:1] == ["solve_s[9x9,create]"] and "regression" in line for line in lines)
    assert any(line.split()[:3] == ["11", "create", "9x9"] for line in lines)  # the failed case and its puzzle
    assert lines[-1].startswith("full report: add --md FILE") and len(lines) < 30
    full = run_reports("compare", runs["base"], runs["slow"], "--md", "-")
    assert full.stdout.startswith("## Benchmark comparison") and "| `solve_s[9x9,create]` |" in full.stdout


def test_reports_show_json_is_versioned_and_holds_counts_failures_and_timings(runs):
    result = run_reports("show", runs["slow"], "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["schema"] == "reports.show" and data["version"] == 2
    assert data["run"]["cases"] == 200 and data["counts"] == {"failed": 1, "ok": 199} and data["failed"] == 1
    assert data["failures"][0]["case"] == 11 and data["failures"][0]["reproducer"] == records()[11]["puzzle"]
    solve = [t for t in data["timings"] if t["phase"] == "solve_s"]
    assert solve and solve[0]["n"] == 200 and 0 < solve[0]["p50_s"] <= solve[0]["p90_s"] <= solve[0]["max_s"]


def test_reports_compare_json_names_the_regression_with_its_interval(runs):
    result = run_reports("compare", runs["base"], runs["slow"], "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["schema"] == "reports.compare" and data["version"] == 2
    assert data["regression"] is True and data["correctness_regression"] is True
    metrics = {m["name"]: m for m in data["metrics"]}
    solve = metrics["solve_s[9x9,create]"]
    assert solve["verdict"] == "regression" and solve["low"] <= solve["ratio"] <= solve["high"]
    assert 1.7 < solve["ratio"] < 2.3 and solve["base_n"] == 200 and solve["head_n"] == 200
    assert data["timing_regressions"] == ["solve_s[9x9,create]"]
    assert [f["case"] for f in data["failures"]] == [11] and data["failures"][0]["status"] == "new failure"
    assert data["base"]["git_sha"] == "0" * 40


def test_json_and_md_dash_together_are_a_usage_error(runs):
    result = run_reports("show", runs["base"], "--json", "--md", "-")
    assert result.returncode == 2 and result.stdout == "" and "--json and --md -" in result.stderr


# --- ./dev set-up ----------------------------------------------------------------------------------------------

def test_dev_setup_says_each_step_on_one_line(tmp_path):
    """``./dev`` in a copy of the repo, with a fake interpreter whose venv's pip and python do nothing:
    each set-up step is announced, then timed; a failing step is named and ends the set-up."""
    import shutil
    import subprocess
    import sys

    from test_reports_helpers import REPO

    shutil.copy(REPO / "dev", tmp_path / "dev")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO / ".ci" / "constraints.txt", tmp_path / ".ci" / "constraints.txt")
    fake = tmp_path / "python3"
    fake.write_text(f"""#!/bin/bash
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin"
  printf '#!/bin/bash\\nif [ "$1 $2" = "-m pip" ] && [ -n "$FAIL_PIP" ]; then exit 7; fi\\nexit 0\\n' > "$3/bin/python"
  chmod +x "$3/bin/python"
  exit 0
fi
exec {sys.executable} "$@"
""")
    fake.chmod(0o755)
    done = subprocess.run(["bash", "dev", "test"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHON": str(fake)})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    for what in ("making the virtual environment .venv", "upgrading pip", "installing the toolkit",
                 "compiling the engines' numba kernels", "compiling the toolkit's bytecode"):
        assert any(line.startswith(f"dev: {what}") and line.endswith("...") for line in lines), done.stderr
        assert any(line.startswith(f"dev: {what}") and " done in " in line for line in lines), done.stderr
    assert lines[-1] == "dev: set-up done"
    shutil.rmtree(tmp_path / ".venv")
    failed = subprocess.run(["bash", "dev", "test"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                            env={"PATH": "/usr/bin:/bin", "PYTHON": str(fake), "FAIL_PIP": "1"})
    assert failed.returncode == 7 and failed.stderr.splitlines()[-1] == "dev: upgrading pip: FAILED (exit 7)"


# --- progress when piped -----------------------------------------------------------------------------------------

def test_piped_progress_lines_carry_cases_failures_rate_and_time_left(tmp_path, monkeypatch, capsys):
    """Without a terminal the runner logs, as each chunk is saved (here at every one), the cases done,
    the failures so far, the rate and the time left."""
    from jobs import runner, tasks

    monkeypatch.setattr(runner, "LOG_EVERY_S", 0.0)
    config = small_batch(tmp_path / "run")
    run_dir, config = runner.open_run(tasks.BATCH, config=config)
    runner.setup_log(run_dir)
    manifest = runner.run_with_progress(run_dir, config, tasks.BATCH, tasks.plan(config))
    assert manifest["status"] == "complete"
    lines = re.findall(r"(\d+) of 30 cases \(\d+ %\), 0 failed so far, \d+ cases/s, about \d+s left",
                       capsys.readouterr().err)
    assert lines == ["10", "20", "30"]


def test_the_time_left_is_paced_from_the_first_chunk_saved_not_from_the_compile_before_it():
    """A first run's workers compile for minutes before the first chunk: the rate after it is the run's."""
    from jobs.runner import Pace

    pace = Pace(0, now=0.0)
    pace.finished(100, 120.0)  # the first chunk: 2 minutes, most of it the compile
    assert pace.rate() == 100 / 120  # nothing after it yet: the rate since the start
    pace.finished(1100, 130.0)
    pace.finished(2100, 140.0)
    assert pace.rate() == 100.0  # 2000 cases in the 20 s since: 9 s for the 900 left, not 1000
    resumed = Pace(500, now=0.0)  # a resume counts only the cases it saved
    resumed.finished(600, 10.0)
    assert resumed.rate() == 10.0


# --- a terminal gets rich tables; nothing else imports rich -------------------------------------------------------

def test_a_terminal_gets_boxed_tables_and_hostile_text_still_escaped(hostile_runs, tmp_path):
    import sys

    from helpers import in_a_terminal

    shown = in_a_terminal([sys.executable, "-m", "reports", "show", str(hostile_runs["head"])], cwd=tmp_path,
                          columns=160)
    assert "┏" in shown and "Timing percentiles" in shown  # rich drew the tables
    assert "\\x1b[31m" in shown and "\x1b[31m<script" not in shown and "\x00" not in shown


def test_the_plain_paths_never_import_rich(runs):
    import subprocess
    import sys

    from test_reports_helpers import REPO

    code = ("import sys, io; from sudoku.display import show, Table; from reports import cli; "
            "out = io.StringIO(); show(['x', Table(['a'], [[1]])], out); "
            "assert 'rich' not in sys.modules, 'rich imported'; import sudoku.cli; print(out.getvalue(), end='')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0 and done.stdout == "x\n  a\n  1\n", done.stderr


def test_a_line_break_in_untrusted_text_cannot_forge_a_line_of_output():
    forged = "bug\nfull report: all clear"
    text = plain([forged, Table(["a"], [[forged]], title=forged)])
    assert "\nfull report" not in text and text.count("\n") == 4 and "bug\\nfull report" in text


@pytest.mark.slow
def test_jobs_show_escapes_a_hostile_input_line_in_every_output(tmp_path):
    """A puzzle file with a line of ESC, HTML and NUL: ``sudoku-jobs show`` quotes it escaped, piped,
    as Markdown (to a file and to stdout) and as JSON."""
    from _jobs_support import run_jobs

    source = tmp_path / "in.txt"
    source.write_bytes(b"." * 81 + b"\n\x1b[31m<script>x</script>" + b"." * 60 + b"\x00\n")
    ran = run_jobs("run", "--input", source, "--out", tmp_path / "run", "--workers", 1, "--no-progress")
    assert ran.returncode == 2, ran.stderr  # the hostile line is rejected: malformed input
    piped = run_jobs("show", tmp_path / "run")
    assert "\x1b" not in piped.stdout and "\x00" not in piped.stdout and "puzzle \\x1b[31m<script>" in piped.stdout
    md = tmp_path / "show.md"
    as_md = run_jobs("show", tmp_path / "run", "--md", "-")
    assert run_jobs("show", tmp_path / "run", "--md", md).returncode == 0 and md.read_text() == as_md.stdout
    assert "| create_s |" not in as_md.stdout and "| solve_s | 1 |" in as_md.stdout
    assert not {"script"} & set(rendered_tags(as_md.stdout)) and "\x1b" not in as_md.stdout
    data = json.loads(run_jobs("show", tmp_path / "run", "--json").stdout)
    assert data["not_ok"]["first"][0]["puzzle"].startswith("\x1b[31m<script>")  # JSON keeps the text as it is


@pytest.mark.parametrize("text", ["_0_", "*a*", "`x`", "~~s~~", "# h", "> q", "- item", "1. item", "[l](u)"])
def test_markdown_marks_in_untrusted_text_are_shown_as_typed(text):
    # hypothesis found '_0_' rendered as <em>; a paragraph must not become a heading, quote or list either
    assert rendered_tags(md_text(text)) == ["p", "/p"], md_text(text)
