#!/usr/bin/env python3
"""Planted bug: `solve` dies of a segmentation fault when its input does not end with a newline
(oracle no_crash)."""

import os
import signal
import sys

import _contract


def solve(data):
    if data and not data.endswith(b"\n"):
        os.kill(os.getpid(), signal.SIGSEGV)
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
