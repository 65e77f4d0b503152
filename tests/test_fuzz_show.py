"""The terminal block of one bug (fuzz.show) and the excerpt of a failing input it is built on
(sudoku.display.excerpt, mark_in): the input shown whole and visible, the failing cell marked, a long
input cut to its start and length, the replay line last."""

from fuzz.show import bug_lines
from fuzz.triage import Saved
from sudoku.display import caret_lines, cell_span, excerpt, mark_in

GRID = "\n".join("\t".join("0" * 9) for _ in range(8)) + "\r\n" + "0\t0\t5\t0\t0\t0\t0\t0\t0\n"
REPLAY = "fuzz replay run/corpus/t/keeps_givens/abc --target ./sudoku"


def saved(text, detail="keeps_givens: 1 given(s) changed, first at row 9, column 3", **extra):
    one = Saved("keeps_givens:changed on whitespace_tabs (exit 0)", 3, 7, "run/corpus/t/keeps_givens/abc", detail,
                3, False, None, REPLAY, text, "./sudoku", [], [], 9, "", {}, None, None)
    return one._replace(**extra)  # fields the run may fill (families, mark, side)


def test_a_grid_is_shown_whole_with_tabs_and_cr_visible_and_the_cell_marked():
    lines = bug_lines(saved(GRID.encode(), mark={"row": 9, "column": 3}), 1)
    assert lines[0].startswith("  1. changed a given of the puzzle in its answer: 3 cases; keeps_givens")
    assert lines[0].endswith("(confirmed in 3 of 3 replays)")
    assert lines[1].startswith("     look at: never overwrite a given")
    assert lines[2] == "     id: keeps_givens:changed on whitespace_tabs (exit 0)"
    lines = lines[:1] + lines[3:]
    assert lines[1] == "     input (163 bytes, row 9, column 3 marked):"
    assert lines[2] == "       0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t0"
    assert lines[9] == "       0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\r"
    assert lines[10] == "       0\\t0\\t5\\t0\\t0\\t0\\t0\\t0\\t0"
    assert lines[11] == "             ^ row 9, column 3"  # under the 5
    assert lines[-1] == "     replay: " + REPLAY and len(lines) == 13


def test_a_place_the_program_names_in_its_own_words_is_never_marked_in_the_input():
    """A Python syntax error says 'line 3' of the program's source: a bug that knows no place in the
    input (``mark`` None) marks none, whatever its detail quotes; only a record without a mark
    field (older runs) has its place read from the detail."""
    from types import SimpleNamespace

    quoted = "answers: exit 1 (  File \"/tmp/x/sudoku.py\", line 3), no grid on stdout"
    lines = bug_lines(saved(GRID.encode(), detail=quoted), 1)
    assert "     input (163 bytes):" in lines and not any("^" in line for line in lines)
    old = SimpleNamespace(**{k: v for k, v in saved(GRID.encode())._asdict().items() if k != "mark"})
    assert any("row 9, column 3 marked" in line for line in bug_lines(old, 1))


def test_control_bytes_never_reach_the_terminal_raw():
    lines = bug_lines(saved(b"1 2\x1b[31m 3\x00\n", detail="no_crash: killed by signal 11"), 2)
    assert "       1 2\\x1b[31m 3\\x00" in lines
    assert not any(ch in line for line in lines for ch in "\x1b\x00\r\t")


def test_a_long_input_is_shown_as_its_start_and_length_and_where_it_is_whole():
    lines = bug_lines(saved(b"7" * 5000 + b"\n", detail="no_crash: a Python traceback on stderr"), 1)[2:]
    assert lines[2] == "       " + "7" * 87 + "..."
    assert lines[3] == "       ... (5001 bytes, 1 line), whole in run/corpus/t/keeps_givens/abc/input.txt"
    assert lines[-1].startswith("     replay:") and len(lines) == 5


def test_families_and_a_recorded_mark_are_used_when_the_run_gives_them():
    one = saved(GRID.encode(), families=["unique_hard", "whitespace_tabs"], mark={"row": 1, "column": 2})
    lines = bug_lines(one, 1)[2:]
    assert lines[1] == "     seen on: unique_hard, whitespace_tabs"
    assert lines[3] == "       0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t0"
    assert lines[4] == "          ^ row 1, column 2"  # under row 1's second 0, past the visible '\\t"


def test_a_create_bug_has_no_input_block():
    assert len(bug_lines(saved(b""), 1)) == 4  # title, look at, id, replay


def test_mark_in_reads_every_place_the_checkers_name():
    assert mark_in("row 1, column 3 is 10, outside 1..9") == {"row": 1, "column": 3}
    assert mark_in("2 given(s) changed, first at row 4, column 7") == {"row": 4, "column": 7}
    assert mark_in("row 3 has two 5s, columns 1 and 3") == {"row": 3, "column": 1}
    assert mark_in("column 2 has two 7s, rows 4 and 8") == {"row": 4, "column": 2}
    assert mark_in("box 5 has two 1s, cells r4c4 and r6c5") == {"row": 4, "column": 4}
    assert mark_in("malformed at line 2") == {"line": 2}
    assert mark_in("line 1, column 8: value 10 is out of range 0..9") == {"line": 1, "column": 8}
    assert mark_in("exit 1 (bad input)") is None and mark_in(None) is None


def test_cell_span_in_grid_line_and_header_formats():
    assert cell_span("1 2 3\n4  5 6\n", {"row": 2, "column": 2}) == (1, 3, 4)
    assert cell_span("." * 40 + "5" + "." * 40 + "\n", {"row": 5, "column": 5}) == (0, 40, 41)
    assert cell_span("2\n1 2 3 4\n3 4 1 2\n", {"row": 2, "column": 4}, side=4) == (2, 6, 7)
    assert cell_span("123\n456\n", {"row": 2, "column": 3}) == (1, 2, 3)
    assert cell_span("1 2\n", {"row": 5, "column": 1}) is None
    assert cell_span("a\nb\n", {"line": 2}) == (1, 0, 1)
    assert cell_span("0 0\n0  10 0\n", {"line": 2, "column": 2}) == (1, 3, 5)  # the number that broke it
    assert cell_span("0 0\n0 0\n", {"line": 2, "column": 5}) == (1, 0, 3)  # no such number: the line


def test_a_malformed_reproducer_marks_the_number_that_breaks_it():
    """A QA note: a Rust program's panic on a 10 had its whole line marked, not the 10."""
    from fuzz.cases import malformed_place

    text = ("0 0 0 0 0 0 0 0 0\n" * 3 + "0 0 0 0 0 0 0 10 0\n" + "0 0 0 0 0 0 0 0 0\n" * 5).encode()
    assert malformed_place(text, 9) == {"line": 4, "column": 8}
    shown = caret_lines(excerpt(text, malformed_place(text, 9)))
    assert shown[3:5] == ["0 0 0 0 0 0 0 10 0", "              ^^ line 4, column 8"]
    assert malformed_place(("0 " * 10 + "\n").encode() + b"0 0 0 0 0 0 0 0 0\n" * 8, 9) == {"line": 1}


def test_excerpt_says_a_missing_final_newline():
    shown = excerpt("1 2\n3 4", {"row": 2, "column": 2})
    assert caret_lines(shown) == ["1 2", "3 4", "  ^ row 2, column 2", "(no newline at the end)"]


def test_the_other_signatures_of_one_bug_are_named():
    one = saved(GRID.encode(), families=["clashing", "malformed_letter"],
                also=["rejects_unsolvable:accepted on unsolvable (exit 0)"])
    lines = bug_lines(one, 1)
    assert lines[2] == ("     id: keeps_givens:changed on whitespace_tabs (exit 0) (also met as: "
                        "rejects_unsolvable:accepted on unsolvable (exit 0))")
    assert lines[3] == "     seen on: clashing, malformed_letter"
