#!/usr/bin/env python3
"""Planted bug: `solve` computes forever on a grid with fewer than 5 givens (oracle no_timeout, a hang
computing), and is slow but right on the other sparse ones (fewer than 17 givens: FAKE_SLOW_S seconds
of CPU, default 6). Both are solvable puzzles that pass a `--timeout 2` alike: one group whose
reproducer must be a grid it never answers, not a slow one."""

import os
import sys

import _contract


def solve(data):
    clues = _contract.read(data).clues
    if clues < 5:
        _contract.burn(1e9)
    if clues < 17:
        _contract.burn(float(os.environ.get("FAKE_SLOW_S", "6")))
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
