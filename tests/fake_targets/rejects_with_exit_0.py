#!/usr/bin/env python3
"""Planted bug: every refusal exits 0 (the message still goes to stderr): malformed text, clashing
givens and puzzles with no solution alike (oracles rejects_malformed, rejects_unsolvable). One
behaviour on every family it meets: a run should show it as one bug, with the families listed."""

import sys

import _contract


def reject(message):
    print(f"sudoku: {message}", file=sys.stderr)
    return 0


sys.exit(_contract.main(reject=reject))
