"""A fuzz run's bugs in the HTML and Markdown reports: the input as a monospace grid with the failing
cell marked, the expected and the actual answer side by side, no raw control byte, old manifests
(without text/expected/actual/mark) filled from the reproducer's folder; timing only for sets with
enough cases, its plots coloured passed/failed."""

import json
import re
from html.parser import HTMLParser

from reports.load import load_run
from reports.render.html import summary_html
from reports.render.md import summary_md
from reports.summary import summarize
from test_reports_helpers import fuzz_records, write_run

SOLUTION = "\n".join(" ".join(str((r * 3 + r // 3 + c) % 9 + 1) for c in range(9)) for r in range(9)) + "\n"
TEXT = "\n".join("\t".join("0" * 9) for _ in range(8)) + "\r\n" + "0\t0\t5\t0\t0\t0\t0\t0\t0\n"
REPLAY = "fuzz replay run/corpus/t/keeps_givens/abc --target ./sudoku"
OLD = {"target": "./sudoku", "signature": "keeps_givens:changed on whitespace_tabs (exit 0)", "cases": 3, "case": 4,
       "detail": "keeps_givens: 1 given(s) changed, first at row 9, column 3", "confirmed": 3, "flaky": False,
       "intermittent": None, "replay": REPLAY, "input": "0\\t0 ..."}


def new_group(**extra):
    return dict(OLD, folder="/nonexistent/folder", text=TEXT, expected="exit 0 and the unique solution:\n" + SOLUTION,
                actual={"exit_code": 0, "stdout": SOLUTION.replace("2 3 4", "2 3 \x1b[31m4"),
                        "stderr": "warn\x00ing\x07", "wall_s": 0.5, "cpu_s": 0.2},
                mark={"row": 9, "column": 3}, families=["multiple", "unique_hard", "whitespace_tabs"], side=9, **extra)


def report(tmp_path, group, n_per_family=20):
    path = write_run(tmp_path / "fuzz", fuzz_records(n_per_family=n_per_family, failed={4: "keeps_givens"}),
                     chunk_size=10, manifest_extra={"fuzz": {"groups": [group]}})
    s = summarize(load_run(path))
    return summary_html(s), summary_md(s)


def pres(html):
    return re.findall(r'<pre class="io">(.*?)</pre>', html, flags=re.S)


def test_html_shows_the_input_grid_whole_with_the_cell_marked_beside_expected_and_actual(tmp_path):
    html, _ = report(tmp_path, new_group())
    blocks = pres(html)
    assert len(blocks) == 4  # input, expected, actual stdout, stderr
    rows = blocks[0].split("\n")
    assert rows[7] == "0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\r"  # the \r and tabs visible, one row a line
    assert rows[8] == '0\\t0\\t<mark title="row 9, column 3">5</mark>\\t0\\t0\\t0\\t0\\t0\\t0'
    assert '<div class="sides">' in html and html.count("<figure>") == 3  # input, expected, actual side by side
    assert "<mark" in blocks[1] and "<mark" in blocks[2]  # the same cell in the expected and the actual grid
    assert "seen on: multiple, unique_hard, whitespace_tabs" in html
    assert "white-space:pre;" in html  # never wrapped
    assert f"<code>{REPLAY}</code>" in html


def test_no_control_byte_of_a_target_reaches_the_html_raw(tmp_path):
    html, md = report(tmp_path, new_group(signature="no_crash:\x00 on \x1b[2Jx (exit 0)"))
    for text in (html, md):
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text)
    assert "\\x1b[31m4" in html and "warn\\x00ing\\x07" in html and "no_crash:\\x00 on \\x1b[2Jx" in html
    HTMLParser().feed(html)  # parses


def test_markdown_marks_the_cell_with_a_caret_and_gives_expected_then_actual(tmp_path):
    _, md = report(tmp_path, new_group())
    assert "input (row 9, column 3 marked):" in md
    assert "```\n" + "0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\n" * 7 in md
    assert "0\\t0\\t5\\t0\\t0\\t0\\t0\\t0\\t0\n      ^ row 9, column 3\n```" in md
    expected, actual = md.index("expected: exit 0 and the unique solution:"), md.index("actual: exit 0, wall 500 ms")
    assert expected < actual and "\n    ^ row 9, column 3\n" in md[expected:actual]
    assert md.index("```", expected) < actual  # two consecutive code blocks
    assert "seen on: multiple, unique_hard, whitespace_tabs" in md
    assert f"replay: `{REPLAY}`" in md


def test_a_hangs_actual_answer_says_fuzz_killed_it_not_exit_minus_9(tmp_path):
    hang = {"exit_code": -9, "ended": "killed by fuzz after 5s of CPU (hang)", "stdout": "", "stderr": "",
            "wall_s": 5.3, "cpu_s": 5.0}
    html, md = report(tmp_path / "new", {**new_group(), "actual": hang})
    assert "actual: killed by fuzz after 5s of CPU (hang), wall 5.3 s, cpu 5 s" in md and "exit -9" not in md
    assert "actual: killed by fuzz after 5s of CPU (hang), wall" in html and "exit -9" not in html
    old = {"exit_code": -9, "timed_out": True, "stdout": "", "stderr": "", "wall_s": 5.3}  # before ``ended``
    html, md = report(tmp_path / "old", {**new_group(), "actual": old})
    assert "actual: killed by fuzz (hang), wall" in md and "exit -9" not in md


def test_an_old_manifest_is_filled_from_the_reproducers_folder(tmp_path):
    folder = tmp_path / "corpus" / "t" / "keeps_givens" / "abc"
    folder.mkdir(parents=True)
    (folder / "input.txt").write_bytes(TEXT.encode())
    (folder / "case.json").write_text(json.dumps({
        "family": "whitespace_tabs", "side": 9, "expected": "exit 0 and any one of its several solutions",
        "actual": {"exit_code": 0, "seconds": 0.3, "cpu_seconds": 0.1, "stdout": SOLUTION, "stderr": ""}}))
    html, md = report(tmp_path, dict(OLD, folder=str(folder)))
    assert '<mark title="row 9, column 3">5</mark>' in html  # the mark read from the detail
    assert "seen on: whitespace_tabs" in html and "actual: exit 0, wall 300 ms" in html
    assert "expected: exit 0 and any one of its several solutions" in md


def test_an_old_manifest_without_a_folder_still_renders(tmp_path):
    html, md = report(tmp_path, dict(OLD, folder=str(tmp_path / "gone")))
    assert "Distinct bugs (1)" in html and "0\\t0 ..." in html and REPLAY in md
    html, md = report(tmp_path / "bare", {"signature": "x"})
    assert "Distinct bugs (1)" in html and "#### 1. x" in md


def test_timing_only_for_sets_with_enough_cases_and_plots_coloured_by_outcome(tmp_path):
    html, md = report(tmp_path, new_group(), n_per_family=30)
    assert "passed (" in html and "failed (1)" in html and "#d62728" in html  # a legend, the failed point red
    html, md = report(tmp_path / "small", new_group(), n_per_family=10)
    assert "Left out: 2 sets with fewer than 20 cases each" in html and "<svg" not in html
    assert "Left out: 2 sets" in md and "| phase | size |" not in md


def test_reports_show_on_a_terminal_gives_each_bug_its_input_marked():
    from types import SimpleNamespace

    from reports.bugs import Bug
    from reports.render.terminal import _input_lines

    bug = Bug({"signature": "keeps_givens:changed on solvable (exit 0)"}, text="0 0 5\n1 2 0\n", mark={"row": 2,
                                                                                                         "column": 1})
    lines = _input_lines(bug)
    assert lines[:2] == ["0 0 5", "1 2 0"] and lines[2].startswith("^ row 2, column 1")
    assert _input_lines(SimpleNamespace(text="", mark=None, side=None)) == []  # a create has no input


def test_the_terminal_summary_gives_a_bug_s_detail_families_and_other_signatures(tmp_path):
    """A QA note: `reports show` gave a bug's signature and a marked blank cell, not the detail that
    says what is wrong there, nor where it showed, as `fuzz run` does."""
    import argparse

    from reports.render.terminal import summary_blocks

    path = write_run(tmp_path / "fuzz", fuzz_records(n_per_family=20, failed={4: "keeps_givens"}), chunk_size=10,
                     manifest_extra={"fuzz": {"groups": [new_group(also=["keeps_givens:changed on full (exit 0)"])]}})
    blocks = [str(one) for one in summary_blocks(summarize(load_run(path)), argparse.Namespace(md=None, html=None))]
    title = next(line for line in blocks if line.startswith("  1. "))
    assert title == ("  1. keeps_givens:changed on whitespace_tabs (exit 0): 3 cases; keeps_givens: 1 given(s) "
                     "changed, first at row 9, column 3")
    assert "     seen on: multiple, unique_hard, whitespace_tabs" in blocks
    assert ("     id: keeps_givens:changed on whitespace_tabs (exit 0) (also met as: keeps_givens:changed on full "
            "(exit 0))") in blocks



def test_a_record_that_knows_no_place_is_not_marked_by_the_program_s_words_in_its_detail():
    """'line 3' of a program's own source, quoted in the detail, is no place in the input; only a
    record written before marks were (no "mark" field) has its place read from the detail."""
    from reports.bugs import bug_of

    detail = 'answers: exit 1 (  File "/tmp/x/sudoku.py", line 3), no grid on stdout'
    record = {"signature": "answers:exit on solvable (exit non-zero)", "detail": detail, "text": "1 2\n3 4\n",
              "expected": "", "actual": {}}
    assert bug_of({**record, "mark": None}).mark is None
    assert bug_of(record).mark == {"line": 3}  # an old record: the detail is all there is


def test_every_rendering_names_a_fuzz_run_s_one_target_and_seed_first(tmp_path):
    """A new user's report.html said the run's name, sha and host, but not which program was fuzzed,
    where fuzz run's own summary starts with it; a class's run leaves it to its table of targets."""
    import argparse

    from reports.render.terminal import summary_blocks

    one = {"spec": "python3 their\x1b[2J.py", "create_args": "create", "solve_args": "solve", "header": False}
    config = {"size": 9, "kind": "fuzz", "seed": 7, "target": one, "targets": [one]}
    path = write_run(tmp_path / "fuzz", fuzz_records(n_per_family=20, failed={4: "keeps_givens"}), chunk_size=10,
                     manifest_extra={"config": config, "fuzz": {"groups": [new_group()]}})
    summary = summarize(load_run(path))
    html, md = summary_html(summary), summary_md(summary)
    text = [str(block) for block in summary_blocks(summary, argparse.Namespace(md=None, html=None))]
    assert "<br/>target <code>python3 their\\x1b[2J.py</code>, seed 7</p>" in html
    assert "- target: `python3 their\\x1b[2J.py`, seed 7" in md.splitlines()[:5]
    assert text[1] == "target python3 their\\x1b[2J.py, seed 7"
    two = {**config, "targets": [one, {**one, "spec": "./bob/sudoku"}]}
    path = write_run(tmp_path / "class", fuzz_records(n_per_family=20), chunk_size=10, manifest_extra={"config": two})
    summary = summarize(load_run(path))
    assert summary.target is None and "target <code>" not in summary_html(summary)
    batch = write_run(tmp_path / "batch", fuzz_records(n_per_family=20), chunk_size=10)
    assert summarize(load_run(batch)).target is None


def test_a_report_page_is_laid_out_for_the_screen_it_is_on(tmp_path):
    """A phone lays out a page without a viewport line 980 px wide and shrinks it: unreadable."""
    html, _ = report(tmp_path, new_group())
    head = html.split("</head>")[0]
    assert '<meta name="viewport" content="width=device-width, initial-scale=1"/>' in head
    assert "display:block;overflow-x:auto;max-width:100%" in head  # a wide table scrolls, not the page
    assert "svg{max-width:100%;height:auto}" in head  # a plot shrinks to a narrow screen
