#!/usr/bin/env bash
# Gradescope runs this for each submission (from /autograder, the submission in /autograder/submission):
# it grades the submission with the toolkit setup.sh installed (python -m fuzz.autograder: build, fuzz,
# results.json in /autograder/results). Written by `fuzz autograder`; AUTOGRADER_ROOT moves
# /autograder, AUTOGRADER_PYTHON names a Python that has the toolkit already (setup.sh not run).
set -u
root="${AUTOGRADER_ROOT:-/autograder}"
python="${AUTOGRADER_PYTHON:-$root/fuzz-venv/bin/python}"
export AUTOGRADER_ROOT="$root"
exec "$python" -P -m fuzz.autograder  # -P: nothing in the working folder stands in for the toolkit
