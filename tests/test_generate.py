"""Making puzzles: unique, enough blanks, reproducible from the seed, rated as asked."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku import DIFFICULTIES, GenerationFailed, create, derive_seed, min_blanks, new_seed
from sudoku.engines import dlx, py
from sudoku.grid import find_clash



def level(puzzle):
    from sudoku.grade import grade

    return grade(puzzle).level


def assert_proper(puzzle, box, blanks=None):
    """Unique (py counts to 2 and gets 1; so does dlx up to 9x9, where it is always quick), at least
    the blanks wanted, givens that do not clash."""
    assert puzzle.box == box
    assert puzzle.blanks >= max(blanks or 0, min_blanks(box))
    assert find_clash(puzzle) is None
    assert py.solve(puzzle, limit=2).count == 1
    if box <= 3:
        assert dlx.solve(puzzle, limit=2).count == 1


@pytest.mark.parametrize("box, blanks", [(2, 8), (3, 40), (4, 128), (5, 313), (6, 648), (9, 3281)])
def test_min_blanks(box, blanks):
    """40 at 9x9 (the classic contract), at least half the cells at other sizes."""
    assert min_blanks(box) == blanks
    if box != 3:
        assert 2 * min_blanks(box) >= box**4


@settings(max_examples=25)
@given(seed=st.integers(0, 2**63 - 1), box=st.sampled_from([2, 3]))
def test_created_puzzles_are_unique_with_enough_blanks(seed, box):
    assert_proper(create(box, seed=seed), box)


@pytest.mark.parametrize("seed", [1, 2])
def test_created_16x16_puzzles_are_unique_with_enough_blanks(seed):
    assert_proper(create(4, seed=seed), 4)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_created_25x25_puzzles_are_unique_with_enough_blanks(seed):
    assert_proper(create(5, seed=seed), 5)


@pytest.mark.parametrize("box", [2, 3, 4])
def test_same_seed_same_puzzle(box):
    assert create(box, seed=12345) == create(box, seed=12345)


@pytest.mark.parametrize("box", [2, 3])
def test_different_seeds_give_different_puzzles(box):
    puzzles = {create(box, seed=seed) for seed in range(8)}
    assert len(puzzles) == 8


def test_different_seeds_give_different_16x16_puzzles():
    assert create(4, seed=1) != create(4, seed=2)


def test_seed_is_required_and_keyword_only():
    with pytest.raises(TypeError):
        create(3)
    with pytest.raises(TypeError):
        create(3, 7)


def test_the_difficulties_are_the_human_levels():
    from sudoku.grade import LEVELS

    assert DIFFICULTIES == LEVELS


@pytest.mark.parametrize("difficulty, seed", [("easy", 1), ("easy", 2), ("medium", 1), ("medium", 2),
                                              pytest.param("hard", 1, marks=pytest.mark.slow),
                                              ("expert", 1)])
def test_9x9_difficulty_is_graded_as_asked(difficulty, seed):
    puzzle = create(3, seed=seed, difficulty=difficulty)
    assert_proper(puzzle, 3)
    assert level(puzzle) == difficulty


def test_a_level_not_met_within_the_attempts_says_so():
    with pytest.raises(GenerationFailed, match="no extreme puzzle with at least 40 blanks found in 2 attempts"):
        create(3, seed=1, difficulty="extreme", attempts=2, bank=False)


@pytest.mark.parametrize("difficulty", ["easy", pytest.param("medium", marks=pytest.mark.slow)])
def test_16x16_difficulty_is_graded_as_asked(difficulty):
    puzzle = create(4, seed=1, difficulty=difficulty)
    assert_proper(puzzle, 4)
    assert level(puzzle) == difficulty


def test_4x4_easy():
    puzzle = create(2, seed=1, difficulty="easy")
    assert_proper(puzzle, 2)
    assert py.rate(puzzle) == "naked" and level(puzzle) == "easy"


def test_unknown_difficulty_is_a_value_error():
    with pytest.raises(ValueError, match="difficulty must be one of easy, medium, hard"):
        create(3, seed=1, difficulty="fiendish")


@pytest.mark.parametrize("box, blanks", [(2, 10), (3, 45), (3, 52), (4, 140)])
def test_blanks_are_honoured(box, blanks):
    for seed in (1, 2):
        assert_proper(create(box, seed=seed, blanks=blanks), box, blanks)


def test_blanks_below_the_minimum_still_give_the_minimum():
    assert create(3, seed=4, blanks=10).blanks >= 40


@pytest.mark.parametrize("box, blanks", [(2, 16), (2, 100), (3, 81), (4, 256)])
def test_impossible_blanks_raise_generation_failed(box, blanks):
    with pytest.raises(GenerationFailed, match=f"{blanks} blanks is not possible"):
        create(box, seed=1, blanks=blanks)


def test_blanks_no_attempt_reaches_raise_generation_failed():
    """65 blanks leave 16 clues: no 9x9 puzzle that small is unique."""
    with pytest.raises(GenerationFailed, match="no puzzle with at least 65 blanks found in 2 attempts"):
        create(3, seed=1, blanks=65, attempts=2)


def test_blanks_past_an_engines_own_generator_are_made_from_its_fill():
    """nb's generator stops at 58 blanks; past it, its fill and the removal here reach further."""
    from sudoku.engines import nb

    puzzle = create(3, seed=1, blanks=nb.MAX_BLANKS + 1, engine="nb")
    assert_proper(puzzle, 3, blanks=nb.MAX_BLANKS + 1)


def test_generation_failed_is_a_runtime_error():
    assert issubclass(GenerationFailed, RuntimeError)


@pytest.mark.parametrize("box", [2, 3])
def test_minimal_puzzles_lose_uniqueness_without_any_clue(box):
    puzzle = create(box, seed=3, minimal=True)
    assert_proper(puzzle, box)
    for cell, value in enumerate(puzzle.cells):
        if value:
            assert py.solve(puzzle.with_cell(cell, 0), limit=2).count == 2


def test_derive_seed_is_stable():
    """Pinned values: a seed recorded in a run must rebuild the same puzzle on any platform."""
    assert derive_seed(1, 0) == 2964727883954193085
    assert derive_seed(2024, 3, 7) == 2456668724586259025


@given(st.integers(), st.lists(st.integers(0, 10**6), max_size=3))
def test_derive_seed_is_a_63_bit_function_of_seed_and_path(seed, path):
    value = derive_seed(seed, *path)
    assert 0 <= value < 2**63
    assert derive_seed(seed, *path) == value
    assert derive_seed(seed, *path, 0) != value


def test_derive_seed_separates_neighbours():
    seeds = {derive_seed(7, chunk, index) for chunk in range(10) for index in range(100)}
    assert len(seeds) == 1000


def test_new_seed_is_a_fresh_63_bit_value():
    seeds = {new_seed() for _ in range(5)}
    assert len(seeds) == 5
    assert all(0 <= seed < 2**63 for seed in seeds)


@pytest.mark.parametrize("difficulty", ["medium", "hard", "expert", "extreme"])
def test_4x4_above_easy_is_refused_at_once(difficulty):
    """Naked singles solve every unique 4x4 puzzle, so asking for more fails fast and says why."""
    with pytest.raises(GenerationFailed, match="naked singles solve every unique 4x4"):
        create(2, seed=1, difficulty=difficulty)


def test_an_engine_without_fill_cannot_create():
    with pytest.raises(ValueError, match="cannot create puzzles"):
        create(3, seed=1, engine="dlx")


def assert_symmetric(puzzle):
    """The clue pattern is the same turned by 180 degrees: cell i is blank exactly when cell n - 1 - i is."""
    blank = [value == 0 for value in puzzle.cells]
    assert blank == blank[::-1]


@pytest.mark.parametrize("box, difficulty", [(2, None), (3, None), (3, "easy"), (4, "easy"),
                                             pytest.param(3, "hard", marks=pytest.mark.slow)])
def test_symmetric_puzzles_are_symmetric_and_unique(box, difficulty):
    for seed in (1, 2):
        puzzle = create(box, seed=seed, symmetric=True, difficulty=difficulty)
        assert_proper(puzzle, box)
        assert_symmetric(puzzle)
        if difficulty:
            assert level(puzzle) == difficulty
    assert create(3, seed=1, symmetric=True) == create(3, seed=1, symmetric=True)
    assert create(3, seed=1, symmetric=True) != create(3, seed=1)


def test_symmetric_minimal_9x9_keeps_no_removable_pair():
    puzzle = create(3, seed=5, symmetric=True, minimal=True)
    assert_symmetric(puzzle)
    for cell in range(41):
        if puzzle.cells[cell]:
            trial = puzzle.with_cell(cell, 0).with_cell(80 - cell, 0)
            assert py.solve(trial, limit=2).count == 2


def test_cli_create_verbose_says_what_it_tries():
    """Issue 27: `create -v` at a level says each try on stderr (it said nothing for minutes)."""
    from helpers import run_cli

    done = run_cli("create", "--difficulty", "extreme", "--symmetric", "--attempts", "2", "--seed", "1", "-v")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "sudoku: seed 1"
    assert lines[1].startswith("sudoku: puzzle 1: try 1 of 2: ") and lines[2].startswith("sudoku: puzzle 1: try 2 of 2: ")
    assert "no extreme puzzle" in lines[-1]
    done = run_cli("create", "expert", "--seed", "1", "-v", "--format", "line")
    assert done.returncode == 0 and len(done.stdout.strip()) == 81
    assert "sudoku: puzzle 1: an expert puzzle from the bank under a random symmetry; grading it again" in done.stderr
    assert run_cli("create", "expert", "--seed", "1", "--format", "line").stdout == done.stdout


def test_unmade_reason_names_the_levels_create_cannot_make_while_a_person_waits():
    """What `sudoku play` offers: 4x4 easy only (why: naked singles); 9x9 every level (expert and
    extreme from the bank); 16x16 and 25x25 easy and medium (hard and up: minimal puzzles graded,
    tens of seconds a try)."""
    from sudoku.generate import unmade_reason

    def offered(box):
        return [level for level in DIFFICULTIES if unmade_reason(box, level) is None]

    assert offered(2) == ["easy"] and "naked singles" in unmade_reason(2, "medium")
    assert offered(3) == list(DIFFICULTIES)
    assert offered(4) == offered(5) == ["easy", "medium"]
    assert unmade_reason(4, "hard").startswith("16x16 puzzles above medium are minimal puzzles graded")
