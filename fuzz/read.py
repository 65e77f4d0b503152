"""Reading a target's stdout leniently: find the grid in chatty output, and name the format slips.

Real programs print headers ("Solution:"), echo their input, draw ``|`` and ``-`` separators, or
space numbers loosely. The grid is the last run of ``side`` row lines (a row line: ``side`` numbers
once separators are dropped; separator-only lines may sit between rows). Everything that differs
from the exact contract text is named as a slip, so a chatty program's deeper bugs still show.
"""

from sudoku import Grid, render

SEPARATOR_CHARS = set("-+=|_:* ")
BLANK_TOKENS = {".", "_"}


def _row(line, side):
    tokens = line.replace("|", " ").split()
    if len(tokens) != side:
        return None
    row = []
    for token in tokens:
        if token in BLANK_TOKENS:
            row.append(0)
        elif token.isdigit() and token.isascii() and int(token) <= side:
            row.append(int(token))
        else:
            return None
    return row


def find_grid(stdout, *, side=9, header=False):
    """(Grid or None, slips): the last grid in ``stdout`` (bytes) and how the text strays from the
    exact contract output (``render(grid, 'grid')``, or with the box-size header line)."""
    text = stdout.decode("utf-8", "replace")
    lines = text.split("\n")
    runs, current = [], []
    for number, line in enumerate(lines):
        row = _row(line, side)
        if row is not None:
            current.append((number, row))
        elif line.strip() and set(line) <= SEPARATOR_CHARS and current:
            continue  # a separator between rows
        else:
            if len(current) >= side:
                runs.append(current)
            current = []
    if len(current) >= side:
        runs.append(current)
    if not runs:
        return None, (["no_grid"] if text.strip() else [])
    rows = runs[-1][-side:]
    box = int(side**0.5)
    grid = Grid(box, [v for _, row in rows for v in row])
    exact = render(grid, "header" if header else "grid")
    if text == exact:
        return grid, []
    return grid, _slips(text, lines, rows, runs, side, header)


def _slips(text, lines, rows, runs, side, header):
    slips = []
    first, last = rows[0][0], rows[-1][0]
    grid_lines = lines[first : last + 1]
    if "\r" in text:
        slips.append("crlf")
    if not text.endswith("\n"):
        slips.append("no_final_newline")
    if any("|" in line or (set(line.strip()) <= SEPARATOR_CHARS and line.strip()) for line in grid_lines):
        slips.append("separators")
    if any(line.rstrip("\r") != " ".join(line.split()) for line in grid_lines if "|" not in line):
        slips.append("spacing")
    if len(runs) > 1 or len(runs[-1]) > side:
        slips.append("echoed_input")
    def is_rule(line):
        return bool(line.strip()) and set(line) <= SEPARATOR_CHARS

    if any(is_rule(line) for line in lines[max(0, first - 1) : first] + lines[last + 1 : last + 2]):
        if "separators" not in slips:
            slips.append("separators")
    before = [line for line in lines[:first] if line.strip() and not is_rule(line)]
    if header and before and before[-1].strip() == str(int(side**0.5)):
        before = before[:-1]
    elif header:
        slips.append("no_header")
    after = [line for line in lines[last + 1 :] if line.strip() and not is_rule(line)]
    if any(_row(line, side) is None for line in before) or after:
        slips.append("extra_text")
    tail = lines[last + 1 :]
    if tail and tail[-1] == "":
        tail = tail[:-1]  # what the final newline leaves
    if any(not line.strip() for line in lines[:first] + tail):
        slips.append("blank_lines")
    return slips or ["other"]
