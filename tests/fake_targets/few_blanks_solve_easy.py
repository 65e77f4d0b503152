#!/usr/bin/env python3
"""A program of another dialect with a planted bug, for `fuzz probe`: it solves only when asked
`solve easy` (plain `solve` is a usage error), and its `create` prints a readable puzzle with only
30 blanks (oracle create_blanks). The probe must say that its `solve` breaks the contract, and still
take `create` as the right spelling."""

import sys

import _contract
from few_blanks import thirty_blanks

if sys.argv[1:] == ["solve"]:
    print("usage: sudoku solve easy|hard", file=sys.stderr)
    sys.exit(2)
if sys.argv[1:] == ["solve", "easy"]:
    sys.argv[1:] = ["solve"]
sys.exit(_contract.main(create=lambda: thirty_blanks(_contract.new_puzzle())))
