"""The corpus: saved reproducers, one folder each, replayable against any target.

Layout: ``CORPUS/<oracle>/<digest>/`` holding ``input.txt`` (the exact bytes for stdin) and
``case.json`` (family, command, oracle, target, the command line, expected and actual behaviour).
Writes are atomic (a temporary folder renamed into place), so a crash never leaves half a case.
"""

import hashlib
import json
import os
import shlex
import shutil
from pathlib import Path

MAX_SHOWN = 4000


def _shown(data):
    text = data.decode("utf-8", "backslashreplace")
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"... ({len(text)} characters)"


def expected_of(case):
    if case.command == "create":
        return "a unique puzzle with at least 40 blanks, different on each run, exit 0"
    if case.count is None:
        return "rejected: non-zero exit, nothing on stdout, a message on stderr (malformed input)"
    if case.count == 0:
        return "rejected: non-zero exit, nothing on stdout, a message on stderr (no solution)"
    if case.count == 1:
        return "exit 0 and the unique solution:\n" + _grid_text(case.solution)
    return "exit 0 and any one of its several solutions, keeping every given"


def _grid_text(grid):
    from sudoku import render

    return render(grid, "grid")


def save(corpus, case, oracle, detail, target, result, *, seed=None, index=None):
    """Save one reproducer (idempotent: the same input for the same oracle is one folder)."""
    digest = hashlib.sha256(case.command.encode() + b"\0" + case.text).hexdigest()[:12]
    final = Path(corpus) / oracle / digest
    if final.exists():
        return final
    argv = getattr(target, "argv", None)
    args = getattr(target, "create_args" if case.command == "create" else "solve_args", [case.command])
    command = (shlex.join(argv + args) if argv else f"sudoku {case.command}") + (
        " < input.txt" if case.command == "solve" else "")
    meta = {
        "oracle": oracle, "detail": detail, "family": case.family, "command": case.command,
        "target": target.name, "run": command, "seed": seed, "case": index,
        "expected": expected_of(case),
        "actual": {"exit_code": result.exit_code, "seconds": round(result.seconds, 4), "timed_out": result.timed_out,
                   "stdout": _shown(result.stdout), "stderr": _shown(result.stderr)},
    }
    temporary = final.parent / f".{digest}.{os.getpid()}.tmp"
    if temporary.exists():
        shutil.rmtree(temporary)
    temporary.mkdir(parents=True)
    (temporary / "input.txt").write_bytes(case.text)
    (temporary / "case.json").write_text(json.dumps(meta, indent=2) + "\n")
    try:
        os.rename(temporary, final)
    except OSError:  # another process saved the same reproducer first
        shutil.rmtree(temporary, ignore_errors=True)
    return final


def load(corpus):
    """Every saved reproducer under ``corpus``: (folder, meta, input bytes), in a stable order."""
    root = Path(corpus)
    out = []
    for meta_path in sorted(root.glob("*/*/case.json")):
        folder = meta_path.parent
        if folder.name.startswith("."):
            continue
        try:
            meta = json.loads(meta_path.read_text())
            data = (folder / "input.txt").read_bytes()
        except (OSError, ValueError):
            continue
        out.append((folder, meta, data))
    return out
