#!/usr/bin/env python3
"""Planted bug: every solve fails with hostile text on stderr (NUL, ESC, HTML, a pipe, bytes that are
not UTF-8) and exit 1; refusals print the same text on stdout with exit 0. The oracles quote that
text in their details, so every report must show it escaped: JUnit XML that parses, Markdown with no
raw HTML, a terminal with no raw control byte."""

import sys

import _contract

HOSTILE = b"\x00\x1b[31m<script>alert(1)</script>|<img src=x onerror=alert(2)>\xff\xfe`` |\x07\n"


def show(grid, command):
    if command == "create":
        return _contract.show(grid, command)
    sys.stderr.buffer.write(HOSTILE)
    sys.stderr.buffer.flush()
    sys.exit(1)


def reject(message):
    sys.stdout.buffer.write(HOSTILE)
    return 0


sys.exit(_contract.main(show=show, reject=reject))
