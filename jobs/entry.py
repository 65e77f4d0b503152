"""What the entry points of ``sudoku-jobs`` and ``fuzz`` do around a command: the exit codes they
share (DESIGN.md), the named command run, and each expected error turned into one line on stderr
with its exit code, never a traceback. A message may quote an untrusted file (a command from a
targets file, a corpus folder's name), so it is printed escaped: no control byte reaches the terminal."""

import sys

OK, FAILED, USAGE, IO_ERROR, LOST, INTERRUPTED = 0, 1, 2, 3, 4, 130


def dispatch(prog, commands, args, usage_errors):
    """Run ``commands[args.command](args)``; a missing command, a ``usage_errors`` error, a failed write
    (``jobs.store.WriteError``), a lost backend and an interrupt each end with their exit code.

    SIGINT, SIGTERM and SIGHUP are one interrupt (``sudoku.interrupts``): a command that returns
    INTERRUPTED (the runner caught the signal, saved what was finished and said how to resume), or
    one stopped by the signal, ends with 128+n for the signal received (130, 143, 129)."""
    from sudoku.interrupts import Interrupts, exit_code

    interrupts = Interrupts()
    try:
        with interrupts:
            code = _command(prog, commands, args, usage_errors)
    except KeyboardInterrupt as error:
        return exit_code(error)
    if code == INTERRUPTED and interrupts.signum is not None:
        return exit_code(signum=interrupts.signum)
    return code


def _command(prog, commands, args, usage_errors):
    """``dispatch`` without the signals: the command's own exit code, or its expected error's."""
    from jobs.backends import BackendError, BackendLost
    from jobs.store import RunDirError, WriteError

    if args.command is None:
        *rest, last = commands
        names = f"{', '.join(rest)} or {last}" if rest else last
        print(f"{prog}: a command is needed: {names} (see {prog} --help)", file=sys.stderr)
        return USAGE
    try:
        return commands[args.command](args)
    except WriteError as error:
        _say(prog, error)
        return IO_ERROR
    except BackendLost as error:
        _say(prog, error)
        return LOST
    except (*usage_errors, RunDirError, BackendError) as error:
        _say(prog, error)
        return USAGE


def _say(prog, error):
    """One line on stderr: the error's message with every control byte escaped."""
    from sudoku.display import visible

    print(f"{prog}: {visible(str(error), newlines=False)}", file=sys.stderr)
