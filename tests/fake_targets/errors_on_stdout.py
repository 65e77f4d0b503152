#!/usr/bin/env python3
"""Planted bug: refusals (malformed text, no solution) are printed on stdout with exit code 0
(oracles rejects_malformed and rejects_unsolvable)."""

import sys

import _contract


def reject(message):
    print(f"ERROR: {message}")
    return 0


sys.exit(_contract.main(reject=reject))
