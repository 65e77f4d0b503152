"""Sanitized builds: ``fuzz run --sanitize`` builds each C target with AddressSanitizer and
UndefinedBehaviorSanitizer itself, so a memory error the plain build hides becomes a finding
(``fuzz.sanitize`` reads the reports).

A target's **folder** is the folder of its program (``./alice/sudoku`` -> ``./alice``). It is copied
into the run's ``build/N-NAME/`` (without links, without the program itself and without what git
keeps) and built there, never in place: the student's own binary is not touched. The build is the
folder's Makefile with make's ``CC`` set to the compiler and the sanitizer flags (``make -B CC='gcc
FLAGS'``: every rule that compiles or links through ``$(CC)`` gets them whatever ``CFLAGS`` it sets,
and ``-B`` remakes objects copied with the sources), or the user's ``--build`` command, run by
``sh -c`` in the copy with ``CC``, ``CFLAGS`` and ``LDFLAGS`` set. Either must leave the program at
its place in the copy, linked with the sanitizer runtime: a Makefile that calls ``gcc`` by name
ignores ``CC``, and is told to use ``--build``. A failed build leaves the last lines of its output
in ``build.log`` beside the copy, and the message names it.

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
          moved_to: Path | None = None) -> Path:
    """Build the folder of ``program`` with the sanitizers in ``into`` (made here); the built program.
    BuildError names what went wrong; a failed build's output tail is in ``into/build.log``, named
    in the message as ``log_shown`` (where it will be once moved; by default where it is). With
    ``moved_to`` (where ``into`` will be), the debug information names the sources there, so a
    sanitizer report's SUMMARY line names a file that exists after the move."""
    from sudoku.display import visible

    source = program.parent
    shown = visible(str(source), newlines=False)
    if not source.is_dir():
        raise BuildError(f"{shown} is not a folder to build")
    if command is None and not any((source / name).is_file() for name in MAKEFILES):
        raise BuildError(f"no Makefile in {shown}: give the build command with --build 'CMD'")
    cc = compiler()
    _copy(source, into, leave_out=program.name)
    log = into / "build.log"
    flags = FLAGS if moved_to is None else f"{FLAGS} -fdebug-prefix-map={shlex.quote(str(into))}={shlex.quote(str(moved_to))}"
    if command is None:
        argv, env, how = ["make", "-B", f"CC={cc} {flags}"], dict(os.environ), "make"
    else:
        argv, how = ["sh", "-c", command], "the --build command"
        env = dict(os.environ, CC=cc, CFLAGS=flags, LDFLAGS="-fsanitize=address,undefined")
    code, output = _run(argv, into, env)
    tail = b"\n".join(output.splitlines()[-LOG_LINES:]) + b"\n"
    log.write_bytes(f"$ {shlex.join(argv)}\n".encode() + tail)
    named = visible(str(log_shown or log), newlines=False)
    if code is None:
        raise BuildError(f"the sanitized build ({how}) took over {BUILD_TIMEOUT_S:g} s; its last lines are in {named}")
    if code:
        raise BuildError(f"the sanitized build failed ({how}, exit {code}); its last lines are in {named}")
    built = into / program.name
    if not built.is_file() or not os.access(built, os.X_OK):
        raise BuildError(f"the sanitized build ({how}) made no program {visible(program.name)}; its output is in {named}")
    if not _sanitized(built):
        fix = "its Makefile calls the compiler by name, not as $(CC): give --build 'CMD'" if command is None else \
            "the --build command must compile and link with $CC $CFLAGS and $LDFLAGS"
        raise BuildError(f"{visible(program.name)} was built without the sanitizers ({fix})")
    return built


def _copy(source: Path, into: Path, *, leave_out: str) -> None:
    """``source`` into ``into``: regular files and folders only (no links, no .git), without the
    program ``leave_out``; a folder past MAX_FOLDER_BYTES is refused."""
    total = 0
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d))]
        relative = Path(folder).relative_to(source)
        (into / relative).mkdir(parents=True, exist_ok=True)
        for name in files:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file() or (relative == Path(".") and name == leave_out):
                continue
            total += path.stat().st_size
            if total > MAX_FOLDER_BYTES:
                raise BuildError(f"{source} holds over {MAX_FOLDER_BYTES >> 20} MiB: not a folder of sources to build")
            shutil.copyfile(path, into / relative / name)
            shutil.copymode(path, into / relative / name)


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
        program = Path(argv[0]).absolute()
        name = f"{number}-{_slug(program.parent.name)}"
        final.append({**spec, "spec": shlex.join([str(out / FOLDER / name / program.name), *argv[1:]])})
        staged.append({**spec, "spec": shlex.join([str(staging / name / program.name), *argv[1:]])})
        try:
            build(program, staging / name, command=command, log_shown=out / FOLDER / name / "build.log",
                  moved_to=out / FOLDER / name)
        except BuildError as error:  # the target keeps its own name: there is no build to name
            final[-1] = dict(spec)
            failed[spec["spec"]] = str(error)
    return staging, final, staged, failed


def settle(staging: Path, run: Path) -> None:
    """Move the staged builds into the run directory ``run`` (now made) as ``run/build``."""
    os.replace(staging, run / FOLDER)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:40] or "target"
