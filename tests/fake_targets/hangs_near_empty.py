#!/usr/bin/env python3
"""Planted bug: `solve` never answers a puzzle with fewer than 5 givens (oracle no_timeout)."""

import sys
import time

import _contract


def solve(data):
    if _contract.read(data).clues < 5:
        time.sleep(3600)
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
