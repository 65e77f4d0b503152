"""The big-grid benchmark set, made deterministically from fixed seeds (nothing stored).

- 16x16 and 25x25: puzzles from our generator (``sudoku.create``), unique by construction.
- 36x36 and 49x49: random puzzles, a shuffled valid grid with 30, 45, 50, 60 or 70 % of its cells
  blanked, several seeds each. They have at least the grid they came from as a solution, often many.
  Around half blank is the phase transition of quasigroup completion (the hard band).
- 64x64 and 81x81: a shuffled valid grid keeping only a few givens (the search is then a fill).

A shuffled grid is the pattern grid ``(box * (r % box) + r // box + c) % side + 1`` with its
digits, bands, rows within bands, stacks and columns within stacks permuted at random: cheap at any
size, unlike a random fill, and every valid Sudoku grid's symmetry class is reachable this way for
the parts that matter here (which cells are given, and how they constrain each other).

``python bench/bigset.py --out DIR`` writes each instance as ``DIR/NAME.txt`` in grid format.
"""

import argparse
import random
from collections import namedtuple
from pathlib import Path

from sudoku.generate import derive_seed
from sudoku.grid import Grid

SEED = 17
RANDOM_BLANKS = (30, 45, 50, 60, 70)  # percent of cells blanked
FEW_GIVENS = {8: (16, 64), 9: (3, 40)}  # box: numbers of givens kept
HARD_BAND = (48, 55)  # percent blank: the phase transition, reported apart

Instance = namedtuple("Instance", "name box kind blank_pct seed puzzle")
Instance.__doc__ = """One puzzle of the set: a unique ``name``, its box, ``kind`` ('generated', 'random',
'few-givens'), the percentage of cells blank, the seed that made it, and the Grid."""


def shuffled_grid(box, rng):
    """A valid complete grid: the pattern grid with digits, bands, rows, stacks and columns shuffled."""
    side = box * box

    def lines():
        bands = rng.sample(range(box), box)
        return [band * box + inner for band in bands for inner in rng.sample(range(box), box)]

    rows, cols = lines(), lines()
    digits = rng.sample(range(1, side + 1), side)
    cells = [digits[(box * (r % box) + r // box + c) % side] for r in rows for c in cols]
    return Grid(box, cells)


def blanked(full, count, rng):
    """``full`` with exactly ``count`` cells, drawn at random, blanked."""
    cells = list(full.cells)
    for cell in rng.sample(range(len(cells)), count):
        cells[cell] = 0
    return Grid(full.box, cells)


def instances(*, seeds=3, seed=SEED, boxes=(4, 5, 6, 7, 8, 9)):
    """Every instance of the set, in a fixed order (``seeds`` puzzles per size and blank rate)."""
    import sudoku

    for box in boxes:
        side = box * box
        cells = side * side
        for index in range(seeds):
            if box in (4, 5):
                s = derive_seed(seed, box, "generated", index)
                puzzle = sudoku.create(box, seed=s)
                yield Instance(f"{side}x{side}-gen-{index}", box, "generated", round(100 * puzzle.blanks / cells), s, puzzle)
            elif box in (6, 7):
                for pct in RANDOM_BLANKS:
                    s = derive_seed(seed, box, pct, index)
                    rng = random.Random(s)
                    puzzle = blanked(shuffled_grid(box, rng), round(cells * pct / 100), rng)
                    yield Instance(f"{side}x{side}-{pct}pct-{index}", box, "random", pct, s, puzzle)
        if box in FEW_GIVENS:
            for givens in FEW_GIVENS[box]:
                for index in range(min(seeds, 2)):
                    s = derive_seed(seed, box, "givens", givens, index)
                    rng = random.Random(s)
                    puzzle = blanked(shuffled_grid(box, rng), cells - givens, rng)
                    pct = round(100 * puzzle.blanks / cells)
                    yield Instance(f"{side}x{side}-{givens}givens-{index}", box, "few-givens", pct, s, puzzle)


def in_hard_band(instance):
    """Whether a random instance lies in the phase-transition band (generated ones are unique by
    construction and few-givens ones are fills: neither is in it)."""
    return instance.kind == "random" and HARD_BAND[0] <= instance.blank_pct <= HARD_BAND[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="directory for NAME.txt files (grid format)")
    parser.add_argument("--seeds", type=int, default=3, help="puzzles per size and blank rate (default 3)")
    args = parser.parse_args()
    from sudoku.formats import render

    args.out.mkdir(parents=True, exist_ok=True)
    for instance in instances(seeds=args.seeds):
        (args.out / f"{instance.name}.txt").write_text(render(instance.puzzle, "grid"))
        print(instance.name)


if __name__ == "__main__":
    main()
