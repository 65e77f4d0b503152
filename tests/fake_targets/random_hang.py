#!/usr/bin/env python3
"""Planted bug: a randomised search that, half of the time, never ends on a puzzle with fewer than
17 givens (oracle no_timeout); the same puzzle may pass the next time, so its reproducer is flaky."""

import random
import sys
import time

import _contract


def solve(data):
    if _contract.read(data).clues < 17 and random.random() < 0.5:
        time.sleep(3600)
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
