"""The part of every tool's command line that needs no parser: the one exit-code table, one-line
messages (``say``), the colour choice (``use_colour``) and the process-wide part of a command (``main``:
stop signals, a reader that went away, a bug of ours).

Apart from ``sudoku.cli.scaffold`` (the parser's half, which imports argparse and re-exports all of
this, so a tool imports its edge from one place) so that ``sudoku solve`` read by its fast path
(``sudoku.cli.quick``) starts without argparse, gettext, locale and textwrap (issue 45).

Each code means one thing in every tool (DESIGN.md, CLI conventions); a tool that needs a new outcome
adds a code here, never reuses one.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs ~2 ms at start-up; only the type checker needs these
if TYPE_CHECKING:
    from collections.abc import Callable

OK, FAILED, USAGE, IO_ERROR, LOST, NOT_COMPARABLE, INTERNAL, TIME_LIMIT, INTERRUPTED = 0, 1, 2, 3, 4, 5, 70, 124, 130
SIGPIPE = 13  # signal.SIGPIPE on every POSIX system; a literal spares `import signal` for --help

# The one table: code -> its meaning in every tool.
EXIT_CODES = {
    OK: "success",
    FAILED: "a failure found",
    USAGE: "bad usage or input",
    IO_ERROR: "an I/O error",
    LOST: "a worker or the backend failed mid-run",
    NOT_COMPARABLE: "not comparable",
    INTERNAL: "an internal error: a bug of the tool, not of its input (as sysexits' EX_SOFTWARE)",
    TIME_LIMIT: "a time limit reached",
    INTERRUPTED: "interrupted by signal n, exit 128+n (143 SIGTERM, 129 SIGHUP, 141 stdout closed)",
}


def use_colour(args: object) -> None:
    """Make the parsed ``--color`` (auto when not given) the command's choice, handed to
    ``sudoku.colour``: every tool calls this once its arguments are parsed, so an in-process call's
    choice never carries over into the next."""
    from sudoku.colour import choose

    choose(getattr(args, "color", "auto"))


def say(prog: str, message: object) -> None:
    """One line on stderr, ``PROG: MESSAGE``, every control character escaped: a message may quote an
    untrusted file (a puzzle, a command from a targets file, a corpus folder's name)."""
    from sudoku.untrusted import visible

    print(f"{prog}: {visible(message, newlines=False)}", file=sys.stderr)


def main(command: Callable[[], int], prog: str) -> int:
    """Run ``command()`` as the process's command ``prog`` and return its exit code.

    SIGINT, SIGTERM and SIGHUP are one interrupt (``sudoku.interrupts``): a command stopped by one, or
    one that returns INTERRUPTED after catching it (the runner saves what was finished and says how to
    resume), ends with 128+n for the signal received (130, 143, 129). A reader of stdout that went
    away (``sudoku create -n 1000 | head``) ends the command quietly with 141, as SIGPIPE would. Any
    write refused for want of room or right (stdout to a full disk, ``ulimit -f``) is an I/O error,
    exit 3, with one line. Any other error is a bug of ours: one line naming it and where, exit INTERNAL (70), never a
    traceback, nor the code of an answer (a fuzz run that broke while writing its summary exited 1,
    "failures found"); with SUDOKU_TRACEBACK=1 in the environment the traceback follows, to report."""
    from sudoku.interrupts import Interrupts, exit_code

    interrupts = Interrupts()
    try:
        with interrupts:
            code = command()
            sys.stdout.flush()  # here, where a full disk is an error of ours to name, not at exit
    except KeyboardInterrupt as error:
        return exit_code(error)
    except BrokenPipeError:
        _silence_stdout()
        return exit_code(signum=SIGPIPE)
    except OSError as error:
        if error.errno not in WRITE_FAILURES:
            return _internal(prog, error)
        say(prog, f"cannot write {error.filename or 'to stdout'}: {os.strerror(error.errno)}")
        _silence_stdout()
        return IO_ERROR
    except Exception as error:
        known = getattr(error, "exit_code", None)  # an error that knows its outcome (sudoku.files.NotWritable)
        if isinstance(known, int) and known in EXIT_CODES:
            say(prog, error)
            return known
        return _internal(prog, error)
    if code == INTERRUPTED and interrupts.signum is not None:
        return exit_code(signum=interrupts.signum)
    return code


# What the system says when a write fails for want of room or right (stdout to /dev/full, `ulimit -f`,
# a read-only or vanished disk): an I/O error (exit 3), not a bug of ours (70).
WRITE_FAILURES = {28, 27, 122, 30, 5}  # ENOSPC, EFBIG, EDQUOT, EROFS, EIO (Linux numbers; errno spares an import)


def _internal(prog: str, error: BaseException) -> int:
    """One line for a bug of ours, exit INTERNAL; the traceback only with SUDOKU_TRACEBACK=1."""
    say(prog, f"internal error ({type(error).__name__}: {error}){_where(error)}; this is a bug of {prog}, "
              "not of what it was given: please report it with the command line (SUDOKU_TRACEBACK=1 shows "
              "the traceback)")
    if os.environ.get("SUDOKU_TRACEBACK"):
        import traceback

        traceback.print_exception(error)
    return INTERNAL


def _where(error: BaseException) -> str:
    """' at package/module.py:LINE', the innermost frame of the toolkit's own code an error passed."""
    from pathlib import Path

    home = Path(__file__).resolve().parents[2]  # the folder of the sudoku, jobs, fuzz and reports packages
    place = ""
    frame = error.__traceback__
    while frame is not None:
        path = Path(frame.tb_frame.f_code.co_filename)
        if path.is_absolute() and path.parts[:len(home.parts)] == home.parts and \
                path.relative_to(home).parts[0] in ("sudoku", "jobs", "fuzz", "reports"):
            place = f" at {path.relative_to(home).as_posix()}:{frame.tb_lineno}"
        frame = frame.tb_next
    return place


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the flush at exit does not fail on the closed pipe again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a file of its own (an in-process caller's stream)
        sys.stdout = open(os.devnull, "w")
    finally:
        os.close(devnull)

