"""``sudoku solve`` read without argparse: the common call (puzzles on stdin, plain options) starts
without argparse and what it pulls in (gettext, locale, textwrap, re), about a fifth of the call's CPU
(issue 45: a solve within 2.5x ``python -c pass``, measured by ``bench/bench_startup.py``).

``solve_args(argv)`` is the namespace the full parser (``sudoku.cli.command._parser``) makes of
``argv``, or None for anything it does not read exactly as the parser would, which the parser then
reads: any word but ``solve`` first, ``--help``, a FILE, an abbreviated option or ``--option=value``,
short options run together, a value that is not one of the option's choices or not a plain number, a
value beginning with ``-``. So every message, exit code and help text is still the parser's: this
path says nothing of its own. ``tests/test_cli_quick.py`` holds the two to the same namespace and the
same output on a table of command lines.
"""

from __future__ import annotations

from types import SimpleNamespace

from sudoku import engines, formats

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argparse import Namespace
    from collections.abc import Callable, Sequence

# The solve parser's options and defaults (``_parser`` in sudoku.cli.command), option string -> dest.
FLAGS = {"--count": "count", "--json": "json", "-q": "quiet", "--quiet": "quiet", "-v": "verbose",
         "--verbose": "verbose"}
DEFAULTS: dict[str, object] = {"format": None, "count": False, "json": False, "limit": 2, "to": None,
                               "engine": None, "quiet": False, "verbose": False, "timeout": None}


def _choice(choices: Sequence[str]) -> Callable[[str], object]:
    def read(value: str) -> object:
        return value if value in choices else None
    return read


def _count(value: str) -> object:
    """``--limit``'s int, for plain ASCII digits only (int() also takes ' 5', '+5', '1_0' and other
    scripts' digits: the parser reads those)."""
    return int(value) if value.isascii() and value.isdigit() else None


def _seconds(value: str) -> object:
    """``--timeout``'s float, as the parser's ``type=float`` reads it ('nan' and 'inf' too: the
    command refuses them itself, the same way on either path)."""
    try:
        return float(value)
    except ValueError:
        return None


VALUES: dict[str, tuple[str, Callable[[str], object]]] = {
    "--format": ("format", _choice(formats.INPUT_FORMATS)),
    "--to": ("to", _choice(formats.OUTPUT_FORMATS)),
    "--engine": ("engine", _choice(engines.names())),
    "--limit": ("limit", _count),
    "--timeout": ("timeout", _seconds),
}


def solve_args(argv: Sequence[str]) -> Namespace | None:
    """The parsed ``sudoku solve`` command line ``argv`` (without the program's name), or None when
    the full parser must read it."""
    if not argv or argv[0] != "solve":
        return None
    found = {"command": "solve", "files": [], **DEFAULTS}  # no FILE: stdin
    words = iter(argv[1:])
    for word in words:
        if word in FLAGS:
            found[FLAGS[word]] = True
        elif word in VALUES:
            dest, read = VALUES[word]
            value = next(words, None)
            if value is None or value.startswith("-"):
                return None
            found[dest] = read(value)
            if found[dest] is None:
                return None
        else:
            return None
    return SimpleNamespace(**found)  # type: ignore[return-value]  # the parser's fields, read by name alike
