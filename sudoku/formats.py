"""Text formats at the edges: parse lines of text into Grids, render Grids back to text.

- ``grid``: n lines of n numbers separated by whitespace, 0 = blank (the CS50 contract). Grids
  separated by blank lines are a batch (as ``sudoku create -n`` writes them).
- ``line``: one puzzle per line, n*n characters, ``.`` or ``0`` blank, values above 9 as letters
  (A = 10, ...); sizes up to 25x25. Many lines are a batch.
- ``header``: a first line with the box size (3 for 9x9), then the rows as in ``grid``; a batch
  too, each grid with its header, blank lines between.
- ``json``: one object per line, ``{"schema": "sudoku.grid", "version": 1, "rows": [[...], ...]}``
  (``{"rows": ...}`` alone and ``{"line": "..."}`` are read too).
- ``pretty``: a boxed grid for people; output only.

``parse`` reads an iterable of text lines lazily, so a batch of a million lines is never held whole.
Malformed text raises InvalidPuzzle naming the line, column and value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sudoku.digits import SYMBOLS, symbol as symbol  # symbol: sudoku.formats.symbol too, as before
from sudoku.grid import MAX_BOX, Grid, InvalidPuzzle, box_of_side

INPUT_FORMATS = ("grid", "line", "header", "json")
OUTPUT_FORMATS = ("grid", "line", "header", "pretty", "json")
BATCH_FORMATS = ("line", "json")

LINE_MAX_BOX = 5
_VALUE_OF = {ch: i + 1 for i, ch in enumerate(SYMBOLS)}
_VALUE_OF.update({ch.lower(): v for ch, v in _VALUE_OF.items() if ch.isalpha()})
_VALUE_OF["."] = 0
_VALUE_OF["0"] = 0
_LINE_LENGTHS = {box**4: box for box in range(2, LINE_MAX_BOX + 1)}


def _shown(text: str, limit: int = 20) -> str:
    """A value as it appears in an error message: quoted, escaped, cut if long."""
    return repr(_cut(text, limit))


def _cut(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def detect(line: str, number: int = 1) -> str:
    """The input format suggested by the first non-blank line of a text."""
    stripped = line.strip()
    if stripped.startswith("{"):
        return "json"
    tokens = stripped.split()
    if len(tokens) != 1:
        return "grid"
    token = tokens[0]
    if len(token) >= 16:
        return "line"
    if len(token) == 1 and token in "0123456789":
        return "header"
    raise InvalidPuzzle(
        f"cannot tell the format from {_shown(token)}: expected a row of numbers, a box size, "
        "or a puzzle line (or give --format)",
        line=number,
    )


def parse(lines: Iterable[str], *, format: str | None = None) -> Iterator[Grid]:
    """Yield the Grids in ``lines`` (an iterable of str); ``format`` None means detect it."""
    yield from read(lines, format=format)[1]


def read(lines: Iterable[str], *, format: str | None = None) -> tuple[str, Iterator[Grid]]:
    """``(format, grids)``: the input format (given, or detected from the first non-blank line,
    read now) and the Grids of ``lines``, parsed lazily as they are iterated."""
    numbered = ((number, line.rstrip("\r\n")) for number, line in enumerate(lines, 1))
    for number, text in numbered:
        if text.strip():
            break
    else:
        raise InvalidPuzzle("no puzzle in the input: it is empty or blank")
    fmt = format or detect(text, number)
    if fmt not in INPUT_FORMATS:
        raise InvalidPuzzle(f"unknown input format {fmt!r}; known: {', '.join(INPUT_FORMATS)}")
    return fmt, _grids(fmt, text, number, numbered)


def _grids(fmt: str, text: str, number: int, numbered: Iterator[tuple[int, str]]) -> Iterator[Grid]:
    """The Grids from the first non-blank line ``text`` (line ``number``) and the rest, ``numbered``."""
    if fmt == "line":
        yield parse_line(text, number)
        yield from (parse_line(t, n) for n, t in numbered if t.strip())
    elif fmt == "json":
        yield parse_json(text, number)
        yield from (parse_json(t, n) for n, t in numbered if t.strip())
    else:
        while True:
            box = None
            if fmt == "header":
                box = _parse_box(text, number)
                text, number = _next_row(numbered, number, "a header line")
            grid = _parse_rows(text, number, numbered, box)
            # before yielding: a grid with a 10th row is malformed, not solved; a blank line ends a grid
            following = next(numbered, None)
            if following is not None and following[1].strip():
                raise InvalidPuzzle(
                    f"unexpected text after the grid: {_shown(following[1].strip())} "
                    "(a blank line separates grids)", line=following[0])
            yield grid
            following = next(((n, t) for n, t in numbered if t.strip()), None)
            if following is None:
                return
            number, text = following


def _parse_box(text: str, number: int) -> int:
    token = text.strip()
    if not (token.isascii() and token.isdecimal()) or not 2 <= int(token) <= MAX_BOX:
        raise InvalidPuzzle(f"header {_shown(token)} is not a box size 2..{MAX_BOX}", line=number)
    return int(token)


def _next_row(numbered: Iterator[tuple[int, str]], after: int, what: str) -> tuple[str, int]:
    for number, text in numbered:
        if text.strip():
            return text, number
        raise InvalidPuzzle("blank line inside the grid", line=number)
    raise InvalidPuzzle(f"the grid ends after {what}", line=after)


def _numbers(tokens: list[str], number: int) -> None:
    """InvalidPuzzle naming the first token of a row that is not a number (a letter, a negative), so a
    row of letters is told as letters before its width is counted ("'a' is not a number", not "row
    has 3 numbers")."""
    for column, token in enumerate(tokens, 1):
        if not token.isdecimal() or not token.isascii():
            if token.startswith("-") and token[1:].isdecimal() and token[1:].isascii():
                raise InvalidPuzzle(f"value {_cut(token)} is negative", line=number, column=column)
            raise InvalidPuzzle(f"{_shown(token)} is not a number", line=number, column=column)


def _parse_row(text: str, number: int, side: int | None) -> list[int]:
    tokens = text.split()
    _numbers(tokens, number)
    if side is not None and len(tokens) != side:
        raise InvalidPuzzle(f"row has {len(tokens)} numbers, expected {side}", line=number)
    row = []
    for column, token in enumerate(tokens, 1):
        if len(token.lstrip("0")) > 9:  # beyond any side; int() refuses over 4300 digits
            raise InvalidPuzzle(f"value {_cut(token)} is out of range 0..{side}", line=number, column=column)
        value = int(token)
        if side is not None and value > side:
            raise InvalidPuzzle(f"value {value} is out of range 0..{side}", line=number, column=column)
        row.append(value)
    return row


def _parse_rows(text: str, number: int, numbered: Iterator[tuple[int, str]], box: int | None) -> Grid:
    """A grid whose first row is ``text``; the side comes from the header or the first row."""
    if box is None:
        _numbers(text.split(), number)
        count = len(text.split())
        try:
            box = box_of_side(count)
        except InvalidPuzzle:
            raise InvalidPuzzle(
                f"row has {count} numbers: a grid is 4, 9, 16, ... or 81 numbers wide", line=number
            ) from None
    side = box * box
    rows = [_parse_row(text, number, side)]
    while len(rows) < side:
        text, number = _next_row(numbered, number, f"{len(rows)} of {side} rows")
        rows.append(_parse_row(text, number, side))
    return Grid(box, [value for row in rows for value in row])


def parse_line(text: str, number: int = 1) -> Grid:
    """One puzzle in ``line`` format."""
    text = text.strip()
    box = _LINE_LENGTHS.get(len(text))
    if box is None:
        raise InvalidPuzzle(
            f"puzzle line has {len(text)} characters; expected 16, 81, 256 or 625", line=number
        )
    side = box * box
    cells = []
    for column, ch in enumerate(text, 1):
        value = _VALUE_OF.get(ch)
        if value is None or value > side:
            raise InvalidPuzzle(
                f"{_shown(ch)} is not a value of a {side}x{side} line puzzle", line=number, column=column
            )
        cells.append(value)
    return Grid(box, cells)


def parse_json(text: str, number: int = 1) -> Grid:
    """One puzzle in ``json`` format: ``{"rows": [[...], ...]}`` or ``{"line": "..."}``."""
    import json

    try:
        obj = json.loads(text)
    except ValueError as error:
        raise InvalidPuzzle(f"not JSON: {error.args[0] if error.args else error}", line=number) from None
    except RecursionError:  # nesting deeper than the interpreter's stack
        raise InvalidPuzzle("not JSON this program can read: nested too deeply", line=number) from None
    if isinstance(obj, dict) and isinstance(obj.get("line"), str):
        return parse_line(obj["line"], number)
    rows = obj.get("rows") if isinstance(obj, dict) else None
    if not isinstance(rows, list) or not all(
        isinstance(row, list) and all(type(v) is int for v in row) for row in rows
    ):
        raise InvalidPuzzle('expected an object {"rows": [[numbers], ...]} or {"line": "..."}', line=number)
    try:
        box = box_of_side(len(rows))
    except InvalidPuzzle as error:
        raise InvalidPuzzle(error.message, line=number) from None
    side = box * box
    for r, row in enumerate(rows, 1):
        if len(row) != side:
            raise InvalidPuzzle(f"row {r} has {len(row)} numbers, expected {side}", line=number)
        for c, value in enumerate(row, 1):
            if not 0 <= value <= side:
                raise InvalidPuzzle(f"row {r}, column {c}: value {value} is out of range 0..{side}", line=number)
    return Grid(box, [value for row in rows for value in row])


def render(grid: Grid, format: str = "grid") -> str:
    """``grid`` as text in ``format``, ending with a newline."""
    if format == "grid":
        return "".join(" ".join(map(str, row)) + "\n" for row in grid.rows)
    if format == "line":
        if grid.box > LINE_MAX_BOX:
            raise ValueError(f"a {grid.side}x{grid.side} grid has no line form (line format goes up to 25x25)")
        return "".join(SYMBOLS[v - 1] if v else "." for v in grid.cells) + "\n"
    if format == "header":
        return f"{grid.box}\n" + render(grid, "grid")
    if format == "json":
        import json

        return json.dumps({"schema": "sudoku.grid", "version": 1, "rows": grid.rows}, separators=(",", ":")) + "\n"
    if format == "pretty":
        return _pretty(grid)
    raise ValueError(f"unknown output format {format!r}; known: {', '.join(OUTPUT_FORMATS)}")


def _pretty(grid: Grid) -> str:
    box, side = grid.box, grid.side
    width = len(str(side))
    rule = "+" + "+".join(["-" * ((width + 1) * box + 1)] * box) + "+\n"
    out = [rule]
    for r, row in enumerate(grid.rows):
        parts = []
        for b in range(box):
            chunk = row[b * box : (b + 1) * box]
            parts.append(" " + " ".join(str(v).rjust(width) if v else ".".rjust(width) for v in chunk) + " ")
        out.append("|" + "|".join(parts) + "|\n")
        if r % box == box - 1:
            out.append(rule)
    return "".join(out)
