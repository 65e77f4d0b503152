"""Command strings: the one reader of every command a user hands ``fuzz`` as text.

A command arrives as one string (``--target``, ``--reference``, ``--create-args``, ``--solve-args``,
``--check-args``, a line of a ``--targets`` file) and runs as an argv list, never through a shell.
``split`` is the only place that turns one into the other, so every option and file fails the same
way: a ``BadCommand`` of ours naming where the text came from (the option, or the file and line)
and what is wrong with it, never ``shlex``'s bare ``ValueError`` or ``Popen``'s complaint about a
NUL byte halfway through a run.
"""

import shlex

MAX_COMMAND = 4096  # characters; a longer one is a pasted file, not a command


class BadCommand(ValueError):
    """A command string that cannot be split into an argv; the message names where it came from."""


def split(text: str, where: str) -> list[str]:
    """``text`` as an argv list (POSIX shell quoting, no shell); ``where`` names its source for the
    message ("--target", "targets.txt line 3")."""
    from sudoku.display import visible

    shown = visible(text if len(text) <= 200 else text[:200] + "...", newlines=False)
    if "\0" in text:
        raise BadCommand(f"{where}: a NUL byte in '{shown}'")
    if len(text) > MAX_COMMAND:
        raise BadCommand(f"{where}: {len(text)} characters, more than {MAX_COMMAND} in '{shown}'")
    try:
        return shlex.split(text)
    except ValueError as error:  # "No closing quotation", "No escaped character"
        why = "unbalanced quote" if "quotation" in str(error) else str(error).lower()
        raise BadCommand(f"{where}: {why} in '{shown}'") from None
