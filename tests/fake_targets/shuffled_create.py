#!/usr/bin/env python3
"""Planted bug: `create` shuffles one fixed puzzle (digits relabelled, rows, columns, bands and stacks
permuted, maybe transposed), so every run prints the same puzzle in disguise (oracle create_random,
kind variant); never the same text twice."""

import random
import sys

import _contract
from sudoku.bank import random_symmetry, transform


def create():
    return transform(_contract.new_puzzle(seed=7), random_symmetry(random.Random()))


sys.exit(_contract.main(create=create))
