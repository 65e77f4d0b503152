"""Helpers shared by the tests: the known-puzzles file, random puzzles, and running the CLIs (in this
process, or as a real subprocess for the smoke tests)."""

import os
import random
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

from sudoku.engines import py
from sudoku.formats import parse_line
from sudoku.grid import Grid

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
KNOWN = TESTS / "data" / "known.txt"

Known = namedtuple("Known", "number puzzle count solution")
Known.__doc__ = """One case of a known-puzzles file: its line number, the puzzle, the count up to 2, and
the unique solution (None unless count is 1)."""


def read_known(path=KNOWN):
    """The cases of a known-puzzles file: ``puzzle:count:solution`` lines, ``#`` lines skipped."""
    cases = []
    with open(path, encoding="utf-8") as lines:
        for number, text in enumerate(lines, 1):
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            puzzle, count, solution = text.split(":")
            cases.append(
                Known(number, parse_line(puzzle, number), int(count), parse_line(solution, number) if solution else None)
            )
    return cases


def random_puzzle(box, seed, blank_ratio):
    """A random full grid of ``box`` (from ``seed``) with about ``blank_ratio`` of its cells blanked;
    returns (puzzle, the full grid it came from)."""
    rng = random.Random(seed)
    full = py.fill(box, rng)
    cells = [0 if rng.random() < blank_ratio else value for value in full.cells]
    return Grid(box, cells), full


def assert_agrees_with_py(engine, puzzle, limit, *, nodes=None):
    """``engine.solve`` counts as ``py`` does, its solution is one, and a unique one is py's.

    ``nodes`` caps each search (a sudoku.budget.Budget): a random 16x16 puzzle now and then takes
    either engine minutes, and a property test should skip it, not wait. False when a search ran past
    the cap (call it inside ``assume``), True when the two were compared.
    """
    from sudoku.budget import Budget, BudgetExceeded
    from sudoku.grid import is_solution

    try:
        ours = engine.solve(puzzle, limit=limit, budget=None if nodes is None else Budget(nodes=nodes))
        reference = py.solve(puzzle, limit=limit, budget=None if nodes is None else Budget(nodes=nodes))
    except BudgetExceeded:
        return False
    assert ours.count == reference.count
    if ours.count:
        assert is_solution(puzzle, ours.solution)
    else:
        assert ours.solution is None
    if ours.count == 1 and limit > 1:
        assert ours.solution == reference.solution
    return True


class _Expired(BaseException):
    """``call_main``'s time is up."""


SIGNALS_SET_BY_MAIN = ("SIGPIPE", "SIGINT", "SIGTERM", "SIGHUP")


def call_main(main, args, *, input=b"", timeout=None, env=None, cwd=None):
    """Call a command's ``main(argv)`` (or ``run(argv)``) in this process, as ``python -m TOOL ARGS``
    would run it: ``input`` (bytes or str) on stdin, stdout and stderr captured, a ``SystemExit``
    (argparse's usage errors, ``--help``) taken as the exit code, and an exception that escapes
    shown as a traceback on stderr with exit 1, as the interpreter would show it. A call still
    going after ``timeout`` seconds is stopped by SIGALRM with ``subprocess.TimeoutExpired``, as
    ``subprocess.run`` would end it (a test of a hang fails rather than waits). The
    CompletedProcess, with stdout and stderr as text.

    The streams are byte buffers under text wrappers, so a command that writes ``sys.stdout.buffer``
    or reads ``sys.stdin.buffer`` sees what it would in a pipe (not a terminal). ``env`` sets (a
    value) or removes (None) environment variables for the call, ``cwd`` is its working directory. What a ``main`` sets for its whole
    process (SIGPIPE to its default, handlers for SIGINT, SIGTERM and SIGHUP) is put back after it,
    so the test process is as it was."""
    import io
    import signal
    import traceback

    if isinstance(input, str):
        input = input.encode()
    argv = [str(arg) for arg in args]
    stdin = io.TextIOWrapper(io.BytesIO(input), encoding="utf-8")
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)

    def expired(signum, frame):
        raise _Expired  # a BaseException: no ``except Exception`` of the command's can take it

    saved = sys.stdin, sys.stdout, sys.stderr
    handlers = {signum: signal.getsignal(signum)
                for signum in (getattr(signal, name) for name in SIGNALS_SET_BY_MAIN if hasattr(signal, name))}
    environ = {name: os.environ.get(name) for name in env or {}}
    here = os.getcwd()
    alarm = signal.signal(signal.SIGALRM, expired) if timeout else None
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        _set_environ(env or {})
        if cwd is not None:
            os.chdir(cwd)
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            code = main(argv)
        except _Expired:
            raise subprocess.TimeoutExpired(argv, timeout) from None
        except SystemExit as exit:
            code = exit.code
            if isinstance(code, str):
                print(code, file=sys.stderr)
                code = 1
        except Exception:  # noqa: BLE001 - what the interpreter would print, for the test to see
            traceback.print_exc(file=sys.stderr)
            code = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except ValueError:  # closed by the command
                pass
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, alarm)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        _set_environ(environ)
        os.chdir(here)
        sys.stdin, sys.stdout, sys.stderr = saved
    return subprocess.CompletedProcess(
        ["main", *argv], code or 0, out.getvalue().decode("utf-8", "replace"),
        err.getvalue().decode("utf-8", "replace"))


def _set_environ(changes):
    for name, value in changes.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def run_cli(*args, input=b"", timeout=60):
    """``sudoku ARGS`` in this process (``sudoku.cli.run`` through ``call_main``): parsing, output and
    exit codes as a user sees them, without an interpreter's start. Real process behaviour (signals,
    SIGPIPE, what a fresh interpreter imports) needs ``run_cli_process``."""
    from sudoku import cli

    return call_main(cli.run, args, input=input, timeout=timeout)


def run_cli_process(*args, input=b"", timeout=60):
    """Run ``python -m sudoku ARGS`` as a real subprocess with ``input`` (bytes or str) on stdin;
    the CompletedProcess, with stdout and stderr as text."""
    if isinstance(input, str):
        input = input.encode()
    paths = [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    env.pop("PYTHONSTARTUP", None)
    done = subprocess.run(
        [sys.executable, "-m", "sudoku", *map(str, args)],
        input=input,
        capture_output=True,
        cwd=REPO,
        env=env,
        timeout=timeout,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    )


def stderr_lines(done):
    return done.stderr.splitlines()


# The classic sample puzzle (the one on Wikipedia's Sudoku page) and its solution, in grid format.
PUZZLE = """\
5 3 0 0 7 0 0 0 0
6 0 0 1 9 5 0 0 0
0 9 8 0 0 0 0 6 0
8 0 0 0 6 0 0 0 3
4 0 0 8 0 3 0 0 1
7 0 0 0 2 0 0 0 6
0 6 0 0 0 0 2 8 0
0 0 0 4 1 9 0 0 5
0 0 0 0 8 0 0 7 9
"""
SOLUTION = """\
5 3 4 6 7 8 9 1 2
6 7 2 1 9 5 3 4 8
1 9 8 3 4 2 5 6 7
8 5 9 7 6 1 4 2 3
4 2 6 8 5 3 7 9 1
7 1 3 9 2 4 8 5 6
9 6 1 5 3 7 2 8 4
2 8 7 4 1 9 6 3 5
3 4 5 2 8 6 1 7 9
"""


def in_a_terminal(argv, *, stdin=None, cwd=None, env=(), columns=120):
    """``argv`` with stdout on a pseudo-terminal (``columns`` wide, NO_COLOR unset unless ``env``
    sets it): everything it wrote there, as text."""
    import pty

    leader, follower = pty.openpty()
    environ = dict(os.environ, PYTHONPATH=str(REPO), TERM="xterm", COLUMNS=str(columns))
    environ.pop("NO_COLOR", None)
    environ.update(env)
    process = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else None, stdout=follower,
                               stderr=subprocess.DEVNULL, cwd=cwd, env=environ)
    os.close(follower)
    if stdin is not None:
        process.stdin.write(stdin.encode())
        process.stdin.close()
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")
