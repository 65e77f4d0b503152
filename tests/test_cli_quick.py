"""``sudoku solve`` read without argparse (``sudoku.cli.quick``, issue 45): on a table of command lines
and inputs, the quick reading takes what it should, hands the rest to the parser, makes the parser's
namespace, and the command then prints and exits exactly as through the parser (in-process, through
``sudoku.cli.command.run``); and a plain solve in a fresh interpreter imports neither argparse nor numba.
How fast it starts is ``bench/bench_startup.py``'s to say, not a test's."""

import json
import subprocess
import sys

import pytest

from helpers import PUZZLE, REPO, call_main
from sudoku.cli import command
from sudoku.cli.quick import solve_args

LINE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n"
CLASH = "55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n"
DEAD_END = ".12345678" + "9" + "." * 71 + "\n"  # no unit repeats a digit, yet r1c1 has no candidate
MULTI = "." * 81 + "\n"
MALFORMED = "5 3 0 0 7 0 0 0 0\n6 0 x 1 9 5 0 0 0\n"

# (argv, stdin, whether the quick reading takes it)
TAKEN = [
    (["solve"], LINE, True),
    (["solve"], PUZZLE, True),
    (["solve"], LINE + CLASH + MULTI + LINE, True),
    (["solve"], CLASH, True),
    (["solve"], DEAD_END, True),
    (["solve"], MULTI, True),
    (["solve"], MALFORMED, True),
    (["solve"], LINE + "12345\n" + LINE, True),
    (["solve"], "", True),
    (["solve"], b"\xff\xfe" + LINE.encode(), True),
    (["solve", "-q"], MULTI, True),
    (["solve", "--quiet", "-v"], MULTI, True),
    (["solve", "--verbose"], LINE, True),
    (["solve", "--count"], MULTI, True),
    (["solve", "--count", "--json", "--limit", "5"], MULTI + CLASH, True),
    (["solve", "--limit", "3", "--count", "--limit", "1"], MULTI, True),
    (["solve", "--limit", "0", "--count"], MULTI, True),
    (["solve", "--json"], LINE, True),
    (["solve", "--json", "--to", "line"], LINE, True),
    (["solve", "--to", "pretty"], LINE, True),
    (["solve", "--to", "grid", "--format", "line"], LINE, True),
    (["solve", "--format", "line"], PUZZLE, True),
    (["solve", "--format", "header"], "3\n" + PUZZLE, True),
    (["solve", "--engine", "py"], LINE, True),
    (["solve", "--engine", "big"], LINE, True),  # big starts at 16x16: a usage error of the command's
    (["solve", "--engine", "nb", "--timeout", "5"], LINE, True),  # nb cannot stop: the command says so
    (["solve", "--timeout", "9"], LINE, True),
    (["solve", "--timeout", "1e3", "--count"], LINE, True),
    (["solve", "--timeout", "0"], LINE, True),
    (["solve", "--timeout", "nan"], LINE, True),
    (["solve", "--timeout", "inf"], LINE, True),
]
HANDED_OVER = [
    ([], LINE),
    (["--version"], ""),
    (["check"], LINE),
    (["create", "--seed", "7"], ""),
    (["solve", "--help"], ""),
    (["solve", "-h"], ""),
    (["solve", "--version"], ""),
    (["solve", "-"], LINE),
    (["solve", "no-such-file.txt"], LINE),
    (["solve", "--"], LINE),
    (["solve", "--cou"], MULTI),  # an abbreviation: argparse takes it
    (["solve", "--count=1"], MULTI),
    (["solve", "--limit=3", "--count"], MULTI),
    (["solve", "--limit"], MULTI),
    (["solve", "--limit", "-1", "--count"], MULTI),
    (["solve", "--limit", "+3", "--count"], MULTI),
    (["solve", "--limit", "three"], MULTI),
    (["solve", "--to", "lin"], LINE),  # did you mean 'line'?
    (["solve", "--to", "--count"], LINE),
    (["solve", "--to", ""], LINE),
    (["solve", "--format", "pretty"], LINE),  # an output format only
    (["solve", "--engine", "fast"], LINE),
    (["solve", "--timeout", "soon"], LINE),
    (["solve", "--timeout", "-1"], LINE),
    (["solve", "-qv"], MULTI),
    (["solve", "--color", "always"], LINE),  # check's option, not solve's
    (["solve", "--bogus"], LINE),
    (["Solve"], LINE),
]
TABLE = TAKEN + [(argv, stdin, False) for argv, stdin in HANDED_OVER]


def _id(row):
    argv, stdin, _ = row
    return " ".join(argv) or "(none)"


@pytest.mark.parametrize("argv, stdin, taken", TABLE, ids=[_id(row) for row in TABLE])
def test_the_quick_reading_takes_a_plain_solve_and_makes_the_parsers_namespace(argv, stdin, taken):
    args = solve_args(argv)
    assert (args is not None) == taken
    if taken:  # compared by repr: the same types, and nan is nan
        assert _shown(args) == _shown(command._parser().parse_args(argv))


def _shown(args):
    return {name: repr(value) for name, value in vars(args).items()}


@pytest.mark.parametrize("argv, stdin, taken", TABLE, ids=[_id(row) for row in TABLE])
def test_the_command_says_and_exits_the_same_either_way(argv, stdin, taken, monkeypatch):
    quick = call_main(command.run, argv, input=stdin)
    monkeypatch.setattr(command, "solve_args", lambda words: None)  # every command line to the parser
    parsed = call_main(command.run, argv, input=stdin)
    assert (quick.returncode, quick.stdout, quick.stderr) == (parsed.returncode, parsed.stdout, parsed.stderr)
    assert "Traceback" not in quick.stderr


def test_the_table_meets_every_outcome():
    """The table is worth its rows: answers, several solutions, no solution, malformed input, bad
    usage found by the command and by the parser, and help."""
    codes = {call_main(command.run, argv, input=stdin).returncode for argv, stdin, _ in TABLE}
    assert {0, 1, 2} <= codes
    said = " ".join(call_main(command.run, argv, input=stdin).stderr for argv, stdin, taken in TAKEN)
    for words in ("several solutions", "no solution", "has two 5s", "is not a number", "--timeout must be",
                  "cannot stop at a time limit", "does not solve 9x9 grids", "--limit must be at least 1"):
        assert words in said, words


# One fresh interpreter, run as the `sudoku` console script runs (sudoku.cli.command.main, argv from
# sys.argv), for every step: modules only accumulate, so a step that loaded one would be caught.
_FRESH = """\
import io, json, sys
from sudoku.cli.command import main
for argv, stdin in json.loads(sys.argv[1]):
    sys.argv = ["sudoku", *argv]
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    code = main()
    print("STEP", json.dumps({"argv": argv, "code": code, "loaded": sorted(
        name for name in ("argparse", "gettext", "locale", "textwrap", "numba", "numpy") if name in sys.modules)}),
          flush=True)
"""


def test_a_plain_solve_in_a_fresh_interpreter_imports_no_argparse_and_no_numba():
    steps = [(["solve"], LINE), (["solve", "--count", "--json"], MULTI), (["solve", "-q", "--to", "pretty"], MULTI),
             (["solve", "--timeout", "9"], PUZZLE), (["solve"], CLASH), (["solve"], MALFORMED)]
    done = subprocess.run([sys.executable, "-c", _FRESH, json.dumps(steps)], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines() if line.startswith("STEP ")]
    assert [(row["argv"], row["code"]) for row in seen] == [(argv, code) for (argv, _), code in
                                                           zip(steps, [0, 0, 0, 0, 1, 2])]
    assert all(row["loaded"] == [] for row in seen), seen
