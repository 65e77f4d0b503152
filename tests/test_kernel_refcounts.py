"""No reference counting in the compiled engines' search loops (issue 28: numba's NRT_incref and
NRT_decref, at every call that takes an array, were half of a ``big`` node and 8-14 % of an ``nb``
one; the kernels pass raw pointers instead). Read from the optimised LLVM IR of a fresh compile by
``bench/nrt_sites.py --json``: every function below the search's entry has none, and the entry only
one increment per array it is given."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENTRY = {"nb": "_search", "band": "_search", "big": "run"}
ARRAYS = {"nb": 4, "band": 4, "big": 6}  # the arrays the entry is given (stack, meta, ...)


@pytest.mark.parametrize("engine", sorted(ENTRY))
def test_the_search_loop_counts_no_references(engine):
    done = subprocess.run([sys.executable, str(REPO / "bench" / "nrt_sites.py"), "--engine", engine, "--json"],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    functions = {name: calls for kernel in found.values() for name, calls in kernel.items()}
    assert ENTRY[engine] in functions and len(functions) >= 2, functions  # the IR was read, not skipped
    below = {name: calls for name, calls in functions.items() if name != ENTRY[engine] and calls}
    assert below == {}, f"{engine}: reference counting below {ENTRY[engine]}: {below}"
    assert functions[ENTRY[engine]].get("NRT_incref", 0) <= ARRAYS[engine], functions[ENTRY[engine]]
