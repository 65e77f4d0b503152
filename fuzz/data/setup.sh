#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu), from the folder
# the zip was unpacked in (/autograder/source). It installs what grading needs: a Python 3.11 or newer,
# make and a C compiler for C submissions, and the toolkit, from the wheel in this zip, into a venv of
# its own (its dependencies come from PyPI, at the versions in constraints.txt when the zip has one).
# Written by `fuzz autograder`; AUTOGRADER_ROOT moves /autograder (to try the zip anywhere).
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
source="$root/source"
venv="$root/fuzz-venv"

python_of() {  # the first Python 3.11+ on PATH
    for name in python3.13 python3.12 python3.11 python3; do
        if command -v "$name" > /dev/null &&
           "$name" -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2> /dev/null; then
            command -v "$name"; return 0
        fi
    done
    return 1
}

wanted=()
python=$(python_of) || wanted+=(python3.11 python3.11-venv)
command -v make > /dev/null || wanted+=(make)
command -v gcc > /dev/null || command -v cc > /dev/null || wanted+=(gcc)
if [ ${#wanted[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get > /dev/null; then
        echo "setup.sh: needs ${wanted[*]}, and can install them only as root with apt-get" >&2
        [ -n "${python:-}" ] || exit 1
    else
        apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${wanted[@]}"
        python=$(python_of) || { echo "setup.sh: no Python 3.11 or newer after apt-get install" >&2; exit 1; }
    fi
fi

"$python" -m venv "$venv"
constraints=()
[ -f "$source/constraints.txt" ] && constraints=(-c "$source/constraints.txt")
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${constraints[@]}" "$source"/*.whl
# A two-case run against our own engine: it checks the install, and compiles the numba kernels into the
# image's cache, so that no submission pays the minutes that takes.
check=$(mktemp -d)
"$venv/bin/python" -P -m fuzz run -n 2 --seed 1 --target engine --workers 1 --no-progress \
    --out "$check/run" --corpus "$check/corpus" > "$check/log" 2>&1 || { cat "$check/log" >&2; exit 1; }
rm -rf "$check"
"$venv/bin/python" -P -m fuzz --version
