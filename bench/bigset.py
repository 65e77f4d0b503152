"""The big-grid benchmark set, made deterministically from fixed seeds (nothing stored).

- 16x16 and 25x25: puzzles from our generator (``sudoku.create``), unique by construction.
- 36x36 and 49x49: random puzzles, a valid grid with 30, 45, 50, 60 or 70 % of its cells blanked,
  several seeds each, of two kinds. They have at least the grid they came from as a solution,
  often many. Around half blank is the phase transition of quasigroup completion (the hard band).
  - ``random`` (``36x36-60pct-0``), the issue's recipe: a shuffled grid, the pattern grid
    ``(box * (r % box) + r // box + c) % side + 1`` with its digits, bands, rows within bands,
    stacks and columns within stacks permuted at random. Cheap at any size, and the way many
    generators make big grids, but all of one small family, and the default solve matches givens
    to that family (``sudoku.engines.pattern``): it solves these in under a second at any rate,
    the hard band included, where CaDiCaL can need minutes.
  - ``filled`` (``36x36-60pct-filled-0``): a grid outside that family (``filled_grid``), so the
    solve has to search as it would on any grid. These are the rows that measure the engines.
- 64x64 and 81x81: a shuffled valid grid keeping only a few givens (the search is then a fill).

``python bench/bigset.py --out DIR`` writes each instance as ``DIR/NAME.txt`` in grid format.
"""

import argparse
import random
from collections import namedtuple
from pathlib import Path

from sudoku.engines.pattern import pattern_value
from sudoku.generate import derive_seed
from sudoku.grid import Grid, geometry

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
    cells = [digits[pattern_value(box, r, c)] for r in rows for c in cols]
    return Grid(box, cells)


def blanked(full, count, rng):
    """``full`` with exactly ``count`` cells, drawn at random, blanked."""
    cells = list(full.cells)
    for cell in rng.sample(range(len(cells)), count):
        cells[cell] = 0
    return Grid(full.box, cells)


def random_givens(box, count, rng):
    """``count`` givens at random cells, each digit drawn from those its peers do not show yet (they
    may have no completion)."""
    side = box * box
    peers = geometry(box).peers
    cells = [0] * (side * side)
    for cell in rng.sample(range(side * side), count):
        taken = {cells[p] for p in peers[cell]}
        cells[cell] = rng.choice([d for d in range(1, side + 1) if d not in taken])
    return Grid(box, cells)


def filled_grid(box, rng):
    """A valid complete grid outside the pattern family: ``2 * side`` random givens completed by the
    ``sat`` engine (1-2 s at 36x36, 5-9 s at 49x49), drawn again if they have no completion or
    the grid passes ``pattern.may_fit`` (neither was seen)."""
    from sudoku import engines
    from sudoku.engines import pattern

    while True:
        answer = engines.solve(random_givens(box, 2 * box * box, rng), engine="sat")
        if answer.count and not pattern.may_fit(answer.solution):
            return answer.solution


def instances(*, seeds=3, seed=SEED, boxes=(4, 5, 6, 7, 8, 9), filled=True):
    """Every instance of the set, in a fixed order (``seeds`` puzzles per size and blank rate);
    ``filled=False`` leaves out the random puzzles from grids outside the pattern family (making
    their grids takes ~5 s per 49x49 one)."""
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
                if filled:
                    s = derive_seed(seed, box, "filled", index)
                    rng = random.Random(s)
                    full = filled_grid(box, rng)
                    for pct in RANDOM_BLANKS:
                        puzzle = blanked(full, round(cells * pct / 100), rng)
                        yield Instance(f"{side}x{side}-{pct}pct-filled-{index}", box, "filled", pct, s, puzzle)
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
    return instance.kind in ("random", "filled") and HARD_BAND[0] <= instance.blank_pct <= HARD_BAND[1]


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
