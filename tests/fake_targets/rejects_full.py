#!/usr/bin/env python3
"""Another contract, not a bug: a full grid is refused ("nothing to solve", exit 1) where the classic
contract prints it back. Against our engine it fails on the `full` family; as the --reference it
makes that the expected answer (a target that prints the grid back then fails)."""

import sys

import _contract


def solve(data):
    if not _contract.read(data).blanks:
        raise _contract.Rejected("nothing to solve: the grid is full")
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
