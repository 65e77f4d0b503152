#!/usr/bin/env python3
"""Never starts: a stub that prints its usage and exits 2 on every call, `create` and `solve` alike
(nothing was written past the argument check). It "rejects" every bad input cleanly, so a grader
that does not first ask it a known-good puzzle would give it the points for rejecting bad input;
`fuzz` must call it "cannot start", and the grade 0."""

import sys

if __name__ == "__main__":
    print("Usage: ./sudoku create|solve", file=sys.stderr)
    sys.exit(2)
