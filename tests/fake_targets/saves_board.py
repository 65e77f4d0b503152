#!/usr/bin/env python3
"""Planted bug: solve saves its board to ``board.out`` in its working folder and never checks the
open: where the folder cannot be written it dies of SIGSEGV, as C's ``fclose(NULL)`` does (oracle
no_crash, family unwritable_folder). Everything else is right."""

import os
import signal
import sys

import _contract


def solve(data):
    solution = _contract.solve(data)
    try:
        with open("board.out", "w") as board:
            board.write(str(solution.cells))
    except OSError:
        os.kill(os.getpid(), signal.SIGSEGV)
    return solution


sys.exit(_contract.main(solve=solve))
