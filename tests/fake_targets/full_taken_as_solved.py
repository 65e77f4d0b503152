#!/usr/bin/env python3
"""Planted bug: a grid with no blank is taken as solved and printed back, exit 0, before any check
(an ``is_full()`` shortcut): a full grid with a clash "solved" (rejects_unsolvable, echoed), and a
full grid holding a 10 as well (rejects_malformed, echoed). Everything else is right."""

import sys

import _contract


def solve(data):
    tokens = data.split()
    if len(tokens) == 81 and all(token.isdigit() and token != b"0" for token in tokens):
        sys.stdout.write(data.decode())
        sys.exit(0)
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
