#!/usr/bin/env python3
"""A correct `sudoku` program that is sometimes slow: a quarter of its calls compute for FAKE_SLOW_S
seconds of CPU (default 0.6) first, as a randomised search does. Under `--timeout 1` that is more
than half the limit and less than all of it: `slow` notes, never a failure, however loaded the
machine."""

import os
import random
import sys

import _contract

if random.random() < 0.25:
    _contract.burn(float(os.environ.get("FAKE_SLOW_S", "0.6")))
sys.exit(_contract.main())
