"""The game model of ``sudoku play`` (sudoku.play_state): moves, history, conflicts, saves."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sudoku.formats import parse_line
from sudoku.grid import InvalidPuzzle, find_clash
from sudoku.play_state import BadSave, Game, Unplayable

# Two small puzzles with one solution each: every property runs on both sizes.
PUZZLES = {
    2: parse_line("1..4..2..1..3..2"),
    3: parse_line("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"),
}
GAMES = {box: Game.of(puzzle) for box, puzzle in PUZZLES.items()}


def fresh(box):
    old = GAMES[box]
    return Game(old.puzzle, old.solution)


def state(game):
    return list(game.entries), list(game.marks)


def actions(box):
    """A random list of player actions on a grid of ``box``."""
    side, cells = box * box, box**4
    cell, digit = st.integers(0, cells - 1), st.integers(1, side)
    return st.lists(
        st.one_of(
            st.tuples(st.just("enter"), cell, digit),
            st.tuples(st.just("mark"), cell, digit),
            st.tuples(st.just("erase"), cell),
            st.tuples(st.just("undo")),
            st.tuples(st.just("redo")),
        ),
        max_size=40,
    )


def act(game, action):
    name, *args = action
    return {"enter": game.enter, "mark": game.toggle_mark, "erase": game.erase, "undo": game.undo,
            "redo": game.redo}[name](*args)


def played(case):
    """A fresh game of ``case``'s box after its actions."""
    box, steps = case
    game = fresh(box)
    for step in steps:
        act(game, step)
    return game


def boxes_and_actions():
    return st.sampled_from([2, 3]).flatmap(lambda box: st.tuples(st.just(box), actions(box)))


@given(boxes_and_actions())
def test_givens_never_change(case):
    box, steps = case
    game = fresh(box)
    for step in steps:
        act(game, step)
        for cell, given in enumerate(game.puzzle.cells):
            if given:
                assert game.value(cell) == given
                assert game.entries[cell] == 0 and game.marks[cell] == 0


@given(boxes_and_actions())
def test_undo_takes_back_exactly_the_last_move(case):
    """After any sequence of actions, each undo restores the state before the move it takes back,
    undoing everything restores the start, and redoing everything comes back to the end."""
    box, steps = case
    game = fresh(box)
    start = state(game)
    before = []  # the state before each move still done
    for step in steps:
        was = state(game)
        if act(game, step) and step[0] in ("enter", "mark", "erase"):
            before.append(was)
        elif step[0] == "undo" and before:
            before.pop()
        elif step[0] == "redo":
            before = None  # redo makes the bookkeeping above wrong; checked by the round trip only
            break
    end, pending = state(game), len(game.undone)
    undone = 0
    while game.undo():
        undone += 1
        if before is not None:
            assert state(game) == before[-undone]
    assert state(game) == start
    for _ in range(undone):
        assert game.redo()
    assert state(game) == end and len(game.undone) == pending


@given(boxes_and_actions())
def test_a_new_move_forgets_what_was_undone(case):
    game = played(case)
    game.undo()
    blank = game.puzzle.cells.index(0)
    digit = game.entries[blank] % game.side + 1  # a digit other than the one there
    assert game.enter(blank, digit)
    assert not game.redo()


@given(boxes_and_actions())
def test_conflicts_are_the_cells_of_a_clash(case):
    game = played(case)
    conflicts = game.conflicts()
    assert bool(conflicts) == (find_clash(game.values()) is not None)
    for cell in conflicts:
        assert any(game.value(peer) == game.value(cell) for peer in game.geo.peers[cell])
    for cell in set(range(game.geo.ncells)) - conflicts:
        assert not game.value(cell) or all(game.value(peer) != game.value(cell) for peer in game.geo.peers[cell])


@given(boxes_and_actions())
def test_a_save_round_trips_through_json(case):
    game = played(case)
    game.cursor, game.elapsed_s = game.geo.ncells - 1, 12.5
    back = Game.from_dict(json.loads(json.dumps(game.to_dict(label="x"))))
    assert state(back) == state(game)
    assert (back.done, back.undone, back.cursor, back.elapsed_s) == (game.done, game.undone, game.cursor, 12.5)
    assert (back.puzzle, back.solution) == (game.puzzle, game.solution)
    while game.undo():
        assert back.undo()
    assert state(back) == state(game) and not back.undo()


@given(boxes_and_actions())
def test_wrong_lists_entries_that_differ_from_the_solution(case):
    game = played(case)
    expect = [c for c, e in enumerate(game.entries) if e and e != game.solution.cells[c]]
    assert game.wrong() == expect
    assert game.solved() == (game.blanks() == 0 and not expect)


def test_entering_the_solution_solves_it():
    game = fresh(3)
    for cell, digit in enumerate(game.solution.cells):
        assert game.enter(cell, digit) == (not game.is_given(cell))
    assert game.solved() and game.blanks() == 0 and not game.conflicts() and not game.wrong()


def test_marks_hide_under_an_entry_and_erase_clears_entry_then_marks():
    game = fresh(2)
    cell = game.puzzle.cells.index(0)
    assert game.toggle_mark(cell, 2) and game.toggle_mark(cell, 3)
    assert game.marked(cell) == [2, 3]
    assert game.enter(cell, 4)
    assert not game.toggle_mark(cell, 1)  # no marks under an entry
    assert game.erase(cell) and game.entries[cell] == 0 and game.marked(cell) == [2, 3]
    assert game.erase(cell) and game.marked(cell) == []
    assert not game.erase(cell)
    assert game.toggle_mark(cell, 2) and game.toggle_mark(cell, 2) and game.marked(cell) == []


def test_moves_on_givens_and_repeats_are_refused():
    game = fresh(2)
    given_cell = next(c for c, v in enumerate(game.puzzle.cells) if v)
    assert not game.enter(given_cell, 1) and not game.toggle_mark(given_cell, 1) and not game.erase(given_cell)
    blank = game.puzzle.cells.index(0)
    assert game.enter(blank, 1) and not game.enter(blank, 1)
    assert len(game.done) == 1
    with pytest.raises(ValueError, match="out of range 1..4"):
        game.enter(blank, 5)


def test_the_cursor_wraps_and_is_put_on_cells():
    game = fresh(3)
    game.move_cursor(-1, -1)
    assert game.cursor == 80
    game.move_cursor(1, 2)
    assert game.cursor == 1
    game.put_cursor(4, 5)
    assert game.cursor == 41
    with pytest.raises(ValueError, match="row 10"):
        game.put_cursor(9, 0)


def test_a_game_needs_a_unique_solution():
    with pytest.raises(Unplayable, match="several solutions"):
        Game.of(parse_line("." * 16))
    with pytest.raises(Unplayable, match="no solution"):
        Game.of(parse_line("...1.3.4..4..1.."))
    with pytest.raises(InvalidPuzzle, match="row 1 has two 1s"):
        Game.of(parse_line("11.............."))


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(version=7), "version 7"),
    (lambda d: d.pop("entries"), "'entries' is not a list of 16"),
    (lambda d: d.pop("solution"), "no 'solution'"),
    (lambda d: d["entries"].__setitem__(0, 3), "changes given cell 0"),
    (lambda d: d["marks"].__setitem__(1, 99), "not a number 0..15"),
    (lambda d: d["solution"].__setitem__(1, 1), "the solution"),
    (lambda d: d.update(done=[[0, [0, 0], [2, 0]]]), "not a move"),
    (lambda d: d.update(undone=[["x"]]), "not a move"),
    (lambda d: d.update(cursor=16), "cursor 16"),
    (lambda d: d.update(elapsed_s=-1), "time -1"),
    (lambda d: d.update(box=12), "box size"),
])
def test_a_bad_save_is_refused_by_name(change, message):
    data = fresh(2).to_dict()
    change(data)
    with pytest.raises(BadSave, match=message):
        Game.from_dict(data)
    with pytest.raises(BadSave, match="JSON object"):
        Game.from_dict([1, 2])


@given(boxes_and_actions())
def test_undo_and_redo_put_the_cursor_on_the_cell_they_change(case):
    """Issue 27: after an undo the player sees what changed, wherever the cursor had gone."""
    game = played(case)
    while game.done:
        cell = game.done[-1].cell
        game.cursor = (cell + 1) % len(game.puzzle.cells)
        assert game.undo() and game.cursor == cell
    while game.undone:
        cell = game.undone[-1].cell
        game.cursor = (cell + 1) % len(game.puzzle.cells)
        assert game.redo() and game.cursor == cell


def test_undo_with_nothing_to_undo_leaves_the_cursor():
    game = fresh(3)
    game.cursor = 40
    assert not game.undo() and not game.redo() and game.cursor == 40
