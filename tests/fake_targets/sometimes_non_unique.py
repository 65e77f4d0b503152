#!/usr/bin/env python3
"""Planted bug: 30 % of creates keep only 16 cells of a full grid: random and blank enough, but
never unique (oracle create_unique, intermittent)."""

import random
import sys

import _contract
from sudoku.engines import py


def create():
    rng = random.Random()
    if rng.random() >= 0.3:
        return _contract.new_puzzle()
    full = py.fill(3, rng)
    keep = set(rng.sample(range(81), 16))
    return _contract.Grid(3, [v if i in keep else 0 for i, v in enumerate(full.cells)])


sys.exit(_contract.main(create=create))
