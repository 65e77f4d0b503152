"""Checking batch input for the compiled 9x9 engines: one shape and range rule for ``nb`` and
``band`` alike. Input checking only, no solving code, so the two engines stay independent."""

import numpy as np
import numpy.typing as npt

CELLS = 81


def as_puzzles(puzzles: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """``puzzles`` as a C-contiguous uint8[k, 81] array of digits 0..9 (ValueError otherwise)."""
    array = np.asarray(puzzles)
    if array.ndim == 1 and array.size == CELLS:
        array = array.reshape(1, CELLS)
    if array.ndim != 2 or array.shape[1] != CELLS:
        raise ValueError(f"puzzles must have shape (k, 81), not {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 9):
        raise ValueError("puzzle values must be digits 0..9 (0 = blank)")
    return np.ascontiguousarray(array, dtype=np.uint8)
