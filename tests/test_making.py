"""sudoku.cli.making: a game's puzzle made in a child process, what it says, and cancelling it."""

import pytest

from sudoku import GenerationFailed, create
from sudoku.cli.making import Making, Order
from sudoku.play_state import Game


def test_the_child_makes_the_seeds_puzzle_and_sends_the_game():
    making = Making(Order(2, None, 5, 3))
    events = list(making.events())
    making.close()
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "made" and set(kinds[:-1]) <= {"progress"}
    game = Game.from_dict(events[-1][1])
    assert game.puzzle == create(2, seed=5) and game.solution.cells.count(0) == 0


def test_the_child_says_each_try_as_create_does_and_sends_its_puzzle():
    said = []
    puzzle = create(3, seed=1, difficulty="hard", attempts=5, progress=said.append)
    making = Making(Order(3, "hard", 1, 5))
    events = list(making.events())
    making.close()
    assert [words for kind, words in events if kind == "progress"] == [*said, "puzzle made; finding its solution"]
    assert Game.from_dict(events[-1][1]).puzzle == puzzle


@pytest.mark.parametrize("order", [Order(2, "hard", 1, 3), Order(3, "hard", 1, 1)])
def test_a_puzzle_that_cannot_be_made_is_a_failed_event_with_creates_reason(order):
    with pytest.raises(GenerationFailed) as failed:
        create(order.box, seed=order.seed, difficulty=order.level, attempts=order.attempts)
    making = Making(order)
    events = list(making.events())
    making.close()
    assert events[-1] == ("failed", str(failed.value))


def test_cancel_kills_the_child_and_ends_the_events():
    making = Making(Order(5, "hard", 1, 1))  # minutes of work
    making.cancel()
    assert making._child.poll() is not None and list(making.events()) == []


def test_the_label_and_the_saves_extra_keys():
    order = Order(4, "medium", 9, 200)
    assert order.label == "16x16, medium, seed 9"
    assert order.extra() == {"label": "16x16, medium, seed 9", "seed": 9, "level": "medium"}
    assert Order(3, None, 1, 1).label == "9x9, any level, seed 1"
