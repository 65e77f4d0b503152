#!/usr/bin/env python3
"""Planted bug: 30 % of creates give clues back until only 30 blanks are left: unique and random,
but fewer than 40 blanks (oracle create_blanks, intermittent)."""

import random
import sys

import _contract
from few_blanks import thirty_blanks


def create():
    puzzle = _contract.new_puzzle()
    return thirty_blanks(puzzle) if random.random() < 0.3 else puzzle


sys.exit(_contract.main(create=create))
