"""Whether an output gets colour, decided in one place for every tool (``sudoku``, ``sudoku-jobs``,
``fuzz``, ``reports``). An edge module, like ``sudoku.display``: no module of the library imports it.

``colour(stream)``: ``--color always`` or ``never`` when the command line gave one (``choose``, which
each tool calls through ``sudoku.cli.scaffold.use_colour`` once its arguments are parsed); else none
when ``NO_COLOR`` is set and not empty (https://no-color.org) or ``TERM`` is ``dumb``; else colour
only on a terminal. Verdicts and failures are the only coloured text; Markdown, JSON and files never
carry colour. Kept apart from ``sudoku.display`` (tables, rich) so that ``sudoku check`` pays only for
``os`` and ``sys``.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs ~2 ms at start-up; only the type checker needs it
if TYPE_CHECKING:
    from typing import TextIO

# a style -> (rich's style, the ANSI SGR parameters for plain text)
STYLES = {"bad": ("bold red", "1;31"), "good": ("green", "32"), "warn": ("yellow", "33")}
CHOICES = ("auto", "always", "never")
_choice = "auto"


def choose(when: str) -> None:
    """Set the command's ``--color``: auto (the default), always or never."""
    global _choice
    if when not in CHOICES:
        raise ValueError(f"--color is one of {', '.join(CHOICES)}, not {when!r}")
    _choice = when


def colour(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default stdout) gets colour."""
    if _choice != "auto":
        return _choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stdout if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no such method, or a closed stream
        return False


def sgr(text: str, style: str | None, on: bool = True) -> str:
    """``text`` between the ANSI codes of ``style`` when ``on`` and a style is given, else as it is."""
    return f"\x1b[{STYLES[style][1]}m{text}\x1b[0m" if on and style else text


def paint(text: str, style: str | None, stream: TextIO | None = None) -> str:
    """``text`` (already escaped) in ``style``'s colour when ``stream`` gets colour, else as it is."""
    return sgr(text, style, colour(stream))
