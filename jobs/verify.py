"""Verification of solved cases, for a whole batch at once in numpy, and the reasons a case fails.

The checks are the per-case path's, on arrays: ``puzzles``, ``answers`` (the solve engine's) and
``unique`` (the check engine's first solution) are ``uint8[k, side * side]``, row-major, 0 = blank.
Nothing here is timed; it runs after the timed phases. ``problems`` is the one wording of a failure,
used by both paths, so a reason reads the same whichever path made the row.
"""

from functools import lru_cache

from typing import Any

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]


@lru_cache(maxsize=None)
def units(box: int) -> npt.NDArray[np.int_]:
    """int[3 * side, side]: the cells of every row, column and box of a grid of ``box``."""
    side = box * box
    cells = np.arange(side * side).reshape(side, side)
    boxes = cells.reshape(box, box, box, box).transpose(0, 2, 1, 3).reshape(side, side)
    return np.concatenate([cells, cells.T, boxes])


def complete_and_valid(grids: npt.ArrayLike, box: int) -> BoolArray:
    """bool[k]: each grid has every cell filled with 1..side and no digit twice in a unit.

    A unit is right when the OR of its cells' digit bits is all ``side`` bits: its ``side`` cells
    then hold ``side`` different digits. A blank or out-of-range value contributes no bit.
    """
    side = box * box
    grids = np.asarray(grids)
    in_range = (grids >= 1) & (grids <= side)
    bits = np.where(in_range, np.left_shift(np.uint32(1), np.clip(grids, 1, side).astype(np.uint32) - 1), 0)
    seen = np.bitwise_or.reduce(bits[:, units(box)], axis=2)
    valid: BoolArray = (seen == (1 << side) - 1).all(axis=1)
    return valid


def givens_kept(puzzles: npt.NDArray[Any], answers: npt.NDArray[Any]) -> BoolArray:
    """bool[k]: every given of the puzzle is in the answer."""
    kept: BoolArray = ((puzzles == 0) | (puzzles == answers)).all(axis=1)
    return kept


def equal(grids: npt.NDArray[Any], others: npt.NDArray[Any]) -> BoolArray:
    same: BoolArray = (grids == others).all(axis=1)
    return same


def solved(puzzles: npt.NDArray[Any], counts: npt.NDArray[Any], answered: npt.NDArray[Any], answers: npt.NDArray[Any],
           unique: npt.NDArray[Any], box: int) -> tuple[BoolArray, BoolArray, BoolArray]:
    """(solved_ok, givens_kept, matches_unique) as bool[k], the per-case path's verdicts for a batch.

    ``counts`` are the check engine's counts (up to 2) and ``unique`` its first solutions;
    ``answered`` says where the solve engine gave a solution, ``answers`` holds them. ``solved_ok``: an
    answer that is a valid complete grid of a solvable puzzle, or rightly none; ``givens_kept`` is true
    where there is no answer; ``matches_unique`` means something only where ``counts == 1`` (the
    records hold null elsewhere).
    """
    solved_ok = np.where(answered, (counts > 0) & complete_and_valid(answers, box), counts == 0)
    kept = np.where(answered, givens_kept(puzzles, answers), True)
    return solved_ok, kept, answered & equal(answers, unique)


def problems(*, solved_ok: bool, givens_kept: bool, matches_unique: bool | None, solutions: int, created: bool,
             blanks: int, wanted_blanks: int | None) -> list[str]:
    """Why a case failed, as a list of phrases (empty when it did not). ``created`` puzzles must also be
    unique and have at least ``wanted_blanks`` blanks."""
    found: list[str] = []
    if not solved_ok:
        found.append("solve gave no valid solution" if solutions else "solve found a solution to an impossible puzzle")
    if not givens_kept:
        found.append("solve changed a given")
    if matches_unique is False:
        found.append("solve disagrees with the unique solution")
    if created:
        if solutions != 1:
            found.append(f"created puzzle has {solutions} solutions (counting to 2)")
        assert wanted_blanks is not None, "a created puzzle has its wanted blanks"
        if blanks < wanted_blanks:
            found.append(f"created puzzle has {blanks} blanks, fewer than {wanted_blanks}")
    return found
