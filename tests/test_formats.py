"""Text formats: round trips, detection, leniency, and malformed input named by line and column."""

import io
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import PUZZLE
from sudoku.formats import INPUT_FORMATS, detect, parse, parse_json, parse_line, render
from sudoku.grid import Grid, InvalidPuzzle, find_clash

FORMATS = ("grid", "line", "header", "json")

PUZZLE_9 = PUZZLE
LINE_9 = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def parse_one(text, format=None):
    """The only grid in ``text``, parsed the way the CLI feeds it: lines with their endings."""
    grids = list(parse(io.StringIO(text, newline="\n"), format=format))
    assert len(grids) == 1
    return grids[0]


def error_of(text, format=None):
    with pytest.raises(InvalidPuzzle) as caught:
        list(parse(io.StringIO(text, newline="\n"), format=format))
    return caught.value


@st.composite
def grids(draw, boxes=(2, 3, 4, 5)):
    """Any grid (valid or not as a Sudoku): a box size and random cell values. Up to 9x9 hypothesis
    draws each cell (and can shrink them); bigger grids come from a drawn seed, which is cheaper."""
    box = draw(st.sampled_from(boxes))
    side = box * box
    if box <= 3:
        cells = draw(st.lists(st.integers(0, side), min_size=side * side, max_size=side * side))
    else:
        rng = random.Random(draw(st.integers(0, 2**32)))
        blank = draw(st.sampled_from([0.0, 0.5, 1.0]))
        cells = [0 if rng.random() < blank else rng.randint(1, side) for _ in range(side * side)]
    return Grid(box, cells)


# --- round trips ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@given(grid=grids())
def test_parse_render_round_trip_with_detection(fmt, grid):
    assert parse_one(render(grid, fmt)) == grid


@pytest.mark.parametrize("fmt", FORMATS)
@given(grid=grids())
def test_parse_render_round_trip_with_format_given(fmt, grid):
    assert parse_one(render(grid, fmt), format=fmt) == grid


@pytest.mark.parametrize("fmt", ["line", "json"])
@given(batch=st.lists(grids(), min_size=1, max_size=5))
def test_batch_formats_round_trip_many_puzzles(fmt, batch):
    text = "".join(render(grid, fmt) for grid in batch)
    assert list(parse(text.splitlines(keepends=True))) == batch


@pytest.mark.parametrize("fmt", ["grid", "header"])
@given(batch=st.lists(grids(boxes=(2, 3, 4)), min_size=1, max_size=4), gaps=st.lists(st.integers(1, 3), min_size=4,
                                                                                   max_size=4))
def test_grid_and_header_batches_are_grids_separated_by_blank_lines(fmt, batch, gaps):
    """Blank lines (one or more, as `sudoku create -n` writes one) separate the grids of a batch;
    sizes may differ from grid to grid."""
    text = "".join("\n" * gap + render(grid, fmt) for gap, grid in zip([0] + gaps, batch))
    assert list(parse(text.splitlines(keepends=True))) == batch
    assert list(parse(text.splitlines(keepends=True), format=fmt)) == batch


def test_a_batch_stops_at_a_grid_that_runs_on_without_a_blank_line():
    text = render(Grid.empty(2), "grid") + "\n" + render(Grid.empty(2), "grid") + "0 0 0 0\n"
    found = parse(text.splitlines(keepends=True))
    assert next(found) == Grid.empty(2)  # the first grid is answered before the second is read
    with pytest.raises(InvalidPuzzle, match="unexpected text after the grid") as caught:
        next(found)
    assert caught.value.line == 10


def test_render_grid_is_single_spaced_rows():
    grid = parse_one(PUZZLE_9)
    assert render(grid) == PUZZLE_9
    assert render(grid, "line") == LINE_9 + "\n"
    assert render(grid, "header") == "3\n" + PUZZLE_9
    assert json.loads(render(grid, "json")) == {"schema": "sudoku.grid", "version": 1, "rows": grid.rows}
    assert render(grid, "json").count("\n") == 1


def test_render_line_uses_letters_above_9():
    grid = Grid(4, [(i % 16) + 1 if i < 16 else 0 for i in range(256)])
    assert render(grid, "line") == "123456789ABCDEFG" + "." * 240 + "\n"
    grid = Grid(5, list(range(1, 26)) + [0] * 600)
    assert render(grid, "line").startswith("123456789ABCDEFGHIJKLMNOP.")


def test_render_pretty_is_boxed():
    grid = parse_one(PUZZLE_9)
    lines = render(grid, "pretty").splitlines()
    assert len(lines) == 9 + 4
    assert lines[0] == lines[4] == lines[-1] == "+-------+-------+-------+"
    assert lines[1] == "| 5 3 . | . 7 . | . . . |"


def test_render_pretty_pads_two_digit_values():
    grid = Grid(4, [16] + [0] * 255)
    first_row = render(grid, "pretty").splitlines()[1]
    assert first_row.startswith("| 16  .  .  . |")


def test_render_refuses_line_above_25x25_and_unknown_formats():
    with pytest.raises(ValueError, match="no line form"):
        render(Grid.empty(6), "line")
    with pytest.raises(ValueError, match="unknown output format"):
        render(Grid.empty(2), "csv")


def test_big_grids_round_trip_in_grid_and_header_formats():
    grid = Grid(6, [(i % 36) + 1 if i % 7 else 0 for i in range(36**2)])
    for fmt in ("grid", "header", "json"):
        assert parse_one(render(grid, fmt)) == grid


# --- detection ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, fmt",
    [
        ("5 3 0 0 7 0 0 0 0", "grid"),
        ("5\t3\t0\t0\t7\t0\t0\t0\t0", "grid"),
        ("  1 2 3 4  ", "grid"),
        ("3", "header"),
        (" 2 ", "header"),
        (LINE_9, "line"),
        ("1.3.............", "line"),
        ('{"rows": [[1]]}', "json"),
        ('  {"line": "x"}', "json"),
    ],
)
def test_detect(first, fmt):
    assert detect(first) == fmt


@pytest.mark.parametrize("first", ["12", "abc", "x", "123456789012345"])
def test_detect_refuses_a_lone_token_that_fits_nothing(first):
    with pytest.raises(InvalidPuzzle, match="cannot tell the format") as caught:
        detect(first, 4)
    assert caught.value.line == 4


def test_input_formats_are_all_parseable():
    grid = parse_one(PUZZLE_9)
    for fmt in INPUT_FORMATS:
        assert parse_one(render(grid, fmt)) == grid


# --- leniency -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda t: t.replace(" ", "\t"), id="tabs"),
        pytest.param(lambda t: t.replace(" ", "   "), id="several-spaces"),
        pytest.param(lambda t: t.replace(" ", " \t "), id="mixed-whitespace"),
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="crlf"),
        pytest.param(lambda t: t.rstrip("\n"), id="no-final-newline"),
        pytest.param(lambda t: t + "\n\n  \n\t\n", id="blank-lines-at-end"),
        pytest.param(lambda t: "\n \n\n" + t, id="leading-blank-lines"),
        pytest.param(lambda t: "".join("  " + line + "  \n" for line in t.splitlines()), id="indented"),
        pytest.param(lambda t: "\r\n\r\n" + t.replace("\n", "\r\n").rstrip("\r\n"), id="all-at-once"),
    ],
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_lenient_whitespace(change, fmt):
    grid = parse_one(PUZZLE_9)
    text = render(grid, fmt)
    if fmt == "json":
        text = text.replace(",", ", ")  # give the whitespace changes something to change
    assert parse_one(change(text)) == grid


def test_line_format_accepts_zero_and_dot_blanks_and_lowercase_letters():
    assert parse_line(LINE_9.replace(".", "0")) == parse_line(LINE_9)
    upper = "123456789ABCDEFG" + "." * 240
    assert parse_line(upper.lower()) == parse_line(upper)


def test_parse_accepts_a_plain_list_of_lines_without_endings():
    assert parse_one(PUZZLE_9) == next(parse(PUZZLE_9.splitlines()))


def test_parse_is_lazy_on_batches():
    """An endless batch yields puzzles one at a time; a bad line only fails when it is reached."""
    endless = itertools.cycle([LINE_9 + "\n"])
    assert len(list(itertools.islice(parse(endless), 3))) == 3
    puzzles = parse(iter([LINE_9 + "\n", "oops\n"]))
    assert next(puzzles) == parse_line(LINE_9)
    with pytest.raises(InvalidPuzzle):
        next(puzzles)


def test_batch_line_numbers_count_blank_lines():
    text = LINE_9 + "\n\n" + LINE_9 + "\n" + LINE_9[:-1] + "x\n"
    error = error_of(text)
    assert (error.line, error.column) == (4, 81)
    assert str(error).startswith("line 4, column 81: ")


# --- malformed input ------------------------------------------------------------------------------


def rows_9(change=None):
    rows = PUZZLE_9.splitlines()
    if change:
        change(rows)
    return "\n".join(rows) + "\n"


def _set(rows, r, c, token):
    tokens = rows[r - 1].split()
    tokens[c - 1] = token
    rows[r - 1] = " ".join(tokens)


def _case(name, text, fmt, where, what):
    return pytest.param(text, fmt, where, what, id=name)


MALFORMED = [
    # wrong number of rows
    _case("8-rows", rows_9(lambda r: r.pop()), None, "line 8:", "ends after 8 of 9 rows"),
    _case("10-rows", rows_9(lambda r: r.append("0 0 0 0 0 0 0 0 0")), None, "line 10:", "unexpected text after the grid"),
    _case("blank-line-inside", rows_9(lambda r: r.insert(4, "")), None, "line 5:", "blank line inside the grid"),
    # wrong number of columns
    _case("short-row", rows_9(lambda r: r.__setitem__(2, "0 9 8 0 0 0 0 6")), None, "line 3:", "row has 8 numbers, expected 9"),
    _case("long-row", rows_9(lambda r: r.__setitem__(8, r[8] + " 1")), None, "line 9:", "row has 10 numbers, expected 9"),
    _case("short-first-row", rows_9(lambda r: r.__setitem__(0, "5 3 0 0 7 0 0 0")), None, "line 1:", "8 numbers"),
    # values that are no number, too big, negative
    _case("letter", rows_9(lambda r: _set(r, 2, 5, "x")), None, "line 2, column 5:", "'x' is not a number"),
    _case("letters-row", "a b c\n", None, "line 1, column 1:", "'a' is not a number"),  # not "row has 3 numbers"
    _case("short-row-with-letter", rows_9(lambda r: r.__setitem__(3, "1 2 x 4")), None, "line 4, column 3:",
          "'x' is not a number"),
    _case("digit-and-letter", rows_9(lambda r: _set(r, 7, 1, "5a")), None, "line 7, column 1:", "is not a number"),
    _case("decimal-point", rows_9(lambda r: _set(r, 4, 9, "3.0")), None, "line 4, column 9:", "is not a number"),
    _case("arabic-indic-digit", rows_9(lambda r: _set(r, 6, 3, "\u0663")), None, "line 6, column 3:", "is not a number"),
    _case("ten-in-9x9", rows_9(lambda r: _set(r, 4, 2, "10")), None, "line 4, column 2:", "out of range 0..9"),
    _case("huge-number", rows_9(lambda r: _set(r, 9, 9, "99999999999999999999999")), None, "line 9, column 9:", "out of range"),
    _case("5000-digits", rows_9(lambda r: _set(r, 9, 9, "1" * 5000)), None, "line 9, column 9:", "out of range"),
    _case("negative", rows_9(lambda r: _set(r, 3, 8, "-6")), None, "line 3, column 8:", "-6 is negative"),
    _case("minus-zero", rows_9(lambda r: _set(r, 3, 8, "-0")), None, "line 3, column 8:", "negative"),
    # non-square sizes
    _case("3x3", "1 2 3\n2 3 1\n3 1 2\n", None, "line 1:", "a grid is 4, 9, 16"),
    _case("8x8", "0 0 0 0 0 0 0 0\n" * 8, None, "line 1:", "8 numbers"),
    _case("5-wide-after-blank-lines", "\n\n1 2 3 4 5\n", None, "line 3:", "5 numbers"),
    _case("header-1", "1\n", "header", "line 1:", "not a box size 2..9"),
    _case("header-10", "10\n", "header", "line 1:", "not a box size 2..9"),
    _case("header-superscript-two", "\u00b2\n1 2 3 4\n", None, "line 1:", "cannot tell the format"),
    _case("header-superscript-forced", "\u00b2\n1 2 3 4\n", "header", "line 1:", "not a box size"),
    _case("header-letter", "x\n1 2 3 4\n", "header", "line 1:", "not a box size"),
    _case("header-short-grid", "2\n1 2 3 4\n", None, "line 2:", "ends after 1 of 4 rows"),
    _case("header-alone", "3\n", None, "line 1:", "ends after a header line"),
    _case("header-wide-row", "2\n1 2 3 4 5\n", None, "line 2:", "row has 5 numbers, expected 4"),
    # line puzzles
    _case("line-80", LINE_9[:-1] + "\n", None, "line 1:", "80 characters"),
    _case("line-82", LINE_9 + ".\n", None, "line 1:", "82 characters"),
    _case("line-162-in-batch", "\n" + LINE_9 + "\n" + LINE_9 * 2 + "\n", None, "line 3:", "162 characters"),
    _case("line-letter", LINE_9[:4] + "x" + LINE_9[5:], None, "line 1, column 5:", "'x' is not a value of a 9x9 line puzzle"),
    _case("line-A-in-9x9", LINE_9[:9] + "A" + LINE_9[10:], None, "line 1, column 10:", "'A' is not a value"),
    _case("line-5-in-4x4", "1234" * 3 + "5...", None, "line 1, column 13:", "'5' is not a value of a 4x4"),
    _case("line-minus", "..........-1....", None, "line 1, column 11:", "'-'"),
    _case("line-forced-short", "1234", "line", "line 1:", "4 characters"),
    # JSON
    _case("json-truncated", '{"rows": [[1, 2]\n', None, "line 1:", "not JSON"),
    _case("json-no-rows", "{}\n", None, "line 1:", "expected an object"),
    _case("json-1-row", '{"rows": [[1, 2, 3, 4]]}\n', None, "line 1:", "1 rows"),
    _case("json-short-rows", '{"rows": [[0, 0], [0, 0], [0, 0], [0, 0]]}\n', None, "line 1:", "row 1 has 2 numbers, expected 4"),
    _case("json-out-of-range", '{"rows": [[0,0,0,0],[0,0,0,0],[0,0,9,0],[0,0,0,0]]}\n', None, "line 1:", "row 3, column 3: value 9"),
    _case("json-negative", '{"rows": [[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,-1]]}\n', None, "line 1:", "row 4, column 4"),
    _case("json-bool", '{"rows": [[true,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}\n', None, "line 1:", "expected an object"),
    _case("json-float", '{"rows": [[1.0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}\n', None, "line 1:", "expected an object"),
    _case("json-short-line", '{"line": "123"}\n', None, "line 1:", "3 characters"),
    _case("json-line-not-str", '{"line": 5}\n', None, "line 1:", "expected an object"),
    _case("json-array", '[1, 2]\n', "json", "line 1:", "expected an object"),
    _case("json-deep-nesting", '{"rows": ' + "[" * 30000 + "]" * 30000 + "}\n", None, "line 1:", "not JSON"),
    _case("json-bad-second-line", '{"line": "' + "." * 81 + '"}\n{"rows": 3}\n', None, "line 2:", "expected an object"),
    # empty input
    _case("empty", "", None, None, "no puzzle in the input"),
    _case("only-blank-lines", "\n\n   \n\t\r\n", None, None, "no puzzle in the input"),
    # text that fits no format
    _case("lone-12", "12\n", None, "line 1:", "cannot tell the format"),
    _case("lone-word", "\n\nhello\n", None, "line 3:", "cannot tell the format"),
]


@pytest.mark.parametrize("text, fmt, where, what", MALFORMED)
def test_malformed_input_raises_invalid_puzzle_naming_the_place(text, fmt, where, what):
    error = error_of(text, fmt)
    message = str(error)
    if where is None:
        assert error.line is None
    else:
        assert message.startswith(where + " "), message
    assert what in message
    assert "\n" not in message and len(message) < 300


def test_unknown_input_format():
    with pytest.raises(InvalidPuzzle, match="unknown input format 'pretty'"):
        list(parse(["1 2 3 4\n"], format="pretty"))


def test_parse_json_accepts_a_line_member():
    assert parse_json(json.dumps({"line": LINE_9})) == parse_line(LINE_9)


def test_grid_input_with_clashing_givens_is_not_malformed():
    """A clash is a puzzle with no solution, not a parse error."""
    grid = parse_one("1 1 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n")
    assert find_clash(grid) == "row 1 has two 1s, columns 1 and 2"


# --- no input makes parse fail with anything but InvalidPuzzle -----------------------------------


def _parse_all(text, fmt=None):
    try:
        grids = list(itertools.islice(parse(io.StringIO(text, newline="\n"), format=fmt), 5))
    except InvalidPuzzle as error:
        assert "\n" not in str(error)
        return None
    for grid in grids:
        assert isinstance(grid, Grid)
    return grids


@settings(max_examples=300)
@given(st.text(max_size=400), st.sampled_from([None, *INPUT_FORMATS]))
def test_any_text_parses_or_raises_invalid_puzzle(text, fmt):
    _parse_all(text, fmt)


@st.composite
def mangled(draw):
    """A rendered grid with a few characters replaced, inserted or deleted: text near the valid."""
    grid = draw(grids(boxes=(2, 3)))
    text = render(grid, draw(st.sampled_from(FORMATS)))
    alphabet = st.sampled_from(list("0123456789.-+ \t\n\r{}[],:\"xAG") + ["10", "-1", "\u0663", "\x00"])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["replace", "insert", "delete"]))
        if action == "insert":
            text = text[:at] + draw(alphabet) + text[at:]
        elif action == "replace":
            text = text[:at] + draw(alphabet) + text[at + 1 :]
        else:
            text = text[:at] + text[at + 1 :]
    return text


@settings(max_examples=300)
@given(mangled())
def test_mangled_puzzles_parse_or_raise_invalid_puzzle(text):
    _parse_all(text)
