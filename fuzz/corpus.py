"""The corpus: saved reproducers, one folder per distinct bug, replayable against any target.

Layout (``OWNED_FILES``): ``CORPUS/<target key>/<oracle>/<group id>/`` holding ``input.txt`` (the exact bytes for
stdin; empty for a create), ``output.txt`` (the target's stdout when it failed, verbatim) and
``case.json`` (signature, family, command, target, the command line that shows the bug by hand,
the ``fuzz replay`` line that re-checks it, expected and actual behaviour, how many cases of the run
had this bug, and how its replays went). The target key keeps reproducers of different programs
apart (by the program's full path), so a run replays only its own target's. Writes are atomic (a temporary folder renamed into
place), so a crash never leaves half a case.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
from collections import namedtuple
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sudoku.files import check_inside, make_folders, write_file
from sudoku.grid import MADE_SIDES

from fuzz.cases import MAX_INPUT

if TYPE_CHECKING:
    from sudoku import Grid

    from fuzz.cases import Case
    from fuzz.targets import Result, Target

MAX_SHOWN = 4000
# The names this layout writes, relative to a corpus (regular expressions, verbose): a run directory's
# own corpus is owned by the run, so ``--force`` may replace it (``jobs.task.Task.files``).
_FOLDER = r"[^/]+/[a-z_]+/(?:[0-9a-f]{12}|\.[0-9a-f]{12}\.\d+\.(?:tmp|old))"
_SAMPLE = r"(?:/also-[a-z0-9_]+|/\.also-[a-z0-9_]+\.\d+\.tmp)?"  # other kinds of text saved beside a reproducer
OWNED_FILES = rf"{_FOLDER}{_SAMPLE}/(?:\.?(?:input\.txt|output\.txt|case\.json)(?:\.\d+\.tmp)?)"
OWNED_DIRS = rf"[^/]+|[^/]+/[a-z_]+|{_FOLDER}{_SAMPLE}"


def _shown(data: bytes) -> str:
    text = data.decode("utf-8", "backslashreplace")
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"... ({len(text)} characters)"


def target_key(target: Target) -> str:
    """A folder name for a target: readable (its program's folder and name, as a class's feedback
    folders and summary lines name it: ``./alice/sudoku`` is ``alice-sudoku``, by
    ``sudoku.display.path_slug``), and unique to its program, arguments and format (a short hash
    of them follows: ``alice-sudoku-6f7ef792``).

    A program is known by its full path (``make_target`` resolves the paths in a command), not by the
    command as typed: two programs both run as ``./sudoku`` from their own folders are two targets,
    and one program typed two ways is one. Our own targets (``engine``, ``cli``) are known by name."""
    from sudoku.display import path_slug

    if not hasattr(target, "argv"):
        return target.name.replace(":", "-")
    if target.name == "cli":  # python -m sudoku, from wherever this harness runs
        return _key(target, "cli", "sudoku")
    return _key(target, target.argv, path_slug(_program_path(target)))


def _program_path(target: Any) -> str:
    """The program a target runs, by its full path: the script an interpreter runs (node sudoku.js,
    java Sudoku.java: the last path in the command), else the program."""
    argv: list[str] = target.argv
    return next((arg for arg in reversed(argv[1:]) if os.path.isabs(arg)), argv[0])


def target_keys(target: Target) -> list[str]:
    """The folders a target's reproducers are under in a corpus: ``target_key``, then the one a
    corpus made before 2026-12 used for the same program (the file name of the script or program
    alone, ``sudoku-6f7ef792``: the same hash, so the same program, arguments and format) when that
    differs."""
    keys = [target_key(target)]
    if hasattr(target, "argv") and target.name != "cli":
        keys.append(_key(target, target.argv, _file_slug(_program_path(target))))
    return list(dict.fromkeys(keys))


def legacy_key(target: Target) -> str | None:
    """The folder a corpus made before 2026-11-28 used for ``target`` (keyed by the command as typed,
    so programs run as ``./sudoku`` from different folders shared one), or None where it is the same."""
    if not hasattr(target, "argv"):
        return None
    argv = target.argv
    named = argv[-1] if Path(argv[0]).name.startswith("python") and len(argv) > 1 else argv[0]
    old = _key(target, target.name, _file_slug(named))
    return None if old in target_keys(target) else old


def _file_slug(path: str) -> str:
    """A path's file name made safe, as corpora before 2026-12 named a target's folder."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(path).name).strip("-.")[:40]


def _key(target: Any, identity: Any, slug: str) -> str:
    """``slug`` (or 'target') and a short hash of the target's identity."""
    text = json.dumps([identity, target.create_args, target.solve_args, target.header])
    return f"{slug or 'target'}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def group_id(signature: str) -> str:
    return hashlib.sha256(signature.encode()).hexdigest()[:12]


def expected_of(case: Case) -> str:
    if case.command == "create":
        return "a unique puzzle with enough blanks (40 at 9x9), a different one on each call, exit 0"
    if case.count is None:
        return "rejected: non-zero exit, no answer on stdout, a message on stderr (malformed input)"
    if case.count == 0:
        return "rejected: non-zero exit, no answer on stdout, a message on stderr (no solution)"
    if case.count == 1:
        return "exit 0 and the unique solution:\n" + _grid_text(case.solution)
    return "exit 0 and any one of its several solutions, keeping every given"


def _grid_text(grid: Grid) -> str:
    from sudoku import render

    return render(grid, "grid")


def command_line(target: Target, case: Case) -> str:
    """The shell line that shows the case to a person (run in the reproducer's folder)."""
    argv = getattr(target, "argv", None)
    args = getattr(target, "create_args" if case.command == "create" else "solve_args", [case.command])
    command = shlex.join(argv + args) if argv else f"sudoku {case.command}"
    return command + (" < input.txt" if case.command == "solve" else "")


def folder_for(corpus: str | os.PathLike[str], target: Target, oracle: str, signature: str) -> Path:
    """Where a group's reproducer lives in ``corpus``."""
    return Path(corpus) / target_key(target) / oracle / group_id(signature)


def save(corpus: str | os.PathLike[str], case: Case, *, signature: str, oracle: str, detail: str, target: Target,
         result: Result, extra: dict[str, Any] | None = None, folder: Path | None = None) -> Path:
    """Save one group's reproducer; an existing folder for the same group is kept (the first saved),
    unless it is the replay phase's copy (``replayed_from``: it failed once more, unconfirmed and
    uncounted), which a triaged reproducer replaces. ``folder``: where, when not the group's own folder
    (a sample saved beside its reproducer)."""
    final = folder or folder_for(corpus, target, oracle, signature)
    make_folders(final.parent, within=corpus)  # first: nothing looked at, read or written through a link
    check_inside(final, corpus)
    replacing = final.exists() and "replayed_from" not in (extra or {}) and _is_replay_copy(final)
    if final.exists() and not replacing:
        return final
    meta = {
        "oracle": oracle, "signature": signature, "detail": detail, "family": case.family, "side": case.side,
        "command": case.command, "target": target.name, "target_key": target_key(target),
        "run": command_line(target, case), "expected": expected_of(case),
        "actual": actual_of(result),
        **(extra or {}),
    }
    temporary = final.parent / f".{final.name}.{os.getpid()}.tmp"
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        temporary.mkdir()
        for name, data in (("input.txt", case.text), ("output.txt", result.stdout),
                           ("case.json", json.dumps(meta, indent=2) + "\n")):
            write_file(temporary / name, data, within=corpus)
    except BaseException:  # disk full, a stop: no half-made reproducer is left behind
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    if replacing:  # the copy moved aside, then the new one renamed into its place
        aside = final.parent / f".{final.name}.{os.getpid()}.old"
        shutil.rmtree(aside, ignore_errors=True)
        os.rename(final, aside)
        shutil.rmtree(aside, ignore_errors=True)
    try:
        os.rename(temporary, final)
    except OSError:  # another process saved the same group first
        shutil.rmtree(temporary, ignore_errors=True)
    return final


def _is_replay_copy(folder: Path) -> bool:
    """Whether ``folder`` holds a reproducer the replay phase copied into a run's corpus."""
    try:
        meta = json.loads(_read(folder / "case.json"))
    except (BadEntry, ValueError):
        return False
    return isinstance(meta, dict) and "replayed_from" in meta


def actual_of(result: Result) -> dict[str, Any]:
    """What a target did, for people and reports: exit code and how the call ended in words
    (``ended``: a hang is fuzz's own kill, not the program's exit -9), output (cut for display), wall
    and CPU seconds, and whether it was stopped as a hang."""
    from fuzz.oracles import ending

    return {"exit_code": result.exit_code, "ended": ending(result), "wall_s": round(result.seconds, 4),
            "cpu_s": round(result.cpu_seconds, 4), "timed_out": result.timed_out,
            "stdout": _shown(result.stdout), "stderr": _shown(result.stderr)}


def _write_meta(folder: Path, meta: dict[str, Any]) -> None:
    """case.json replaced atomically (a temporary file renamed over it)."""
    write_file(folder / "case.json", json.dumps(meta, indent=2) + "\n")


def merge(folder: str | os.PathLike[str], *, signature: str, cases: int, families: list[str]) -> None:
    """Record in a saved reproducer that another group's failure is the same bug (its shrunk input is
    the same bytes): its signature joins ``also``, and the counts and families are the merged ones."""
    try:
        meta = json.loads(_read(Path(folder) / "case.json"))
    except ValueError:  # BadEntry (a link, a FIFO, a folder) or not JSON
        return
    if not isinstance(meta, dict):
        return
    if signature != meta.get("signature") and signature not in meta.setdefault("also", []):
        meta["also"].append(signature)
    meta["cases"], meta["families"] = cases, families
    _write_meta(Path(folder), meta)


def saved_groups(corpus: str | os.PathLike[str], target: Target) -> dict[str, tuple[Path, dict[str, Any], bytes]]:
    """{signature: (folder, meta, input bytes)} of the groups of ``target`` saved in ``corpus``, the
    signatures merged into a reproducer included (what an interrupted triage finished)."""
    found: dict[str, tuple[Path, dict[str, Any], bytes]] = {}
    for folder, meta, data in load_own(corpus, target).entries:
        if "sample_of" in meta or "slow_of" in meta:  # saved beside a group's reproducer: not the group's
            continue
        for signature in [meta.get("signature"), *(meta.get("also") or [])]:
            if isinstance(signature, str):
                found[signature] = (folder, meta, data)
    return found


def load_own(corpus: str | os.PathLike[str], target: Target) -> Loaded:
    """``load`` of the reproducers ``corpus`` keeps of ``target``: under each of its ``target_keys``
    that is there (an older corpus named the same program's folder by its file name alone)."""
    from sudoku.files import real_folder

    found, strange = [], []
    for folder in (Path(corpus) / key for key in target_keys(target)):
        if (why := real_folder(folder)) is not None:  # a link is not followed: another corpus, or anything
            strange.append((folder, why))
        elif folder.is_dir():
            found.append(load(folder))
    return Loaded([entry for one in found for entry in one.entries],
                  strange + [bad for one in found for bad in one.skipped])


Loaded = namedtuple("Loaded", "entries skipped")
Loaded.__doc__ = """What ``load`` found: ``entries`` [(folder, meta, input bytes)] that passed every check, and
``skipped`` [(folder or file, why)] for those that did not, for the caller to name one line each."""

MAX_FILE = MAX_INPUT  # bytes of case.json or input.txt read: as large as any input a case gives, so every
# reproducer saved is read back (a hang saved unshrunk as a 1 MiB line was one byte over, and refused)
MAX_DEPTH = 16  # case.json nests 2 deep
SIDES = MADE_SIDES
COMMANDS = ("solve", "create", "check")


def load(path: str | os.PathLike[str]) -> Loaded:
    """Every reproducer at or under ``path`` (a corpus, a target's or an oracle's folder, one
    reproducer, or a run directory), in a stable order: a Loaded.

    A corpus may come from anyone (shared, downloaded, hand-edited), so each entry is checked before
    it is replayed: files read only up to MAX_FILE, case.json parsed with a depth cap and no NaN,
    each field used of the right type and range. No symbolic link inside the corpus is followed (a
    linked input.txt could hand a program any file the user can read). Hidden folders (temporaries)
    are passed over silently; every other bad entry is skipped with why."""
    root = Path(path)
    entries: list[tuple[Path, dict[str, Any], bytes]] = []
    skipped: list[tuple[Path, str]] = []
    if not root.is_dir():
        return Loaded(entries, skipped)
    for folder, names, files in _walk(root, skipped):
        skipped += [(folder / name, "a file where a reproducer's folder goes") for name in sorted(files)
                    if _ENTRY.fullmatch(name)]
        if "case.json" not in files:
            if "case.json" in names:  # a folder where case.json should be: said, not passed over
                names.remove("case.json")
                skipped.append((folder, "case.json: a folder, not a regular file"))
            continue
        try:
            meta = _meta(_read(folder / "case.json"))
            data = _read(folder / "input.txt")
        except BadEntry as error:
            skipped.append((folder, str(error)))
            continue
        entries.append((folder, meta, data))
    return Loaded(entries, skipped)


_ENTRY = re.compile(r"[0-9a-f]{12}|also-[a-z0-9_]+")  # the names of a reproducer's folder and its samples


class BadEntry(ValueError):
    """A corpus entry that is not replayed; the message says why."""


def _walk(root: Path, skipped: list[tuple[Path, str]]) -> Iterator[tuple[Path, list[str], set[str]]]:
    """(folder, subfolders, files) under ``root`` in sorted order, hidden folders left out; a
    symbolic link to a folder is not entered but noted in ``skipped``."""
    for folder, dirs, files in os.walk(root, followlinks=False, onerror=lambda error: skipped.append(
            (Path(error.filename or root), f"cannot read: {error.strerror}"))):
        top = Path(folder)
        dirs.sort()
        for name in list(dirs):
            if name.startswith(".") or os.path.islink(top / name):
                dirs.remove(name)
                if not name.startswith("."):
                    skipped.append((top / name, "a symbolic link, not followed"))
        yield top, dirs, set(files)


def _read(path: Path) -> bytes:
    """A corpus file's bytes: a regular file, not a link, at most MAX_FILE bytes (``sudoku.files``: a FIFO
    planted in a corpus cannot hang the replay); BadEntry naming the file else."""
    from sudoku.files import NotReadable, read_small

    try:
        return read_small(path, MAX_FILE)
    except NotReadable as error:
        raise BadEntry(f"{path.name}: {error}") from None


def _meta(data: bytes) -> dict[str, Any]:
    """case.json's object, once the fields replay uses are checked (BadEntry names the first bad one)."""
    from sudoku.untrusted import BadJSON, loads

    from fuzz.cases import CHECK_FAMILIES, FAMILIES

    try:
        meta = loads(data, max_depth=MAX_DEPTH)
    except BadJSON as error:
        raise BadEntry(f"case.json: {error}") from None
    if not isinstance(meta, dict):
        raise BadEntry("case.json: not a JSON object")
    checks: dict[str, tuple[Callable[[Any], bool], str]]
    checks = {"command": (lambda v: v in COMMANDS, "one of " + ", ".join(COMMANDS)),
              "side": (lambda v: type(v) is int and v in SIDES, "one of 4, 9, 16, 25"),
              "family": (lambda v: isinstance(v, str) and v in (*FAMILIES, *CHECK_FAMILIES, "replay"), "a known family"),
              "signature": (lambda v: isinstance(v, str), "a string"),
              "target_key": (lambda v: isinstance(v, str), "a string")}
    if "command" not in meta:
        raise BadEntry("case.json: no command")
    for name, (good, what) in checks.items():
        if name in meta and not good(meta[name]):
            raise BadEntry(f"case.json: {name} must be {what}, not {_short(meta[name])}")
    return meta


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
