#!/usr/bin/env python3
"""Planted bug: `create` always uses seed 7, so every run prints the same puzzle (oracle create_random)."""

import sys

import _contract

sys.exit(_contract.main(create=lambda: _contract.new_puzzle(seed=7)))
