#!/usr/bin/env python3
"""A correct `sudoku` program that leaves a daemon behind on every call: a grandchild in a session
of its own (double fork and setsid), holding stdout and stderr open, asleep for a minute. A
harness that only kills the process group leaves it running, and waits on its open pipes."""

import os
import sys
import time

import _contract

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
sys.exit(_contract.main())
