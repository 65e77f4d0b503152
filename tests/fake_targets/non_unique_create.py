#!/usr/bin/env python3
"""Planted bug: `create` keeps 16 random cells of a random full grid: random and blank enough, but
never a unique puzzle (oracle create_unique)."""

import random
import sys

import _contract
from sudoku.engines import py

rng = random.Random()
full = py.fill(3, rng)
keep = set(rng.sample(range(81), 16))
puzzle = _contract.Grid(3, [v if i in keep else 0 for i, v in enumerate(full.cells)])
sys.exit(_contract.main(create=lambda: puzzle))
