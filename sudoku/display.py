"""Text that reaches people: untrusted text escaped for each medium, and tables for terminals, pipes and
Markdown files. Every renderer of ``jobs``, ``fuzz`` and ``reports`` goes through here; it lives on the
ground floor, beside the ``sudoku`` command line, so that ``reports`` escapes text the same way without
reading the runner. It is an edge module: no module of the library imports it.

Untrusted text is anything a target or an input file wrote (a fuzz case's output, a reason quoting it, an
input line): it may hold NUL, ESC, ``<script>``, ``|`` or bytes that are not UTF-8. For each medium:

- ``visible(text)`` (from ``sudoku.untrusted``, where every command line's error lines use it too): for
  terminals and plain text. Every character that does not print (controls, ESC,
  NUL, surrogates from undecodable bytes) is shown as its escape (``\\x1b``, ``\\x00``, ``\\udcff``),
  so no byte of a target ever reaches the terminal raw. Bytes are decoded with ``backslashreplace``.
- ``xml_text(text)``: the ``visible`` text, checked against XML 1.0's character set: XML forbids most
  controls even as character references, so they are shown as escapes too (ElementTree escapes ``<``,
  ``>`` and ``&``), and the document always parses.
- ``md_text(text)`` and ``md_code(text)``: Markdown table cells and inline code. HTML is escaped
  (``&lt;script&gt;``) outside code spans; a code span's fence is longer than any run of backticks in
  it, so the text cannot end it early; ``|`` and line breaks never break a table row.

A ``Table`` (title, columns, rows) renders three ways: ``rich`` boxes on a terminal (imported only
then), aligned plain text without ANSI codes when stdout is a pipe or a file, and Markdown. ``show``
picks rich or plain by whether the stream is a terminal.

Verdicts and failures are marked with a style (``marked(text, "bad")``: a ``str`` that remembers it;
``good``, ``bad``, ``warn``); ``show`` colours them when ``sudoku.colour.colour`` says the stream gets
colour (a terminal without ``NO_COLOR``, or ``--color always``). Markdown never carries colour.

A failing input is shown as ``excerpt(text, mark)``: its lines made visible, whole when short, else its
start and its length, with one place in it marked (a cell of a grid, or a line) that ``mark_in`` reads
from a failure's detail ("row 9, column 3 ..."); ``caret_lines`` draws the mark as a ``^`` line for
text media, HTML wraps it in ``<mark>``.
"""

import html
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, NamedTuple, TextIO

from sudoku.colour import STYLES, colour, sgr as _sgr
from sudoku.untrusted import as_text as _as_text, escape as _escape, visible as visible

# Characters XML 1.0 allows (https://www.w3.org/TR/xml/#charsets); the rest are shown as escapes.
_XML_FORBIDDEN = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: object) -> str:
    """Text fit for an XML 1.0 element or attribute: non-printing characters shown as escapes, so
    the document always parses (ElementTree escapes the markup characters)."""
    return _XML_FORBIDDEN.sub(lambda m: _escape(m.group()), visible(text))


# An underscore between two letters or digits never starts emphasis (CommonMark), so ``no_crash``
# stays readable in the raw Markdown; one next to anything else is escaped.
_MD_PUNCTUATION = re.compile(r"[\\|\[\]*`~]|(?<![^\W_])_|_(?![^\W_])")
_MD_LINE_START = re.compile(r"^(\s*)([#>+\-=])|^(\s*\d+)([.)])(?=\s|$)")


def md_text(text: object, limit: int | None = None) -> str:
    """Text safe in Markdown and in a table cell: HTML escaped, Markdown's inline marks escaped, line
    breaks shown as spaces, non-printing characters as escapes; shortened to ``limit`` with '...'."""
    text = visible(_as_text(text).replace("\r", " ").replace("\n", " "))
    if limit and len(text) > limit:
        text = text[: limit - 3] + "..."
    text = html.escape(text, quote=False)
    text = _MD_PUNCTUATION.sub(r"\\\g<0>", text)  # emphasis, code spans, links, strike-through: shown as typed
    return _MD_LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[2] else f"{m[3]}\\{m[4]}", text)  # nor a heading, quote or list


def md_code(text: object, limit: int | None = None) -> str:
    """``text`` as a Markdown code span safe in a table cell: non-printing characters and line breaks
    shown as escapes, ``|`` escaped (GitHub's table rule), fenced by more backticks than it holds."""
    text = visible(text, newlines=False)
    if limit and len(text) > limit:
        text = text[: limit - 3] + "..."
    text = text.replace("|", "\\|")
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_block(text: object) -> str:
    """``text`` as a fenced Markdown code block: lines kept, non-printing characters as escapes, a
    fence longer than any run of backticks in it."""
    text = visible(text)
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{fence}\n{text}\n{fence}"


class Marked(str):
    """Text with a style (a key of STYLES) that a terminal shows in colour; anywhere else, plain text."""

    style: str

    def __new__(cls, text: str, style: str) -> "Marked":
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}; known: {', '.join(STYLES)}")
        made = super().__new__(cls, text)
        made.style = style
        return made


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and the noun it counts, in the plural unless it is 1: "1 case", "2 cases"."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def path_slug(path: str, width: int = 60) -> str:
    """A file name for people made from a program's path: its folder's and its own name, joined by
    '-' and made safe (``alice/sudoku.py`` -> ``alice-sudoku.py``: what tells a class's submissions
    apart), at most ``width`` characters; '' when nothing is left."""
    parts = [part for part in PurePath(path).parts if part not in ("/", ".", "..")][-2:]
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", "-".join(parts)).strip("-.")[:width].strip("-.")


def short_name(command: str, taken: set[str]) -> str:
    """A short name for a target, fit for a file name: its program's folder and file (``path_slug``
    of the last word of ``command`` that is a path: ``alice-sudoku``), else of its last word, and a
    number when it is in ``taken`` (which it joins): a class's feedback folders, corpus folders and
    one-line summary name a submission alike."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    slug = path_slug(([word for word in words if "/" in word] or words or ["target"])[-1]) or "target"
    name, number = slug, 2
    while name in taken:
        name, number = f"{slug}-{number}", number + 1
    taken.add(name)
    return name


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: cut, with '...' at its end, when longer."""
    return text if len(text) <= width else text[: max(0, width - 3)] + "..."


def marked(text: str, style: str | None) -> str:
    """``text`` marked with ``style`` (None: unmarked)."""
    return Marked(text, style) if style else text


def _style(value: object) -> str | None:
    style: str | None = getattr(value, "style", None)
    return style


@dataclass
class Table:
    """Rows under named columns. A column whose name ends in ':' is right-aligned (numbers); cells are
    any values, shown with ``str`` and escaped for the medium."""

    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    title: str = ""

    def add(self, *cells: Any) -> None:
        self.rows.append(list(cells))

    def headers(self) -> list[str]:
        return [name.rstrip(":") for name in self.columns]

    def right(self) -> list[bool]:
        return [name.endswith(":") for name in self.columns]


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def plain(blocks: Iterable[str | Table], colour: bool = False) -> str:
    """Blocks (Tables, and lines of text: a line break in one is shown as \\n) as plain text: tables
    aligned with spaces; ANSI colour for marked text only with ``colour``."""
    out = []
    for block in blocks:
        if not isinstance(block, Table):
            out.append(_sgr(visible(block, newlines=False), _style(block), colour))
            continue
        if block.title:
            out.append(visible(block.title, newlines=False))
        styles = [[None] * len(block.columns)] + [[_style(v) for v in row] for row in block.rows]
        cells = [block.headers()] + [[visible(_cell(v), newlines=False) for v in row] for row in block.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(block.columns))]
        for row, row_styles in zip(cells, styles):
            parts = []
            for value, width, right, style in zip(row, widths, block.right(), row_styles):
                pad = " " * (width - len(value))
                value = _sgr(value, style, colour)
                parts.append(pad + value if right else value + pad)
            out.append(("  " + "  ".join(parts)).rstrip())
    return "\n".join(out) + "\n"


def markdown(blocks: Iterable[str | Table]) -> str:
    """Blocks as Markdown, every line and cell escaped (``md_text``): a paragraph per line of text."""
    out = []
    for block in blocks:
        if not isinstance(block, Table):
            out += [md_text(block), ""]
            continue
        if block.title:
            out += [f"### {md_text(block.title)}", ""]
        out.append("| " + " | ".join(md_text(name) for name in block.headers()) + " |")
        out.append("|" + "".join("---:|" if right else "---|" for right in block.right()))
        out += ["| " + " | ".join(md_text(_cell(v)) for v in row) + " |" for row in block.rows]
        out.append("")
    return "\n".join(out) + "\n"


def terminal(blocks: Iterable[str | Table], file: TextIO, colour: bool = True) -> None:
    """Blocks printed with rich to a terminal: boxed tables, text as given (never read as markup),
    marked text in its colour unless ``colour`` is off."""
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    def text(value: object) -> Text:
        style = _style(value)
        return Text(visible(_cell(value), newlines=False), style=STYLES[style][0] if style and colour else "")

    console = Console(file=file, highlight=False, soft_wrap=True, no_color=not colour)
    for block in blocks:
        if not isinstance(block, Table):
            console.print(text(block))
            continue
        table = RichTable(title=Text(visible(block.title, newlines=False)) if block.title else None, title_justify="left",
                          title_style="bold")
        for name, right in zip(block.headers(), block.right()):
            table.add_column(Text(name), justify="right" if right else "left", overflow="fold")
        for row in block.rows:
            table.add_row(*(text(v) for v in row))
        console.print(table)


def show(blocks: Iterable[str | Table], file: TextIO | None = None) -> None:
    """Print blocks to ``file`` (stdout): rich tables on a terminal, plain aligned text otherwise;
    marked text in colour when ``colour(file)``. A reader that went away (``... | head``) is not an
    error."""
    file = sys.stdout if file is None else file
    try:
        if file.isatty():
            terminal(blocks, file, colour=colour(file))
        else:
            file.write(plain(blocks, colour=colour(file)))
        file.flush()
    except BrokenPipeError:
        import os

        sys.stdout = open(os.devnull, "w")


# --- a failing input, with the place that failed marked ----------------------------------------

# The places a checker's detail names, first one wins: "row 1, column 3 is 10", "row 3 has two 5s,
# columns 1 and 3", "column 2 has two 7s, rows 4 and 8", "box 5 has two 1s, cells r4c4 and r6c5", "line 2",
# "line 1, column 8" (our parser's: the 8th number on line 1).
_PLACES = re.compile(r"\brow (?P<r1>\d+), column (?P<c1>\d+)"
                     r"|\brow (?P<r2>\d+) has two \S+, columns (?P<c2>\d+)"
                     r"|\bcolumn (?P<c3>\d+) has two \S+, rows (?P<r3>\d+)"
                     r"|\bcells r(?P<r4>\d+)c(?P<c4>\d+)"
                     r"|\bline (?P<line>\d+)(?:, column (?P<number>\d+))?")


def mark_in(detail: object) -> dict[str, int] | None:
    """The first place a failure's detail names, as ``{"row": r, "column": c}``, ``{"line": k}`` or
    ``{"line": k, "column": c}`` (the c-th number on line k), 1-based, or None: so that old records,
    which carry only the detail, still point at the cell."""
    found = _PLACES.search(_as_text(detail))
    if not found:
        return None
    groups = {k: int(v) for k, v in found.groupdict().items() if v}
    if "line" in groups:
        return {"line": groups["line"], **({"column": groups["number"]} if "number" in groups else {})}
    return {"row": next(v for k, v in groups.items() if k[0] == "r"),
            "column": next(v for k, v in groups.items() if k[0] == "c")}


def _rows(lines: Sequence[str]) -> list[int]:
    """Indexes of the lines that hold a grid's rows: the non-blank ones, less a leading box-size line
    (the ``header`` format) when rows follow it."""
    rows = [i for i, line in enumerate(lines) if line.strip()]
    if len(rows) > 2 and len(lines[rows[0]].split()) == 1 and len(lines[rows[1]].split()) > 1:
        rows = rows[1:]
    return rows


def cell_span(text: object, mark: object, *, side: int | None = None) -> tuple[int, int, int] | None:
    """Where ``mark`` lies in ``text``: (line index, start, end) in that line's characters, or None.
    A cell is the column-th number of the row-th row (``grid`` format), the column-th character of a
    row without spaces, or its place in a one-line puzzle (``line`` format)."""
    if not isinstance(mark, dict):
        return None
    lines = _as_text(text).split("\n")
    if isinstance(mark.get("line"), int):  # a line of text, or the column-th number on it
        index = mark["line"] - 1
        if not 0 <= index < len(lines):
            return None
        tokens = list(re.finditer(r"\S+", lines[index]))
        column = mark.get("column")
        if isinstance(column, int) and 1 <= column <= len(tokens):
            return index, tokens[column - 1].start(), tokens[column - 1].end()
        return index, 0, len(lines[index])
    row, column = mark.get("row"), mark.get("column")
    if not (isinstance(row, int) and isinstance(column, int) and row >= 1 and column >= 1):
        return None
    rows = _rows(lines)
    if len(rows) == 1 and side is None:
        length = len(lines[rows[0]].strip())
        side = round(length ** 0.5) if round(length ** 0.5) ** 2 == length else None
    if len(rows) == 1 and side and column <= side:  # one line holds the whole puzzle
        line = lines[rows[0]]
        start = len(line) - len(line.lstrip()) + (row - 1) * side + column - 1
        return (rows[0], start, start + 1) if start < len(line.rstrip()) else None
    if row > len(rows):
        return None
    line = lines[rows[row - 1]]
    tokens = list(re.finditer(r"\S+", line))
    if len(tokens) == 1 and len(tokens[0].group()) > 1:  # a row without spaces: one character a cell
        start = tokens[0].start() + column - 1
        return (rows[row - 1], start, start + 1) if start < tokens[0].end() else None
    if column > len(tokens):
        return None
    return rows[row - 1], tokens[column - 1].start(), tokens[column - 1].end()


class Excerpt(NamedTuple):
    """Lines of a text made visible; ``marked`` is (line, start, end) in those visible lines, or None;
    ``rest`` says what was left out ('' when the text is whole); ``where`` names the marked place."""

    lines: list[str]
    marked: tuple[int, int, int] | None
    rest: str
    where: str


def _place(mark: object) -> str:
    if not isinstance(mark, dict):
        return ""
    if "line" in mark:
        return f"line {mark['line']}" + (f", column {mark['column']}" if "column" in mark else "")
    return f"row {mark.get('row')}, column {mark.get('column')}"


def excerpt(text: object, mark: object = None, *, side: int | None = None, rows: int = 12, width: int = 90) -> Excerpt:
    """``text`` for people: whole when it has at most ``rows`` lines of at most ``width`` visible
    characters (a 9x9 grid in any spacing), else its first lines cut to ``width`` and its length, so a
    flood never fills the screen. Every non-printing character is shown as its escape (``\\r``, ``\\t``,
    ``\\x1b``); a missing final newline is said, since a program may trip on exactly that."""
    text = _as_text(text)
    raw = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    lines = [visible(line, newlines=False) for line in raw]
    span = cell_span(text, mark, side=side)
    marked = None
    if span and span[0] < len(raw):
        index, start, end = span
        prefix = len(visible(raw[index][:start], newlines=False))
        marked = (index, prefix, prefix + len(visible(raw[index][start:end], newlines=False)))
    rest = "" if text.endswith("\n") or not text else "(no newline at the end)"
    if len(lines) > rows or any(len(line) > width for line in lines):
        lines = [line if len(line) <= width else line[: width - 3] + "..." for line in lines[: min(rows, 3)]]
        rest = f"... ({len(text.encode('utf-8', 'replace'))} bytes, {counted(len(raw), 'line')})"
        marked = marked if marked and marked[0] < len(lines) and marked[2] <= len(lines[marked[0]]) else None
    return Excerpt(lines, marked, rest, _place(mark) if marked else "")


def caret_lines(shown: Excerpt) -> list[str]:
    """An excerpt's lines with a ``^`` line under the marked place, naming it, and what was left out:
    the mark for media without colour (a terminal pipe, a Markdown code block)."""
    out = list(shown.lines)
    if shown.marked:
        index, start, end = shown.marked
        out.insert(index + 1, " " * start + "^" * max(end - start, 1) + f" {shown.where}")
    return out + ([shown.rest] if shown.rest else [])
