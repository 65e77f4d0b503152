#!/usr/bin/env python3
"""A correct `sudoku` program that computes for FAKE_BUSY_S seconds of CPU (default 2) before every
answer, as a slow search does: a hang by no rule while its limit is above that, however loaded the
machine (the clock may show several times as long)."""

import os
import sys

import _contract


def solve(data):
    _contract.burn(float(os.environ.get("FAKE_BUSY_S", "2")))
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
