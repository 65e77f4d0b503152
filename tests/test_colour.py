"""Colour for verdicts and failures (``sudoku.colour`` decides, ``sudoku.display`` draws): on a terminal
unless ``NO_COLOR`` is set, never in a pipe, always with ``--color always``, never with ``--color never``;
and a choice never carries over from one in-process call into the next."""

import os
import re
import sys

import pytest

from helpers import call_main, in_a_terminal, run_cli
from sudoku import colour as decide
from sudoku.display import Table, marked, plain
from test_reports_helpers import records, run_reports, write_run

INVALID = "1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 2\n"
COMPLETE = "1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1\n"
RED, GREEN, RESET = "\x1b[1;31m", "\x1b[32m", "\x1b[0m"
ANSI = re.compile("\x1b\\[")


@pytest.fixture(autouse=True)
def auto_after():
    yield
    decide.choose("auto")  # a unit test's choice never reaches the next test


def test_the_decision(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert decide.colour(Tty()) and not decide.colour(open(os.devnull, "w"))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not decide.colour(Tty())
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no effect (no-color.org)
    assert decide.colour(Tty())
    monkeypatch.setenv("TERM", "dumb")
    assert not decide.colour(Tty())
    decide.choose("always")  # the command line wins over the environment and the stream
    assert decide.colour(open(os.devnull, "w"))
    decide.choose("never")
    monkeypatch.setenv("TERM", "xterm")
    assert not decide.colour(Tty())
    with pytest.raises(ValueError):
        decide.choose("sometimes")


def test_plain_tables_colour_only_marked_cells_and_keep_their_alignment():
    table = Table(["name", "verdict"])
    table.add("a", marked("regression", "bad"))
    table.add("long name", "unchanged")
    blocks = [marked("head", "good"), table]
    assert plain(blocks, colour=True).splitlines() == [
        f"{GREEN}head{RESET}", "  name       verdict", f"  a          {RED}regression{RESET}",
        "  long name  unchanged"]
    assert plain(blocks) == plain([str(block) if isinstance(block, str) else block for block in blocks])
    assert not ANSI.search(plain(blocks))


def test_sudoku_check_piped_has_no_colour_and_forced_has_it():
    piped = run_cli("check", input=INVALID)
    assert piped.returncode == 1 and piped.stdout == "invalid: row 4 has two 2s, columns 3 and 4\n"
    forced = run_cli("check", "--color", "always", input=INVALID)
    assert forced.stdout == f"{RED}invalid{RESET}: row 4 has two 2s, columns 3 and 4\n"
    good = run_cli("check", "--color", "always", input=COMPLETE)
    assert good.returncode == 0 and good.stdout.startswith(f"{GREEN}complete{RESET}: ")
    again = run_cli("check", input=INVALID)  # the last call's --color does not carry over
    assert again.stdout == piped.stdout
    assert not ANSI.search(run_cli("check", "--color", "always", "--json", input=INVALID).stdout)


def test_a_terminal_gets_colour_unless_no_color_is_set_or_never_is_asked():
    command = [sys.executable, "-m", "sudoku", "check"]
    assert RED + "invalid" in in_a_terminal(command, stdin=INVALID)
    assert not ANSI.search(in_a_terminal(command, stdin=INVALID, env={"NO_COLOR": "1"}))
    assert not ANSI.search(in_a_terminal(command + ["--color", "never"], stdin=INVALID))
    assert RED + "invalid" in in_a_terminal(command + ["--color", "always"], stdin=INVALID, env={"NO_COLOR": "1"})


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {"base": write_run(root / "base", records(noise_seed=0)),
            "slow": write_run(root / "slow", records(noise_seed=1, scale={"solve_s": 2.0}, failed=(11,))),
            "fast": write_run(root / "fast", records(noise_seed=2, scale={"solve_s": 0.5}))}


def test_reports_compare_colours_regression_and_improvement_rows_only_when_asked(runs):
    piped = run_reports("compare", runs["base"], runs["slow"])
    assert piped.returncode == 1 and not ANSI.search(piped.stdout)
    forced = run_reports("compare", runs["base"], runs["slow"], "--color", "always")
    row = next(line for line in forced.stdout.splitlines() if line.startswith(f"  {RED}solve_s[9x9,create]"))
    assert f"{RED}regression" in row
    assert forced.stdout.splitlines()[0].startswith(f"{RED}benchmark comparison: regression")
    assert re.sub("\x1b\\[[0-9;]*m", "", forced.stdout) == piped.stdout  # the same text, coloured
    better = run_reports("compare", runs["base"], runs["fast"], "--color", "always")
    assert any(line.startswith(f"  {GREEN}solve_s[9x9,create]") for line in better.stdout.splitlines()), better.stdout
    no_color = run_reports("compare", runs["base"], runs["slow"], env={"NO_COLOR": "1"})
    assert no_color.stdout == piped.stdout
    shown = run_reports("show", runs["slow"], "--color", "always")
    assert shown.stdout.startswith(RED + "run ") and shown.returncode == 1


def test_jobs_show_marks_a_run_with_failures():
    from jobs.summary import summary_blocks

    data = {"run_id": "r", "status": "complete", "wall_s": 1.0, "seed": 1, "host": {"cpu": "x"},
            "config": {"size": 9, "engine": "py", "check_engine": "dlx", "backend": "local", "workers": 1},
            "totals": {"cases": 3, "ok": 1, "failed": 1, "rejected": 1}, "timings": [],
            "not_ok": {"count": 2, "first": [{"case": 1, "outcome": "failed", "reason": "wrong", "puzzle": "."},
                                             {"case": 2, "outcome": "rejected", "reason": "few", "puzzle": "."}]}}
    lines = plain(summary_blocks(data), colour=True).splitlines()
    assert lines[0].startswith(RED + "run r: complete") and lines[-2].startswith(RED + "  case 1 (failed)")
    assert lines[-1].startswith("\x1b[33m  case 2 (rejected)")
    data["totals"]["failed"], data["not_ok"] = 0, {"count": 0, "first": []}
    assert not ANSI.search(plain(summary_blocks(data), colour=True))


def test_jobs_and_fuzz_take_color_where_they_show_verdicts():
    from test_exit_codes import PARSERS

    for prog in ("sudoku check", "sudoku-jobs show", "fuzz run", "fuzz replay", "reports show", "reports compare",
                 "reports history"):
        assert "--color" in PARSERS[prog].format_help(), prog
    done = call_main(__import__("jobs.cli", fromlist=["main"]).main, ["show", "--color", "blue", "x"])
    assert done.returncode == 2 and "invalid choice: 'blue'" in done.stderr
