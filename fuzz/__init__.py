"""fuzz: a harness that tests programs against the `sudoku` create/solve contract.

Vocabulary:

- **target**: the program under test, behind one adapter (``fuzz.targets``): our engines in-process,
  our ``sudoku`` command, or any external command. A target is asked to ``create`` or to ``solve``
  a text, and answers with a **result** (exit code, stdout, stderr, time, timed out?).
- **case**: one question to a target, made from a **family** (``fuzz.cases``: unique puzzles,
  several solutions, no solution, clashes, malformed text, ...) and a seed; it carries what a right
  answer looks like.
- **oracle**: a named check of a result against its case (``fuzz.oracles``); a **failure** is a case
  with at least one failed oracle. Output **format slips** (headers, separators, spacing) are noted
  apart and fail only with ``--strict``.
- **reference**: a trusted program (``--reference``, ``fuzz.reference``) whose answers stand in for
  our engine's as the expected ones; a case it fails on is not compared. With several targets the
  **differential check** (``oracles.differ``) names a target whose grid for a puzzle with one
  solution differs from the others' and from the expected one.
- **reproducer**: a failure shrunk to a minimal case (``fuzz.shrink``) and saved to a **corpus**
  (``fuzz.corpus``), which later runs replay first.

Runs go through ``jobs``: the same run directory, manifest and record schema.
"""

__version__ = "0.1.0"
