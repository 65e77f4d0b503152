#!/usr/bin/env python3
"""A correct `sudoku` program for every size: 4x4, 9x9, 16x16 and 25x25 puzzles, `create SIZE`.
No bug: fuzz at any --size should find nothing."""

import sys

import _contract

_contract.SIDES = (4, 9, 16, 25)
sys.exit(_contract.main())
