#!/usr/bin/env python3
"""Planted bugs, two slips of one reader (as a QA try's Perl program had): a letter is read as a blank,
and lines after the ninth row are dropped; both solve the text as a puzzle, exit 0 (oracle
rejects_malformed). ``LENIENT_FIXED=letter`` (or ``rows``) mends one, as a student's partial fix."""

import os
import re
import sys

import _contract


def solve(data):
    fixed = os.environ.get("LENIENT_FIXED", "")
    text = data.decode("utf-8", "replace")
    rows = [line.split() for line in text.splitlines() if line.strip()]
    if fixed != "rows":
        rows = rows[:9]
    if fixed != "letter":
        rows = [["0" if re.fullmatch(r"[A-Za-z]", token) else token for token in row] for row in rows]
    return _contract.solve(("\n".join(" ".join(row) for row in rows) + "\n").encode())


sys.exit(_contract.main(solve=solve))
