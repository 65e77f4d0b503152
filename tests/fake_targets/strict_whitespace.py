#!/usr/bin/env python3
"""A correct `sudoku` program with a strict reader: CRLF, tabs, double or trailing spaces and a
missing final newline are refused cleanly (exit 1, a message on stderr, nothing on stdout). The
classic contract never promises those spellings: no failure, only `strict_input` notes."""

import sys

import _contract


def solve(data):
    lines = data.split(b"\n")
    if b"\r" in data or b"\t" in data or b"  " in data or any(line.endswith(b" ") for line in lines):
        raise _contract.Rejected("only single spaces between numbers, and LF line ends, please")
    if data and not data.endswith(b"\n"):
        raise _contract.Rejected("the last line has no newline")
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))
