"""What the entry points of ``sudoku-jobs`` and ``fuzz`` do around a command: the named command run,
and each expected error of the runner turned into one line on stderr with its exit code (the shared
table, ``sudoku.cli.scaffold``), never a traceback. Signals and a closed stdout are the scaffold's."""

import argparse
from collections.abc import Callable, Mapping

from sudoku.cli.scaffold import IO_ERROR, LOST, USAGE, main, say, use_colour

Commands = Mapping[str, Callable[[argparse.Namespace], int]]


def dispatch(prog: str, commands: Commands, parse: Callable[[], argparse.Namespace],
             usage_errors: tuple[type[Exception], ...]) -> int:
    """Parse the arguments (``parse()``) and run ``commands[args.command](args)`` as the process's
    command (``sudoku.cli.scaffold.main``; parsing inside it, so ``--help | head`` ends quietly too); a
    missing command, a ``usage_errors`` error, a failed write (``jobs.store.WriteError``), a lost
    backend and an interrupt each end with their exit code."""
    return main(lambda: _command(prog, commands, parse(), usage_errors), prog)


def _command(prog: str, commands: Commands, args: argparse.Namespace,
             usage_errors: tuple[type[Exception], ...]) -> int:
    """``dispatch`` without the signals: the command's own exit code, or its expected error's."""
    from jobs.backends import BackendError, BackendLost
    from jobs.store import RunDirError, WriteError

    use_colour(args)
    if args.command is None:
        *rest, last = commands
        names = f"{', '.join(rest)} or {last}" if rest else last
        say(prog, f"a command is needed: {names} (see {prog} --help)")
        return USAGE
    try:
        return commands[args.command](args)
    except WriteError as error:
        say(prog, error)
        return IO_ERROR
    except BackendLost as error:
        say(prog, error)
        return LOST
    except (*usage_errors, RunDirError, BackendError) as error:  # type: ignore[misc]  # mypy cannot unpack the tuple
        say(prog, error)
        return USAGE
