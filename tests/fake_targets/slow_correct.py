#!/usr/bin/env python3
"""A correct `sudoku` program that is sometimes slow: a quarter of its calls sleep FAKE_SLOW_S
seconds (default 1.5) first, as a program on a loaded machine or with a randomised search does.
Past `--timeout 1` it answers on the longer second try: `slow` notes, never a failure."""

import os
import random
import sys
import time

import _contract

if random.random() < 0.25:
    time.sleep(float(os.environ.get("FAKE_SLOW_S", "1.5")))
sys.exit(_contract.main())
