#!/usr/bin/env python3
"""A correct checker (the box-size design's third program): `check` reads one grid of any size and
prints complete, incomplete or invalid (with the broken unit), exit 0; malformed text is refused
on stderr, exit 2. No bug: `fuzz run --mode check` should find nothing."""

import sys

import _contract
from sudoku.check import check

_contract.SIDES = (4, 9, 16, 25)


def main(verdict=check):
    if sys.argv[1:] != ["check"]:
        print("usage: checker check < grid", file=sys.stderr)
        return 2
    try:
        grid = _contract.read(sys.stdin.buffer.read())
    except _contract.Rejected as error:
        print(f"checker: {error}", file=sys.stderr)
        return 2
    status, detail = verdict(grid)
    print(f"{status}: {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
