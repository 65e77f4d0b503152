"""Reading a target's stdout leniently: find the grid in chatty output, and name the format slips.

Real programs print headers ("Solution:"), echo their input, draw boxes (``| 5 3 4 | ...`` rows,
``+-------+`` rules, blank lines between bands), or space numbers loosely. A *row line* holds
``side`` numbers once ``|`` is dropped; the grid is the last ``side`` row lines of the last run of
them, where rules and blank lines may sit between rows. A number outside 1..side (``10``, ``-1``)
still makes a row line, so an answer that keeps an out-of-range given is read and named, not
skipped. Everything that differs from the exact contract text is named as a slip, so a chatty
program's deeper bugs still show. The input echoed back is never read as the answer: when the last
grid is the input's own rows and the input is no finished grid, there is no answer (``echoed``).
"""

from collections import namedtuple
from math import isqrt

from sudoku import Grid, render

SEPARATOR_CHARS = set("-+=|_:* ")
BLANK_TOKENS = {".", "_"}

Reading = namedtuple("Reading", "grid slips out_of_range extra", defaults=(None,))
Reading.__doc__ = """What was read from stdout: ``grid`` (None when no grid was found; an out-of-range cell
is 0 in it), the format ``slips``, ``out_of_range``: (row, column, value) of every number outside
0..side in the grid's rows, 1-based, and ``extra``: the first line of text around the grid that is
not part of it (the ``extra_text`` slip, quoted in its failure under --strict), or None. When the
last grid was the input printed back, ``grid`` is None and the slip ``echoed_input`` alone
(``echoed``): an echo is no answer."""


def _row(line: str, side: int) -> list[int] | None:
    """The ``side`` integers of a row line (any integers, range checked later), or None."""
    tokens = line.replace("|", " ").split()
    if len(tokens) != side:
        return None
    row = []
    for token in tokens:
        if token in BLANK_TOKENS:
            row.append(0)
            continue
        digits = token[1:] if token.startswith("-") else token
        if not (digits.isdigit() and digits.isascii()) or len(digits) > 18:
            return None
        row.append(int(token))
    return row


def _is_rule(line: str) -> bool:
    return bool(line.strip()) and set(line.rstrip("\r")) <= SEPARATOR_CHARS


def _runs(lines: list[str], side: int) -> list[list[tuple[int, list[int]]]]:
    """Runs of (line number, row) with only rules and blank lines between their rows."""
    runs: list[list[tuple[int, list[int]]]] = []
    current: list[tuple[int, list[int]]] = []
    for number, line in enumerate(lines):
        row = _row(line, side)
        if row is not None:
            current.append((number, row))
        elif current and (_is_rule(line) or not line.strip()):
            continue  # a rule or a blank line: the run goes on if a row follows
        else:
            if len(current) >= side:
                runs.append(current)
            current = []
    if len(current) >= side:
        runs.append(current)
    return runs


def find_grid(stdout: bytes, *, side: int = 9, header: bool = False, given: bytes | None = None) -> Reading:
    """The last grid in ``stdout`` (bytes) and how the text strays from the exact contract output
    (``render(grid, 'grid')``, or with the box-size header line). ``given``: the input, whose echo
    is not an answer (``echo_of``)."""
    text = stdout.decode("utf-8", "replace")
    lines = text.split("\n")
    runs = _runs(lines, side)
    if not runs:
        return Reading(None, ["no_grid"] if text.strip() else [], [])
    rows = runs[-1][-side:]
    if given is not None and echo_of([row for _, row in rows], given, side):
        return Reading(None, ["echoed_input"], [])
    out_of_range = [(r + 1, c + 1, v) for r, (_, row) in enumerate(rows) for c, v in enumerate(row)
                    if not 0 <= v <= side]
    grid = Grid(isqrt(side), [v if 0 <= v <= side else 0 for _, row in rows for v in row])
    if not out_of_range and text == render(grid, "header" if header else "grid"):
        return Reading(grid, [], [])
    slips, extra = _slips(text, lines, rows, runs, side, header)
    return Reading(grid, slips, out_of_range, extra)


def _slips(text: str, lines: list[str], rows: list[tuple[int, list[int]]],
           runs: list[list[tuple[int, list[int]]]], side: int, header: bool) -> tuple[list[str], str | None]:
    """The slips of an answer whose grid's rows are ``rows``, and its first extra line (or None)."""
    slips: list[str] = []
    extra = None
    first, last = rows[0][0], rows[-1][0]
    grid_lines = lines[first : last + 1]
    if "\r" in text:
        slips.append("crlf")
    if not text.endswith("\n"):
        slips.append("no_final_newline")
    around = lines[max(0, first - 1) : first] + lines[last + 1 : last + 2]
    if any("|" in line or _is_rule(line) for line in grid_lines + around):
        slips.append("separators")
    if any(line.rstrip("\r") != " ".join(line.split()) for line in grid_lines
           if line.strip() and "|" not in line and not _is_rule(line)):
        slips.append("spacing")
    if len(runs) > 1 or len(runs[-1]) > side:
        slips.append("echoed_input")
    before = [line for line in lines[:first] if line.strip() and not _is_rule(line)]
    if header and before and before[-1].strip() == str(isqrt(side)):
        before = before[:-1]
    elif header:
        slips.append("no_header")
    after = [line for line in lines[last + 1 :] if line.strip() and not _is_rule(line)]
    if (extras := [line.strip() for line in before if _row(line, side) is None] + [line.strip() for line in after]):
        slips.append("extra_text")
        extra = extras[0]
    tail = lines[last + 1 :]
    if tail and tail[-1] == "":
        tail = tail[:-1]  # what the final newline leaves
    if any(not line.strip() for line in lines[:first] + grid_lines + tail):
        slips.append("blank_lines")
    return slips or ["other"], extra


def echoed(reading: Reading) -> bool:
    """Whether ``reading`` found only the input printed back (``find_grid`` with ``given``)."""
    return reading.grid is None and reading.slips == ["echoed_input"]


def echo_of(rows: list[list[int]], given: bytes, side: int) -> bool:
    """Whether ``rows`` are the rows of the input ``given`` printed back, and that input is no
    finished grid (a blank, a number out of range, or a clash): then they are an echo, not an answer
    (programs print the input before their verdict: "No solutions found." after it). A full valid
    grid is its own answer, so printed back it is read as one."""
    from sudoku import find_clash

    runs = _runs(given.decode("utf-8", "replace").split("\n"), side)
    if len(runs) != 1 or len(runs[0]) != side or [row for _, row in runs[0]] != rows:
        return False
    cells = [v for row in rows for v in row]
    if any(not 1 <= v <= side for v in cells):
        return True
    return find_clash(Grid(isqrt(side), cells)) is not None
