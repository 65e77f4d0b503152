"""One exit-code table for the four tools (``sudoku.cli.scaffold``): every help documents only codes of
the table, each with the table's meaning; and the scaffold's process-wide part (signals, a closed
stdout, one-line errors) in-process."""

import argparse
import io
import re
import signal
import sys

import pytest

from sudoku.cli import scaffold
from sudoku.cli.scaffold import EXIT_CODES, exit_codes
from sudoku.interrupts import Interrupted


def parsers():
    """Every tool's parser and each of its subcommand parsers, by their prog."""
    from fuzz import cli as fuzz_cli
    from jobs import cli as jobs_cli
    from reports import cli as reports_cli
    from sudoku.cli import command

    found = {}
    for top in (command._parser(), jobs_cli._parser(), fuzz_cli._parser(), reports_cli.parser()):
        found[top.prog] = top
        for action in top._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.update({sub.prog: sub for sub in action.choices.values()})
    return found


def documented(help_text):
    """``{code: text}`` of the ``exit codes:`` block of a help (continuation lines joined)."""
    block = help_text.split("exit codes:\n", 1)[1]
    codes, last = {}, None
    for line in block.splitlines():
        if match := re.match(r"  (\d+)\s+(.*)", line):
            last = int(match[1])
            codes[last] = match[2]
        elif line.startswith(" " * 7) and last is not None:
            codes[last] += " " + line.strip()
        else:
            break
    return codes


PARSERS = parsers()


def test_every_tool_and_subcommand_is_seen():
    assert {"sudoku", "sudoku-jobs", "fuzz", "reports"} <= set(PARSERS)
    assert {"sudoku solve", "sudoku play", "sudoku-jobs run", "fuzz replay", "fuzz probe", "reports compare",
            "reports history"} <= set(PARSERS)


@pytest.mark.parametrize("prog", sorted(PARSERS))
def test_help_documents_the_tables_codes_with_the_tables_meanings(prog):
    help_text = PARSERS[prog].format_help()
    assert "exit codes:" in help_text, f"{prog} --help documents no exit codes"
    codes = documented(help_text)
    assert codes and {0, 2} <= set(codes)
    for code, text in codes.items():
        assert code in EXIT_CODES, f"{prog}: code {code} is not in the table"
        assert text.startswith(EXIT_CODES[code]), f"{prog}: {code} documented as {text!r}"


def test_one_meaning_per_code_and_the_tools_use_the_tables_numbers():
    from fuzz import cli as fuzz_cli
    from jobs import cli as jobs_cli
    from reports import cli as reports_cli

    assert len(set(EXIT_CODES.values())) == len(EXIT_CODES)
    assert reports_cli.NOT_COMPARABLE == scaffold.NOT_COMPARABLE == 5 and scaffold.LOST == 4
    assert jobs_cli.FAILED == fuzz_cli.FAILED == reports_cli.REGRESSION == scaffold.FAILED


def test_exit_codes_orders_codes_and_wraps_details():
    text = exit_codes({scaffold.INTERRUPTED: None, scaffold.OK: "word " * 40}, width=60)
    lines = text.splitlines()
    assert lines[0] == "exit codes:" and lines[1].startswith("  0    success: word")
    assert all(len(line) <= 60 for line in lines) and lines[2].startswith(" " * 7 + "word")
    assert documented(text)[0] == "success: " + ("word " * 40).strip()


def test_a_usage_error_is_one_line_naming_the_help(capsys):
    with pytest.raises(SystemExit) as caught:
        PARSERS["fuzz run"].parse_args(["--bogus"])
    err = capsys.readouterr().err
    assert caught.value.code == scaffold.USAGE and err.count("\n") == 1
    assert err.startswith("fuzz run: unrecognized arguments: --bogus") and err.endswith("(see fuzz run --help)\n")


@pytest.mark.parametrize("tool, argv, said", [
    ("sudoku", ["crate"], "sudoku: unknown command 'crate'; did you mean 'create'? (commands: create, solve, "),
    ("sudoku", ["create", "--format", "jsn"], "argument --format: invalid choice: 'jsn'; did you mean 'json'?"),
    ("fuzz", ["replya"], "fuzz: unknown command 'replya'; did you mean 'replay'?"),
    ("fuzz", ["run", "--mode", "chek"], "invalid choice: 'chek'; did you mean 'check'?"),
    ("reports", ["shwo"], "did you mean 'show'?"),
    ("sudoku-jobs", ["run", "--seeed", "3"], "unrecognized arguments: --seeed 3; did you mean '--seed'?"),
    ("fuzz", ["run", "--no-shrnk"], "did you mean '--no-shrink'?"),
    ("fuzz", ["run", "--max-fialures=2"], "did you mean '--max-failures'?"),
])
def test_a_word_near_a_command_choice_or_option_is_named(tool, argv, said):
    from helpers import call_main

    done = call_main(_mains()[tool], argv)
    assert done.returncode == scaffold.USAGE and done.stderr.count("\n") == 1 and said in done.stderr, done.stderr
    assert done.stdout == ""


def test_a_word_near_nothing_gets_no_guess():
    from helpers import call_main

    done = call_main(_mains()["sudoku"], ["xyzzy"])
    assert done.returncode == scaffold.USAGE and "unknown command 'xyzzy'" in done.stderr
    assert "did you mean" not in done.stderr


def test_no_text_for_people_writes_a_plural_as_s_in_parentheses():
    """'1 given(s) changed', '1 failed case(s)': one plural everywhere, ``sudoku.display.counted``."""
    import tokenize
    from pathlib import Path

    root = Path(scaffold.__file__).resolve().parents[2]
    plural = re.compile(r"[a-z]\(s\)(?![^{]*\})")  # not code in an f-string's {}: steps_text(s)
    found = []
    for path in sorted(p for package in ("sudoku", "jobs", "fuzz", "reports") for p in (root / package).rglob("*.py")):
        with open(path, "rb") as source:
            found += [f"{path.relative_to(root)}:{token.start[0]}" for token in tokenize.tokenize(source.readline)
                      if token.type == tokenize.STRING and plural.search(token.string)]
    assert found == []


def test_say_escapes_control_characters(capsys):
    scaffold.say("tool", "bad \x1b[31mred\x1b[0m\nsecond line")
    assert capsys.readouterr().err == "tool: bad \\x1b[31mred\\x1b[0m\\nsecond line\n"


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_main_ends_an_interrupted_command_with_128_plus_n(signum, code):
    def command():
        raise Interrupted(signum)

    assert scaffold.main(command, "tool") == code


def test_main_turns_interrupted_into_the_signal_the_command_caught():
    def command():  # as the runner does: it catches the signal, saves, and returns INTERRUPTED
        signal.raise_signal(signal.SIGTERM)
        return scaffold.INTERRUPTED

    def caught():
        try:
            command()
        except Interrupted:
            return scaffold.INTERRUPTED

    assert scaffold.main(caught, "tool") == 143
    assert scaffold.main(lambda: scaffold.INTERRUPTED, "tool") == 130  # no signal seen: the code as it is
    assert scaffold.main(lambda: scaffold.FAILED, "tool") == 1


def test_a_bug_of_ours_is_one_line_naming_it_and_where_and_exit_70(capsys, monkeypatch):
    """A fuzz run that broke while writing its summary ended with a traceback and exit 1, which
    says "failures found" to a CI step."""
    from fuzz.oracles import said

    def broken():
        return said(None)  # a bug deep in our code: None is no stream of bytes

    monkeypatch.delenv("SUDOKU_TRACEBACK", raising=False)
    assert scaffold.main(broken, "fuzz") == scaffold.INTERNAL == 70
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("fuzz: internal error (AttributeError: ") and " at fuzz/oracles.py:" in line
    assert "this is a bug of fuzz, not of what it was given" in line and "Traceback" not in line
    monkeypatch.setenv("SUDOKU_TRACEBACK", "1")
    assert scaffold.main(broken, "fuzz") == 70
    assert "Traceback (most recent call last)" in capsys.readouterr().err  # to report


def test_main_ends_quietly_with_141_when_stdouts_reader_went_away(monkeypatch):
    monkeypatch.setattr(sys, "stdout", io.StringIO())

    def command():
        raise BrokenPipeError

    assert scaffold.main(command, "tool") == 141
    assert sys.stdout.write("more") == 4  # the rest of the process writes to nowhere


def test_help_and_version_of_every_tool_import_nothing_heavy():
    import subprocess
    from pathlib import Path

    code = ("import contextlib, io, sys\n"
            "from sudoku.cli import command\nfrom jobs import cli as jobs\nfrom fuzz import cli as fuzz\n"
            "from reports import cli as reports\n"
            "for main in (command.main, jobs.main, fuzz.main, reports.main):\n"
            "    for flag in ('--help', '--version'):\n"
            "        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "            main([flag])\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'numba', 'pyarrow', 'pandas', 'rich',"
            " 'textual', 'distributed'}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0 and done.stdout == "[]\n", done.stdout + done.stderr


# --- every parser: a description, choices listed, completion made from it -----------------------------------

@pytest.mark.parametrize("prog", sorted(PARSERS))
def test_every_tool_and_subcommand_has_a_description_and_lists_engine_choices(prog):
    parser = PARSERS[prog]
    assert parser.description and parser.description.strip(), f"{prog} has no description line"
    for action in parser._actions:
        if "engine" in action.dest and action.option_strings:  # --engine, --check-engine
            assert action.choices, f"{prog} {action.option_strings[0]} lists no choices"


@pytest.mark.parametrize("prog", sorted(PARSERS))
def test_every_subcommand_is_named_in_its_tools_help_with_a_line_of_its_own(prog):
    tool, _, sub = prog.partition(" ")
    if sub:
        help_text = PARSERS[tool].format_help()
        assert re.search(rf"^\s+{sub}\s+\S", help_text, re.M), f"{tool} --help does not describe {sub}"


@pytest.mark.parametrize("prog", ["fuzz run", "fuzz replay", "fuzz autograder", "sudoku-jobs run", "reports compare"])
def test_a_long_help_puts_every_option_under_a_heading(prog):
    parser = PARSERS[prog]
    loose = [action.option_strings for action in parser._optionals._group_actions if action.dest != "help"]
    assert loose == [], f"{prog} --help: options under no heading (sudoku.cli.scaffold.group_options)"
    headings = [group.title for group in parser._action_groups if group._group_actions]
    assert len(headings) >= 3 and all(f"\n{title}:\n" in parser.format_help() for title in headings)


def test_a_description_longer_than_the_terminal_is_wrapped_between_words(monkeypatch):
    """`fuzz run --help` began with its description as one 200-character line, which an 80-column
    terminal broke inside words; examples and exit codes keep their own lines."""
    monkeypatch.setenv("COLUMNS", "80")
    parser = PARSERS["fuzz run"]
    help_text = parser.format_help()
    start = help_text.index(parser.description.split()[0])
    said = help_text[start:help_text.index("\n\n", start)].splitlines()
    assert len(said) > 1 and all(len(line) <= 78 for line in said)
    assert " ".join(said) == " ".join(parser.description.split())
    epilog = PARSERS["fuzz"].format_help().split("examples:", 1)[1]
    assert "fuzz run -n 300 --target ./their/sudoku --sanitize   # built with ASan+UBSan" in epilog


@pytest.mark.parametrize("columns", ["50", "80", "200"])
def test_an_example_or_an_exit_code_keeps_its_lines_at_any_width(monkeypatch, columns):
    """An example is a command line to copy: wrapped, its second half would be no command (a CI run at
    another width met "  correctness --junit junit.xml ..." as an example of its own)."""
    monkeypatch.setenv("COLUMNS", columns)
    laid_out = [line for line in PARSERS["reports compare"].epilog.splitlines() if line.startswith("  ")]
    shown = PARSERS["reports compare"].format_help().splitlines()
    assert len(laid_out) > 8 and [line for line in laid_out if line not in shown] == []


def test_grouping_options_changes_the_help_only():
    parser = scaffold.Parser(prog="tool")
    parser.add_argument("-n", type=int, default=1)
    parser.add_argument("--out")
    parser.add_argument("--quiet", action="store_true")
    scaffold.group_options(parser, {"cases": ("-n", "--missing"), "output": ("--out", "-n"), "empty": ("--none",)})
    text = parser.format_help()
    assert text.index("\ncases:\n  -n N") < text.index("\noutput:\n  --out OUT") and "empty:" not in text
    assert re.search(r"\noptions:\n  -h, --help +show this help message and exit\n  --quiet\n", text)
    assert vars(parser.parse_args(["-n", "3", "--out", "x"])) == {"n": 3, "out": "x", "quiet": False}


def test_a_tool_without_a_command_names_every_command():
    from helpers import call_main, run_cli

    from fuzz import cli as fuzz_cli
    from jobs import cli as jobs_cli

    for done, tool in ((run_cli(), "sudoku"), (call_main(jobs_cli.main, []), "sudoku-jobs"),
                       (call_main(fuzz_cli.main, []), "fuzz")):
        assert done.returncode == scaffold.USAGE and done.stderr.count("\n") == 1
        commands = [prog.split()[1] for prog in PARSERS if prog.startswith(tool + " ")]
        assert commands and all(re.search(rf"\b{name}\b", done.stderr) for name in commands), done.stderr


@pytest.mark.parametrize("shell", scaffold.SHELLS)
@pytest.mark.parametrize("tool", ["sudoku", "sudoku-jobs", "fuzz", "reports"])
def test_print_completion_makes_a_script_naming_every_subcommand_and_option(tool, shell):
    from helpers import call_main

    mains = _mains()
    done = call_main(mains[tool], ["--print-completion", shell])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    script = done.stdout
    assert (script.startswith("#compdef") if shell == "zsh" else "complete " in script), script[:200]
    for prog, parser in PARSERS.items():
        if prog.split()[0] != tool:
            continue
        if " " in prog:
            assert prog.split()[1] in script
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and action.help != argparse.SUPPRESS:
                    named = f"-l {option[2:]}" if shell == "fish" else option  # fish: complete -l NAME
                    assert named in script, f"{prog} {option} not in the {shell} script"


def test_a_shell_that_completion_does_not_know_is_a_usage_error():
    from helpers import call_main

    done = call_main(_mains()["fuzz"], ["--print-completion", "tcsh"])
    assert done.returncode == scaffold.USAGE and "invalid choice: 'tcsh'" in done.stderr


def test_bash_loads_the_completion_script_and_completes_a_subcommand(tmp_path):
    import shutil
    import subprocess

    from helpers import call_main

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash on this machine")
    script = tmp_path / "fuzz.bash"
    script.write_text(call_main(_mains()["fuzz"], ["--print-completion", "bash"]).stdout)
    probe = (f"source {script}; COMP_WORDS=(fuzz re); COMP_CWORD=1; COMP_LINE='fuzz re'; COMP_POINT=7; "
             "_shtab_fuzz; echo \"${COMPREPLY[@]}\"")
    done = subprocess.run([bash, "--norc", "-c", probe], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.split() == ["replay"], done.stdout + done.stderr


def _mains():
    from fuzz import cli as fuzz_cli
    from jobs import cli as jobs_cli
    from reports import cli as reports_cli
    from sudoku.cli import command

    return {"sudoku": command.run, "sudoku-jobs": jobs_cli.main, "fuzz": fuzz_cli.main, "reports": reports_cli.run}


@pytest.mark.parametrize("tool", ["sudoku-jobs", "fuzz"])
def test_the_dask_backend_without_dask_is_one_line_before_any_run(tool, tmp_path, monkeypatch):
    """Dask is an extra: without it ``--backend dask`` names the install command, exit 2, and
    makes no run directory."""
    from fuzz import cli as fuzz_cli
    from helpers import call_main
    from jobs import cli as jobs_cli

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    main = jobs_cli.main if tool == "sudoku-jobs" else fuzz_cli.main
    args = ["run", "-n", "5", "--backend", "dask", "--out", str(tmp_path / "run")]
    done = call_main(main, args if tool == "sudoku-jobs" else args + ["--target", "engine"])
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().endswith("pip install 'sudoku-toolkit[dask]'") and len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "run").exists()
