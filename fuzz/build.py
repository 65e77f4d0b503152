"""Sanitized builds: ``fuzz run --sanitize`` builds each C target with AddressSanitizer and
UndefinedBehaviorSanitizer itself, so a memory error the plain build hides becomes a finding
(``fuzz.sanitize`` reads the reports).

A target's **folder** is the folder of its program (``./alice/solve/sudoku`` -> ``./alice/solve``),
where the build runs. Its **root** is the folder the build needs: the folder itself, or the folder
above it that every ``../`` path of its Makefile (and of the files that Makefile includes, and of
the ``--build`` command) reaches: ``../common/board.c``, ``-I../common``, ``VPATH = ../common`` make
it ``./alice`` (``root_of``). A real submission builds from sibling folders, and a copy of the
program's folder alone did not build. The root is never above the folder the target is named from
(the run's working folder) nor ``/``, and holds at most MAX_FOLDER_BYTES. It is copied, with its
layout, into the run's ``build/N-ROOT/`` (without links, without the program itself and without
what git keeps) and built there, never in place: the student's own binary is not touched. The
build is the folder's Makefile, run in the folder's copy, with make's ``CC`` set to the compiler
and the sanitizer flags (``make -B CC='gcc FLAGS'``: every rule that compiles or links through
``$(CC)`` gets them whatever ``CFLAGS`` it sets, and ``-B`` remakes objects copied with the
sources), or the user's ``--build`` command, run by ``sh -c`` there with ``CC``, ``CFLAGS`` and
``LDFLAGS`` set. Either must leave the program at its place in the copy, linked with the sanitizer
runtime: a Makefile that calls ``gcc`` by name ignores ``CC``, and is told to use ``--build``. A
failed build leaves the last lines of its output in ``build.log`` at the top of the copy, and the
message names it.

A new run's directory does not exist while its targets are pre-flighted, so the builds are made in
a staging folder beside it (``stage``) and moved into it when it is made (``settle``); the targets
are named by their final paths from the start, and their pre-flight runs the staged programs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fuzz.sanitize import FLAGS

COMPILERS = ("gcc", "clang", "cc")  # tried in turn when CC is not set
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # make's own order
BUILD_TIMEOUT_S = 300.0
MAX_FOLDER_BYTES = 64 << 20  # a submission's folder past this is not sources
LOG_LINES = 60  # the build output kept in build.log
FOLDER = "build"  # in the run directory
_RUNTIME = (b"__asan_init", b"__ubsan_handle")  # symbols a sanitized program links


class BuildError(Exception):
    """A target that could not be built with the sanitizers: the message is one line, naming why."""


def compiler() -> str:
    """The C compiler: ``$CC`` when set, else the first of COMPILERS on PATH; BuildError if none."""
    chosen = os.environ.get("CC")
    if chosen:
        return chosen
    found = next((name for name in COMPILERS if shutil.which(name)), None)
    if found is None:
        raise BuildError(f"no C compiler on PATH ({', '.join(COMPILERS)}; or set CC): --sanitize builds C targets")
    return found


def build(program: Path, into: Path, *, command: str | None = None, log_shown: Path | None = None,
          moved_to: Path | None = None, root: Path | None = None) -> Path:
    """Build the folder of ``program`` with the sanitizers from a copy of its ``root`` (``root_of``
    when None) in ``into`` (made here); the built program. BuildError names what went wrong; a
    failed build's output tail is in ``into/build.log``, named in the message as ``log_shown`` (where
    it will be once moved; by default where it is). With ``moved_to`` (where ``into`` will be), the
    debug information names the sources there, so a sanitizer report's SUMMARY line names a file
    that exists after the move."""
    from sudoku.display import visible

    source = program.parent
    shown = visible(str(source), newlines=False)
    if not source.is_dir():
        raise BuildError(f"{shown} is not a folder to build")
    if command is None and not any((source / name).is_file() for name in MAKEFILES):
        raise BuildError(f"no Makefile in {shown}: give the build command with --build 'CMD'")
    root = root_of(program, command=command) if root is None else root
    here = Path(os.path.relpath(source, root))  # the program's folder in the copy
    cc = compiler()
    _copy(root, into, leave_out=here / program.name)
    log = into / "build.log"
    flags = FLAGS if moved_to is None else f"{FLAGS} -fdebug-prefix-map={shlex.quote(str(into))}={shlex.quote(str(moved_to))}"
    if command is None:
        argv, env, how = ["make", "-B", f"CC={cc} {flags}"], dict(os.environ), "make"
    else:
        argv, how = ["sh", "-c", command], "the --build command"
        env = dict(os.environ, CC=cc, CFLAGS=flags, LDFLAGS="-fsanitize=address,undefined")
    code, output = _run(argv, into / here, env)
    tail = b"\n".join(output.splitlines()[-LOG_LINES:]) + b"\n"
    log.write_bytes(f"$ {shlex.join(argv)}\n".encode() + tail)
    named = visible(str(log_shown or log), newlines=False)
    if code is None:
        raise BuildError(f"the sanitized build ({how}) took over {BUILD_TIMEOUT_S:g} s; its last lines are in {named}")
    if code:
        raise BuildError(f"the sanitized build failed ({how}, exit {code}); its last lines are in {named}")
    built = into / here / program.name
    if not built.is_file() or not os.access(built, os.X_OK):
        raise BuildError(f"the sanitized build ({how}) made no program {visible(program.name)}; its output is in {named}")
    if not _sanitized(built):
        fix = "its Makefile calls the compiler by name, not as $(CC): give --build 'CMD'" if command is None else \
            "the --build command must compile and link with $CC $CFLAGS and $LDFLAGS"
        raise BuildError(f"{visible(program.name)} was built without the sanitizers ({fix})")
    return built


def _copy(source: Path, into: Path, *, leave_out: Path) -> None:
    """``source`` into ``into``: regular files and folders only (no links, no .git), without the
    program ``leave_out`` (its path in ``source``); a folder past MAX_FOLDER_BYTES is refused."""
    total = 0
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d))]
        relative = Path(folder).relative_to(source)
        (into / relative).mkdir(parents=True, exist_ok=True)
        for name in files:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file() or relative / name == leave_out:
                continue
            total += path.stat().st_size
            if total > MAX_FOLDER_BYTES:
                raise BuildError(f"{source} holds over {MAX_FOLDER_BYTES >> 20} MiB: not a folder of sources to build")
            shutil.copyfile(path, into / relative / name)
            shutil.copymode(path, into / relative / name)


# A path a build names that leads out of the program's folder: '../common/board.c', '-I../common',
# 'VPATH = ../common:../lib', '$(wildcard ../common/*.c)' (up to the first pattern or variable)
_UP = re.compile(r"""(?:^|(?<=[\s=:;,'"(])|(?<=-[IL]))((?:\.\./)+[^\s:=;,'"()$*?\[\]\\]*)""", re.M)
_INCLUDE = re.compile(r"^[ \t]*-?s?include[ \t]+(.+)$", re.M)
MAX_MAKEFILE_BYTES = 1 << 20  # a Makefile (or a file it includes) past this is not read for paths
MAX_INCLUDES = 8


def root_of(program: Path, *, command: str | None = None, limit: Path | None = None) -> Path:
    """The folder a build of ``program``'s folder needs (see the module docstring): the deepest
    folder that holds the program's folder and every path its Makefile names with ``../`` (and the
    files that Makefile includes, and ``command``, the --build command, names), all taken from the
    program's folder, where make runs. BuildError when that is above ``limit`` (the folder the
    target is named from) or is ``/``."""
    from sudoku.display import visible

    folder = Path(os.path.abspath(program.parent))
    bound = Path(os.path.abspath(limit)) if limit is not None else None
    if bound is not None and not folder.is_relative_to(bound):  # named by a path from elsewhere: no bound but /
        bound = None
    texts = [("the --build command", command)] if command is not None else []
    root = folder
    for where, text in texts + _makefiles(folder):
        for path in _UP.findall(text):
            root = Path(os.path.commonpath([root, os.path.normpath(folder / path)]))
            if root == Path(root.anchor) or bound is not None and not root.is_relative_to(bound):
                above = "the top of the disk" if root == Path(root.anchor) else \
                    f"above {visible(str(bound), newlines=False)}, the folder the target is named from"
                raise BuildError(f"{where} reaches {visible(path, newlines=False)}, {above}: --sanitize copies "
                                 "the folder a build reaches (run fuzz from a folder that holds the whole submission)")
    return root


def _makefiles(folder: Path) -> list[tuple[str, str]]:
    """(name, text) of the Makefile make reads in ``folder`` (its order: MAKEFILES) and of the files
    it includes (plain names, no variables, at most MAX_INCLUDES, each at most MAX_MAKEFILE_BYTES),
    comments left out."""
    from sudoku.display import visible

    first = next((folder / name for name in MAKEFILES if (folder / name).is_file()), None)
    found: list[tuple[str, str]] = []
    todo, seen = ([first] if first else []), set[Path]()
    while todo and len(found) <= MAX_INCLUDES:
        path = todo.pop(0)
        if path in seen or path.is_symlink() or not path.is_file():  # never read through a link (nor copied)
            continue
        seen.add(path)
        try:
            if path.stat().st_size > MAX_MAKEFILE_BYTES:
                continue
            text = re.sub(r"(?<!\\)#.*", "", path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        found.append((visible(str(path), newlines=False), text))
        for line in _INCLUDE.findall(text):  # taken from make's folder, as make takes them
            todo += [Path(os.path.normpath(folder / name)) for name in line.split()
                     if not name.startswith("/") and not re.search(r"[$*?\[]", name)]
    return found


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int | None, bytes]:
    """Run a build in its own process group: (exit code or None on a time-out, output). The whole
    group is killed at the end, and so is every process marked with the build's own mark in its
    environment (``BUILD_MARK``): nothing a Makefile starts outlives its build, not even a daemon that
    made a session of its own (``setsid sh -c '... sleep 300' &``, a QA try)."""
    import secrets

    from fuzz.targets import kill_marked

    mark = f"{BUILD_MARK}={secrets.token_hex(8)}"
    env = {**env, BUILD_MARK: mark.partition("=")[2]}
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as error:
        raise BuildError(f"cannot run {argv[0]}: {error.strerror}") from None
    try:
        output, _ = proc.communicate(timeout=BUILD_TIMEOUT_S)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        output, code = proc.communicate()[0], None
    _kill_group(proc.pid)  # what the build left running
    kill_marked(mark.encode())
    return code, output


BUILD_MARK = "FUZZ_BUILD"  # the name of the mark a build's processes carry


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _sanitized(program: Path) -> bool:
    data = program.read_bytes()
    return any(symbol in data for symbol in _RUNTIME)


def stage(specs: Sequence[dict[str, Any]], out: Path, *, command: str | None
          ) -> tuple[Path, list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """Build every target of a new run (``out`` its directory, not yet made) in a staging folder
    beside it: (the staging folder, the specs naming the programs where they will be in
    ``out/build``, the same specs naming them where they are now, {spec: why} of those that could
    not be built, which keep their own spec). Specs that are not programs in a folder are a BuildError (engine, cli, 'python3
    x.py' have nothing to build)."""
    from fuzz.commands import split

    out = out.resolve()
    argvs = [split(spec["spec"], "--target") for spec in specs]
    for spec, argv in zip(specs, argvs):
        if spec["spec"] in ("engine", "cli") or spec["spec"].startswith("engine:") or not argv or os.sep not in argv[0]:
            raise BuildError(f"--sanitize builds a C program from its folder; target {spec['spec']!r} is not a "
                             "path to one (give it as ./folder/program)")
    staging = out.parent / f".{out.name}.{FOLDER}.{os.getpid()}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    final: list[dict[str, Any]] = []
    staged: list[dict[str, Any]] = []
    failed: dict[str, str] = {}
    for number, (spec, argv) in enumerate(zip(specs, argvs), 1):
        base = Path(spec.get("base") or os.getcwd())
        program = Path(os.path.abspath(base / argv[0]))
        try:
            root = root_of(program, command=command, limit=base)
        except BuildError as error:  # the target keeps its own name: there is no build to name
            final.append(dict(spec))
            staged.append(dict(spec))
            failed[spec["spec"]] = str(error)
            continue
        name = f"{number}-{_slug(root.name)}"
        inside = program.relative_to(root)
        final.append({**spec, "spec": shlex.join([str(out / FOLDER / name / inside), *argv[1:]])})
        staged.append({**spec, "spec": shlex.join([str(staging / name / inside), *argv[1:]])})
        try:
            build(program, staging / name, command=command, log_shown=out / FOLDER / name / "build.log",
                  moved_to=out / FOLDER / name, root=root)
        except BuildError as error:
            final[-1] = dict(spec)
            failed[spec["spec"]] = str(error)
    return staging, final, staged, failed


def settle(staging: Path, run: Path) -> None:
    """Move the staged builds into the run directory ``run`` (now made) as ``run/build``."""
    os.replace(staging, run / FOLDER)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:40] or "target"
