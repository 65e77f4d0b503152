#!/usr/bin/env python3
"""Never starts: a student's half-edited file, a Python SyntaxError on line 3 (`fuzz` must call it "cannot start", and the grade 0)."""
def solve(grid:
    return grid


if __name__ == "__main__":
    solve(None)
