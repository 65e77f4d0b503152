#!/usr/bin/env python3
"""A correct program of another dialect: `create easy` (plain `create` is a usage error) and text that
starts with the box size, as one of the seed designs writes it. No bug in its dialect, but its plain
`create` breaks the contract: `fuzz probe` says so first, then finds `--create-args 'create easy'
--format header`; a run in that dialect reports the contract's `create` apart, and passes."""

import sys

import _contract
from sudoku.formats import render


def show(grid, command):
    sys.stdout.write(render(grid, "header"))


if sys.argv[1:] == ["create"]:
    print("usage: sudoku create easy|hard", file=sys.stderr)
    sys.exit(2)
if sys.argv[1:] == ["create", "easy"]:
    sys.argv[1:] = ["create"]
sys.exit(_contract.main(show=show))
