"""Untrusted text: JSON from files a tool did not write itself (saves, corpus entries), bounded before
it is parsed; and any text a target or an input file wrote, escaped before a terminal shows it.

``json.loads`` trusts its text in three ways a hostile file exploits: it recurses once per bracket
(100,000 ``[`` end in RecursionError, which can take the caller down with it), it reads
``NaN``/``Infinity`` as floats (a game clock of Infinity loads, then dies on its first frame), and it
reads as much as it is given. ``loads`` checks the nesting depth with a scan that does not recurse,
refuses the non-finite constants, and raises only ``BadJSON`` (a ValueError), whose message says
what is wrong. Size is the caller's to cap, as only it reads the file (this package does no I/O).

``visible`` is the one escaping for terminals and plain text: every command line's error lines go
through it (``sudoku.cli.scaffold``), and ``jobs.display`` builds its Markdown and XML escaping on it.
It sits here, below every package, because renderers and the fuzz engine need it as much as the edge.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


class BadJSON(ValueError):
    """Text that is not JSON this code will read; the message says why."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, found without recursion (brackets
    inside strings do not count)."""
    brackets = _BRACKETS.findall(_STRINGS.sub("", text))
    return max(accumulate(1 if b in "[{" else -1 for b in brackets), default=0)


def _no_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not a finite number")


def loads(text: str | bytes, *, max_depth: int = 32) -> Any:
    """``text`` parsed as JSON, refused (BadJSON) when it is not UTF-8, nests deeper than
    ``max_depth``, holds NaN or Infinity, or is not JSON."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadJSON("not UTF-8 text") from None
    if (deepest := depth(text)) > max_depth:
        raise BadJSON(f"nested {deepest} deep, more than {max_depth}")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except BadJSON:
        raise
    except (ValueError, RecursionError) as error:  # JSONDecodeError; an int of too many digits
        raise BadJSON(f"not JSON: {error}") from None


def as_text(text: object) -> str:
    """``text`` as a str: None as "", bytes decoded with ``backslashreplace`` (no byte is lost or raw)."""
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", "backslashreplace")
    return str(text)


def escape(ch: str) -> str:
    """A non-printing character as Python writes it in a string: '\\x1b', '\\x00', '\\t', '\\u200b'."""
    return repr(ch)[1:-1]


def visible(text: object, *, newlines: bool = True) -> str:
    """``text`` with every non-printing character shown as its escape; line breaks kept when
    ``newlines`` (as ``\\n`` otherwise). Printable text, any script, passes unchanged."""
    text = as_text(text)
    return "".join(ch if ch.isprintable() or (newlines and ch == "\n") else escape(ch) for ch in text)
